package suite

import (
	"slices"

	"arena/shop"
)

// QueryStats measure how much of their targets' titles queries quote, per
// requested item. Words are compared as the lexical title rule compares
// them: lower-cased runs of letters and digits.
type QueryStats struct {
	// Items counts the items measured: those with a title phrase whose
	// target is in the catalog.
	Items int `json:"items"`
	// Verbatim counts items whose core name, the title rule's phrase,
	// appears in the query word for word: all its words, consecutive and
	// in order.
	Verbatim int `json:"verbatim"`
	// TitleShare is the mean, over items, of the share of the target
	// title's distinct words that occur anywhere in the query.
	TitleShare float64 `json:"title_share"`
}

// VerbatimShare is Verbatim over Items (0 with no items).
func (s QueryStats) VerbatimShare() float64 {
	if s.Items == 0 {
		return 0
	}
	return float64(s.Verbatim) / float64(s.Items)
}

// MeasureQueries measures the problems' queries against their targets in
// cat.
func MeasureQueries(problems []Problem, cat *shop.Catalog) QueryStats {
	var st QueryStats
	sum := 0.0
	for i := range problems {
		p := &problems[i]
		words := titleWords(p.Query)
		inQuery := map[string]bool{}
		for _, w := range words {
			inQuery[w] = true
		}
		for _, it := range p.Reward.Items {
			prod, ok := cat.Product(it.ProductID)
			if !ok || len(it.Title) == 0 {
				continue
			}
			st.Items++
			if phrase := titleWords(it.Title[0]); len(phrase) > 0 && containsRun(words, phrase) {
				st.Verbatim++
			}
			title := titleTokens(prod.Title)
			hit := 0
			for _, w := range title {
				if inQuery[w] {
					hit++
				}
			}
			if len(title) > 0 {
				sum += float64(hit) / float64(len(title))
			}
		}
	}
	if st.Items > 0 {
		st.TitleShare = sum / float64(st.Items)
	}
	return st
}

// containsRun reports whether run occurs in words as consecutive elements.
func containsRun(words, run []string) bool {
	for i := 0; i+len(run) <= len(words); i++ {
		if slices.Equal(words[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
