package shop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"arena/shop/index"
)

// find_product's paging, as in ShoppingBench's sandbox.
const (
	PageSize   = 10
	MaxPages   = 5
	MaxResults = PageSize * MaxPages
)

// Sort is find_product's sort argument.
type Sort uint8

// The sorts. A sort other than relevance reorders the MaxResults most
// relevant matches; ties fall back to product id order.
const (
	SortRelevance Sort = iota // "default"
	SortPriceAsc              // "priceasc"
	SortPriceDesc             // "pricedesc"
	SortOrder                 // "order": best-selling first
)

// ParseSort accepts ShoppingBench's sort names ("priceasc", "pricedesc",
// "order", "default"), plus "" and "relevance" for the default. Case is
// ignored.
func ParseSort(s string) (Sort, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default", "relevance":
		return SortRelevance, nil
	case "priceasc":
		return SortPriceAsc, nil
	case "pricedesc":
		return SortPriceDesc, nil
	case "order":
		return SortOrder, nil
	}
	return 0, fmt.Errorf("unknown sort %q: want priceasc, pricedesc, order or default", clip(s, 40))
}

// String is the wire name.
func (s Sort) String() string {
	switch s {
	case SortPriceAsc:
		return "priceasc"
	case SortPriceDesc:
		return "pricedesc"
	case SortOrder:
		return "order"
	}
	return "default"
}

// PriceRange is an inclusive price filter; either bound may be absent.
type PriceRange struct {
	Min, Max       float64
	HasMin, HasMax bool
}

// ParsePriceRange parses find_product's price argument: "lo-hi", "lo-" or
// "-hi" with non-negative decimal bounds and lo <= hi. An empty string is
// no filter.
func ParsePriceRange(s string) (PriceRange, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return PriceRange{}, nil
	}
	lo, hi, ok := strings.Cut(s, "-")
	if !ok || strings.Contains(hi, "-") {
		return PriceRange{}, fmt.Errorf("malformed price %q: want \"lo-hi\" or \"lo-\", e.g. \"100-500\" or \"1000-\"", clip(s, 40))
	}
	var r PriceRange
	parse := func(part string) (float64, bool, error) {
		part = strings.TrimSpace(part)
		if part == "" {
			return 0, false, nil
		}
		f, err := strconv.ParseFloat(part, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 ||
			strings.ContainsAny(part, "xXpP_") || strings.EqualFold(part, "inf") {
			return 0, false, fmt.Errorf("malformed price %q: %q is not a non-negative number", clip(s, 40), clip(part, 40))
		}
		return f, true, nil
	}
	var err error
	if r.Min, r.HasMin, err = parse(lo); err != nil {
		return PriceRange{}, err
	}
	if r.Max, r.HasMax, err = parse(hi); err != nil {
		return PriceRange{}, err
	}
	if !r.HasMin && !r.HasMax {
		return PriceRange{}, fmt.Errorf("malformed price %q: give at least one bound, e.g. \"0-100\"", clip(s, 40))
	}
	if r.HasMin && r.HasMax && r.Min > r.Max {
		return PriceRange{}, fmt.Errorf("malformed price %q: the low bound is above the high bound", clip(s, 40))
	}
	return r, nil
}

// String formats the range as find_product takes it ("" for none).
func (r PriceRange) String() string {
	if !r.HasMin && !r.HasMax {
		return ""
	}
	f := func(v float64, ok bool) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return f(r.Min, r.HasMin) + "-" + f(r.Max, r.HasMax)
}

// Contains reports whether price is inside the range.
func (r PriceRange) Contains(price float64) bool {
	return (!r.HasMin || price >= r.Min) && (!r.HasMax || price <= r.Max)
}

// FindRequest is a parsed find_product call.
type FindRequest struct {
	Query    string
	Page     int // 1..MaxPages
	ShopID   string
	Price    PriceRange
	Sort     Sort
	Services Services // all required
}

// FindResult is one page of find_product.
type FindResult struct {
	Items []*Product
	// Total is the number of results over all pages (at most MaxResults).
	Total int
}

// Pages is the number of non-empty pages.
func (r FindResult) Pages() int { return (r.Total + PageSize - 1) / PageSize }

// IndexOptions configure BuildIndex.
type IndexOptions struct {
	// Params tune BM25F; the zero value means index.DefaultParams.
	Params index.Params
	// Workers is the build parallelism; 0 means GOMAXPROCS.
	Workers int
	// Progress is called with products processed and the total work.
	Progress func(done, total int)
}

// Index answers find_product over one catalog. It is immutable and safe for
// concurrent use.
type Index struct {
	cat *Catalog
	ix  *index.Index
}

// BuildIndex indexes a catalog: title, brand, category and attribute values
// (including SKU option values, as ShoppingBench's own index does) for
// ranking; shop, price and services for filtering.
func BuildIndex(ctx context.Context, cat *Catalog, opts IndexOptions, log zerolog.Logger) (*Index, error) {
	if cat == nil {
		return nil, errors.New("build index: nil catalog")
	}
	log = log.With().Str("component", "shop.index").Logger()
	start := time.Now()
	fill := func(i int, d *index.Doc) {
		d.Title, d.Brand, d.Category, d.Attrs = cat.searchText(i, d.Attrs)
		d.Shop = cat.shopOf[i]
		d.Price = cat.price[i]
		d.Services = cat.svc[i]
	}
	ix, err := index.Build(ctx, cat.Len(), fill, index.Options{Params: opts.Params, Workers: opts.Workers, Progress: opts.Progress}, log)
	if err != nil {
		return nil, fmt.Errorf("build index: %w", err)
	}
	st := ix.Stats()
	log.Info().Int("products", st.Docs).Int("terms", st.Terms).Int("postings", st.Postings).
		Int64("index_bytes", st.Bytes).Dur("took_ms", time.Since(start)).Msg("search index built")
	return &Index{cat: cat, ix: ix}, nil
}

// Catalog is the indexed catalog.
func (s *Index) Catalog() *Catalog { return s.cat }

// Stats reports the index's size.
func (s *Index) Stats() index.Stats { return s.ix.Stats() }

// Find runs find_product: the MaxResults most relevant products passing the
// filters, reordered by req.Sort, and the requested page of them.
func (s *Index) Find(req FindRequest) (FindResult, error) {
	if req.Page < 1 || req.Page > MaxPages {
		return FindResult{}, fmt.Errorf("page %d out of range 1..%d", req.Page, MaxPages)
	}
	q := index.Query{
		Text:     req.Query,
		Limit:    MaxResults,
		HasMin:   req.Price.HasMin,
		MinPrice: req.Price.Min,
		HasMax:   req.Price.HasMax,
		MaxPrice: req.Price.Max,
		Services: uint8(req.Services),
	}
	if req.ShopID != "" {
		shop, ok := s.cat.shopNumber(req.ShopID)
		if !ok {
			return FindResult{}, nil
		}
		q.FilterShop, q.Shop = true, shop
	}
	hits := s.ix.Search(q)
	pos := make([]uint32, len(hits))
	for i, h := range hits {
		pos[i] = h.Doc
	}
	sortPositions(pos, req.Sort, s.cat)
	res := FindResult{Total: len(pos)}
	lo := (req.Page - 1) * PageSize
	if lo < len(pos) {
		// Only the page is decoded; the sort reads the columns.
		page := pos[lo:min(lo+PageSize, len(pos))]
		res.Items = make([]*Product, len(page))
		for i, p := range page {
			res.Items[i] = s.cat.At(int(p))
		}
	}
	return res, nil
}

// sortPositions reorders relevance-ranked catalog positions. Ties are
// broken by product id (catalog position), never by relevance, so the
// order of a sorted page depends only on the products in it.
func sortPositions(pos []uint32, sort Sort, cat *Catalog) {
	if sort == SortRelevance {
		return
	}
	slices.SortFunc(pos, func(a, b uint32) int {
		var c int
		switch sort {
		case SortPriceAsc:
			c = cmpFloat(cat.price[a], cat.price[b])
		case SortPriceDesc:
			c = cmpFloat(cat.price[b], cat.price[a])
		case SortOrder:
			c = cmpInt(cat.sold[b], cat.sold[a])
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
