package validator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
	"arena/knowledge"
	"arena/shop"
	"arena/shop/gen"
)

// Restock is a generated catalog's restock schedule: Products new products
// (gen.Generator.Lot) every EveryBlocks blocks after FromBlock. Every
// validator with the same schedule holds the same lots at the same block.
type Restock struct {
	EveryBlocks, FromBlock uint64
	Products               int
}

// RestockOf reads the schedule from the catalog settings. A catalog file
// never restocks: its products are the operator's.
func RestockOf(cc config.CatalogConfig) Restock {
	if cc.File != "" || cc.RestockEveryBlocks == 0 || cc.RestockProducts < 1 {
		return Restock{}
	}
	return Restock{EveryBlocks: cc.RestockEveryBlocks, FromBlock: cc.RestockFromBlock, Products: cc.RestockProducts}
}

// Lots is how many restocks the shop holds at block.
func (r Restock) Lots(block uint64) int {
	if r.EveryBlocks == 0 || block < r.FromBlock {
		return 0
	}
	return int((block - r.FromBlock) / r.EveryBlocks)
}

// PerDay is the products restocks add a day at blockSeconds a block.
func (r Restock) PerDay(blockSeconds float64) float64 {
	if r.EveryBlocks == 0 || blockSeconds <= 0 {
		return 0
	}
	return float64(r.Products) * secondsPerDay / (blockSeconds * float64(r.EveryBlocks))
}

const secondsPerDay = 86400

// Stock is the shop after some restocks: the catalog's search index, the
// web derived from the catalog, and the tools agents call over both.
type Stock struct {
	// Lots is the restocks it holds.
	Lots  int
	Index *shop.Index
	Web   *knowledge.Corpus
	Tools *shop.Tools
}

// ShopOptions configure NewShop.
type ShopOptions struct {
	// Stock is the shop at the block the validator starts at (required).
	Stock *Stock
	// Generator makes the restock lots; nil with a zero Restock.
	Generator *gen.Generator
	Restock   Restock
	// Index tunes the search index of each restock.
	Index shop.IndexOptions
}

// Shop is the validator's shop as it restocks. A race runs on the stock of
// its window and a qualifying run on that of its first block, so every
// validator with the same catalog settings serves the same tool results
// for the same block, before and after a restock. Restocks only add
// products, and a product reads the same in every stock, so the newest
// stock answers any lookup of an older one's products (judging).
type Shop struct {
	opts ShopOptions
	log  zerolog.Logger
	cur  atomic.Pointer[Stock]
	// prev is the stock before cur, kept until no race can want it
	// (Release): a race may start after a qualifying run restocked for
	// a later block, and it still runs on its window's stock.
	prev atomic.Pointer[Stock]
	// mu serialises restocks: the first run that needs a stock builds it,
	// the others wait for it.
	mu sync.Mutex

	products, lots prometheus.Gauge
	restockSeconds prometheus.Histogram
}

// NewShop wraps the starting stock. reg may be nil.
func NewShop(opts ShopOptions, log zerolog.Logger, reg prometheus.Registerer) (*Shop, error) {
	if opts.Stock == nil || opts.Stock.Tools == nil {
		return nil, errors.New("shop: a starting stock with tools is required")
	}
	if opts.Restock.EveryBlocks > 0 && (opts.Generator == nil || opts.Restock.Products < 1 || opts.Stock.Index == nil) {
		return nil, errors.New("shop: restocking needs the catalog's generator, a positive lot size and the starting index")
	}
	s := &Shop{opts: opts, log: log.With().Str("component", "shop").Logger(),
		products: prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_shop_products",
			Help: "Products in the shop's newest stock."}),
		lots: prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_shop_restock_lots",
			Help: "Restock lots in the shop's newest stock (catalog.restock_*)."}),
		restockSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "arena_shop_restock_seconds",
			Help:    "Time to build a restocked catalog, its search index and its web.",
			Buckets: prometheus.ExponentialBuckets(0.25, 2, 10)}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{s.products, s.lots, s.restockSeconds} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("shop: register metrics: %w", err)
			}
		}
	}
	s.set(opts.Stock)
	return s, nil
}

func (s *Shop) set(st *Stock) {
	s.cur.Store(st)
	s.products.Set(float64(st.Tools.Catalog().Len()))
	s.lots.Set(float64(st.Lots))
}

// Current is the newest stock built.
func (s *Shop) Current() *Stock { return s.cur.Load() }

// Restock is the shop's schedule.
func (s *Shop) Restock() Restock { return s.opts.Restock }

// At returns the stock of block, restocking first if the schedule has
// lots due that the newest stock lacks. The stock before the newest is
// kept until Release; a block older than that (a run started more than a
// restock late, or after a restart past a restock) gets the oldest stock
// kept.
func (s *Shop) At(ctx context.Context, block uint64) (*Stock, error) {
	want := s.opts.Restock.Lots(block)
	if st, ok := s.kept(want); ok {
		return st, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.kept(want); ok {
		return st, nil
	}
	cur := s.cur.Load()
	start := time.Now()
	next, err := s.restock(ctx, cur, want)
	if err != nil {
		return nil, fmt.Errorf("restock to lot %d at block %d: %w", want, block, err)
	}
	s.restockSeconds.Observe(time.Since(start).Seconds())
	s.prev.Store(cur)
	s.set(next)
	s.log.Info().Uint64("block", block).Int("lots", next.Lots).Int("products", next.Tools.Catalog().Len()).
		Dur("took_ms", time.Since(start).Round(time.Millisecond)).Msg("shop restocked")
	return next, nil
}

// kept returns the stock with want lots if it is built, or the oldest
// kept if want is older still; false when want is due but not built.
func (s *Shop) kept(want int) (*Stock, bool) {
	cur := s.cur.Load()
	switch {
	case want > cur.Lots:
		return nil, false
	case want == cur.Lots:
		return cur, true
	}
	if p := s.prev.Load(); p != nil {
		if p.Lots != want {
			s.log.Warn().Int("lots", want).Int("served_lots", p.Lots).Msg("shop: the stock asked for is no longer kept; serving the oldest kept")
		}
		return p, true
	}
	s.log.Warn().Int("lots", want).Int("served_lots", cur.Lots).Msg("shop: the stock asked for is no longer kept; serving the oldest kept")
	return cur, true
}

// Release drops the stock before the newest once block, a race window
// just started, has the newest: later races and runs start at later
// blocks, so none wants an older stock.
func (s *Shop) Release(block uint64) {
	if s.opts.Restock.Lots(block) >= s.cur.Load().Lots {
		s.prev.Store(nil)
	}
}

// restock builds the stock with lots 1..want from cur's, which holds the
// ones before.
func (s *Shop) restock(ctx context.Context, cur *Stock, want int) (*Stock, error) {
	var more []shop.Product
	for k := cur.Lots + 1; k <= want; k++ {
		lot, err := s.opts.Generator.Lot(ctx, k, s.opts.Restock.Products)
		if err != nil {
			return nil, err
		}
		more = append(more, lot...)
	}
	cat, err := cur.Index.Catalog().With(more)
	if err != nil {
		return nil, err
	}
	idx, web, err := indexStock(ctx, cat, s.opts.Index, s.log)
	if err != nil {
		return nil, err
	}
	return &Stock{Lots: want, Index: idx, Web: web, Tools: cur.Tools.Restocked(idx, web)}, nil
}

// indexStock builds a catalog's search index and the web derived from it.
func indexStock(ctx context.Context, cat *shop.Catalog, opts shop.IndexOptions, log zerolog.Logger) (*shop.Index, *knowledge.Corpus, error) {
	idx, err := shop.BuildIndex(ctx, cat, opts, log)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog index: %w", err)
	}
	web, err := knowledge.Build(ctx, cat, knowledge.Options{}, log)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: knowledge corpus: %w", err)
	}
	return idx, web, nil
}

// generatedStock generates the catalog of cc with lots restocks, as a
// validator starting at a block with that many lots due builds it.
func generatedStock(ctx context.Context, g *gen.Generator, lots, lotSize int, opts shop.IndexOptions, log zerolog.Logger) (*shop.Index, *knowledge.Corpus, error) {
	products, err := g.Products(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: %w", err)
	}
	for k := 1; k <= lots; k++ {
		lot, err := g.Lot(ctx, k, lotSize)
		if err != nil {
			return nil, nil, fmt.Errorf("catalog: %w", err)
		}
		products = append(products, lot...)
	}
	cat, err := shop.NewCatalog(products)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: %w", err)
	}
	return indexStock(ctx, cat, opts, log)
}
