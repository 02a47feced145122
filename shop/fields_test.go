package shop

import (
	"testing"
)

// TestSearchableFields holds find_product to what ShoppingBench indexes for
// each product: its title, every SKU option value and every attribute value
// (its documents' contents), with a title match ranked first. Each word
// below occurs in one field of one product only.
func TestSearchableFields(t *testing.T) {
	ps := []Product{
		{ProductID: "1", ShopID: "10", Title: "Trail Runner Shoe", Price: 50,
			SKUOptions: []SKU{{{"color_family", "vermilion"}, {"size", "eu42"}}}},
		{ProductID: "2", ShopID: "10", Title: "Road Runner Shoe", Price: 60,
			Attributes: []Attribute{{"material", []string{"kevlarweave"}}, {"style", []string{"retro", "minimal"}}}},
		{ProductID: "3", ShopID: "11", Title: "Kevlarweave Gloves", Price: 20},
		{ProductID: "4", ShopID: "11", Title: "Plain Socks", Price: 5, Description: "quasarflux socks"},
	}
	cat, err := NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	tools := newTestTools(t, cat)
	tests := []struct {
		name string
		q    string
		want []string // ids, in order
	}{
		{"sku option value", "vermilion", []string{"1"}},
		{"second option of a variant", "eu42", []string{"1"}},
		{"attribute value", "minimal", []string{"2"}},
		{"title outranks attribute", "kevlarweave", []string{"3", "2"}},
		{"description is not indexed", "quasarflux", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := find(t, tools, `{"q":"`+tt.q+`","page":1}`)
			var got []string
			for _, it := range items {
				got = append(got, it.ProductID)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("q %q found %v, want %v", tt.q, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("q %q found %v, want %v", tt.q, got, tt.want)
				}
			}
		})
	}
}
