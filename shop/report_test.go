package shop

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestReports(t *testing.T) {
	cat := fixture(t)
	idx := newTestTools(t, cat).idx
	res, err := idx.Find(FindRequest{Query: "earbuds", Page: 2, Sort: SortPriceAsc, Services: ServiceCOD, Price: PriceRange{Max: 400, HasMax: true}})
	if err != nil {
		t.Fatal(err)
	}
	violin, _ := cat.Product("1")
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  []string
	}{
		{"stats", func(b *bytes.Buffer) error { return WriteStats(b, cat.Stats(3)) },
			[]string{"products      73", "BY SERVICE", "COD", "BY CATEGORY", "Audio", "largest shops", "median"}},
		{"search page", func(b *bytes.Buffer) error {
			return WriteSearch(b, FindRequest{Query: "earbuds", Page: 2, Sort: SortPriceAsc, Services: ServiceCOD, Price: PriceRange{Max: 400, HasMax: true}}, res, 20)
		}, []string{`find_product q="earbuds" page=2 sort=priceasc price=-400 service=COD`, "results 11-", "PRODUCT_ID", "…"}},
		{"no results", func(b *bytes.Buffer) error {
			return WriteSearch(b, FindRequest{Query: "zzz", Page: 1}, FindResult{}, 0)
		},
			[]string{"no products match"}},
		{"empty page", func(b *bytes.Buffer) error {
			return WriteSearch(b, FindRequest{Query: "x", Page: 4}, FindResult{Total: 12}, 0)
		},
			[]string{"page 4 is empty: 12 results fill 2 page(s)"}},
		{"product", func(b *bytes.Buffer) error { return WriteProduct(b, violin) },
			[]string{"Violin Bow Horsetail", "product_id     1", "brand: heart string", "1. size=4/4", "service        none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
		})
	}
	t.Run("write errors surface", func(t *testing.T) {
		if err := WriteStats(failWriter{}, cat.Stats(1)); err == nil {
			t.Fatal("write error swallowed")
		}
	})
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{thousands(0), "0"}, {thousands(999), "999"}, {thousands(1000), "1,000"}, {thousands(1234567), "1,234,567"}, {thousands(-4500), "-4,500"},
		{truncate("héllo world", 5), "héll…"}, {truncate("short", 10), "short"}, {percent(1, 3), "33.3%"}, {percent(1, 0), "-"},
		{wrap("a bb ccc", 2, 4), "  a bb\n  ccc\n"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
