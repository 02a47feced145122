package bpe

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const qwen3 = "testdata/qwen3-tokenizer.json.gz"

var (
	loadOnce sync.Once
	loaded   *Tokenizer
	loadErr  error
)

// qwen3Tokenizer loads Qwen3's tokenizer once for the package's tests.
func qwen3Tokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = Load(qwen3) })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return loaded
}

type golden struct {
	Text   string `json:"text"`
	Count  int    `json:"count"`
	SHA256 string `json:"sha256"`
	IDs    []int  `json:"ids"`
}

func readGolden(t testing.TB) []golden {
	t.Helper()
	f, err := os.Open("testdata/hf-golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []golden
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var g golden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func idsHash(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	sum := sha256.Sum256([]byte(strings.Join(s, ",")))
	return hex.EncodeToString(sum[:])
}

// TestMatchesHuggingFace: Qwen3's tokenizer.json encodes every golden text to exactly the
// ids Hugging Face's tokenizers gives (testdata/README.md): Unicode whitespace, the
// lookahead the split regex needs, NFC, added tokens, CJK, emoji and real chat renderings.
func TestMatchesHuggingFace(t *testing.T) {
	tok := qwen3Tokenizer(t)
	gs := readGolden(t)
	if len(gs) < 15 {
		t.Fatalf("%d golden texts", len(gs))
	}
	for i, g := range gs {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			ids := tok.Encode(g.Text)
			if len(ids) != g.Count || idsHash(ids) != g.SHA256 {
				t.Fatalf("text %.80q: %d ids, want %d (ids %v, want %v)", g.Text, len(ids), g.Count, head(ids), head(g.IDs))
			}
			if n := tok.Count(g.Text); n != g.Count {
				t.Fatalf("Count %d, want %d", n, g.Count)
			}
		})
	}
}

func head(ids []int) []int { return ids[:min(len(ids), 64)] }

// TestReadRefuses: a tokenizer.json this package does not implement is refused with a
// clear error at load, never counted wrongly.
func TestReadRefuses(t *testing.T) {
	const bytelevel = `{"type":"ByteLevel","add_prefix_space":false,"use_regex":true}`
	model := `"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}`
	tests := []struct {
		name, json, want string
	}{
		{"not json", `{"model":`, "not a tokenizer.json"},
		{"unigram", `{"pre_tokenizer":` + bytelevel + `,"model":{"type":"Unigram"}}`, `model type "Unigram": not implemented`},
		{"byte fallback", `{"pre_tokenizer":` + bytelevel + `,"model":{"type":"BPE","byte_fallback":true}}`, "byte fallback"},
		{"normalizer", `{"normalizer":{"type":"Lowercase"},"pre_tokenizer":` + bytelevel + `,` + model + `}`, `normalizer "Lowercase": not implemented`},
		{"metaspace", `{"pre_tokenizer":{"type":"Metaspace"},` + model + `}`, `pre-tokenizer "Metaspace": not implemented`},
		{"no pre-tokenizer", `{` + model + `}`, "no pre-tokenizer"},
		{"lookahead", `{"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"a(?=b)"},"behavior":"Isolated"},{"type":"ByteLevel"}]},` + model + `}`, "lookaround not implemented"},
		{"bad merge", `{"pre_tokenizer":` + bytelevel + `,"model":{"type":"BPE","vocab":{},"merges":["ab"]}}`, "merge 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.json))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if strings.Contains(tt.want, "not implemented") && !errors.Is(err, ErrNotImplemented) {
				t.Fatalf("error %v is not ErrNotImplemented", err)
			}
		})
	}
	if _, err := Load("testdata/missing.json"); err == nil {
		t.Fatal("a missing file loaded")
	}
}

// TestGPT2Pattern: a ByteLevel pre-tokenizer with its own regex (GPT-2's layout) encodes with
// merges given as "a b" strings.
func TestGPT2Pattern(t *testing.T) {
	tok, err := Read(strings.NewReader(`{"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"use_regex":true},
		"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2,"Ġ":3,"Ġab":4,"Ġa":5},"merges":["Ġ a","Ġa b","a b"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	// "ab", " ab", " " (a run of two spaces before a word gives its last one to the word), " ab"
	if got := tok.Encode("ab ab  ab"); intsString(got) != "2 4 3 4" {
		t.Fatalf("ids %v, want [2 4 3 4]", got)
	}
}

func intsString(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, " ")
}

// BenchmarkCountChat counts the golden chat renderings (about 60 kB each).
func BenchmarkCountChat(b *testing.B) {
	tok := qwen3Tokenizer(b)
	var texts []string
	bytes := 0
	for _, g := range readGolden(b) {
		if len(g.Text) > 10000 {
			texts = append(texts, g.Text)
			bytes += len(g.Text)
		}
	}
	b.SetBytes(int64(bytes))
	for b.Loop() {
		for _, s := range texts {
			tok.Count(s)
		}
	}
}
