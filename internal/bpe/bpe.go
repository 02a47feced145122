// Package bpe counts tokens as a Hugging Face byte-level BPE tokenizer (tokenizer.json, the
// format Qwen, Llama 3 and GPT-2 style models ship) would: added tokens, NFC, the Split
// pre-tokenizer's regex, the byte-to-unicode map and ranked merges. It encodes only; what
// it does not implement (other models, normalizers or pre-tokenizers) is refused at Load.
package bpe

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ErrNotImplemented: the tokenizer.json uses a part this package does not implement.
var ErrNotImplemented = errors.New("not implemented")

// Tokenizer encodes text into token ids. It is safe for concurrent use.
type Tokenizer struct {
	vocab  map[string]int
	ranks  map[[2]string]int
	added  map[string]int
	addedR *regexp.Regexp // nil without added tokens
	split  *regexp.Regexp
	// tailGroup is the submatch index of the whitespace run that gives back its last
	// character when followed by a non-space (see translatePattern), or -1.
	tailGroup int
	nfc       bool
	byteRune  [256]rune

	mu    sync.RWMutex
	cache map[string][]int
}

// file is the part of tokenizer.json that encoding reads.
type file struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
	} `json:"added_tokens"`
	Normalizer   *component `json:"normalizer"`
	PreTokenizer *component `json:"pre_tokenizer"`
	Model        struct {
		Type                    string            `json:"type"`
		Vocab                   map[string]int    `json:"vocab"`
		Merges                  []json.RawMessage `json:"merges"`
		ByteFallback            bool              `json:"byte_fallback"`
		ContinuingSubwordPrefix string            `json:"continuing_subword_prefix"`
		EndOfWordSuffix         string            `json:"end_of_word_suffix"`
	} `json:"model"`
}

type component struct {
	Type          string       `json:"type"`
	Normalizers   []*component `json:"normalizers"`
	Pretokenizers []*component `json:"pretokenizers"`
	Pattern       *struct {
		Regex  *string `json:"Regex"`
		String *string `json:"String"`
	} `json:"pattern"`
	Behavior       string `json:"behavior"`
	Invert         bool   `json:"invert"`
	AddPrefixSpace bool   `json:"add_prefix_space"`
	UseRegex       bool   `json:"use_regex"`
}

// Load reads a tokenizer.json (gzip-compressed when the name ends in .gz).
func Load(path string) (*Tokenizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	t, err := Read(r)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

// Read parses a tokenizer.json.
func Read(r io.Reader) (*Tokenizer, error) {
	var f file
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	if f.Model.Type != "BPE" {
		return nil, fmt.Errorf("model type %q: %w (byte-level BPE only)", f.Model.Type, ErrNotImplemented)
	}
	if f.Model.ByteFallback || f.Model.ContinuingSubwordPrefix != "" || f.Model.EndOfWordSuffix != "" {
		return nil, fmt.Errorf("BPE with byte fallback or subword affixes (a SentencePiece-style model): %w", ErrNotImplemented)
	}
	t := &Tokenizer{vocab: f.Model.Vocab, ranks: make(map[[2]string]int, len(f.Model.Merges)),
		added: map[string]int{}, tailGroup: -1, cache: map[string][]int{}}
	for i, m := range f.Model.Merges {
		pair, err := parseMerge(m)
		if err != nil {
			return nil, fmt.Errorf("merge %d: %w", i, err)
		}
		if _, dup := t.ranks[pair]; !dup {
			t.ranks[pair] = i
		}
	}
	if err := t.normalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if err := t.preTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	var alts []string
	for _, a := range f.AddedTokens {
		t.added[a.Content] = a.ID
		alts = append(alts, regexp.QuoteMeta(a.Content))
	}
	if len(alts) > 0 {
		// Longest first: Go's alternation takes the first that matches.
		sort.Slice(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
		t.addedR = regexp.MustCompile(strings.Join(alts, "|"))
	}
	n := 0
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			t.byteRune[b] = rune(b)
		} else {
			t.byteRune[b] = rune(256 + n)
			n++
		}
	}
	return t, nil
}

// parseMerge reads a merge as either "a b" or ["a", "b"].
func parseMerge(m json.RawMessage) ([2]string, error) {
	var s string
	if json.Unmarshal(m, &s) == nil {
		a, b, ok := strings.Cut(s, " ")
		if !ok {
			return [2]string{}, fmt.Errorf("%q: want two symbols", s)
		}
		return [2]string{a, b}, nil
	}
	var p []string
	if err := json.Unmarshal(m, &p); err != nil || len(p) != 2 {
		return [2]string{}, fmt.Errorf("%s: want two symbols", m)
	}
	return [2]string{p[0], p[1]}, nil
}

func (t *Tokenizer) normalizer(c *component) error {
	switch {
	case c == nil:
		return nil
	case c.Type == "NFC":
		t.nfc = true
		return nil
	case c.Type == "Sequence" && len(c.Normalizers) == 0:
		return nil
	}
	return fmt.Errorf("normalizer %q: %w (NFC only)", c.Type, ErrNotImplemented)
}

// preTokenizer accepts a Split on a regex (Isolated) followed by a ByteLevel without its own
// regex, as Qwen's files have, or a ByteLevel with GPT-2's regex.
func (t *Tokenizer) preTokenizer(c *component) error {
	if c == nil {
		return fmt.Errorf("no pre-tokenizer: %w (byte-level only)", ErrNotImplemented)
	}
	parts := []*component{c}
	if c.Type == "Sequence" {
		parts = c.Pretokenizers
	}
	var pattern string
	byteLevel := false
	for _, p := range parts {
		switch {
		case p.Type == "Split" && p.Pattern != nil && p.Pattern.Regex != nil && p.Behavior == "Isolated" && !p.Invert && pattern == "":
			pattern = *p.Pattern.Regex
		case p.Type == "ByteLevel" && !p.AddPrefixSpace && !byteLevel:
			byteLevel = true
			if p.UseRegex {
				if pattern != "" {
					return fmt.Errorf("two split regexes: %w", ErrNotImplemented)
				}
				pattern = gpt2Pattern
			}
		default:
			return fmt.Errorf("pre-tokenizer %q: %w (a Split regex and ByteLevel only)", p.Type, ErrNotImplemented)
		}
	}
	if !byteLevel || pattern == "" {
		return fmt.Errorf("pre-tokenizer without ByteLevel and a split regex: %w", ErrNotImplemented)
	}
	re, tail, err := translatePattern(pattern)
	if err != nil {
		return err
	}
	t.split, t.tailGroup = re, tail
	return nil
}

// gpt2Pattern is ByteLevel's own regex (use_regex).
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// whitespace is Unicode White_Space, what \s means to the Oniguruma and Rust regex engines
// Hugging Face's tokenizers use; Go's \s is ASCII only.
const whitespace = `\t\n\v\f\r\x{85}\p{Z}`

// translatePattern turns a Hugging Face split regex into Go's syntax. Go has no lookahead,
// so the usual tail `\s+(?!\S)|\s+` becomes one captured `\s+` whose last character the
// caller gives back when a non-space follows it (what the lookahead does); any other
// lookaround is refused.
func translatePattern(p string) (*regexp.Regexp, int, error) {
	const tail = `\s+(?!\S)|\s+`
	tailGroup := -1
	if strings.HasSuffix(p, tail) {
		p = strings.TrimSuffix(p, tail) + `(\s+)`
	}
	if strings.Contains(p, "(?=") || strings.Contains(p, "(?!") || strings.Contains(p, "(?<") {
		return nil, -1, fmt.Errorf("split regex %q: lookaround %w", p, ErrNotImplemented)
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			next := p[i+1]
			i++
			switch {
			case next == 's' && inClass:
				b.WriteString(whitespace)
			case next == 's':
				b.WriteString("[" + whitespace + "]")
			case next == 'S' && !inClass:
				b.WriteString("[^" + whitespace + "]")
			case next == 'S':
				return nil, -1, fmt.Errorf("split regex %q: \\S in a class: %w", p, ErrNotImplemented)
			default:
				b.WriteByte(c)
				b.WriteByte(next)
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, -1, fmt.Errorf("split regex: %w", err)
	}
	if strings.HasSuffix(p, `(\s+)`) {
		tailGroup = re.NumSubexp()
	}
	return re, tailGroup, nil
}

// Count is the number of tokens text encodes to.
func (t *Tokenizer) Count(text string) int {
	n := 0
	t.encode(text, func(ids []int) { n += len(ids) })
	return n
}

// Encode returns text's token ids. Added tokens (special or not) are matched in the raw text
// first, as Hugging Face's tokenizers do.
func (t *Tokenizer) Encode(text string) []int {
	var out []int
	t.encode(text, func(ids []int) { out = append(out, ids...) })
	return out
}

func (t *Tokenizer) encode(text string, emit func([]int)) {
	for text != "" {
		var loc []int
		if t.addedR != nil {
			loc = t.addedR.FindStringIndex(text)
		}
		if loc == nil {
			t.encodeSegment(text, emit)
			return
		}
		t.encodeSegment(text[:loc[0]], emit)
		emit([]int{t.added[text[loc[0]:loc[1]]]})
		text = text[loc[1]:]
	}
}

func (t *Tokenizer) encodeSegment(s string, emit func([]int)) {
	if s == "" {
		return
	}
	if t.nfc {
		s = norm.NFC.String(s)
	}
	for s != "" {
		m := t.split.FindStringSubmatchIndex(s)
		if m == nil {
			// Every character matches one of the patterns' last alternatives; a pattern
			// that leaves text unmatched keeps it as one piece, as Isolated does.
			emit(t.word(s))
			return
		}
		start, end := m[0], m[1]
		if g := t.tailGroup; g >= 0 && m[2*g] >= 0 && end < len(s) {
			if _, size := utf8.DecodeLastRuneInString(s[start:end]); end-start > size {
				end -= size
			}
		}
		if start > 0 {
			emit(t.word(s[:start]))
		}
		if end == start { // an empty match would not advance
			_, size := utf8.DecodeRuneInString(s[start:])
			end = start + size
		}
		emit(t.word(s[start:end]))
		s = s[end:]
	}
}

// word is one pre-token's ids: its bytes mapped to unicode, then merged by rank.
func (t *Tokenizer) word(w string) []int {
	t.mu.RLock()
	ids, ok := t.cache[w]
	t.mu.RUnlock()
	if ok {
		return ids
	}
	syms := make([]string, 0, len(w))
	for i := 0; i < len(w); i++ {
		syms = append(syms, string(t.byteRune[w[i]]))
	}
	for len(syms) > 1 {
		best, at := -1, -1
		for i := 0; i+1 < len(syms); i++ {
			if r, ok := t.ranks[[2]string{syms[i], syms[i+1]}]; ok && (best < 0 || r < best) {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		pair := [2]string{syms[at], syms[at+1]}
		merged := syms[:0:0]
		for i := 0; i < len(syms); i++ {
			if i+1 < len(syms) && syms[i] == pair[0] && syms[i+1] == pair[1] {
				merged = append(merged, pair[0]+pair[1])
				i++
				continue
			}
			merged = append(merged, syms[i])
		}
		syms = merged
	}
	ids = make([]int, 0, len(syms))
	for _, s := range syms {
		if id, ok := t.vocab[s]; ok {
			ids = append(ids, id)
			continue
		}
		// A symbol outside the vocabulary (a broken file): count its bytes one by one.
		for _, r := range s {
			ids = append(ids, t.vocab[string(r)])
		}
	}
	if len(w) <= 64 {
		t.mu.Lock()
		if len(t.cache) > 1<<16 {
			clear(t.cache)
		}
		t.cache[w] = ids
		t.mu.Unlock()
	}
	return ids
}
