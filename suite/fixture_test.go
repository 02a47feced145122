package suite

import (
	"context"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
)

// fixtures caches catalogs and indexes by size: building one takes a
// second or two and many tests share it.
var fixtures sync.Map // int -> *fixture

type fixture struct {
	once sync.Once
	idx  *shop.Index
	err  error
}

// testIndex returns a generated catalog of n products (seed 1) and its
// search index.
func testIndex(tb testing.TB, n int) *shop.Index {
	tb.Helper()
	v, _ := fixtures.LoadOrStore(n, &fixture{})
	f := v.(*fixture)
	f.once.Do(func() {
		ctx := context.Background()
		g, err := gen.New(gen.Options{Products: n, Seed: 1}, zerolog.Nop())
		if err != nil {
			f.err = err
			return
		}
		products, err := g.Products(ctx)
		if err != nil {
			f.err = err
			return
		}
		cat, err := shop.NewCatalog(products)
		if err != nil {
			f.err = err
			return
		}
		f.idx, f.err = shop.BuildIndex(ctx, cat, shop.IndexOptions{}, zerolog.Nop())
	})
	if f.err != nil {
		tb.Fatalf("catalog fixture: %v", f.err)
	}
	return f.idx
}

func testGenerator(tb testing.TB, n int, seed uint64) *Generator {
	tb.Helper()
	g, err := NewGenerator(GeneratorOptions{Index: testIndex(tb, n), Seed: seed}, zerolog.Nop())
	if err != nil {
		tb.Fatal(err)
	}
	return g
}
