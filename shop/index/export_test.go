package index

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"arena/internal/testseed"
)

// RandomSeed returns the seed of a random test (see testseed.Seed).
func RandomSeed(t testing.TB) uint64 {
	t.Helper()
	return testseed.Seed(t)
}

// Strategies names every retrieval strategy, for the tests that force each.
var Strategies = []string{"auto", "filter", "maxscore", "windows"}

var strategyByName = map[string]strategy{"auto": auto, "filter": byFilter, "maxscore": byMaxScore, "windows": byWindows}

// SearchBy runs q by the named strategy.
func (ix *Index) SearchBy(q Query, name string) []Hit {
	s, ok := strategyByName[name]
	if !ok {
		panic(fmt.Sprintf("unknown strategy %q", name))
	}
	return ix.search(q, s)
}

// Reference ranks the obvious way: every posting of the query's first
// MaxQueryTerms distinct known terms added into a score per document, the
// filters applied to every scored document, a full sort. Search must agree
// with it exactly, by every strategy.
func (ix *Index) Reference(q Query) []Hit {
	if q.Limit <= 0 || math.IsNaN(q.MinPrice) || math.IsNaN(q.MaxPrice) ||
		(q.HasMin && q.HasMax && q.MinPrice > q.MaxPrice) {
		return nil
	}
	var terms []uint32
	for _, t := range Terms(q.Text) {
		if id, ok := ix.termID([]byte(t)); ok && !slices.Contains(terms, id) && len(terms) < MaxQueryTerms {
			terms = append(terms, id)
		}
	}
	scores := make([]uint32, ix.n)
	for _, t := range terms {
		for p := ix.off[t]; p < ix.off[t+1]; p++ {
			scores[ix.docs[p]] += uint32(ix.imps[p])
		}
	}
	var es []entry
	var passing []uint32
	for d, s := range scores {
		switch {
		case s == 0,
			q.FilterShop && ix.shop[d] != q.Shop,
			ix.svc[d]&q.Services != q.Services,
			q.HasMin && ix.price[d] < q.MinPrice,
			q.HasMax && ix.price[d] > q.MaxPrice:
			continue
		}
		es = append(es, entry{score: s, doc: uint32(d)})
		passing = append(passing, s)
	}
	// Only documents scoring at least the limit-th best score can be hits;
	// dropping the rest first keeps the full sort below small.
	if len(passing) > q.Limit {
		slices.Sort(passing)
		kth := passing[len(passing)-q.Limit]
		es = slices.DeleteFunc(es, func(e entry) bool { return e.score < kth })
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return int(a.doc) - int(b.doc)
	})
	var hits []Hit
	for _, e := range es[:min(len(es), q.Limit)] {
		hits = append(hits, Hit{Doc: e.doc, Score: float64(e.score) / ix.scale})
	}
	return hits
}

// CheckStrategies fails t unless every strategy answers q with the
// reference's hits.
func CheckStrategies(t testing.TB, ix *Index, q Query) {
	t.Helper()
	want := ix.Reference(q)
	for _, s := range Strategies {
		if got := ix.SearchBy(q, s); !slices.Equal(got, want) {
			t.Fatalf("strategy %s, query %+v:\n got %v\nwant %v", s, q, got, want)
		}
	}
}
