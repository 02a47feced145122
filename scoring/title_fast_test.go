package scoring

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// tokenSetSimilaritySlow is TokenSetSimilarity without the ASCII fast
// path: the definition.
func tokenSetSimilaritySlow(phrase, title string) float64 {
	p := Tokens(phrase)
	if len(p) == 0 {
		return 1
	}
	set := map[string]bool{}
	for _, w := range Tokens(title) {
		set[w] = true
	}
	hit := 0
	for _, w := range p {
		if set[w] {
			hit++
		}
	}
	return float64(hit) / float64(len(p))
}

func TestTokenSetSimilarityASCIIMatchesDefinition(t *testing.T) {
	words := []string{"Acme", "acme", "ACME", "mug", "Mug", "350ml", "350", "ml", "blue", "a", "", "x1", "Ü", "é", "k", "K", "\u212a", "ß", "the"}
	seps := []string{" ", "-", "/", ",", "  ", "_", "\t", "@", "[", "`", "{", "~", ""}
	r := rand.New(rand.NewPCG(3, 4))
	gen := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString(seps[r.IntN(len(seps))])
		}
		return b.String()
	}
	fixed := [][2]string{
		{"", ""}, {"", "x"}, {"x", ""}, {"Acme Mug", "acme mug"}, {"a a a", "A"},
		{strings.Repeat("w", 10) + strings.Repeat(" t", 60), "t"}, // many tokens, duplicates
		{gen(0) + strings.Repeat("x ", 3), "X"},
	}
	for i := 0; i < 60; i++ { // more distinct tokens than the fast path keeps
		fixed = append(fixed, [2]string{strings.Repeat("z", i+1) + " " + fixed[len(fixed)-1][0], "zz"})
	}
	for i := 0; i < 20000; i++ {
		fixed = append(fixed, [2]string{gen(r.IntN(8)), gen(r.IntN(12))})
	}
	for _, c := range fixed {
		if got, want := TokenSetSimilarity(c[0], c[1]), tokenSetSimilaritySlow(c[0], c[1]); got != want {
			t.Fatalf("TokenSetSimilarity(%q, %q) = %v, want %v", c[0], c[1], got, want)
		}
	}
}
