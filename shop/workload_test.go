package shop_test

import (
	"context"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
	"arena/shop/index"
	"arena/shop/workload"
)

// workloadTools is a small generated catalog and its tools, for checking
// the benchmark query sets.
func workloadTools(t *testing.T) ([]shop.Product, *shop.Tools) {
	t.Helper()
	g, err := gen.New(gen.Options{Products: 5000, Seed: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	products, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := shop.NewCatalog(slices.Clone(products))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return products, tools
}

// TestBenchmarkWorkloadIsValid runs the benchmark query mix through the
// tools on a small generated catalog: every query must be a valid call and
// most must find something, or the benchmarks would time error paths.
func TestBenchmarkWorkloadIsValid(t *testing.T) {
	products, tools := workloadTools(t)
	queries := workload.Queries(workload.Slice(products), 1000, 3)
	kinds := map[workload.Kind]int{}
	empty := 0
	for _, q := range queries {
		kinds[q.Kind]++
		res := tools.Execute(context.Background(), shop.ToolFindProduct, q.Args())
		if !res.OK() {
			t.Fatalf("query %+v: %s", q, res.Err.Message)
		}
		if string(res.Output) == "[]" {
			empty++
		}
	}
	if len(kinds) != 5 {
		t.Fatalf("query kinds %v, want all five", kinds)
	}
	if empty > len(queries)/5 {
		t.Fatalf("%d of %d queries found nothing", empty, len(queries))
	}
}

// TestAdversarialWorkloadIsHostile checks that each hostile query set is
// made of valid calls and has the shape it is meant to have, or its
// benchmark would time something milder.
func TestAdversarialWorkloadIsHostile(t *testing.T) {
	products, tools := workloadTools(t)
	// passing counts the products a query's filters let through.
	passing := func(t *testing.T, q workload.Query) int {
		t.Helper()
		price, err := shop.ParsePriceRange(q.Price)
		if err != nil {
			t.Fatal(err)
		}
		svc, err := shop.ParseServices(q.Service)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range products {
			p := &products[i]
			if price.Contains(p.Price) && p.Service.Has(svc) && (q.ShopID == "" || q.ShopID == p.ShopID) {
				n++
			}
		}
		return n
	}
	// known are the terms the catalog's products have.
	known := map[string]bool{}
	for i := range products {
		p := &products[i]
		texts := []string{p.Title, p.Brand, p.Category}
		for _, a := range p.Attributes {
			texts = append(texts, a.Values...)
		}
		for _, text := range texts {
			for _, term := range index.Terms(text) {
				known[term] = true
			}
		}
	}
	tests := []struct {
		kind workload.Kind
		// check returns whether q has the kind's shape; terms counts its
		// distinct terms that some product has.
		check func(t *testing.T, q workload.Query, terms int) bool
		// want is the least share of queries with that shape.
		want float64
	}{
		{workload.AdvWords, func(t *testing.T, q workload.Query, terms int) bool {
			return terms >= 20 && q.Price == "" && q.Service == "" && q.ShopID == ""
		}, 1},
		{workload.AdvLong, func(t *testing.T, q workload.Query, terms int) bool {
			return len(q.Q) >= 900 && len(q.Q) < 1000 && terms > index.MaxQueryTerms
		}, 0.9},
		{workload.AdvFilters, func(t *testing.T, q workload.Query, terms int) bool {
			return terms >= 2 && passing(t, q) <= len(products)/50
		}, 0.9},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			queries := workload.Adversarial(workload.Slice(products), tt.kind, 200, 4)
			shaped := 0
			for _, q := range queries {
				if q.Kind != tt.kind {
					t.Fatalf("query of kind %q in the %q set", q.Kind, tt.kind)
				}
				res := tools.Execute(context.Background(), shop.ToolFindProduct, q.Args())
				if !res.OK() {
					t.Fatalf("query %+v: %s", q, res.Err.Message)
				}
				distinct := map[string]bool{}
				for _, term := range index.Terms(q.Q) {
					if known[term] {
						distinct[term] = true
					}
				}
				if tt.check(t, q, len(distinct)) {
					shaped++
				}
			}
			if got := float64(shaped) / float64(len(queries)); got < tt.want {
				t.Fatalf("%d of %d queries have the %s shape, want at least %.0f%%", shaped, len(queries), tt.kind, 100*tt.want)
			}
		})
	}
}
