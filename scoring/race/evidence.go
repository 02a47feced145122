package race

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Heat is one completed race's per-problem results: every racer ran the
// same hidden problems, so any two racers of one heat can be compared
// problem by problem.
type Heat struct {
	// Race is the race's id; heats are summed in Race order so that the
	// floating-point result does not depend on the order they arrive in.
	Race uint64 `json:"race"`
	// Block is the block the race started at; the evidence window is
	// measured on it.
	Block uint64 `json:"block"`
	// Problems is the number of problems every racer was given.
	Problems int `json:"problems"`
	// Racers holds each racer's final score per problem, in the race's
	// problem order; a problem the racer did not finish scores 0.
	Racers []HeatRacer `json:"racers"`
}

// HeatRacer is one racer's row of a Heat.
type HeatRacer struct {
	UID    uint16    `json:"uid"`
	Hotkey string    `json:"hotkey"`
	Scores []float64 `json:"scores"`
}

func (h Heat) validate() error {
	seen := make(map[uint16]bool, len(h.Racers))
	for _, r := range h.Racers {
		if seen[r.UID] {
			return fmt.Errorf("race: heat %d names uid %d twice", h.Race, r.UID)
		}
		seen[r.UID] = true
		if len(r.Scores) != h.Problems {
			return fmt.Errorf("race: heat %d uid %d has %d scores for %d problems", h.Race, r.UID, len(r.Scores), h.Problems)
		}
		for _, s := range r.Scores {
			if math.IsNaN(s) || s < 0 || s > 1 {
				return fmt.Errorf("race: heat %d uid %d has score %v outside [0, 1]", h.Race, r.UID, s)
			}
		}
	}
	return nil
}

// Pairs summarises the paired comparison of miner A against miner B on
// the problems both ran: d = score(A) − score(B) per problem.
type Pairs struct {
	N int `json:"n"`
	// Sum is Σd and SumSq is Σd²; Σd² counts the problems on which the two
	// differ (for pass/fail scores, exactly the discordant ones).
	Sum   float64 `json:"sum"`
	SumSq float64 `json:"sum_sq"`
	// Diffs counts each distinct d, by increasing d: the test's whole input,
	// so the evidence of a stored comparison can be recomputed from it.
	Diffs []DiffCount `json:"diffs,omitempty"`
}

// DiffCount is how many problems had the paired difference D.
type DiffCount struct {
	D float64 `json:"d"`
	N int     `json:"n"`
}

// Mean is the mean paired difference, 0 without pairs.
func (p Pairs) Mean() float64 {
	if p.N == 0 {
		return 0
	}
	return p.Sum / float64(p.N)
}

// flipped is B against A.
func (p Pairs) flipped() Pairs {
	out := Pairs{N: p.N, Sum: -p.Sum, SumSq: p.SumSq, Diffs: make([]DiffCount, len(p.Diffs))}
	for i, dc := range p.Diffs {
		out.Diffs[len(p.Diffs)-1-i] = DiffCount{D: -dc.D, N: dc.N}
	}
	return out
}

// The test is a mixture of bets on the differences. Let
// ξ = (d − shift)/c, with c = 1 + max(shift, 0) so that ξ ≥ −1 whatever the
// scores in [0, 1]. A bettor who stakes a share λ in [0, 1) of its wealth on
// every problem ends with W(λ) = Π (1 + λξ). If A is not better than B by
// more than shift, the conditional mean of each ξ is at most 0, so W(λ) is
// a non-negative supermartingale starting at 1, for any bounded scores:
// pass/fail, judged, skewed. A mixture of such bets over λ, with weights that
// sum to 1, is one too (the evidence E), so by Ville's inequality
// P(E ever reaches 1/α) ≤ α however often it is looked at. W(λ) is a
// product over the problems, so E does not depend on their order, only on
// how many problems had each difference; and it rises with any of A's
// scores, since each factor does.
const (
	// lambdaMax caps the bet: a problem lost at the cap keeps a fifth of
	// the wealth, so one unlucky streak cannot wipe a bet out.
	lambdaMax = 0.8
	// lambdaSpread is the scale of the half-normal prior on λ (its standard
	// deviation): most weight on the bets a 2- to 20-point gap calls for,
	// λ ≈ gap/Var(d) with Var(d) between 0.1 and 0.5.
	lambdaSpread = 0.2
	// lambdaSteps is the number of bets mixed; neighbouring bets differ by
	// far less than the curvature of log W at a few thousand problems, so
	// the mixture loses nothing to the grid against the continuous prior.
	lambdaSteps = 64
	// maxDistinct bounds the distinct differences summed one by one: with
	// more (continuous scores), each d is rounded down to a multiple of
	// 1/binsPerUnit, which can only lower the evidence.
	maxDistinct = 512
	binsPerUnit = 4096
)

// bets are the mixture's λ values and the logs of their weights (summing
// to 1).
var bets = func() (b [lambdaSteps]struct{ lambda, logWeight float64 }) {
	var total float64
	w := make([]float64, lambdaSteps)
	for i := range lambdaSteps {
		l := (float64(i) + 0.5) * lambdaMax / lambdaSteps
		w[i] = math.Exp(-0.5 * (l / lambdaSpread) * (l / lambdaSpread))
		total += w[i]
		b[i].lambda = l
	}
	for i := range b {
		b[i].logWeight = math.Log(w[i] / total)
	}
	return b
}()

// xis returns the distinct ξ = (d − shift)/c with their counts, binned
// (rounded down) when there are more than maxDistinct, and Σξ and Σξ².
func (p Pairs) xis(shift float64) (xs []DiffCount, s, v float64) {
	c := 1 + max(shift, 0)
	round := len(p.Diffs) > maxDistinct
	for _, dc := range p.Diffs {
		d := dc.D
		if round {
			d = math.Floor(d*binsPerUnit) / binsPerUnit
		}
		x := (d - shift) / c
		if n := len(xs); n > 0 && xs[n-1].D == x {
			xs[n-1].N += dc.N
		} else {
			xs = append(xs, DiffCount{D: x, N: dc.N})
		}
		s += float64(dc.N) * x
		v += float64(dc.N) * x * x
	}
	return xs, s, v
}

// LogEvidence is the natural log of Evidence; −Inf when Σ(d − shift) ≤ 0.
func (p Pairs) LogEvidence(shift float64) float64 {
	xs, s, _ := p.xis(shift)
	if s <= 0 {
		return math.Inf(-1)
	}
	var logs [lambdaSteps]float64
	best := math.Inf(-1)
	for i, b := range bets {
		e := b.logWeight
		for _, x := range xs {
			e += float64(x.N) * math.Log1p(b.lambda*x.D)
		}
		logs[i] = e
		best = max(best, e)
	}
	var sum float64
	for _, e := range logs {
		sum += math.Exp(e - best)
	}
	return best + math.Log(sum)
}

// upperLogEvidence bounds LogEvidence from above cheaply, to skip
// comparisons far from their threshold. The mixture is at most its best
// bet, and log(1+x) ≤ x − x²/2 + x³/3; with |ξ| ≤ m and λ ≤ lambdaMax the
// cubic term is at most λ²ξ²·lambdaMax·m/3, so log W(λ) ≤ λS − λ²Vq with
// S = Σξ, V = Σξ² and q = 1/2 − lambdaMax·m/3: a quadratic in λ. It reads
// the exact moments, so rounding many distinct differences down can only
// make it looser.
func (p Pairs) upperLogEvidence(shift float64) float64 {
	if p.N == 0 || len(p.Diffs) == 0 {
		return math.Inf(-1)
	}
	c := 1 + max(shift, 0)
	n := float64(p.N)
	s := (p.Sum - shift*n) / c
	// LogEvidence sums ξ problem by problem; where Σξ is zero up to
	// rounding the two sums can fall on either side of it, so only a
	// clearly negative Σξ rules the evidence out here.
	if s < -1e-9*(n+1) {
		return math.Inf(-1)
	}
	s = max(s, 0)
	v := max(0, p.SumSq-2*shift*p.Sum+shift*shift*n) / (c * c)
	m := max(math.Abs(p.Diffs[0].D-shift), math.Abs(p.Diffs[len(p.Diffs)-1].D-shift)) / c
	q := v * max(0, 0.5-lambdaMax*m/3)
	if q == 0 || s/(2*q) >= lambdaMax {
		return lambdaMax*s - lambdaMax*lambdaMax*q
	}
	return s * s / (4 * q)
}

// Evidence is the e-value of the one-sided test "A beats B by more than
// shift": the mixture over the bets λ of Π(1 + λξ). Under the hypothesis
// that B is at least as good as A plus shift it is a non-negative
// supermartingale starting at 1, whatever the scores' distribution in
// [0, 1], so the chance that it ever reaches 1/α, however often it is
// looked at, is at most α. Evidence is 0 when Σ(d − shift) ≤ 0.
func (p Pairs) Evidence(shift float64) float64 {
	return math.Exp(min(p.LogEvidence(shift), 700))
}

// Confident reports whether the evidence that A beats B by more than
// shift reaches the confidence level (an e-value of at least
// 1/(1 − confidence)), for a single test.
func (p Pairs) Confident(shift, confidence float64) bool {
	return p.reaches(shift, -math.Log1p(-confidence))
}

// reaches reports whether the e-value reaches exp(logThreshold).
func (p Pairs) reaches(shift, logThreshold float64) bool {
	if p.upperLogEvidence(shift) < logThreshold {
		return false
	}
	return p.LogEvidence(shift) >= logThreshold
}

// Cache keeps, between Steps, each heat's index and each compared pair's
// counts over the window's heats, so that a Step adds only the new heats.
// It is not safe for concurrent use; a validator keeps one.
type Cache struct {
	pairs map[pairKey]*pairCounts
	sums  map[minerKey]*sums
	heats map[uint64]*heatIndex // by race id
	block uint64                // the last Step's block
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{pairs: map[pairKey]*pairCounts{}, sums: map[minerKey]*sums{}, heats: map[uint64]*heatIndex{}}
}

type minerKey struct {
	uid    uint16
	hotkey string
}

type pairKey struct {
	a, b   uint16
	ha, hb string
}

// pairCounts are a pair's differences over the window's heats from block
// from up to race last.
type pairCounts struct {
	from   uint64
	last   uint64
	counts []DiffCount // by increasing d
}

func (pc *pairCounts) add(d float64) {
	i, found := slices.BinarySearchFunc(pc.counts, d, func(e DiffCount, t float64) int { return cmp.Compare(e.D, t) })
	if found {
		pc.counts[i].N++
		return
	}
	pc.counts = slices.Insert(pc.counts, i, DiffCount{D: d, N: 1})
}

// sums is a miner's score total and problems over the window's heats from
// block from up to race last.
type sums struct {
	from, last uint64
	sum        float64
	n          int
}

// heatIndex is one validated heat, its rows by uid.
type heatIndex struct {
	race, block uint64
	problems    int
	rows        map[uint16]heatRow
}

type heatRow struct {
	hotkey string
	scores []float64
	sum    float64
}

func indexHeat(h Heat) (*heatIndex, error) {
	if err := h.validate(); err != nil {
		return nil, err
	}
	hi := &heatIndex{race: h.Race, block: h.Block, problems: h.Problems, rows: make(map[uint16]heatRow, len(h.Racers))}
	for _, r := range h.Racers {
		hi.rows[r.UID] = heatRow{hotkey: r.Hotkey, scores: r.Scores, sum: sumOf(r.Scores)}
	}
	return hi, nil
}

// ledger holds the heats of the evidence window and computes pairwise
// comparisons on demand (a leader against each challenger is what most
// steps need, not every pair). Only rows whose racer hotkey is the miner's
// current hotkey count: a uid re-registered to a new hotkey is a new miner.
type ledger struct {
	heats   []*heatIndex // in race order
	from    uint64
	hotkeys map[uint16]string
	cache   *Cache
	memo    map[[2]uint16]Pairs
	means   map[uint16]float64
}

// row is uid's row of h if it counts (raced under its current hotkey).
func (l *ledger) row(h *heatIndex, uid uint16) ([]float64, bool) {
	r, ok := h.rows[uid]
	if !ok || r.hotkey != l.hotkeys[uid] {
		return nil, false
	}
	return r.scores, true
}

// buildLedger keeps the heats whose start block lies in [from, to], in
// race order, and the rows of racers whose hotkey is hotkeys[uid].
func buildLedger(heats []Heat, from, to uint64, hotkeys map[uint16]string, cache *Cache) (*ledger, error) {
	l := &ledger{from: from, hotkeys: hotkeys, cache: cache, memo: map[[2]uint16]Pairs{}, means: map[uint16]float64{}}
	if cache != nil && to < cache.block {
		// Stepping back in time (a replay): nothing cached can be trusted.
		clear(cache.pairs)
		clear(cache.sums)
		clear(cache.heats)
	}
	seen := map[uint64]bool{}
	for _, h := range heats {
		if h.Block < from || h.Block > to {
			continue
		}
		if seen[h.Race] {
			return nil, fmt.Errorf("race: heat %d given twice", h.Race)
		}
		seen[h.Race] = true
		var hi *heatIndex
		if cache != nil {
			hi = cache.heats[h.Race]
		}
		if hi == nil || hi.block != h.Block {
			var err error
			if hi, err = indexHeat(h); err != nil {
				return nil, err
			}
			if cache != nil {
				cache.heats[h.Race] = hi
			}
		}
		l.heats = append(l.heats, hi)
	}
	slices.SortFunc(l.heats, func(a, b *heatIndex) int { return cmp.Compare(a.race, b.race) })
	if cache != nil {
		cache.block = to
		for k, pc := range cache.pairs {
			if pc.from != from {
				delete(cache.pairs, k)
			}
		}
		for k, sm := range cache.sums {
			if sm.from != from {
				delete(cache.sums, k)
			}
		}
		for id, h := range cache.heats {
			if h.block < from {
				delete(cache.heats, id)
			}
		}
	}
	return l, nil
}

func sumOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// between returns the paired statistics of a − b over the heats both ran.
// They are a histogram of the differences, with N, Σd and Σd² summed from
// it in order of d, so that every validator, and a Step with or without a
// cache, gets the same bits from the same results.
func (l *ledger) between(a, b uint16) Pairs {
	key, flip := [2]uint16{a, b}, false
	if b < a {
		key, flip = [2]uint16{b, a}, true
	}
	p, ok := l.memo[key]
	if !ok {
		p = pairsOf(l.counts(key[0], key[1]))
		l.memo[key] = p
	}
	if flip {
		p = p.flipped()
	}
	return p
}

// counts is the histogram of a − b, from the cache when it holds the
// pair's counts up to an earlier heat of the same window.
func (l *ledger) counts(a, b uint16) []DiffCount {
	pc := &pairCounts{}
	if l.cache != nil {
		k := pairKey{a: a, b: b, ha: l.hotkeys[a], hb: l.hotkeys[b]}
		if pc = l.cache.pairs[k]; pc == nil || pc.from != l.from {
			pc = &pairCounts{from: l.from}
			l.cache.pairs[k] = pc
		}
	}
	for _, h := range l.heats {
		if l.cache != nil && h.race <= pc.last {
			continue
		}
		x, okx := l.row(h, a)
		y, oky := l.row(h, b)
		if okx && oky {
			for k := range h.problems {
				pc.add(x[k] - y[k])
			}
		}
		pc.last = h.race
	}
	return pc.counts
}

func pairsOf(counts []DiffCount) Pairs {
	p := Pairs{Diffs: slices.Clone(counts)}
	for _, dc := range counts {
		p.N += dc.N
		p.Sum += float64(dc.N) * dc.D
		p.SumSq += float64(dc.N) * dc.D * dc.D
	}
	return p
}

// mean is a miner's mean score over the problems it ran in the window.
func (l *ledger) mean(uid uint16) float64 {
	if m, ok := l.means[uid]; ok {
		return m
	}
	sm := &sums{}
	if l.cache != nil {
		k := minerKey{uid: uid, hotkey: l.hotkeys[uid]}
		if sm = l.cache.sums[k]; sm == nil || sm.from != l.from {
			sm = &sums{from: l.from}
			l.cache.sums[k] = sm
		}
	}
	for _, h := range l.heats {
		if l.cache != nil && h.race <= sm.last {
			continue
		}
		if r, ok := h.rows[uid]; ok && r.hotkey == l.hotkeys[uid] {
			sm.sum += r.sum
			sm.n += h.problems
		}
		sm.last = h.race
	}
	m := 0.0
	if sm.n > 0 {
		m = sm.sum / float64(sm.n)
	}
	l.means[uid] = m
	return m
}
