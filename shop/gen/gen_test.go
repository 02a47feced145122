package gen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/index"
)

func generate(t testing.TB, n int, seed uint64) []shop.Product {
	t.Helper()
	g, err := New(Options{Products: n, Seed: seed}, zerolog.Nop())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ps, err := g.Products(context.Background())
	if err != nil {
		t.Fatalf("Products: %v", err)
	}
	if len(ps) != n {
		t.Fatalf("generated %d products, want %d", len(ps), n)
	}
	return ps
}

func encode(t testing.TB, n int, seed uint64, compress bool) []byte {
	t.Helper()
	g, err := New(Options{Products: n, Seed: seed}, zerolog.Nop())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var buf bytes.Buffer
	w := shop.NewWriter(&buf, compress)
	if err := g.Write(context.Background(), w); err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.Bytes()
}

func TestDeterminism(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		seedA    uint64
		seedB    uint64
		compress bool
		wantSame bool
	}{
		{"same seed plain", 3000, 7, 7, false, true},
		{"same seed gzip", 3000, 7, 7, true, true},
		{"same seed tiny", 1, 0, 0, false, true},
		{"different seed plain", 3000, 7, 8, false, false},
		{"different seed gzip", 3000, 7, 8, true, false},
		{"different seed tiny", 5, 1, 2, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := encode(t, tt.n, tt.seedA, tt.compress), encode(t, tt.n, tt.seedB, tt.compress)
			if same := bytes.Equal(a, b); same != tt.wantSame {
				t.Fatalf("outputs equal = %v, want %v (%d and %d bytes)", same, tt.wantSame, len(a), len(b))
			}
			if !tt.compress {
				if lines := bytes.Count(a, []byte("\n")); lines != tt.n {
					t.Fatalf("%d lines, want %d", lines, tt.n)
				}
			}
		})
	}
}

// TestGolden pins the bytes of a small catalog, so an accidental change to
// the generator (which would silently change every catalog and every
// problem built on one) fails loudly. If a change is intended, update the
// digest and say so in the change description.
func TestGolden(t *testing.T) {
	sum := sha256.Sum256(encode(t, 2000, 42, false))
	got := hex.EncodeToString(sum[:])
	const want = "dfb372b7eaacf897e85ae64703cedd549a692c9a2fc58b86f00610c16838d063"
	if got != want {
		t.Fatalf("catalog digest for seed 42, 2000 products = %s, want %s", got, want)
	}
}

func TestIndependentOfParallelism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var outs [][]byte
	for _, procs := range []int{1, 3} {
		runtime.GOMAXPROCS(procs)
		outs = append(outs, encode(t, 5000, 11, false))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("output depends on GOMAXPROCS")
	}
}

func TestEachStopsOnError(t *testing.T) {
	g, err := New(Options{Products: 50000, Seed: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	n := 0
	err = g.Each(context.Background(), func(*shop.Product) error {
		n++
		if n == 1234 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 1234 {
		t.Fatalf("Each returned %v after %d products", err, n)
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"zero", 0}, {"negative", -5}, {"too many", MaxProducts + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(Options{Products: tt.n}, zerolog.Nop()); err == nil {
				t.Fatalf("New accepted %d products", tt.n)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	g, err := New(Options{Products: 100000, Seed: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Each(ctx, func(*shop.Product) error { return nil }); err == nil {
		t.Fatal("Each ignored a canceled context")
	}
}

func TestProgress(t *testing.T) {
	var last, total int
	g, err := New(Options{Products: 25000, Seed: 1, Progress: func(d, t int) { last, total = d, t }}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Each(context.Background(), func(*shop.Product) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if last != 25000 || total != 25000 {
		t.Fatalf("progress ended at %d/%d", last, total)
	}
}

func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

func TestMarketplaceShape(t *testing.T) {
	const n = 20000
	ps := generate(t, n, 3)
	ids := map[string]bool{}
	shops := map[string]bool{}
	topAttrKeys := map[string]map[string]bool{}
	topBrands := map[string]map[string]bool{}
	shopLeaves := map[string]map[string]bool{}
	var prices []float64
	var svc [4]int
	multiVariant, maxVariants := 0, 0
	for i := range ps {
		p := &ps[i]
		if err := p.Validate(); err != nil {
			t.Fatalf("product %d invalid: %v", i, err)
		}
		if ids[p.ProductID] {
			t.Fatalf("duplicate id %s", p.ProductID)
		}
		ids[p.ProductID] = true
		shops[p.ShopID] = true
		top := p.TopCategory()
		if topAttrKeys[top] == nil {
			topAttrKeys[top], topBrands[top] = map[string]bool{}, map[string]bool{}
		}
		for _, a := range p.Attributes {
			if a.Key != "brand" {
				topAttrKeys[top][a.Key] = true
			}
		}
		if p.Brand != "" {
			topBrands[top][p.Brand] = true
		}
		if shopLeaves[p.ShopID] == nil {
			shopLeaves[p.ShopID] = map[string]bool{}
		}
		shopLeaves[p.ShopID][p.Category] = true
		prices = append(prices, p.Price)
		for b := range 4 {
			if p.Service&(1<<b) != 0 {
				svc[b]++
			}
		}
		if len(p.SKUOptions) >= 2 {
			multiVariant++
		}
		maxVariants = max(maxVariants, len(p.SKUOptions))
	}

	t.Run("top categories", func(t *testing.T) {
		if len(topAttrKeys) < 20 {
			t.Fatalf("%d top-level categories, want >= 20", len(topAttrKeys))
		}
	})
	t.Run("own attribute vocabulary", func(t *testing.T) {
		for a, ka := range topAttrKeys {
			for b, kb := range topAttrKeys {
				if a < b && mapsEqual(ka, kb) {
					t.Errorf("%q and %q share the same attribute keys %v", a, b, keys(ka))
				}
			}
		}
	})
	t.Run("own brands", func(t *testing.T) {
		owner := map[string]string{}
		for top, bs := range topBrands {
			if len(bs) < 5 {
				t.Errorf("%q has only %d brands", top, len(bs))
			}
			for b := range bs {
				if o, ok := owner[b]; ok {
					t.Errorf("brand %q in both %q and %q", b, o, top)
				}
				owner[b] = top
			}
		}
	})
	t.Run("about N/50 shops", func(t *testing.T) {
		want := n / 50
		if got := len(shops); got < want*9/10 || got > want {
			t.Fatalf("%d shops, want about %d", got, want)
		}
	})
	t.Run("overlapping assortments", func(t *testing.T) {
		leafShops := map[string]int{}
		for _, leaves := range shopLeaves {
			for l := range leaves {
				leafShops[l]++
			}
		}
		shared := 0
		for _, leaves := range shopLeaves {
			for l := range leaves {
				if leafShops[l] > 1 {
					shared++
					break
				}
			}
		}
		if frac := float64(shared) / float64(len(shopLeaves)); frac < 0.95 {
			t.Fatalf("only %.2f of shops share a leaf category with another shop", frac)
		}
	})
	t.Run("sku variants", func(t *testing.T) {
		if frac := float64(multiVariant) / n; frac < 0.4 {
			t.Fatalf("%.2f of products have 2+ SKU variants, want >= 0.4", frac)
		}
		if maxVariants > 9 {
			t.Fatalf("%d variants, ShoppingBench keeps at most 9", maxVariants)
		}
	})
	t.Run("service frequencies", func(t *testing.T) {
		bands := [4][2]float64{{0.03, 0.15}, {0.2, 0.5}, {0.45, 0.8}, {0.08, 0.25}}
		for b, band := range bands {
			if f := float64(svc[b]) / n; f < band[0] || f > band[1] {
				t.Errorf("%s on %.3f of products, want %.2f..%.2f", shop.ServiceNames()[b], f, band[0], band[1])
			}
		}
	})
	t.Run("long-tailed prices", func(t *testing.T) {
		p50, p99 := quantile(prices, 0.5), quantile(prices, 0.99)
		var mean float64
		for _, p := range prices {
			mean += p
		}
		mean /= float64(len(prices))
		if p99/p50 < 10 || mean < 1.5*p50 {
			t.Fatalf("prices not long-tailed: p50 %.0f p99 %.0f mean %.0f", p50, p99, mean)
		}
	})
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestDistractors checks the property that keeps search from being
// trivial, on a 100k catalog: for a typical product, at least five other
// products share its two most specific title words (the two rarest, by
// number of titles containing them).
func TestDistractors(t *testing.T) {
	if testing.Short() {
		t.Skip("100k catalog")
	}
	const n = 100_000
	ps := generate(t, n, 1)
	titleTerms := make([][]string, n)
	df := map[string]int{}
	posting := map[string][]int32{}
	for i := range ps {
		seen := map[string]bool{}
		for _, w := range index.Terms(ps[i].Title) {
			if !seen[w] {
				seen[w] = true
				df[w]++
				posting[w] = append(posting[w], int32(i))
				titleTerms[i] = append(titleTerms[i], w)
			}
		}
	}
	var counts []int
	for i := 0; i < n; i += 20 {
		ts := slices.Clone(titleTerms[i])
		if len(ts) < 2 {
			counts = append(counts, 0)
			continue
		}
		slices.SortFunc(ts, func(a, b string) int {
			if df[a] != df[b] {
				return df[a] - df[b]
			}
			return strings.Compare(a, b)
		})
		others := intersectCount(posting[ts[0]], posting[ts[1]]) - 1 // minus the product itself
		counts = append(counts, others)
	}
	slices.Sort(counts)
	atLeast5 := len(counts) - sort.SearchInts(counts, 5)
	median := counts[len(counts)/2]
	frac := float64(atLeast5) / float64(len(counts))
	t.Logf("others sharing the two rarest title words: median %d, p10 %d, %.1f%% have >= 5 (%d sampled)",
		median, counts[len(counts)/10], 100*frac, len(counts))
	if median < 5 || frac < 0.8 {
		t.Fatalf("distractor property fails: median %d, %.2f with >= 5", median, frac)
	}
}

// intersectCount counts common elements of two ascending lists.
func intersectCount(a, b []int32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

func TestTaxonomyParses(t *testing.T) {
	tops, err := parseTaxonomy(taxonomySource)
	if err != nil {
		t.Fatal(err)
	}
	if len(tops) < 20 {
		t.Fatalf("%d top categories", len(tops))
	}
	for _, top := range tops {
		for _, l := range top.leaves {
			if len(l.skus) == 0 || len(l.attrs) == 0 || math.IsNaN(l.price) {
				t.Errorf("leaf %q lacks skus or attrs", l.path)
			}
		}
	}
}

func TestTaxonomyErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"attr before top", "attr a: b", "before any top"},
		{"bad top", "top X | w | 3", "bad weight"},
		{"short leaf", "top X | 1 | 3\nattr a: b\nsku c: d\nleaf A > B | 10 | t", "want: leaf"},
		{"few features", "top X | 1 | 3\nattr a: b\nsku c: d\nleaf A > B | 10 | t | a, b", "at least 4"},
		{"no leaves", "top X | 1 | 3\nattr a: b\nsku c: d", "no leaves"},
		{"unknown keyword", "bogus line", "unknown keyword"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseTaxonomy(tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestRNG(t *testing.T) {
	t.Run("intn uniform", func(t *testing.T) {
		r := newRNG(1)
		var c [7]int
		for range 70000 {
			c[r.intn(7)]++
		}
		for i, v := range c {
			if v < 9000 || v > 11000 {
				t.Fatalf("bucket %d has %d of 70000", i, v)
			}
		}
	})
	t.Run("permutation is a bijection", func(t *testing.T) {
		p := newPermutation(9, 1, 8, 50000)
		seen := make([]bool, 50000)
		for i := range uint64(50000) {
			v := p.apply(i)
			if v >= 50000 || seen[v] {
				t.Fatalf("apply(%d) = %d repeats or is out of range", i, v)
			}
			seen[v] = true
		}
	})
	t.Run("streams differ by label", func(t *testing.T) {
		if newRNG(1, 2).u64() == newRNG(1, 3).u64() {
			t.Fatal("labels do not separate streams")
		}
	})
}

// encodeLot is lot k of n products of the catalog (products, seed) as
// JSON Lines.
func encodeLot(t testing.TB, products int, seed uint64, k, n int) []byte {
	t.Helper()
	g, err := New(Options{Products: products, Seed: seed}, zerolog.Nop())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ps, err := g.Lot(context.Background(), k, n)
	if err != nil {
		t.Fatalf("Lot %d: %v", k, err)
	}
	if len(ps) != n {
		t.Fatalf("lot %d: %d products, want %d", k, len(ps), n)
	}
	var buf bytes.Buffer
	w := shop.NewWriter(&buf, false)
	for i := range ps {
		if err := w.Write(&ps[i]); err != nil {
			t.Fatalf("lot %d product %d: %v", k, i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLotGolden pins a restock lot's bytes: every validator restocking on
// one schedule must stock the same products, release after release.
func TestLotGolden(t *testing.T) {
	sum := sha256.Sum256(encodeLot(t, 2000, 42, 3, 500))
	got := hex.EncodeToString(sum[:])
	const want = "c9b8767fe6f6e57f122cfd0ccce4c7c4fcbed7b25f1e34cca7688787d4ad8d5d"
	if got != want {
		t.Fatalf("lot 3 digest for seed 42, 2000 products, lots of 500 = %s, want %s", got, want)
	}
}

func TestLots(t *testing.T) {
	const products, seed, lotSize = 3000, 7, 400
	base := generate(t, products, seed)
	shops := map[string]bool{}
	ids := map[string]string{}
	for _, p := range base {
		shops[p.ShopID] = true
		ids[p.ProductID] = "catalog"
	}
	for k := 1; k <= 3; k++ {
		a, b := encodeLot(t, products, seed, k, lotSize), encodeLot(t, products, seed, k, lotSize)
		if !bytes.Equal(a, b) {
			t.Fatalf("lot %d differs between two runs", k)
		}
		g, _ := New(Options{Products: products, Seed: seed}, zerolog.Nop())
		lot, err := g.Lot(context.Background(), k, lotSize)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range lot {
			if err := p.Validate(); err != nil {
				t.Fatalf("lot %d product %s: %v", k, p.ProductID, err)
			}
			if where, ok := ids[p.ProductID]; ok {
				t.Fatalf("lot %d product id %s is already in %s", k, p.ProductID, where)
			}
			ids[p.ProductID] = fmt.Sprintf("lot %d", k)
			if !shops[p.ShopID] {
				t.Fatalf("lot %d product %s is sold by shop %s, which the catalog does not have", k, p.ProductID, p.ShopID)
			}
		}
	}
}

func TestLotValidation(t *testing.T) {
	g, err := New(Options{Products: 100, Seed: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		k, n int
	}{
		{"lot zero", 0, 10},
		{"no products", 1, 0},
		{"lot too large", 1, maxLotProducts + 1},
		{"past the id space", 10_000, 1_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := g.Lot(context.Background(), tt.k, tt.n); err == nil {
				t.Fatalf("Lot(%d, %d) succeeded", tt.k, tt.n)
			}
		})
	}
}
