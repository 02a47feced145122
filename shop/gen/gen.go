package gen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"arena/shop"
)

// MaxProducts bounds one catalog; product ids are drawn from a 4e9 space.
const MaxProducts = 100_000_000

// Options configure a Generator.
type Options struct {
	// Products is the catalog size, 1..MaxProducts.
	Products int
	// Seed selects the catalog; the same seed and size give the same bytes.
	Seed uint64
	// Progress, if set, is called with products generated so far and the
	// total, every few thousand products and at the end.
	Progress func(done, total int)
}

// Stream labels keep the generator's random streams independent.
const (
	labelShops = iota + 1
	labelShopIDs
	labelProductIDs
	labelBrands
	labelFamily
	labelFamilySize
)

// shopPlan is a shop's character: what it sells and how it serves.
type shopPlan struct {
	id       string
	tops     []int
	weight   float64
	official bool
	freeShip float64 // chance a listing ships free
	cod      float64 // chance a listing offers cash on delivery
}

// catShops are the shops selling in one top category, with cumulative
// weights for sampling.
type catShops struct {
	shops []int
	cum   []float64
}

// Generator makes one deterministic catalog. It is safe to call its
// methods repeatedly; each call starts from the beginning.
type Generator struct {
	opts   Options
	log    zerolog.Logger
	tops   []*topCat
	topCum []float64
	shops  []shopPlan
	byTop  []catShops
	ids    permutation
}

// New validates opts and plans the shops and brands.
func New(opts Options, log zerolog.Logger) (*Generator, error) {
	if opts.Products < 1 || opts.Products > MaxProducts {
		return nil, fmt.Errorf("generate: products %d out of range 1..%d", opts.Products, MaxProducts)
	}
	tops, err := parseTaxonomy(taxonomySource)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	g := &Generator{
		opts: opts,
		log:  log.With().Str("component", "shop.gen").Logger(),
		tops: tops,
		ids:  newPermutation(opts.Seed, labelProductIDs, 16, 4_000_000_000),
	}
	var cum float64
	for _, t := range tops {
		cum += t.weight
		g.topCum = append(g.topCum, cum)
	}
	g.planBrands()
	g.planShops()
	return g, nil
}

// TopCategories lists the top-level category names.
func (g *Generator) TopCategories() []string {
	out := make([]string, len(g.tops))
	for i, t := range g.tops {
		out[i] = t.name
	}
	return out
}

// Shops is the number of shops planned (about Products/50).
func (g *Generator) Shops() int { return len(g.shops) }

func (g *Generator) planBrands() {
	r := newRNG(g.opts.Seed, labelBrands)
	used := map[string]bool{}
	suffixes := []string{"Co", "Lab", "One", "Plus", "Studio", "Works", "Home", "Pro", "Select", "Life"}
	for _, t := range g.tops {
		t.brands = t.brands[:0]
		for len(t.brands) < t.nBrands {
			name := pseudoWord(r, 2+r.intn(2))
			if r.chance(0.15) {
				name += " " + pick(r, suffixes)
			}
			if used[strings.ToLower(name)] {
				continue
			}
			used[strings.ToLower(name)] = true
			t.brands = append(t.brands, name)
		}
	}
}

func (g *Generator) planShops() {
	n := max(1, int(math.Round(float64(g.opts.Products)/50)))
	r := newRNG(g.opts.Seed, labelShops)
	ids := newPermutation(g.opts.Seed, labelShopIDs, 12, 9_000_000)
	g.shops = make([]shopPlan, n)
	g.byTop = make([]catShops, len(g.tops))
	for i := range g.shops {
		s := shopPlan{
			id:     strconv.FormatUint(1_000_000+ids.apply(uint64(i)), 10),
			weight: math.Exp(1.0 * r.normal()),
		}
		s.tops = []int{g.pickTop(r)}
		for extra := 0; extra < 2 && r.chance(0.45); extra++ {
			t := g.pickTop(r)
			if !containsInt(s.tops, t) {
				s.tops = append(s.tops, t)
			}
		}
		s.official = r.chance(0.04)
		switch {
		case s.official:
			s.weight *= 2.5
			s.freeShip, s.cod = 0.9, 0.8
		default:
			s.freeShip = 0.12
			if r.chance(0.35) {
				s.freeShip = 0.7
			}
			s.cod = 0.05
			if r.chance(0.85) {
				s.cod = 0.75
			}
		}
		g.shops[i] = s
		for _, t := range s.tops {
			cs := &g.byTop[t]
			prev := 0.0
			if len(cs.cum) > 0 {
				prev = cs.cum[len(cs.cum)-1]
			}
			cs.shops = append(cs.shops, i)
			cs.cum = append(cs.cum, prev+s.weight)
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (g *Generator) pickTop(r *rng) int {
	x := r.float() * g.topCum[len(g.topCum)-1]
	return sort.SearchFloat64s(g.topCum, x)
}

// family is one item sold by several shops.
type family struct {
	top      *topCat
	leaf     *leafCat
	size     int
	anchor   int // shop of the first listing, or -1
	brand    string
	series   string // "Kovix X12" or ""
	typ      string
	feats    []string
	spec     string // an optional specific detail for titles
	attrs    []kv   // chosen attribute values
	skuDims  []kv   // chosen SKU dimensions with their value pools
	base     float64
	shopPick []int
}

// Each generates the catalog in order, calling fn for every product from
// the caller's goroutine. The product is freshly allocated; fn may keep
// it. Generation stops at the first error from fn or when ctx is done.
func (g *Generator) Each(ctx context.Context, fn func(*shop.Product) error) error {
	return g.batches(ctx, func(batch []shop.Product) error {
		for i := range batch {
			p := new(shop.Product)
			*p = batch[i]
			if err := fn(p); err != nil {
				return err
			}
		}
		return nil
	})
}

// batches generates the catalog as consecutive runs of products, handed to
// fn in catalog order from the caller's goroutine; fn must not keep the
// slice. Families are generated in parallel (each from its own random
// stream, so the output does not depend on the number of workers).
func (g *Generator) batches(ctx context.Context, fn func([]shop.Product) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		first int   // first family
		sizes []int // listings of each family, already cut to the total
		start int   // catalog position of the first listing
		out   chan []shop.Product
	}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan job, 2*workers)
	order := make(chan chan []shop.Product, 4*workers)
	total := g.opts.Products
	go func() {
		defer close(jobs)
		defer close(order)
		f, emitted := 0, 0
		for emitted < total {
			j := job{first: f, start: emitted, out: make(chan []shop.Product, 1)}
			for len(j.sizes) < 64 && emitted < total {
				size := min(g.familySize(uint64(f+len(j.sizes))), total-emitted)
				j.sizes = append(j.sizes, size)
				emitted += size
			}
			f += len(j.sizes)
			select {
			case order <- j.out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pa := &shop.ProductArena{}
			for j := range jobs {
				count := 0
				for _, size := range j.sizes {
					count += size
				}
				// Values in one slice, not a pointer each: a catalog keeps
				// them, and many small structs fragment the heap.
				out := make([]shop.Product, 0, count)
				n := j.start
				for k, size := range j.sizes {
					if ctx.Err() != nil {
						break
					}
					out = g.listFamily(out, pa, uint64(j.first+k), size, n)
					n += size
				}
				j.out <- out // buffered: never blocks
			}
		}()
	}
	err := func() error {
		emitted := 0
		for ch := range order {
			var products []shop.Product
			select {
			case products = <-ch:
			case <-ctx.Done():
				return ctx.Err()
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			// Cut the run at every 10,000th product so progress is exact.
			for len(products) > 0 {
				k := min(len(products), 10000-emitted%10000)
				if err := fn(products[:k]); err != nil {
					return err
				}
				products = products[k:]
				emitted += k
				if g.opts.Progress != nil && (emitted%10000 == 0 || emitted == total) {
					g.opts.Progress(emitted, total)
				}
			}
		}
		return ctx.Err()
	}()
	cancel()
	wg.Wait()
	return err
}

// listFamily appends family f's size listings to out, the first at
// catalog position n, owning their parts in pa.
func (g *Generator) listFamily(out []shop.Product, pa *shop.ProductArena, f uint64, size, n int) []shop.Product {
	r := newRNG(g.opts.Seed, labelFamily, f)
	anchor := -1
	if f < uint64(len(g.shops)) {
		anchor = int(f)
	}
	fam := g.family(r, anchor, size)
	orig := -1 // the family's latest listing that is not a twin
	for l := range size {
		if orig >= 0 && r.chance(twinShare) {
			out = append(out, g.twin(r, fam, &out[orig], n+l))
		} else {
			out = append(out, g.listing(r, fam, l, n+l))
			orig = len(out) - 1
		}
		pa.Own(&out[len(out)-1])
	}
	return out
}

// familySize is the number of listings of family f. It has its own stream
// so the coordinator can lay out product positions without generating.
// At least six listings, so a family always offers distractors; a
// power-law tail gives a few items sold almost everywhere.
func (g *Generator) familySize(f uint64) int {
	r := newRNG(g.opts.Seed, labelFamilySize, f)
	return 6 + int(math.Min(6*r.pareto(2), 150))
}

// idSpace is how many product ids the id permutation can hand out.
const idSpace = 4_000_000_000

// lotFamilies numbers restock families apart from the catalog's own: lot
// k's j-th family is lotFamilies + k<<24 + j, far above any catalog's
// family count (at most MaxProducts/6).
const lotFamilies = 1 << 40

// maxLotProducts bounds one lot so that its families (at least six
// listings each) stay below the next lot's numbers.
const maxLotProducts = 6 << 24

// Lot generates restock lot k (k >= 1) of n products: new families, each
// listed by several of the catalog's shops like the catalog's own, with
// product ids that neither the catalog nor any other lot of size n has
// (lot k holds positions Products+(k-1)n .. Products+kn-1 of the id
// permutation). The same Options, k and n always give the same products,
// so every validator that restocks on one schedule stocks the same shop.
// A lot's last family is cut to fit n, as the catalog's is.
func (g *Generator) Lot(ctx context.Context, k, n int) ([]shop.Product, error) {
	if k < 1 || n < 1 || n > maxLotProducts || k >= 1<<16 {
		return nil, fmt.Errorf("restock lot %d of %d products: want lot 1..%d of 1..%d products", k, n, 1<<16-1, maxLotProducts)
	}
	start := uint64(g.opts.Products) + uint64(k-1)*uint64(n)
	if start+uint64(n) > idSpace {
		return nil, fmt.Errorf("restock lot %d of %d products: past the %d product ids the generator has", k, n, idSpace)
	}
	out := make([]shop.Product, 0, n)
	pa := &shop.ProductArena{}
	for j := uint64(0); len(out) < n; j++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := lotFamilies + uint64(k)<<24 + j
		size := min(g.familySize(f), n-len(out))
		out = g.listFamily(out, pa, f, size, int(start)+len(out))
	}
	return out, nil
}

// Products generates the whole catalog in memory.
func (g *Generator) Products(ctx context.Context) ([]shop.Product, error) {
	out := make([]shop.Product, 0, g.opts.Products)
	err := g.batches(ctx, func(batch []shop.Product) error {
		out = append(out, batch...)
		return nil
	})
	return out, err
}

// Write generates the catalog into w (which the caller closes).
func (g *Generator) Write(ctx context.Context, w *shop.Writer) error {
	if w == nil {
		return errors.New("generate: nil writer")
	}
	return g.batches(ctx, func(batch []shop.Product) error {
		for i := range batch {
			if err := w.Write(&batch[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// family draws a family of size listings; anchor, if not -1, is the shop
// of its first listing.
func (g *Generator) family(r *rng, anchor, size int) *family {
	fam := &family{anchor: -1, size: size}
	ti := -1
	if anchor >= 0 {
		// The first families seed one shop each, so every planned shop
		// sells something.
		fam.anchor = anchor
		ti = g.shops[anchor].tops[0]
	} else {
		ti = g.pickTop(r)
	}
	fam.top = g.tops[ti]
	fam.leaf = pick(r, fam.top.leaves)
	if r.chance(0.75) {
		// Popular brands are listed much more often: Zipf-like choice.
		i := int(float64(len(fam.top.brands)) * math.Pow(r.float(), 2))
		fam.brand = fam.top.brands[min(i, len(fam.top.brands)-1)]
	}
	if r.chance(0.65) {
		fam.series = pseudoWord(r, 2) + " " + modelCode(r)
		if r.chance(0.2) {
			fam.series += " " + pick(r, []string{"Pro", "Max", "Lite", "Plus", "Mini", "Ultra", "Air", "S"})
		}
	}
	fam.typ = pick(r, fam.leaf.types)
	fam.feats = sample(r, fam.leaf.feats, 2+r.intn(2))
	// Attributes: a few of the category's, one value each (sometimes two).
	for _, a := range sample(r, fam.leaf.attrs, 2+r.intn(min(4, len(fam.leaf.attrs)))) {
		vals := sample(r, a.values, 1+boolInt(r.chance(0.15)))
		fam.attrs = append(fam.attrs, kv{key: a.key, values: vals})
	}
	if r.chance(0.3) && len(fam.attrs) > 0 {
		a := pick(r, fam.attrs)
		fam.spec = a.values[0]
	}
	// SKU dimensions: none, one or two.
	switch x := r.float(); {
	case x < 0.3:
	case x < 0.8:
		fam.skuDims = []kv{fam.leaf.skus[0]}
	default:
		fam.skuDims = sample(r, fam.leaf.skus, 2)
	}
	fam.base = fam.leaf.price * math.Exp(0.75*r.normal())
	if r.chance(0.05) {
		fam.base *= 2 + 4*r.float()
	}
	fam.shopPick = g.pickShops(r, fam)
	return fam
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pickShops chooses the family's shops, weighted by shop size, distinct
// while enough shops sell in the category.
func (g *Generator) pickShops(r *rng, fam *family) []int {
	cs := g.byTop[topIndex(g.tops, fam.top)]
	out := make([]int, 0, fam.size)
	if fam.anchor >= 0 {
		out = append(out, fam.anchor)
	}
	if len(cs.shops) == 0 {
		for len(out) < fam.size {
			out = append(out, r.intn(len(g.shops)))
		}
		return out
	}
	total := cs.cum[len(cs.cum)-1]
	for tries := 0; len(out) < fam.size; tries++ {
		i := sort.SearchFloat64s(cs.cum, r.float()*total)
		s := cs.shops[min(i, len(cs.shops)-1)]
		// A small catalog may have fewer shops than listings; after a
		// while, repeats are allowed (a shop listing an item twice).
		if containsInt(out, s) && tries < 8*fam.size {
			continue
		}
		out = append(out, s)
	}
	return out
}

func topIndex(tops []*topCat, t *topCat) int {
	for i, x := range tops {
		if x == t {
			return i
		}
	}
	return 0
}

// listing makes the j-th listing of a family; n is the product's position
// in the catalog.
func (g *Generator) listing(r *rng, fam *family, j, n int) shop.Product {
	sp := &g.shops[fam.shopPick[j]]
	p := &shop.Product{
		ProductID: strconv.FormatUint(1_000_000_000+g.ids.apply(uint64(n)), 10),
		ShopID:    sp.id,
		Category:  fam.leaf.path,
	}
	if fam.brand != "" && !r.chance(0.05) {
		p.Brand = fam.brand
	}
	p.Title = g.title(r, fam, p.Brand != "")
	p.Attributes = g.attributes(r, fam, p.Brand)
	p.SKUOptions = g.skus(r, fam)
	p.Price = g.price(r, fam, sp)
	p.SoldCount = int64(math.Min(math.Floor(3*r.pareto(1.1)*math.Sqrt(sp.weight)), 500_000))
	if sp.official {
		p.Service |= shop.ServiceOfficial
	}
	if r.chance(sp.freeShip) {
		p.Service |= shop.ServiceFreeShipping
	}
	if r.chance(sp.cod) {
		p.Service |= shop.ServiceCOD
	}
	if r.chance(0.15) {
		p.Service |= shop.ServiceFlashsale
	}
	p.ShortDescription = shortDescription(r, fam)
	p.Description = description(r, fam, p)
	p.Specification = specification(fam, p)
	return *p
}

// twinShare is the chance that a family's next listing relists its
// latest original listing with one difference (see twin).
const twinShare = 0.6

// twin relists src (same shop, same title, brand and words) with exactly
// one difference a careful shopper notices and a text search does not: a
// price well away from it, one service fewer, one variant fewer, or
// another value of one attribute. Sellers relist items like this, and it
// gives every item near misses that rank with it for the same words.
func (g *Generator) twin(r *rng, fam *family, src *shop.Product, n int) shop.Product {
	p := *src
	p.ProductID = strconv.FormatUint(1_000_000_000+g.ids.apply(uint64(n)), 10)
	p.SKUOptions = append([]shop.SKU(nil), src.SKUOptions...)
	p.Attributes = append([]shop.Attribute(nil), src.Attributes...)
	p.SoldCount = int64(math.Min(math.Floor(3*r.pareto(1.1)), 500_000))
	dropped := src.Service &^ shop.ServiceOfficial
	var attrs []int
	for i, a := range p.Attributes {
		if a.Key != "brand" {
			attrs = append(attrs, i)
		}
	}
	switch k := r.intn(20); {
	case k < 8 && dropped != 0:
		names := dropped.Names()
		sv, _ := shop.ParseService(pick(r, names))
		p.Service &^= sv
	case k >= 8 && k < 13 && len(p.SKUOptions) >= 2:
		i := r.intn(len(p.SKUOptions))
		p.SKUOptions = append(p.SKUOptions[:i:i], p.SKUOptions[i+1:]...)
	case k >= 13 && k < 15 && len(attrs) > 0:
		i := pick(r, attrs)
		a := p.Attributes[i]
		for _, full := range fam.leaf.attrs {
			if full.key != a.Key {
				continue
			}
			var other []string
			for _, v := range full.values {
				if !slices.Contains(a.Values, v) {
					other = append(other, v)
				}
			}
			if len(other) > 0 {
				p.Attributes[i] = shop.Attribute{Key: a.Key, Values: []string{pick(r, other)}}
				p.Description = description(r, fam, &p)
				p.Specification = specification(fam, &p)
				return p
			}
		}
		fallthrough
	default:
		f := 0.5 + 0.25*r.float()
		if r.chance(0.5) {
			f = 1.3 + 0.4*r.float()
		}
		p.Price = math.Max(sellerPrice(r, src.Price*f), 1)
	}
	return p
}

// marketing words sellers add to titles; common, so they never make a
// title specific.
func marketingWords() []string {
	return []string{"Original", "2025 New", "Hot Sale", "Ready Stock", "COD", "Best Seller", "Authentic",
		"Local Stock", "High Quality", "Free Gift", "Sale", "Premium", "Budget Friendly", "Korean Style", "Trending"}
}

func (g *Generator) title(r *rng, fam *family, showBrand bool) string {
	var words []string
	if r.chance(0.25) {
		words = append(words, pick(r, marketingWords()))
	}
	if showBrand && r.chance(0.85) {
		words = append(words, fam.brand)
	}
	if fam.series != "" && r.chance(0.95) {
		words = append(words, fam.series)
	}
	feats := append([]string(nil), fam.feats...)
	if r.chance(0.3) {
		feats = append(feats, pick(r, fam.leaf.feats))
	}
	if r.chance(0.4) {
		shuffle(r, feats)
	}
	// Half the sellers lead with features ("Waterproof Bluetooth
	// Speaker"), half with the item ("Bluetooth Speaker Waterproof").
	split := len(feats)
	if r.chance(0.5) {
		split = r.intn(len(feats) + 1)
	}
	words = append(words, feats[:split]...)
	words = append(words, fam.typ)
	words = append(words, feats[split:]...)
	if fam.spec != "" && r.chance(0.6) {
		words = append(words, fam.spec)
	}
	if r.chance(0.1) {
		words = append(words, pick(r, []string{"1pc", "2pcs", "Set of 3", "Pack of 2", "Bundle"}))
	}
	if r.chance(0.2) {
		words = append(words, pick(r, marketingWords()))
	}
	return titleCase(dedupeWords(strings.Join(words, " ")))
}

// dedupeWords drops a repeated word (features can repeat the type noun).
func dedupeWords(s string) string {
	fields := strings.Fields(s)
	out := fields[:0]
	seen := map[string]bool{}
	for _, f := range fields {
		k := strings.ToLower(f)
		if seen[k] && len(k) > 2 {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	return strings.Join(out, " ")
}

// titleCase capitalises words as sellers do: model codes in capitals,
// sizes like 128gb as 128GB, other words with a leading capital.
func titleCase(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		hasDigit := strings.ContainsAny(f, "0123456789")
		switch {
		case hasDigit && f[0] >= '0' && f[0] <= '9':
			if strings.HasSuffix(f, "l") && strings.Trim(f[:len(f)-1], "0123456789.") == "" {
				f = f[:len(f)-1] + "L" // litres: 1.8L
				break
			}
			for _, unit := range []string{"gb", "tb", "mb", "mp", "hz", "mah"} {
				if strings.HasSuffix(f, unit) {
					f = strings.TrimSuffix(f, unit) + strings.ToUpper(unit)
					if unit == "mah" {
						f = strings.TrimSuffix(f, "MAH") + "mAh"
					}
					break
				}
			}
		case hasDigit, isAcronym(f):
			f = strings.ToUpper(f)
		default:
			f = strings.ToUpper(f[:1]) + f[1:]
		}
		fields[i] = f
	}
	return strings.Join(fields, " ")
}

// isAcronym reports words sellers write in capitals.
func isAcronym(w string) bool {
	switch strings.ToLower(w) {
	case "usb", "led", "rgb", "hdmi", "tws", "enc", "anc", "fm", "uv", "spf", "tv", "ssd", "hdd", "cctv", "ip",
		"ips", "pd", "gan", "nfc", "lte", "fhd", "uhd", "hdr", "bpa", "tpu", "tpe", "eva", "pu", "abs", "rc",
		"fpv", "gps", "oem", "obd2", "dvd", "cd", "opm", "diy", "tsa", "rfid", "icc", "fda", "hepa", "oled", "dpi", "ram", "pc", "ps5", "ps4", "uv400":
		return true
	}
	return false
}

func (g *Generator) attributes(r *rng, fam *family, brand string) []shop.Attribute {
	var out []shop.Attribute
	for _, a := range fam.attrs {
		if r.chance(0.15) {
			continue // this seller did not fill the attribute in
		}
		vals := a.values
		if r.chance(0.1) {
			// A seller's variant of the item: another value of the key.
			for _, full := range fam.leaf.attrs {
				if full.key == a.key {
					vals = []string{pick(r, full.values)}
				}
			}
		}
		out = append(out, shop.Attribute{Key: a.key, Values: append([]string(nil), vals...)})
	}
	if brand != "" && r.chance(0.4) {
		out = append(out, shop.Attribute{Key: "brand", Values: []string{strings.ToLower(brand)}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	// A leaf attribute can repeat a top one after overrides; keep the first.
	dedup := out[:0]
	for i, a := range out {
		if i > 0 && a.Key == out[i-1].Key {
			continue
		}
		dedup = append(dedup, a)
	}
	return dedup
}

func (g *Generator) skus(r *rng, fam *family) []shop.SKU {
	if len(fam.skuDims) == 0 || r.chance(0.2) {
		return nil
	}
	// Values this listing offers on each dimension.
	var dims []kv
	for _, d := range fam.skuDims {
		dims = append(dims, kv{key: d.key, values: sample(r, d.values, 2+r.intn(min(5, len(d.values))))})
	}
	var combos []shop.SKU
	var walk func(i int, cur []shop.Option)
	walk = func(i int, cur []shop.Option) {
		if len(combos) >= 9 { // ShoppingBench keeps at most 9 variants
			return
		}
		if i == len(dims) {
			sku := append(shop.SKU(nil), cur...)
			sort.Slice(sku, func(a, b int) bool { return sku[a].Key < sku[b].Key })
			combos = append(combos, sku)
			return
		}
		for _, v := range dims[i].values {
			walk(i+1, append(cur, shop.Option{Key: dims[i].key, Value: v}))
		}
	}
	walk(0, nil)
	// Sellers rarely stock every combination.
	if len(combos) > 2 && r.chance(0.4) {
		combos = combos[:2+r.intn(len(combos)-1)]
	}
	return combos
}

func (g *Generator) price(r *rng, fam *family, sp *shopPlan) float64 {
	p := fam.base * math.Exp(0.15*r.normal())
	if sp.official {
		p *= 1.12
	}
	return sellerPrice(r, p)
}

// sellerPrice rounds p as sellers price things.
func sellerPrice(r *rng, p float64) float64 {
	switch {
	case p < 20:
		p = math.Round(p*100) / 100
	case p < 1000 && r.chance(0.35):
		// Odd cents, as for imported items priced by exchange rate.
		p = math.Floor(p) + float64(r.intn(100))/100
	case p < 1000:
		p = math.Round(p/10)*10 - float64(pick(r, []int{0, 1, 1, 2, 5}))
	default:
		p = math.Round(p/50)*50 - float64(pick(r, []int{0, 1, 1, 5, 50}))
	}
	return math.Max(p, 1)
}

func shortDescription(r *rng, fam *family) string {
	templates := []string{
		"%s %s for everyday use", "%s design that makes this %s stand out", "A %[2]s with %[1]s",
		"%s: a %s that lasts", "Perfect %[2]s for home and travel, %[1]s",
	}
	var parts []string
	for _, f := range sample(r, fam.feats, 2) {
		parts = append(parts, capitalize(fmt.Sprintf(pick(r, templates), f, fam.typ)))
	}
	if len(fam.attrs) > 0 {
		a := pick(r, fam.attrs)
		parts = append(parts, capitalize(strings.ReplaceAll(a.key, "_", " "))+": "+a.values[0])
	}
	if r.chance(0.5) {
		parts = append(parts, "Package includes: 1 x "+fam.typ)
	}
	return strings.Join(parts, ";") + ";"
}

func description(r *rng, fam *family, p *shop.Product) string {
	var b strings.Builder
	b.WriteString(p.Title)
	b.WriteString(". ")
	if p.Brand != "" {
		fmt.Fprintf(&b, "Genuine %s %s. ", p.Brand, fam.typ)
	}
	b.WriteString("Features: ")
	b.WriteString(strings.Join(fam.feats, ", "))
	b.WriteString(". ")
	for _, a := range p.Attributes {
		fmt.Fprintf(&b, "%s: %s. ", capitalize(strings.ReplaceAll(a.Key, "_", " ")), strings.Join(a.Values, ", "))
	}
	blurbs := []string{
		"We are a local seller with fast delivery.", "Ships within 24 hours.",
		"Please message us if you have any questions.", "100% brand new and high quality.",
		"Leave a 5-star review and get a voucher for your next order.", "Actual color may vary slightly due to lighting.",
		"Follow our store for more deals.", "Warranty claims are handled by the seller within 7 days.",
	}
	for _, s := range sample(r, blurbs, 1+r.intn(2)) {
		b.WriteString(s)
		b.WriteByte(' ')
	}
	b.WriteString("Package includes: 1 x ")
	b.WriteString(fam.typ)
	b.WriteByte('.')
	// The builder's buffer has up to twice the text's capacity; a catalog
	// keeps a million of these, so keep an exact copy instead.
	return strings.Clone(b.String())
}

func specification(fam *family, p *shop.Product) string {
	var parts []string
	if p.Brand != "" {
		parts = append(parts, "brand:"+strings.ToLower(p.Brand))
	} else {
		parts = append(parts, "brand:no brand")
	}
	if fam.series != "" {
		parts = append(parts, "model:"+strings.ToLower(fam.series))
	}
	for _, a := range p.Attributes {
		if a.Key != "brand" {
			parts = append(parts, strings.ReplaceAll(a.Key, "_", " ")+":"+a.Values[0])
		}
	}
	return strings.Join(parts, ";")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// pseudoWord makes a pronounceable invented word for brands and series.
func pseudoWord(r *rng, syllables int) string {
	onsets := []string{"b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
		"br", "cr", "dr", "fl", "gr", "kl", "pr", "st", "tr", "sh", "ch", "qu", "vr"}
	vowels := []string{"a", "e", "i", "o", "u", "a", "e", "o", "ai", "ea", "io", "ou", "y"}
	codas := []string{"", "", "", "", "n", "r", "x", "s", "l", "m", "k", "v"}
	var b strings.Builder
	for i := range syllables {
		b.WriteString(pick(r, onsets))
		b.WriteString(pick(r, vowels))
		if i == syllables-1 || r.chance(0.3) {
			b.WriteString(pick(r, codas))
		}
	}
	return capitalize(b.String())
}

// modelCode is a model designation such as X12 or KT-300.
func modelCode(r *rng) string {
	const letters = "ABCDEFGHJKLMNPQRSTVWXZ"
	code := string(letters[r.intn(len(letters))])
	if r.chance(0.4) {
		code += string(letters[r.intn(len(letters))])
	}
	num := 1 + int(math.Min(999, 20*r.pareto(1.2)))
	if r.chance(0.25) {
		return code + "-" + strconv.Itoa(num*10)
	}
	return code + strconv.Itoa(num)
}
