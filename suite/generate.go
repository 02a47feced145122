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

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"arena/knowledge"
	"arena/shop"
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
	// MinDistractors is how many products of the target's category must
	// miss exactly one of an item's constraints (default 3): near misses
	// are what make checking every constraint pay. The generator draws
	// other constraints or another target until there are enough; it never
	// adds products, since every validator shares one catalog.
	MinDistractors int
	// MaxCandidates bounds the products of the target's category that
	// satisfy an item (default 6): the constraints single out a few of the
	// many listings a search for the item's words returns.
	MaxCandidates int
	// Workers is the parallelism of Generate (default GOMAXPROCS).
	Workers int
	// Knowledge is the web corpus behind web_search, built from the same
	// catalog (knowledge.Build). With it, a Mix may ask for knowledge
	// problems; without it, asking for them is an error.
	Knowledge *knowledge.Corpus
}

// Generator makes problems from one catalog. It is safe for concurrent use.
type Generator struct {
	opts   GeneratorOptions
	idx    *shop.Index
	cat    *shop.Catalog
	log    zerolog.Logger
	terms  [][]string          // sorted title tokens by catalog position
	byLeaf map[string][]int32  // catalog positions by full category path
	know   *KnowledgeGenerator // nil without Options.Knowledge
}

// NewGenerator prepares a generator over opts.Index's catalog.
func NewGenerator(opts GeneratorOptions, log zerolog.Logger) (_ *Generator, err error) {
	if opts.Index == nil {
		return nil, errors.New("suite generator: Index is required")
	}
	defer shop.RecoverReadError(&err)
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 40
	}
	if opts.Workers == 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MinDistractors == 0 {
		opts.MinDistractors = 3
	}
	if opts.MaxCandidates == 0 {
		opts.MaxCandidates = 6
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
		g.terms[i] = dedupe(titleTokens(p.Title))
		g.byLeaf[p.Category] = append(g.byLeaf[p.Category], int32(i))
	}
	if opts.Knowledge != nil {
		var err error
		if g.know, err = NewKnowledgeGenerator(KnowledgeOptions{Generator: g, Corpus: opts.Knowledge}, log); err != nil {
			return nil, fmt.Errorf("suite generator: %w", err)
		}
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
	for _, t := range AllTypes() {
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
	// Exclude names products that must not be targets: the targets of the
	// problems already stored. Targets are then drawn from the other
	// products only, so a catalog whose products are mostly used still
	// yields fresh problems instead of spending its attempts on products
	// the ledger would discard. Ids the catalog does not hold are ignored.
	Exclude []string
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
	if counts[TypeKnowledge] > 0 && g.know == nil {
		return nil, rep, errors.New("generate: knowledge problems need the web corpus (GeneratorOptions.Knowledge)")
	}
	types := make([]Type, 0, req.Count)
	used := map[Type]int{}
	for i := range req.Count {
		best, bestLag := TypeProduct, math.Inf(-1)
		for _, t := range AllTypes() {
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
	pk := g.picker(req.Exclude)
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
			grp.Go(func() (err error) {
				defer shop.RecoverReadError(&err)
				for {
					i := int(next.Add(1) - 1)
					if i >= len(slots) {
						return nil
					}
					if err := gctx.Err(); err != nil {
						return err
					}
					p, tries, err := g.one(slots[i].t, slots[i].seed, pk)
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
	p, _, err := g.one(t, seed, g.picker(nil))
	return p, err
}

func (g *Generator) one(t Type, seed uint64, pk *picker) (Problem, int, error) {
	if t == TypeKnowledge {
		if g.know == nil {
			return Problem{}, 0, errors.New("generate: knowledge problems need the web corpus")
		}
		return g.know.one(seed, pk)
	}
	var last error
	for a := range g.opts.MaxAttempts {
		r := rand.New(rand.NewPCG(seed, uint64(a)))
		var p Problem
		var err error
		switch t {
		case TypeProduct:
			p, err = g.product(r, pk)
		case TypeShop:
			p, err = g.shop(r, pk)
		case TypeVoucher:
			p, err = g.voucher(r, pk)
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

// picker draws target positions: from the whole catalog, or from the
// products Request.Exclude leaves.
type picker struct {
	n    int
	free []int32 // the positions that may be targets; nil: all n
	used []bool  // by position; nil: none excluded
}

func (g *Generator) picker(exclude []string) *picker {
	pk := &picker{n: g.cat.Len()}
	if len(exclude) == 0 {
		return pk
	}
	pk.used = make([]bool, pk.n)
	for _, id := range exclude {
		if pos, ok := g.cat.Position(id); ok {
			pk.used[pos] = true
		}
	}
	pk.free = make([]int32, 0, pk.n)
	for i, u := range pk.used {
		if !u {
			pk.free = append(pk.free, int32(i))
		}
	}
	return pk
}

// pick draws a position that may be a target. Without exclusions it
// draws exactly as r.IntN(Len) does, so a suite generated without them
// keeps its problems.
func (pk *picker) pick(r *rand.Rand) (int, error) {
	if pk.free == nil {
		return r.IntN(pk.n), nil
	}
	if len(pk.free) == 0 {
		return 0, errNoFreeTarget
	}
	return int(pk.free[r.IntN(len(pk.free))]), nil
}

// ok reports whether the product at pos may be a target.
func (pk *picker) ok(pos int) bool { return pk.used == nil || !pk.used[pos] }

// deriveSeed mixes the suite seed and a slot number (splitmix64), so
// neighbouring slots get unrelated streams.
func deriveSeed(seed, i uint64) uint64 {
	z := seed + 0x9e3779b97f4a7c15*(i+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// item draws the constraints of one item whose target is at pos (without
// a price bound when noPrice), and surveys the catalog for it: the
// products that satisfy it, and enough distractors that miss exactly one
// constraint, or errTooFewDistractors.
func (g *Generator) item(r *rand.Rand, pos, nPairs int, noPrice bool) (*itemSpec, []int32, error) {
	c, err := g.spec(r, pos, nPairs)
	if err != nil {
		return nil, nil, err
	}
	if noPrice {
		c.price = nil
	}
	cands, distractors := g.survey(c)
	if distractors < g.opts.MinDistractors {
		return nil, nil, fmt.Errorf("%w: %d", errTooFewDistractors, distractors)
	}
	if len(cands) > g.opts.MaxCandidates {
		return nil, nil, fmt.Errorf("%w: %d products satisfy the item", errUnselective, len(cands))
	}
	return c, cands, nil
}

var (
	errTooFewDistractors = errors.New("too few distractors")
	errUnselective       = errors.New("constraints not selective")
	errRawQuerySolves    = errors.New("the first hit for the query as written meets every constraint")
	errNoFreeTarget      = errors.New("every product of the catalog is already a target")
	errUsedTarget        = errors.New("the product is already a target")
)

// rawQuerySolves reports whether the first find_product hit for the
// request as written meets every constraint of its one item. An agent
// that searches the request and recommends the first hit would solve
// such a problem without reading anything, so it measures nothing;
// problems with more items already need more than one search.
func (g *Generator) rawQuerySolves(query string, c *itemSpec) bool {
	res, err := g.idx.Find(shop.FindRequest{Query: query, Page: 1})
	if err != nil || len(res.Items) == 0 {
		return false
	}
	pos, ok := g.cat.Position(res.Items[0].ProductID)
	return ok && g.misses(pos, c, 0) == 0
}

func (g *Generator) product(r *rand.Rand, pk *picker) (Problem, error) {
	pos, err := pk.pick(r)
	if err != nil {
		return Problem{}, err
	}
	c, cands, err := g.item(r, pos, 2+r.IntN(2), false)
	if err != nil {
		return Problem{}, err
	}
	if !g.findable(c, "") {
		return Problem{}, errors.New("target not findable")
	}
	query := productQuery(r, c)
	if g.rawQuerySolves(query, c) {
		return Problem{}, errRawQuerySolves
	}
	return Problem{Type: TypeProduct, Query: query, Reward: Reward{Items: []Item{c.item()}},
		Difficulty: grade([]int{len(cands)}, steps([]*itemSpec{c}, false)+1, pairCount([]*itemSpec{c}))}, nil
}

// shopItems picks k products of one shop from distinct categories, the
// first being a random catalog product, none of them excluded by pk.
func (g *Generator) shopItems(r *rand.Rand, k int, pk *picker) ([]int, error) {
	pos, err := pk.pick(r)
	if err != nil {
		return nil, err
	}
	first := g.cat.At(pos)
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
		pos, _ := g.cat.Position(p.ProductID)
		if !pk.ok(pos) {
			continue
		}
		seen[p.Category] = true
		out = append(out, pos)
		if len(out) == k {
			return out, nil
		}
	}
	return nil, errUnsuitable
}

func (g *Generator) shop(r *rand.Rand, pk *picker) (Problem, error) {
	k := 2 + r.IntN(4)
	positions, err := g.shopItems(r, k, pk)
	if err != nil {
		return Problem{}, err
	}
	shopID := g.cat.At(positions[0]).ShopID
	specs := make([]*itemSpec, k)
	var shops map[string]bool // shops satisfying every item so far
	var counts []int
	for i, pos := range positions {
		c, cands, err := g.item(r, pos, 1+r.IntN(2), false)
		if err != nil {
			return Problem{}, err
		}
		specs[i] = c
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
	return Problem{Type: TypeShop, Query: shopQuery(r, specs), Reward: Reward{Items: items, List: true},
		Difficulty: grade(counts, steps(specs, false)+1, pairCount(specs))}, nil
}

func (g *Generator) voucher(r *rand.Rand, pk *picker) (Problem, error) {
	k := []int{1, 1, 1, 2, 2, 3, 4}[r.IntN(7)]
	vtype := VoucherPlatform
	var positions []int
	if r.IntN(2) == 0 {
		vtype = VoucherShop
		var err error
		if positions, err = g.shopItems(r, k, pk); err != nil {
			return Problem{}, err
		}
	} else {
		for range k {
			pos, err := pk.pick(r)
			if err != nil {
				return Problem{}, err
			}
			positions = append(positions, pos)
		}
	}
	specs := make([]*itemSpec, k)
	total := 0.0
	var counts []int
	for i, pos := range positions {
		// Voucher items state fewer constraints; the budget is the point.
		c, cands, err := g.item(r, pos, 1, r.IntN(2) == 0)
		if err != nil {
			return Problem{}, err
		}
		specs[i] = c
		counts = append(counts, len(cands))
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
	query := voucherQuery(r, specs, v)
	if k == 1 && g.rawQuerySolves(query, specs[0]) {
		return Problem{}, errRawQuerySolves
	}
	items := make([]Item, k)
	for i, c := range specs {
		items[i] = c.item()
	}
	return Problem{Type: TypeVoucher, Query: query, Reward: Reward{Items: items, List: true}, Voucher: v, Difficulty: diff}, nil
}
