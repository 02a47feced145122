package shop

import (
	"fmt"
	"iter"
	"slices"
	"strings"
)

// Catalog is an immutable set of products with lookups by product id and by
// shop. Products are kept in product-id order (numeric ids by value), which
// is also the tie-break order of search. A Catalog is safe for concurrent
// use; the products it hands out are shared and must not be modified.
type Catalog struct {
	products []Product
	byID     map[string]int32
	// shops are the distinct shop ids in id order; shopOf[i] is product i's
	// shop number and shopItems[shopStart[s]:shopStart[s+1]] are shop s's
	// product positions.
	shops     []string
	shopNum   map[string]uint32
	shopOf    []uint32
	shopStart []int32
	shopItems []int32
}

// NewCatalog takes ownership of products (the slice is reordered and must
// not be used afterwards) and builds a catalog. Every product must pass
// Validate and ids must be unique; Load already drops duplicates.
func NewCatalog(products []Product) (*Catalog, error) {
	if len(products) > 1<<31-1 {
		return nil, fmt.Errorf("catalog: %d products exceed the limit", len(products))
	}
	for i := range products {
		if err := products[i].Validate(); err != nil {
			return nil, fmt.Errorf("catalog: product %d (%q): %w", i, products[i].ProductID, err)
		}
	}
	sortProducts(products)
	c := &Catalog{products: products, byID: make(map[string]int32, len(products))}
	for i := range products {
		id := products[i].ProductID
		if i > 0 && products[i-1].ProductID == id {
			return nil, fmt.Errorf("catalog: duplicate product_id %q", id)
		}
		c.byID[id] = int32(i)
	}
	// Shops, numbered in shop-id order.
	c.shopNum = make(map[string]uint32)
	for i := range products {
		if _, ok := c.shopNum[products[i].ShopID]; !ok {
			c.shopNum[products[i].ShopID] = 0
			c.shops = append(c.shops, products[i].ShopID)
		}
	}
	slices.SortFunc(c.shops, compareIDs)
	for s, id := range c.shops {
		c.shopNum[id] = uint32(s)
	}
	c.shopOf = make([]uint32, len(products))
	c.shopStart = make([]int32, len(c.shops)+1)
	for i := range products {
		s := c.shopNum[products[i].ShopID]
		c.shopOf[i] = s
		c.shopStart[s+1]++
	}
	for s := range c.shops {
		c.shopStart[s+1] += c.shopStart[s]
	}
	c.shopItems = make([]int32, len(products))
	next := slices.Clone(c.shopStart[:len(c.shops)])
	for i, s := range c.shopOf {
		c.shopItems[next[s]] = int32(i)
		next[s]++
	}
	return c, nil
}

// sortProducts orders products by id without moving 200-byte structs
// n·log n times: it sorts keys, then applies the permutation in place.
func sortProducts(products []Product) {
	n := len(products)
	sortedAlready := true
	for i := 1; i < n; i++ {
		if compareIDs(products[i-1].ProductID, products[i].ProductID) > 0 {
			sortedAlready = false
			break
		}
	}
	if sortedAlready {
		return
	}
	// Numeric ids up to 18 digits compare as integers; others fall back.
	type key struct {
		num  uint64
		ok   bool
		orig int32
	}
	keys := make([]key, n)
	for i := range products {
		id := products[i].ProductID
		k := key{orig: int32(i)}
		if isDigits(id) && len(strings.TrimLeft(id, "0")) <= 18 {
			k.ok = true
			for j := 0; j < len(id); j++ {
				k.num = k.num*10 + uint64(id[j]-'0')
			}
		}
		keys[i] = k
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.ok && b.ok && a.num != b.num {
			if a.num < b.num {
				return -1
			}
			return 1
		}
		return compareIDs(products[a.orig].ProductID, products[b.orig].ProductID)
	})
	// Position i must receive products[keys[i].orig]; follow cycles.
	perm := make([]int32, n)
	for i, k := range keys {
		perm[i] = k.orig
	}
	keys = nil
	for i := range perm {
		if perm[i] < 0 {
			continue
		}
		tmp := products[i]
		j := i
		for {
			src := int(perm[j])
			perm[j] = -1
			if src == i {
				products[j] = tmp
				break
			}
			products[j] = products[src]
			j = src
		}
	}
}

// Len is the number of products.
func (c *Catalog) Len() int { return len(c.products) }

// At returns the product at position i (0..Len-1), in id order.
func (c *Catalog) At(i int) *Product { return &c.products[i] }

// Product looks a product up by id.
func (c *Catalog) Product(id string) (*Product, bool) {
	i, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	return &c.products[i], true
}

// Position returns the product's position (see At).
func (c *Catalog) Position(id string) (int, bool) {
	i, ok := c.byID[id]
	return int(i), ok
}

// All yields every product in id order.
func (c *Catalog) All() iter.Seq[*Product] {
	return func(yield func(*Product) bool) {
		for i := range c.products {
			if !yield(&c.products[i]) {
				return
			}
		}
	}
}

// Shops returns the distinct shop ids in id order.
func (c *Catalog) Shops() []string { return slices.Clone(c.shops) }

// ShopProducts returns a shop's products in id order; nil for an unknown
// shop.
func (c *Catalog) ShopProducts(shopID string) []*Product {
	s, ok := c.shopNum[shopID]
	if !ok {
		return nil
	}
	items := c.shopItems[c.shopStart[s]:c.shopStart[s+1]]
	out := make([]*Product, len(items))
	for i, p := range items {
		out[i] = &c.products[p]
	}
	return out
}

// shopNumber returns the dense number of a shop id.
func (c *Catalog) shopNumber(shopID string) (uint32, bool) {
	s, ok := c.shopNum[shopID]
	return s, ok
}
