package index_test

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
	"arena/shop/index"
	"arena/shop/workload"
)

// TestStrategiesOnGeneratedCatalog compares every retrieval strategy with
// the reference ranking on a generated catalog, over the benchmark's mixed
// queries and its hostile ones (many common words, queries past the term
// cap, filters almost nothing passes), at the limits find_product and
// other callers use.
func TestStrategiesOnGeneratedCatalog(t *testing.T) {
	seed := index.RandomSeed(t)
	products, err := gen.New(gen.Options{Products: 40_000, Seed: seed}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := products.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	shops := shopNumbers(ps)
	ix, err := index.Build(context.Background(), len(ps), func(i int, d *index.Doc) { fillDoc(&ps[i], shops, d) }, index.Options{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	queries := workload.Queries(workload.Slice(ps), 1500, seed)
	for _, kind := range workload.AdversarialKinds {
		queries = append(queries, workload.Adversarial(workload.Slice(ps), kind, 500, seed)...)
	}
	limits := []int{shop.MaxResults, shop.MaxResults, 10, 1}
	for i, wq := range queries {
		q, err := toIndexQuery(wq, shops)
		if err != nil {
			t.Fatalf("query %+v: %v", wq, err)
		}
		q.Limit = limits[i%len(limits)]
		index.CheckStrategies(t, ix, q)
	}
}
