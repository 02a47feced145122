package index_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	bleveindex "github.com/blevesearch/bleve_index_api"
	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
	"arena/shop/index"
	"arena/shop/workload"
)

// BenchmarkEngines compares this package's index with bleve/v2 on the same
// 200,000 products (the first 200k of the 1M-product seed-1 catalog used
// by the acceptance benchmark) and the same mixed query set. Both engines
// answer the retrieval part of find_product: the 50 best BM25 matches that
// pass the shop, price and service filters. It reports build-s, p50-ms,
// p99-ms and heap-MB (Go heap in use after the build) for each engine.
//
//	go test ./shop/index -run '^$' -bench Engines -benchtime 2000x -timeout 30m
func BenchmarkEngines(b *testing.B) {
	const n = 200_000
	products := subset(b, 1_000_000, n)
	queries := workload.Queries(workload.Slice(products), 5000, 1)
	shops := shopNumbers(products)
	iqs := make([]index.Query, len(queries))
	for i, q := range queries {
		iq, err := toIndexQuery(q, shops)
		if err != nil {
			b.Fatal(err)
		}
		iqs[i] = iq
	}
	var arenaTop [][]uint32

	b.Run("engine=arena", func(b *testing.B) {
		heap0 := heapInUse()
		start := time.Now()
		ix, err := index.Build(context.Background(), n, func(i int, d *index.Doc) { fillDoc(&products[i], shops, d) }, index.Options{}, zerolog.Nop())
		if err != nil {
			b.Fatal(err)
		}
		build := time.Since(start)
		heap := heapInUse() - heap0
		for _, q := range iqs {
			arenaTop = append(arenaTop, docs(ix.Search(q)))
		}
		lat := make(workload.Latencies, 0, b.N)
		i := 0
		for b.Loop() {
			t0 := time.Now()
			ix.Search(iqs[i%len(iqs)])
			lat = append(lat, time.Since(t0))
			i++
		}
		report(b, build, lat, heap)
		runtime.KeepAlive(ix)
	})

	b.Run("engine=bleve", func(b *testing.B) {
		heap0 := heapInUse()
		start := time.Now()
		bi, err := buildBleve(b.TempDir(), products, shops)
		if err != nil {
			b.Fatal(err)
		}
		defer bi.Close()
		build := time.Since(start)
		heap := heapInUse() - heap0
		reqs := make([]*bleve.SearchRequest, len(iqs))
		for i, q := range iqs {
			reqs[i] = bleveRequest(q)
		}
		// Agreement with the arena engine on the top 10, for context: the
		// engines use different BM25 variants, so rankings differ in detail.
		if len(arenaTop) == len(reqs) {
			var overlap, total int
			for i, req := range reqs[:500] {
				res, err := bi.Search(req)
				if err != nil {
					b.Fatal(err)
				}
				want := map[uint32]bool{}
				for _, d := range arenaTop[i][:min(10, len(arenaTop[i]))] {
					want[d] = true
				}
				for _, h := range res.Hits[:min(10, len(res.Hits))] {
					var d uint32
					fmt.Sscan(h.ID, &d)
					if want[d] {
						overlap++
					}
				}
				total += len(want)
			}
			b.Logf("top-10 overlap with the arena engine: %.0f%%", 100*float64(overlap)/float64(max(total, 1)))
		}
		lat := make(workload.Latencies, 0, b.N)
		i := 0
		for b.Loop() {
			t0 := time.Now()
			if _, err := bi.Search(reqs[i%len(reqs)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
			i++
		}
		report(b, build, lat, heap)
	})
}

var errEnough = errors.New("enough")

// subset returns the first k products of the size-n seed-1 catalog.
func subset(b *testing.B, n, k int) []shop.Product {
	g, err := gen.New(gen.Options{Products: n, Seed: 1}, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	out := make([]shop.Product, 0, k)
	err = g.Each(context.Background(), func(p *shop.Product) error {
		out = append(out, *p)
		if len(out) == k {
			return errEnough
		}
		return nil
	})
	if !errors.Is(err, errEnough) {
		b.Fatal(err)
	}
	return out
}

// shopNumbers numbers the products' shops densely, in order of appearance.
func shopNumbers(products []shop.Product) map[string]uint32 {
	shops := map[string]uint32{}
	for i := range products {
		if _, ok := shops[products[i].ShopID]; !ok {
			shops[products[i].ShopID] = uint32(len(shops))
		}
	}
	return shops
}

func fillDoc(p *shop.Product, shops map[string]uint32, d *index.Doc) {
	d.Title, d.Brand, d.Category = p.Title, p.Brand, p.Category
	for _, a := range p.Attributes {
		d.Attrs = append(d.Attrs, a.Values...)
	}
	for _, sku := range p.SKUOptions {
		for _, o := range sku {
			d.Attrs = append(d.Attrs, o.Value)
		}
	}
	d.Shop, d.Price, d.Services = shops[p.ShopID], p.Price, uint8(p.Service)
}

func toIndexQuery(q workload.Query, shops map[string]uint32) (index.Query, error) {
	iq := index.Query{Text: q.Q, Limit: shop.MaxResults}
	pr, err := shop.ParsePriceRange(q.Price)
	if err != nil {
		return iq, err
	}
	svc, err := shop.ParseServices(q.Service)
	if err != nil {
		return iq, err
	}
	iq.HasMin, iq.MinPrice, iq.HasMax, iq.MaxPrice = pr.HasMin, pr.Min, pr.HasMax, pr.Max
	iq.Services = uint8(svc)
	if q.ShopID != "" {
		iq.FilterShop, iq.Shop = true, shops[q.ShopID]
	}
	return iq, nil
}

func docs(hits []index.Hit) []uint32 {
	out := make([]uint32, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

type bleveDoc struct {
	Title    string   `json:"title"`
	Brand    string   `json:"brand"`
	Category string   `json:"category"`
	Attrs    string   `json:"attrs"`
	Shop     string   `json:"shop"`
	Services []string `json:"services"`
	Price    float64  `json:"price"`
	Doc      string   `json:"doc"`
}

// buildBleve indexes the products with a mapping equivalent to the arena
// engine's: English-analysed text fields, BM25 scoring, keyword shop and
// services, numeric price, and a sortable document number for ties.
func buildBleve(dir string, products []shop.Product, shops map[string]uint32) (bleve.Index, error) {
	text := func() *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = "en"
		f.Store, f.IncludeTermVectors, f.IncludeInAll, f.DocValues = false, false, false, false
		return f
	}
	keyword := func(docValues bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store, f.IncludeTermVectors, f.IncludeInAll, f.DocValues = false, false, false, docValues
		return f
	}
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("title", text())
	dm.AddFieldMappingsAt("brand", text())
	dm.AddFieldMappingsAt("category", text())
	dm.AddFieldMappingsAt("attrs", text())
	dm.AddFieldMappingsAt("shop", keyword(false))
	dm.AddFieldMappingsAt("services", keyword(false))
	price := bleve.NewNumericFieldMapping()
	price.Store, price.IncludeInAll = false, false
	dm.AddFieldMappingsAt("price", price)
	dm.AddFieldMappingsAt("doc", keyword(true))
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	im.ScoringModel = bleveindex.BM25Scoring
	bi, err := bleve.New(dir+"/bleve", im)
	if err != nil {
		return nil, err
	}
	batch := bi.NewBatch()
	for i := range products {
		p := &products[i]
		var attrs []string
		for _, a := range p.Attributes {
			attrs = append(attrs, a.Values...)
		}
		for _, sku := range p.SKUOptions {
			for _, o := range sku {
				attrs = append(attrs, o.Value)
			}
		}
		id := fmt.Sprintf("%07d", i) // zero-padded so "doc" sorts like the arena document number
		d := bleveDoc{Title: p.Title, Brand: p.Brand, Category: p.Category, Attrs: strings.Join(attrs, " "),
			Shop: fmt.Sprint(shops[p.ShopID]), Services: p.Service.Names(), Price: p.Price, Doc: id}
		if err := batch.Index(fmt.Sprint(i), d); err != nil {
			return nil, err
		}
		if batch.Size() >= 2000 {
			if err := bi.Batch(batch); err != nil {
				return nil, err
			}
			batch.Reset()
		}
	}
	if err := bi.Batch(batch); err != nil {
		return nil, err
	}
	return bi, nil
}

func bleveRequest(q index.Query) *bleve.SearchRequest {
	match := func(field string, boost float64) query.Query {
		m := bleve.NewMatchQuery(q.Text)
		m.SetField(field)
		m.SetBoost(boost)
		return m
	}
	var qq query.Query = bleve.NewDisjunctionQuery(match("title", 3), match("brand", 2), match("category", 1), match("attrs", 1))
	var filters []query.Query
	if q.FilterShop {
		t := bleve.NewTermQuery(fmt.Sprint(q.Shop))
		t.SetField("shop")
		filters = append(filters, t)
	}
	for i, name := range shop.ServiceNames() {
		if q.Services&(1<<i) != 0 {
			t := bleve.NewTermQuery(name)
			t.SetField("services")
			filters = append(filters, t)
		}
	}
	if q.HasMin || q.HasMax {
		var lo, hi *float64
		if q.HasMin {
			lo = &q.MinPrice
		}
		if q.HasMax {
			hi = &q.MaxPrice
		}
		yes := true
		r := bleve.NewNumericRangeInclusiveQuery(lo, hi, &yes, &yes)
		r.SetField("price")
		filters = append(filters, r)
	}
	if len(filters) > 0 {
		qq = bleve.NewConjunctionQuery(append([]query.Query{qq}, filters...)...)
	}
	req := bleve.NewSearchRequestOptions(qq, shop.MaxResults, 0, false)
	req.SortBy([]string{"-_score", "doc"})
	return req
}

func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

func report(b *testing.B, build time.Duration, lat workload.Latencies, heap int64) {
	b.ReportMetric(build.Seconds(), "build-s")
	b.ReportMetric(workload.Millis(lat.Quantile(0.5)), "p50-ms")
	b.ReportMetric(workload.Millis(lat.Quantile(0.99)), "p99-ms")
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}
