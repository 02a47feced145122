package scoring

import (
	"context"
	"strings"
	"unicode"
)

// TitleMatcher decides whether a recommended product's title satisfies
// one title phrase of the ground truth.
type TitleMatcher interface {
	// MatchTitle reports whether title satisfies phrase.
	MatchTitle(ctx context.Context, phrase, title string) (bool, error)
	// Name identifies the matcher in the metrics ("lexical", "embeddings").
	Name() string
}

// DefaultLexicalThreshold is the default Lexical threshold. See Lexical
// and docs/scoring.md for why 0.8.
const DefaultLexicalThreshold = 0.8

// Lexical is the default title matcher: TokenSetSimilarity(phrase, title)
// ≥ Threshold. A zero Threshold means DefaultLexicalThreshold.
//
// 0.8 lets a title miss one token in five of a phrase (a dropped size, a
// different spelling of a unit) while rejecting products that merely share
// the category words. Every title phrase in the ShoppingBench samples
// (suite/testdata/shoppingbench) is the target's own title, which scores
// exactly 1, so any threshold ≤ 1 passes them; 0.8 is the strictest round
// value that still tolerates the small edits that scraped duplicates show.
type Lexical struct {
	Threshold float64
}

// Name implements TitleMatcher.
func (Lexical) Name() string { return "lexical" }

// MatchTitle implements TitleMatcher. It never fails.
func (l Lexical) MatchTitle(_ context.Context, phrase, title string) (bool, error) {
	th := l.Threshold
	if th <= 0 {
		th = DefaultLexicalThreshold
	}
	return TokenSetSimilarity(phrase, title) >= th, nil
}

// Tokens normalises s into its set of distinct tokens: lower-cased
// (Unicode), split on anything that is not a letter or a digit, in first
// occurrence order.
func Tokens(s string) []string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		dup := false
		for _, o := range out {
			if o == f {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

// TokenSetSimilarity is the share of the phrase's distinct tokens that
// occur in the title: |P ∩ T| / |P| over normalised token sets (see
// Tokens), in [0, 1]. It is 1 when the phrase has no tokens (it constrains
// nothing) and when the phrase is the title itself.
func TokenSetSimilarity(phrase, title string) float64 {
	if sim, ok := tokenSetSimilarityASCII(phrase, title); ok {
		return sim
	}
	p := Tokens(phrase)
	if len(p) == 0 {
		return 1
	}
	t := Tokens(title)
	set := make(map[string]struct{}, len(t))
	for _, w := range t {
		set[w] = struct{}{}
	}
	hit := 0
	for _, w := range p {
		if _, ok := set[w]; ok {
			hit++
		}
	}
	return float64(hit) / float64(len(p))
}

// maxASCIITokens bounds the token spans tokenSetSimilarityASCII keeps on
// the stack.
const maxASCIITokens = 48

// span is a token of an ASCII string: s[start:end].
type span struct{ start, end int }

// asciiTokens appends to out the distinct tokens of the ASCII string s,
// compared case-insensitively, in first occurrence order: what Tokens
// gives for ASCII text (letters and digits are then exactly
// [A-Za-z0-9], and lowercasing is ASCII). ok is false if s is not ASCII
// or has more than maxASCIITokens distinct tokens.
func asciiTokens(s string, out []span) ([]span, bool) {
	start := -1
	for i := 0; i <= len(s); i++ {
		alnum := false
		if i < len(s) {
			c := s[i]
			if c >= 0x80 {
				return out, false
			}
			alnum = ('a' <= c|0x20 && c|0x20 <= 'z') || ('0' <= c && c <= '9')
		}
		if alnum {
			if start < 0 {
				start = i
			}
			continue
		}
		if start < 0 {
			continue
		}
		tok := s[start:i]
		dup := false
		for _, o := range out {
			if strings.EqualFold(s[o.start:o.end], tok) {
				dup = true
				break
			}
		}
		if !dup {
			if len(out) == cap(out) {
				return out, false
			}
			out = append(out, span{start, i})
		}
		start = -1
	}
	return out, true
}

// tokenSetSimilarityASCII is TokenSetSimilarity for ASCII phrase and
// title, without allocating; ok is false when it does not apply.
func tokenSetSimilarityASCII(phrase, title string) (float64, bool) {
	var pb, tb [maxASCIITokens]span
	p, ok := asciiTokens(phrase, pb[:0])
	if !ok {
		return 0, false
	}
	if len(p) == 0 {
		return 1, true
	}
	t, ok := asciiTokens(title, tb[:0])
	if !ok {
		return 0, false
	}
	hit := 0
	for _, ps := range p {
		w := phrase[ps.start:ps.end]
		for _, ts := range t {
			if strings.EqualFold(title[ts.start:ts.end], w) {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(len(p)), true
}
