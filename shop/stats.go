package shop

import (
	"cmp"
	"slices"
)

// Count is a named count.
type Count struct {
	Name string
	N    int
}

// Quantiles summarise a distribution.
type Quantiles struct {
	Min, P10, P25, P50, P75, P90, P99, Max, Mean float64
}

// Stats describe a catalog for people (arena shop stats).
type Stats struct {
	Products int
	Shops    int
	Brands   int // distinct non-empty brands
	// TopCategories counts products per top-level category, largest first.
	TopCategories []Count
	// Categories is the number of distinct full category paths.
	Categories int
	// TopShops are the largest shops, largest first.
	TopShops []Count
	// ProductsPerShop is the distribution of shop sizes.
	ProductsPerShop Quantiles
	// Services counts products offering each service, in canonical order,
	// followed by "none" for products with no service.
	Services []Count
	Price    Quantiles
	// WithSKUs is the number of products with at least one SKU variant.
	WithSKUs int
}

// Stats computes the catalog's statistics, listing the topShops largest
// shops.
func (c *Catalog) Stats(topShops int) Stats {
	st := Stats{Products: c.n, Shops: len(c.shops)}
	tops := map[string]int{}
	cats := map[string]struct{}{}
	brands := map[string]struct{}{}
	var svc [4]int
	none := 0
	prices := make([]float64, 0, c.n)
	var p Product // reused: decoding aliases the records and allocates little
	for i := range c.n {
		c.decode(i, &p)
		tops[p.TopCategory()]++
		cats[p.Category] = struct{}{}
		if p.Brand != "" {
			brands[p.Brand] = struct{}{}
		}
		for b := range svc {
			if p.Service&(1<<b) != 0 {
				svc[b]++
			}
		}
		if p.Service == 0 {
			none++
		}
		if len(p.SKUOptions) > 0 {
			st.WithSKUs++
		}
		prices = append(prices, p.Price)
	}
	st.Categories, st.Brands = len(cats), len(brands)
	for name, n := range tops {
		st.TopCategories = append(st.TopCategories, Count{name, n})
	}
	byCountDesc := func(a, b Count) int {
		if c := cmp.Compare(b.N, a.N); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	}
	slices.SortFunc(st.TopCategories, byCountDesc)
	sizes := make([]float64, len(c.shops))
	shopCounts := make([]Count, len(c.shops))
	for s, d := range c.shops {
		n := int(c.shopStart[s+1] - c.shopStart[s])
		sizes[s] = float64(n)
		shopCounts[s] = Count{c.str(uint64(d)), n}
	}
	slices.SortFunc(shopCounts, func(a, b Count) int {
		if c := cmp.Compare(b.N, a.N); c != 0 {
			return c
		}
		return compareIDs(a.Name, b.Name)
	})
	st.TopShops = shopCounts[:min(topShops, len(shopCounts))]
	st.ProductsPerShop = quantiles(sizes)
	for b, name := range serviceNames() {
		st.Services = append(st.Services, Count{name, svc[b]})
	}
	st.Services = append(st.Services, Count{"none", none})
	st.Price = quantiles(prices)
	return st
}

// quantiles sorts xs in place and summarises it (nearest-rank).
func quantiles(xs []float64) Quantiles {
	if len(xs) == 0 {
		return Quantiles{}
	}
	slices.Sort(xs)
	at := func(q float64) float64 { return xs[int(q*float64(len(xs)-1)+0.5)] }
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return Quantiles{
		Min: xs[0], P10: at(0.10), P25: at(0.25), P50: at(0.5), P75: at(0.75), P90: at(0.9), P99: at(0.99),
		Max: xs[len(xs)-1], Mean: sum / float64(len(xs)),
	}
}
