package validator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/shop"
	"arena/shop/gen"
)

// testShop is a generated catalog of products (seed) as it stands at
// block on the schedule rs, ready to restock, as OpenShop makes it.
func testShop(t *testing.T, products int, seed uint64, rs Restock, block uint64) *Shop {
	t.Helper()
	ctx := context.Background()
	g, err := gen.New(gen.Options{Products: products, Seed: seed}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	lots := rs.Lots(block)
	idx, web, err := generatedStock(ctx, g, lots, rs.Products, shop.IndexOptions{Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx, Web: web}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewShop(ShopOptions{Stock: &Stock{Lots: lots, Index: idx, Web: web, Tools: tools}, Generator: g, Restock: rs,
		Index: shop.IndexOptions{Workers: 2}}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// toolCalls are agent calls whose results must agree wherever the stock
// is the same: searches with every kind of filter and sort over the
// catalog's words, a look at products of every lot, and the web.
func toolCalls(t *testing.T, cat *shop.Catalog) [][2]string {
	t.Helper()
	var calls [][2]string
	for _, q := range []string{"wireless earbuds", "women dress cotton", "stainless steel", "kitchen knife set", "phone case", "baby milk bottle"} {
		calls = append(calls,
			[2]string{shop.ToolFindProduct, fmt.Sprintf(`{"q":%q}`, q)},
			[2]string{shop.ToolFindProduct, fmt.Sprintf(`{"q":%q,"page":2,"sort":"priceasc"}`, q)},
			[2]string{shop.ToolFindProduct, fmt.Sprintf(`{"q":%q,"price":"10-500","service":"COD"}`, q)},
			[2]string{shop.ToolWebSearch, fmt.Sprintf(`{"q":%q}`, q)},
		)
	}
	// Every 97th product, so products of every lot are looked at.
	var ids []string
	for i := 0; i < cat.Len(); i += 97 {
		ids = append(ids, cat.At(i).ProductID)
	}
	for chunk := range slices.Chunk(ids, 10) {
		b, err := json.Marshal(map[string][]string{"product_ids": chunk})
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, [2]string{shop.ToolViewProductInformation, string(b)},
			[2]string{shop.ToolFindProduct, fmt.Sprintf(`{"q":%q,"shop_id":%q}`, cat.At(0).Title, cat.At(0).ShopID)})
	}
	return calls
}

// results runs calls on tools and returns each result's output or error.
func results(t *testing.T, tools *shop.Tools, calls [][2]string) []string {
	t.Helper()
	out := make([]string, len(calls))
	for i, c := range calls {
		res := tools.Execute(context.Background(), c[0], json.RawMessage(c[1]))
		if res.Err != nil {
			out[i] = "error: " + res.Err.Error()
		} else {
			out[i] = string(res.Output)
		}
	}
	return out
}

// TestShopRestockSameEverywhere: a validator that restocked as the blocks
// went by and one that started at the same block serve the same shop: the
// same products, the same tool results. And a restock changes the shop:
// the stock of the block before it does not hold the new lot.
func TestShopRestockSameEverywhere(t *testing.T) {
	rs := Restock{EveryBlocks: 100, FromBlock: 50, Products: 300}
	tests := []struct {
		name string
		// restocked starts at from and is asked for each block of at in
		// turn; fresh starts at the last.
		from uint64
		at   []uint64
	}{
		{"before the first restock", 0, []uint64{149}},
		{"one restock", 0, []uint64{150}},
		{"restocks one at a time", 0, []uint64{150, 250, 350}},
		{"three restocks at once", 10, []uint64{399}},
		{"from a restocked start", 260, []uint64{351, 460}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			restocked := testShop(t, 1500, 9, rs, tt.from)
			before := restocked.Current()
			var st *Stock
			for _, b := range tt.at {
				var err error
				if st, err = restocked.At(ctx, b); err != nil {
					t.Fatal(err)
				}
				if st.Lots != rs.Lots(b) {
					t.Fatalf("stock at block %d holds %d lots, want %d", b, st.Lots, rs.Lots(b))
				}
			}
			last := tt.at[len(tt.at)-1]
			fresh := testShop(t, 1500, 9, rs, last).Current()
			a, b := st.Tools.Catalog(), fresh.Tools.Catalog()
			if a.Len() != b.Len() || a.Len() != 1500+rs.Lots(last)*rs.Products {
				t.Fatalf("restocked catalog %d products, fresh %d, want %d", a.Len(), b.Len(), 1500+rs.Lots(last)*rs.Products)
			}
			for i := range a.Len() {
				pa, _ := json.Marshal(a.At(i))
				pb, _ := json.Marshal(b.At(i))
				if string(pa) != string(pb) {
					t.Fatalf("product %d differs:\n restocked %s\n fresh     %s", i, pa, pb)
				}
			}
			calls := toolCalls(t, a)
			ra, rb := results(t, st.Tools, calls), results(t, fresh.Tools, calls)
			for i := range calls {
				if ra[i] != rb[i] {
					t.Fatalf("%s %s:\n restocked %.300s\n fresh     %.300s", calls[i][0], calls[i][1], ra[i], rb[i])
				}
			}
			if st.Lots == before.Lots {
				if st != before {
					t.Fatal("no restock was due, but the stock changed")
				}
				return
			}
			// The old stock is untouched (a race on it keeps its shop) and
			// lacks the new lot: the restock changed what agents see.
			if before.Tools.Catalog().Len() != 1500+before.Lots*rs.Products {
				t.Fatalf("the stock before the restock now has %d products", before.Tools.Catalog().Len())
			}
			if got := results(t, before.Tools, calls); slices.Equal(got, ra) {
				t.Fatal("the stock before the restock answers every call as the restocked one does")
			}
		})
	}
}

func TestRestockLots(t *testing.T) {
	tests := []struct {
		name  string
		rs    Restock
		block uint64
		want  int
	}{
		{"never", Restock{}, 1 << 40, 0},
		{"before the schedule starts", Restock{EveryBlocks: 10, FromBlock: 100, Products: 5}, 99, 0},
		{"at its start", Restock{EveryBlocks: 10, FromBlock: 100, Products: 5}, 100, 0},
		{"one block before the first restock", Restock{EveryBlocks: 10, FromBlock: 100, Products: 5}, 109, 0},
		{"at the first restock", Restock{EveryBlocks: 10, FromBlock: 100, Products: 5}, 110, 1},
		{"later", Restock{EveryBlocks: 10, FromBlock: 100, Products: 5}, 1234, 113},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rs.Lots(tt.block); got != tt.want {
				t.Fatalf("Lots(%d) = %d, want %d", tt.block, got, tt.want)
			}
		})
	}
}

func TestRestockOf(t *testing.T) {
	def := config.Default().Catalog
	file := def
	file.File = "catalog.jsonl"
	off := def
	off.RestockEveryBlocks = 0
	tests := []struct {
		name string
		cc   config.CatalogConfig
		want Restock
	}{
		{"default", def, Restock{EveryBlocks: 7200, Products: 2500}},
		{"a catalog file never restocks", file, Restock{}},
		{"turned off", off, Restock{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RestockOf(tt.cc); got != tt.want {
				t.Fatalf("RestockOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// BenchmarkShopRestock times one restock at the defaults: a lot of 2,500
// products added to the 100,000-product catalog, with the new catalog, its
// index and its web built (what a validator does once a day). s/start is
// the start before it: generating the catalog, its index and its web. Set
// ARENA_BENCH_PRODUCTS to start from another size.
//
//	go test ./validator -run '^$' -bench ShopRestock -benchtime 3x
func BenchmarkShopRestock(b *testing.B) {
	products := 100_000
	if s := os.Getenv("ARENA_BENCH_PRODUCTS"); s != "" {
		var err error
		if products, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	def := config.Default().Catalog
	rs := Restock{EveryBlocks: def.RestockEveryBlocks, Products: def.RestockProducts}
	g, err := gen.New(gen.Options{Products: products, Seed: 1}, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	idx, web, err := generatedStock(ctx, g, 0, rs.Products, shop.IndexOptions{}, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	startSeconds := time.Since(start).Seconds()
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx, Web: web}, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	s, err := NewShop(ShopOptions{Stock: &Stock{Index: idx, Web: web, Tools: tools}, Generator: g, Restock: rs}, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.At(ctx, uint64(i+1)*rs.EveryBlocks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(startSeconds, "s/start")
}

// TestShopKeepsTheStockBefore: a race whose window opened before a restock
// runs on that window's stock even when a qualifying run restocked first,
// until a race of a later window releases it.
func TestShopKeepsTheStockBefore(t *testing.T) {
	ctx := context.Background()
	rs := Restock{EveryBlocks: 100, Products: 200}
	s := testShop(t, 1000, 3, rs, 90)
	first := s.Current()
	steps := []struct {
		name    string
		call    func() (*Stock, error)
		release uint64 // Release(release) after the call, when not 0
		want    int    // lots of the stock returned
	}{
		{"a qualifying run past the restock", func() (*Stock, error) { return s.At(ctx, 105) }, 0, 1},
		{"the race of the window before it", func() (*Stock, error) { return s.At(ctx, 90) }, 90, 0},
		{"the next race window", func() (*Stock, error) { return s.At(ctx, 110) }, 110, 1},
		{"a window released", func() (*Stock, error) { return s.At(ctx, 90) }, 0, 1},
		{"two restocks at once", func() (*Stock, error) { return s.At(ctx, 320) }, 0, 3},
		{"the window before them", func() (*Stock, error) { return s.At(ctx, 180) }, 0, 1},
	}
	for _, st := range steps {
		got, err := st.call()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got.Lots != st.want {
			t.Fatalf("%s: a stock of %d lots, want %d", st.name, got.Lots, st.want)
		}
		if st.want == 0 && got != first {
			t.Fatalf("%s: not the stock the shop started with", st.name)
		}
		if st.release != 0 {
			s.Release(st.release)
		}
	}
}
