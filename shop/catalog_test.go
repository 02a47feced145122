package shop

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestCompareIDs(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"9", "10", -1}, {"10", "9", 1}, {"123", "123", 0}, {"007", "7", -1}, {"7", "007", 1},
		{"99999999999999999999", "100000000000000000000", -1}, {"5", "a", -1}, {"a", "5", 1}, {"abc", "abd", -1},
	}
	for _, tt := range tests {
		t.Run(tt.a+"_"+tt.b, func(t *testing.T) {
			if got := compareIDs(tt.a, tt.b); got != tt.want {
				t.Fatalf("compareIDs(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestNewCatalog(t *testing.T) {
	tests := []struct {
		name    string
		ps      []Product
		wantErr string
	}{
		{"empty", nil, ""},
		{"valid", []Product{{ProductID: "2", Title: "b", Price: 1}, {ProductID: "1", Title: "a", Price: 2}}, ""},
		{"duplicate id", []Product{{ProductID: "1", Title: "a", Price: 1}, {ProductID: "1", Title: "b", Price: 1}}, "duplicate product_id"},
		{"missing title", []Product{{ProductID: "1", Price: 1}}, "missing title"},
		{"missing id", []Product{{Title: "x", Price: 1}}, "missing product_id"},
		{"negative price", []Product{{ProductID: "1", Title: "x", Price: -2}}, "price"},
		{"bad service bits", []Product{{ProductID: "1", Title: "x", Price: 1, Service: 0x80}}, "service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCatalog(tt.ps)
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestCatalogLookups(t *testing.T) {
	var ps []Product
	// Ids deliberately out of order and of different lengths.
	for _, n := range []int{30, 4, 1000, 7, 12, 5, 999, 100} {
		ps = append(ps, Product{ProductID: fmt.Sprint(n), ShopID: fmt.Sprint("s", n%3), Title: fmt.Sprint("item ", n), Price: float64(n)})
	}
	cat, err := NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for p := range cat.All() {
		order = append(order, p.ProductID)
	}
	if want := []string{"4", "5", "7", "12", "30", "100", "999", "1000"}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i, id := range order {
		if pos, ok := cat.Position(id); !ok || pos != i || cat.At(i).ProductID != id {
			t.Fatalf("position of %s = %d %v", id, pos, ok)
		}
		if p, ok := cat.Product(id); !ok || p.Title != "item "+id {
			t.Fatalf("lookup %s = %+v", id, p)
		}
	}
	if _, ok := cat.Product("6"); ok {
		t.Fatal("unknown id found")
	}
	if got := cat.Shops(); !slices.Equal(got, []string{"s0", "s1", "s2"}) {
		t.Fatalf("shops %v", got)
	}
	var s1 []string
	for _, p := range cat.ShopProducts("s1") {
		s1 = append(s1, p.ProductID)
	}
	if !slices.Equal(s1, []string{"4", "7", "100", "1000"}) {
		t.Fatalf("shop s1 %v", s1)
	}
	if cat.ShopProducts("nope") != nil {
		t.Fatal("unknown shop has products")
	}
	t.Run("concurrent readers", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 1000 {
					cat.Product("999")
					cat.ShopProducts("s0")
					cat.Stats(3)
				}
			}()
		}
		wg.Wait()
	})
}

func TestCatalogStats(t *testing.T) {
	cat := fixture(t)
	st := cat.Stats(2)
	if st.Products != 73 || st.Shops != 5 || st.Brands != 1 {
		t.Fatalf("%+v", st)
	}
	if st.TopCategories[0] != (Count{"Audio", 70}) {
		t.Fatalf("top categories %v", st.TopCategories)
	}
	if len(st.TopShops) != 2 || st.TopShops[0].N < st.TopShops[1].N {
		t.Fatalf("top shops %v", st.TopShops)
	}
	if st.Services[len(st.Services)-1].Name != "none" || st.Services[2] != (Count{"COD", 42}) {
		t.Fatalf("services %v", st.Services)
	}
	if st.Price.Min != 99 || st.Price.Max < st.Price.P99 || st.Price.P50 < st.Price.P25 {
		t.Fatalf("price %+v", st.Price)
	}
	if empty := (&Catalog{}).Stats(5); empty.Products != 0 || empty.Price != (Quantiles{}) {
		t.Fatalf("empty stats %+v", empty)
	}
}

func TestParseHelpers(t *testing.T) {
	t.Run("price ranges", func(t *testing.T) {
		tests := []struct {
			in   string
			want PriceRange
		}{
			{"0-100", PriceRange{Min: 0, Max: 100, HasMin: true, HasMax: true}},
			{"1000-", PriceRange{Min: 1000, HasMin: true}},
			{"-50", PriceRange{Max: 50, HasMax: true}},
			{" 10.5 - 20 ", PriceRange{Min: 10.5, Max: 20, HasMin: true, HasMax: true}},
			{"", PriceRange{}},
		}
		for _, tt := range tests {
			got, err := ParsePriceRange(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("ParsePriceRange(%q) = %+v, %v", tt.in, got, err)
			}
			if back, _ := ParsePriceRange(got.String()); back != got {
				t.Errorf("String round trip of %q: %q", tt.in, got.String())
			}
		}
	})
	t.Run("sorts", func(t *testing.T) {
		for _, s := range []Sort{SortRelevance, SortPriceAsc, SortPriceDesc, SortOrder} {
			if got, err := ParseSort(s.String()); err != nil || got != s {
				t.Errorf("sort %v round trip: %v %v", s, got, err)
			}
		}
	})
	t.Run("services", func(t *testing.T) {
		got, err := ParseServices("official, COD ,default")
		if err != nil || got != ServiceOfficial|ServiceCOD || got.String() != "official,COD" {
			t.Fatalf("%v %v", got, err)
		}
		if _, err := ParseServices("COD,cheap"); err == nil {
			t.Fatal("unknown service accepted")
		}
	})
}
