package shop_test

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
	"arena/shop/internal/workload"
)

// TestBenchmarkWorkloadIsValid runs the benchmark query mix through the
// tools on a small generated catalog: every query must be a valid call and
// most must find something, or the benchmarks would time error paths.
func TestBenchmarkWorkloadIsValid(t *testing.T) {
	g, err := gen.New(gen.Options{Products: 5000, Seed: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	products, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	queries := workload.Queries(products, 1000, 3)
	cat, err := shop.NewCatalog(products)
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
