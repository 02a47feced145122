package suite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"arena/shop"
	"arena/shop/index"
)

// GeneratorOptions configure NewGenerator.
type GeneratorOptions struct {
	// Index is the search index agents will use (required); its catalog is
	// the one problems are drawn from.
	Index *shop.Index
	// Seed selects the problems; the same catalog, seed and request give
	// the same problems.
	Seed uint64
	// MaxAttempts bounds the tries for one problem before it is given up
	// (default 40).
	MaxAttempts int
	// Workers is the parallelism of Generate (default GOMAXPROCS).
	Workers int
}

// Generator makes problems from one catalog. It is safe for concurrent use.
type Generator struct {
	opts   GeneratorOptions
	idx    *shop.Index
	cat    *shop.Catalog
	log    zerolog.Logger
	terms  [][]string         // normalised title terms by catalog position
	byLeaf map[string][]int32 // catalog positions by full category path
}

// NewGenerator prepares a generator over opts.Index's catalog.
func NewGenerator(opts GeneratorOptions, log zerolog.Logger) (*Generator, error) {
	if opts.Index == nil {
		return nil, errors.New("suite generator: Index is required")
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 40
	}
	if opts.Workers == 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxAttempts < 1 || opts.Workers < 1 {
		return nil, fmt.Errorf("suite generator: MaxAttempts %d and Workers %d must be positive", opts.MaxAttempts, opts.Workers)
	}
	cat := opts.Index.Catalog()
	if cat.Len() == 0 {
		return nil, errors.New("suite generator: empty catalog")
	}
	g := &Generator{opts: opts, idx: opts.Index, cat: cat, log: log.With().Str("component", "suite.generator").Logger(),
		terms: make([][]string, cat.Len()), byLeaf: map[string][]int32{}}
	for i := range cat.Len() {
		p := cat.At(i)
		g.terms[i] = dedupe(index.Terms(p.Title))
		g.byLeaf[p.Category] = append(g.byLeaf[p.Category], int32(i))
	}
	return g, nil
}

// Mix is the share of each type in a generated suite.
type Mix map[Type]float64

// DefaultMix is ShoppingBench-like: product 0.4, shop 0.3, voucher 0.3.
func DefaultMix() Mix { return Mix{TypeProduct: 0.4, TypeShop: 0.3, TypeVoucher: 0.3} }

// ParseMix reads "product:0.4,shop:0.3,voucher:0.3". Weights are relative.
func ParseMix(s string) (Mix, error) {
	m := Mix{}
	for part := range strings.SplitSeq(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			return nil, fmt.Errorf("mix %q: want type:weight pairs such as product:0.4", s)
		}
		t, err := ParseType(name)
		if err != nil {
			return nil, fmt.Errorf("mix %q: %w", s, err)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("mix %q: weight %q is not a non-negative number", s, w)
		}
		m[t] += f
	}
	total := 0.0
	for _, f := range m {
		total += f
	}
	if total <= 0 {
		return nil, fmt.Errorf("mix %q: weights sum to zero", s)
	}
	return m, nil
}

// counts splits n over the types by largest remainder, deterministically.
func (m Mix) counts(n int) map[Type]int {
	total := 0.0
	for _, f := range m {
		total += f
	}
	out := map[Type]int{}
	type rem struct {
		t Type
		r float64
	}
	var rems []rem
	left := n
	for _, t := range Types() {
		exact := float64(n) * m[t] / total
		out[t] = int(exact)
		left -= out[t]
		rems = append(rems, rem{t, exact - float64(out[t])})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].r > rems[j].r })
	for i := 0; left > 0; i++ {
		out[rems[i%len(rems)].t]++
		left--
	}
	return out
}

// Request asks Generate for a suite.
type Request struct {
	Count int
	Mix   Mix // nil means DefaultMix
	// Offset is the first slot number: slot i's problem depends only on
	// the seed and i, so a refill that continues at the last offset gets
	// fresh problems, and regenerating a range gives the same ones.
	Offset uint64
	// AllowSharedTargets keeps problems whose targets repeat an earlier
	// problem's. By default they are replaced, so that a suite's leak
	// clusters come from near-duplicate queries only, not from the
	// birthday paradox over targets (which, for a suite as large as its
	// catalog, merges most problems into one cluster).
	AllowSharedTargets bool
	// Progress, if set, is called with problems done and Count.
	Progress func(done, total int)
}

// GenerateReport counts the work behind a generated suite.
type GenerateReport struct {
	Problems   int
	ByType     map[Type]int
	Difficulty map[Difficulty]int
	Attempts   int // tries, including rejected ones
	GivenUp    int // problem slots that found no solvable problem
	Duplicates int // slots whose problem repeated an earlier id
	// SharedTargets counts problems replaced because a target was already
	// used by an earlier problem of the suite.
	SharedTargets int
}

// maxReplacementRounds bounds the rounds that replace problems with shared
// targets; a suite too large for its catalog ends up short instead.
const maxReplacementRounds = 8

type slot struct {
	seed uint64
	t    Type
}

// Generate makes req.Count problems in the proportions of req.Mix, spread
// over workers. Problem i depends only on the seed and i, so the output is
// the same for any number of workers.
func (g *Generator) Generate(ctx context.Context, req Request) ([]Problem, GenerateReport, error) {
	rep := GenerateReport{ByType: map[Type]int{}, Difficulty: map[Difficulty]int{}}
	if req.Count < 0 {
		return nil, rep, fmt.Errorf("generate: count %d is negative", req.Count)
	}
	mix := req.Mix
	if mix == nil {
		mix = DefaultMix()
	}
	// Interleave types so any prefix of the suite has about the mix.
	counts := mix.counts(req.Count)
	types := make([]Type, 0, req.Count)
	used := map[Type]int{}
	for i := range req.Count {
		best, bestLag := TypeProduct, math.Inf(-1)
		for _, t := range Types() {
			if used[t] >= counts[t] {
				continue
			}
			lag := float64(counts[t])*float64(i+1)/float64(req.Count) - float64(used[t])
			if lag > bestLag {
				best, bestLag = t, lag
			}
		}
		used[best]++
		types = append(types, best)
	}
	// Slots are generated in parallel rounds and accepted in slot order,
	// so the result does not depend on scheduling. A problem sharing a
	// target with an earlier accepted one is replaced by a fresh slot of
	// the same type (unless AllowSharedTargets): shared targets would merge
	// their leak clusters.
	slots := make([]slot, req.Count)
	for i := range slots {
		slots[i] = slot{seed: deriveSeed(g.opts.Seed, req.Offset+uint64(i)), t: types[i]}
	}
	var attempts, done atomic.Int64
	var progressMu sync.Mutex
	progress := func() {
		if n := done.Add(1); req.Progress != nil && (n%100 == 0 || int(n) == req.Count) {
			progressMu.Lock()
			req.Progress(int(min(n, int64(req.Count))), req.Count)
			progressMu.Unlock()
		}
	}
	seen := map[string]bool{}
	usedTargets := map[string]bool{}
	problems := make([]Problem, 0, req.Count)
	extra := uint64(0)
	for round := 0; len(slots) > 0; round++ {
		out := make([]Problem, len(slots))
		ok := make([]bool, len(slots))
		var next atomic.Int64
		grp, gctx := errgroup.WithContext(ctx)
		for range g.opts.Workers {
			grp.Go(func() error {
				for {
					i := int(next.Add(1) - 1)
					if i >= len(slots) {
						return nil
					}
					if err := gctx.Err(); err != nil {
						return err
					}
					p, tries, err := g.one(slots[i].t, slots[i].seed)
					attempts.Add(int64(tries))
					if err == nil {
						out[i], ok[i] = p, true
					}
					if round == 0 {
						progress()
					}
				}
			})
		}
		if err := grp.Wait(); err != nil {
			return nil, rep, fmt.Errorf("generate: %w", err)
		}
		var retry []slot
		for i := range out {
			p := &out[i]
			switch {
			case !ok[i]:
				rep.GivenUp++
			case seen[p.ID]:
				rep.Duplicates++
			case !req.AllowSharedTargets && slices.ContainsFunc(p.Targets, func(t string) bool { return usedTargets[t] }):
				rep.SharedTargets++
				if round < maxReplacementRounds {
					// Replacement slots come from a stream of their own
					// (high bit set), so they never repeat a regular slot.
					retry = append(retry, slot{seed: deriveSeed(g.opts.Seed, 1<<63|(req.Offset+extra)), t: p.Type})
					extra++
				}
			default:
				seen[p.ID] = true
				for _, t := range p.Targets {
					usedTargets[t] = true
				}
				problems = append(problems, *p)
				rep.ByType[p.Type]++
				rep.Difficulty[p.Difficulty]++
			}
		}
		slots = retry
	}
	rep.Attempts = int(attempts.Load())
	rep.Problems = len(problems)
	g.log.Info().Int("problems", rep.Problems).Int("attempts", rep.Attempts).Int("given_up", rep.GivenUp).
		Int("duplicates", rep.Duplicates).Int("shared_targets", rep.SharedTargets).Msg("suite generated")
	return problems, rep, nil
}

// One makes one problem of type t from seed, trying up to MaxAttempts
// candidates.
func (g *Generator) One(t Type, seed uint64) (Problem, error) {
	p, _, err := g.one(t, seed)
	return p, err
}

func (g *Generator) one(t Type, seed uint64) (Problem, int, error) {
	var last error
	for a := range g.opts.MaxAttempts {
		r := rand.New(rand.NewPCG(seed, uint64(a)))
		var p Problem
		var err error
		switch t {
		case TypeProduct:
			p, err = g.product(r)
		case TypeShop:
			p, err = g.shop(r)
		case TypeVoucher:
			p, err = g.voucher(r)
		default:
			return Problem{}, a, fmt.Errorf("generate: unknown type %q", t)
		}
		if err == nil {
			p.Seed = seed
			if err = p.Finish(); err == nil {
				return p, a + 1, nil
			}
		}
		last = err
	}
	return Problem{}, g.opts.MaxAttempts, fmt.Errorf("generate %s (seed %d): no solvable problem in %d attempts: %w", t, seed, g.opts.MaxAttempts, last)
}

// deriveSeed mixes the suite seed and a slot number (splitmix64), so
// neighbouring slots get unrelated streams.
func deriveSeed(seed, i uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15*(i+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// itemSpec is the constraints of one requested item, before they become
// JSON and words.
type itemSpec struct {
	target   *shop.Product
	pos      int
	phrase   string   // title words stated in the query
	words    []string // normalised terms of phrase
	price    *PriceBound
	services []string
	attrs    [][2]string
	skus     [][2]string
}

var errUnsuitable = errors.New("unsuitable target")

// fillerWords are title words sellers add for marketing; they say nothing
// about the product.
var fillerWords = map[string]bool{"original": true, "new": true, "hot": true, "sale": true, "ready": true, "stock": true,
	"best": true, "seller": true, "authentic": true, "local": true, "high": true, "quality": true, "free": true,
	"gift": true, "premium": true, "budget": true, "friendly": true, "korean": true, "style": true, "trending": true,
	"1pc": true, "2pcs": true, "set": true, "pack": true, "bundle": true, "of": true, "2025": true}

// spec draws constraints that the product at pos satisfies.
func (g *Generator) spec(r *rand.Rand, pos int, nPairs int) (*itemSpec, error) {
	p := g.cat.At(pos)
	var usable []string
	for _, w := range strings.Fields(p.Title) {
		// Bare numbers, one-letter words and sellers' filler ("Original",
		// "Hot Sale") make poor phrases.
		if len(index.Terms(w)) > 0 && len(w) > 1 && strings.ContainsFunc(w, unicode.IsLetter) && !fillerWords[strings.ToLower(w)] {
			usable = append(usable, w)
		}
	}
	if len(usable) < 2 {
		return nil, errUnsuitable
	}
	// A phrase of 2-4 consecutive title words, as a shopper would quote
	// them.
	n := min(len(usable), 2+r.IntN(3))
	start := r.IntN(len(usable) - n + 1)
	phrase := usable[start : start+n]
	c := &itemSpec{target: p, pos: pos, phrase: strings.Join(phrase, " ")}
	c.words = dedupe(index.Terms(c.phrase))

	// Price: a rounded bound around the price, sometimes open-ended.
	lo := math.Floor(p.Price * (0.5 + 0.45*r.Float64()))
	hi := math.Ceil(p.Price * (1.05 + 0.6*r.Float64()))
	switch r.IntN(4) {
	case 0, 1:
		c.price = &PriceBound{Op: OpBetween, Lo: ptr(lo), Hi: ptr(hi)}
	case 2:
		c.price = &PriceBound{Op: OpGreaterThan, Lo: ptr(lo)}
	default:
		c.price = &PriceBound{Op: OpLessThan, Hi: ptr(hi)}
	}
	// Services: up to two of the target's.
	svc := p.Service.Names()
	r.Shuffle(len(svc), func(i, j int) { svc[i], svc[j] = svc[j], svc[i] })
	c.services = svc[:min(len(svc), r.IntN(3))]
	slices.Sort(c.services)

	// Attribute and SKU pairs: nPairs of them, from one SKU variant so a
	// single variant satisfies every SKU pair.
	type pair struct {
		sku  bool
		k, v string
	}
	var pool []pair
	for _, a := range p.Attributes {
		if a.Key == "brand" || len(a.Values) == 0 {
			continue
		}
		pool = append(pool, pair{false, a.Key, a.Values[r.IntN(len(a.Values))]})
	}
	if len(p.SKUOptions) > 0 {
		for _, o := range p.SKUOptions[r.IntN(len(p.SKUOptions))] {
			pool = append(pool, pair{true, o.Key, o.Value})
		}
	}
	if len(pool) == 0 {
		return nil, errUnsuitable
	}
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for _, pr := range pool[:min(len(pool), nPairs)] {
		if pr.sku {
			c.skus = append(c.skus, [2]string{pr.k, pr.v})
		} else {
			c.attrs = append(c.attrs, [2]string{pr.k, pr.v})
		}
	}
	return c, nil
}

// satisfies reports whether the product at pos meets every constraint of
// c: the phrase's words in its title, the price bound, the services and the
// attribute and SKU pairs (the SKU pairs by one variant).
func (g *Generator) satisfies(pos int, c *itemSpec) bool {
	p := g.cat.At(pos)
	if c.price != nil && !c.price.Contains(p.Price) {
		return false
	}
	for _, s := range c.services {
		if sv, _ := shop.ParseService(s); !p.Service.Has(sv) {
			return false
		}
	}
	for _, w := range c.words {
		if _, ok := slices.BinarySearch(g.terms[pos], w); !ok {
			return false
		}
	}
	for _, kv := range c.attrs {
		vals, ok := p.Attribute(kv[0])
		if !ok || !slices.Contains(vals, kv[1]) {
			return false
		}
	}
	if len(c.skus) > 0 {
		found := false
		for _, sku := range p.SKUOptions {
			all := true
			for _, kv := range c.skus {
				if v, ok := sku.Value(kv[0]); !ok || v != kv[1] {
					all = false
					break
				}
			}
			if all {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// candidates lists the products of c's category that satisfy c. Products
// of other categories could satisfy the words too; they are rare and only
// make a problem easier, so the grade errs on the hard side.
func (g *Generator) candidates(c *itemSpec) []int32 {
	var out []int32
	for _, pos := range g.byLeaf[c.target.Category] {
		if g.satisfies(int(pos), c) {
			out = append(out, pos)
		}
	}
	return out
}

// searchQuery is the query made from the constraint words.
func (c *itemSpec) searchQuery() string {
	parts := []string{c.phrase}
	for _, kv := range c.attrs {
		parts = append(parts, kv[1])
	}
	for _, kv := range c.skus {
		parts = append(parts, kv[1])
	}
	return strings.Join(parts, " ")
}

// findable reports whether the target is within find_product's 5 pages
// for the constraint words with the stated filters (and shopID, if set).
func (g *Generator) findable(c *itemSpec, shopID string) bool {
	req := shop.FindRequest{Query: c.searchQuery(), ShopID: shopID}
	if c.price != nil {
		if pr, err := shop.ParsePriceRange(c.price.Filter()); err == nil {
			req.Price = pr
		}
	}
	if len(c.services) > 0 {
		sv, err := shop.ParseServices(strings.Join(c.services, ","))
		if err != nil {
			return false
		}
		req.Services = sv
	}
	for page := 1; page <= shop.MaxPages; page++ {
		req.Page = page
		res, err := g.idx.Find(req)
		if err != nil {
			return false
		}
		for _, it := range res.Items {
			if it.ProductID == c.target.ProductID {
				return true
			}
		}
		if len(res.Items) < shop.PageSize {
			return false
		}
	}
	return false
}

// item is c as ShoppingBench reward JSON.
func (c *itemSpec) item() Item {
	// The title constraint is the phrase the query states, not the target's
	// whole title: any product whose title carries the phrase answers the
	// query as asked, and scoring a full title would reward guessing the
	// one hidden target among equally good products.
	it := Item{ProductID: c.target.ProductID, Title: []string{c.phrase}}
	for _, kv := range c.skus {
		it.SKUOptions = append(it.SKUOptions, map[string]string{kv[0]: kv[1]})
	}
	for _, kv := range c.attrs {
		it.Attributes = append(it.Attributes, map[string][]string{kv[0]: {kv[1]}})
	}
	if len(c.services) > 0 {
		it.Service = slices.Clone(c.services)
	}
	if c.price != nil {
		it.Price = []PriceBound{*c.price}
	}
	return it
}

// grade turns the evidence into a difficulty: fewer products satisfying
// the constraints (the typical item's count), more tool steps and more
// pairs to verify make a problem harder.
func grade(candidates []int, steps, pairs int) Difficulty {
	c := slices.Clone(candidates)
	slices.Sort(c)
	median := c[len(c)/2]
	points := 0
	switch {
	case median <= 2:
		points += 2
	case median <= 8:
		points++
	}
	switch {
	case steps >= 10:
		points += 2
	case steps >= 6:
		points++
	}
	if pairs > len(candidates) {
		points++
	}
	switch {
	case points >= 3:
		return Hard
	case points >= 2:
		return Medium
	}
	return Easy
}

func pairCount(specs []*itemSpec) int {
	n := 0
	for _, c := range specs {
		n += len(c.attrs) + len(c.skus)
	}
	return n
}

// steps estimates the tool calls an efficient agent needs: a search per
// item, a view per item with attribute or SKU constraints, one more for a
// voucher's arithmetic, and the recommendation.
func steps(specs []*itemSpec, voucher bool) int {
	n := 1
	for _, c := range specs {
		n++
		if len(c.attrs)+len(c.skus) > 0 {
			n++
		}
	}
	if voucher {
		n++
	}
	return n
}

func (g *Generator) product(r *rand.Rand) (Problem, error) {
	pos := r.IntN(g.cat.Len())
	c, err := g.spec(r, pos, 1+r.IntN(2))
	if err != nil {
		return Problem{}, err
	}
	cands := g.candidates(c)
	if !g.findable(c, "") {
		return Problem{}, errors.New("target not findable")
	}
	query := fmt.Sprintf(pick(r, productLeads), describe(r, c))
	return Problem{Type: TypeProduct, Query: query, Reward: Reward{Items: []Item{c.item()}},
		Difficulty: grade([]int{len(cands)}, steps([]*itemSpec{c}, false)+1, pairCount([]*itemSpec{c}))}, nil
}

// shopItems picks k products of one shop from distinct categories, the
// first being a random catalog product.
func (g *Generator) shopItems(r *rand.Rand, k int) ([]int, error) {
	first := g.cat.At(r.IntN(g.cat.Len()))
	prods := g.cat.ShopProducts(first.ShopID)
	if len(prods) < k {
		return nil, errUnsuitable
	}
	seen := map[string]bool{}
	var out []int
	for _, i := range r.Perm(len(prods)) {
		p := prods[i]
		if seen[p.Category] {
			continue
		}
		seen[p.Category] = true
		pos, _ := g.cat.Position(p.ProductID)
		out = append(out, pos)
		if len(out) == k {
			return out, nil
		}
	}
	return nil, errUnsuitable
}

func (g *Generator) shop(r *rand.Rand) (Problem, error) {
	k := 2 + r.IntN(3)
	positions, err := g.shopItems(r, k)
	if err != nil {
		return Problem{}, err
	}
	shopID := g.cat.At(positions[0]).ShopID
	specs := make([]*itemSpec, k)
	var shops map[string]bool // shops satisfying every item so far
	var counts []int
	for i, pos := range positions {
		c, err := g.spec(r, pos, 1+r.IntN(2))
		if err != nil {
			return Problem{}, err
		}
		specs[i] = c
		cands := g.candidates(c)
		counts = append(counts, len(cands))
		here := map[string]bool{}
		for _, cp := range cands {
			here[g.cat.At(int(cp)).ShopID] = true
		}
		if shops == nil {
			shops = here
		} else {
			for s := range shops {
				if !here[s] {
					delete(shops, s)
				}
			}
		}
		// The first item is searched catalog-wide, the others within the
		// shop it revealed.
		filter := shopID
		if i == 0 {
			filter = ""
		}
		if !g.findable(c, filter) {
			return Problem{}, errors.New("target not findable")
		}
	}
	if len(shops) != 1 || !shops[shopID] {
		return Problem{}, fmt.Errorf("%d shops satisfy every item", len(shops))
	}
	items := make([]Item, k)
	for i, c := range specs {
		items[i] = c.item()
	}
	query := fmt.Sprintf(pick(r, shopLeads), listItems(r, specs))
	return Problem{Type: TypeShop, Query: query, Reward: Reward{Items: items, List: true},
		Difficulty: grade(counts, steps(specs, false)+1, pairCount(specs))}, nil
}

func (g *Generator) voucher(r *rand.Rand) (Problem, error) {
	k := []int{1, 1, 1, 2, 2, 3, 4}[r.IntN(7)]
	vtype := VoucherPlatform
	var positions []int
	if r.IntN(2) == 0 {
		vtype = VoucherShop
		var err error
		if positions, err = g.shopItems(r, k); err != nil {
			return Problem{}, err
		}
	} else {
		for range k {
			positions = append(positions, r.IntN(g.cat.Len()))
		}
	}
	specs := make([]*itemSpec, k)
	total := 0.0
	var counts []int
	for i, pos := range positions {
		// Voucher items state fewer constraints; the budget is the point.
		c, err := g.spec(r, pos, 1)
		if err != nil {
			return Problem{}, err
		}
		if r.IntN(2) == 0 {
			c.price = nil
		}
		specs[i] = c
		counts = append(counts, len(g.candidates(c)))
		filter := ""
		if vtype == VoucherShop && i > 0 {
			filter = c.target.ShopID
		}
		if !g.findable(c, filter) {
			return Problem{}, errors.New("target not findable")
		}
		total += c.target.Price
	}
	total = math.Round(total*100) / 100
	if total < 20 {
		return Problem{}, errUnsuitable
	}
	v := &Voucher{VoucherType: vtype, Threshold: math.Floor(total * (0.3 + 0.65*r.Float64()))}
	if r.IntN(2) == 0 {
		v.DiscountType = DiscountFixed
		v.FaceValue = ptr(math.Max(1, math.Round(total*(0.05+0.25*r.Float64()))))
	} else {
		v.DiscountType = DiscountPercentage
		d := float64(5+r.IntN(41)) / 100
		v.Discount = ptr(d)
		v.Cap = ptr(math.Max(1, math.Round(total*d*(0.6+0.9*r.Float64()))))
	}
	after, ok := v.Apply(total)
	if !ok {
		return Problem{}, errUnsuitable
	}
	v.PriceAfterVoucher = math.Round(after*100) / 100
	diff := grade(counts, steps(specs, true), pairCount(specs))
	// For medium and hard problems the budget is met only with the voucher
	// applied correctly: price_after_voucher <= budget < total.
	floor := math.Ceil(v.PriceAfterVoucher)
	room := math.Ceil(total) - 1 - floor
	if diff == Easy && r.IntN(2) == 0 {
		v.Budget = math.Ceil(total) + float64(r.IntN(int(total*0.1)+1))
	} else {
		if room < 0 {
			return Problem{}, errors.New("voucher saves less than one peso")
		}
		v.Budget = floor + float64(r.IntN(int(math.Min(room, math.Max(1, total*0.05)))+1))
		if diff == Easy {
			diff = Medium // the voucher is now necessary
		}
	}
	body := describe(r, specs[0])
	if k > 1 {
		body = listItems(r, specs)
	}
	query := fmt.Sprintf(pick(r, voucherLeads), body) + voucherRules(r, v)
	items := make([]Item, k)
	for i, c := range specs {
		items[i] = c.item()
	}
	return Problem{Type: TypeVoucher, Query: query, Reward: Reward{Items: items, List: true}, Voucher: v, Difficulty: diff}, nil
}
