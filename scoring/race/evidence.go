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
}

// Mean is the mean paired difference, 0 without pairs.
func (p Pairs) Mean() float64 {
	if p.N == 0 {
		return 0
	}
	return p.Sum / float64(p.N)
}

// mixtureVariance is ρ of the normal-mixture test: the prior spread of the
// per-problem advantage, in units of Σd². It sets where the test is most
// powerful (around a few hundred discordant problems) and must stay at
// least about 12 for the test to be monotone in the scores (docs/scoring.md,
// "Races: who leads"); the simulation in arena simulate measured power to be
// flat between 5 and 40.
const mixtureVariance = 20

// Evidence is the e-value of the one-sided test "A beats B by more than
// shift": the one-sided normal-mixture martingale
//
//	M = 2·sqrt(ρ/(V+ρ)) · exp(S²/(2(V+ρ))) · Φ(S/sqrt(V+ρ))
//
// with S = Σ(d − shift) and V = Σd². Under the hypothesis that B is at
// least as good as A plus shift, with per-problem differences symmetric
// about their mean, M is a non-negative supermartingale that starts at 1,
// so by Ville's inequality the chance that it ever reaches 1/α, however
// often it is looked at, is at most α. Evidence is 0 when S ≤ 0.
func (p Pairs) Evidence(shift float64) float64 {
	s := p.Sum - shift*float64(p.N)
	if s <= 0 {
		return 0
	}
	w := p.SumSq + mixtureVariance
	z := s / math.Sqrt(w)
	logM := math.Ln2 + 0.5*math.Log(mixtureVariance/w) + s*s/(2*w) + math.Log(0.5*math.Erfc(-z/math.Sqrt2))
	return math.Exp(min(logM, 700))
}

// Confident reports whether the evidence that A beats B by more than
// shift reaches the confidence level (an e-value of at least
// 1/(1 − confidence)).
func (p Pairs) Confident(shift, confidence float64) bool {
	return p.Evidence(shift)*(1-confidence) >= 1
}

// ledger holds the heats of the evidence window and computes pairwise
// comparisons on demand (a leader against each challenger is what most
// steps need, not every pair). Only rows whose racer hotkey is the miner's
// current hotkey count: a uid re-registered to a new hotkey is a new miner.
type ledger struct {
	heats []ledgerHeat // in race order
	memo  map[[2]uint16]Pairs
	sum   map[uint16]float64 // total score per miner over the window
	n     map[uint16]int     // problems per miner over the window
}

type ledgerHeat struct {
	problems int
	rows     map[uint16][]float64
}

// buildLedger keeps the heats whose start block lies in [from, to], in
// race order, and the rows of racers whose hotkey is hotkeys[uid].
func buildLedger(heats []Heat, from, to uint64, hotkeys map[uint16]string) (*ledger, error) {
	l := &ledger{memo: map[[2]uint16]Pairs{}, sum: map[uint16]float64{}, n: map[uint16]int{}}
	sorted := make([]Heat, 0, len(heats))
	seen := map[uint64]bool{}
	for _, h := range heats {
		if h.Block < from || h.Block > to {
			continue
		}
		if seen[h.Race] {
			return nil, fmt.Errorf("race: heat %d given twice", h.Race)
		}
		seen[h.Race] = true
		if err := h.validate(); err != nil {
			return nil, err
		}
		sorted = append(sorted, h)
	}
	slices.SortFunc(sorted, func(a, b Heat) int { return cmp.Compare(a.Race, b.Race) })
	for _, h := range sorted {
		lh := ledgerHeat{problems: h.Problems, rows: make(map[uint16][]float64, len(h.Racers))}
		for _, r := range h.Racers {
			if hk, ok := hotkeys[r.UID]; ok && hk == r.Hotkey {
				lh.rows[r.UID] = r.Scores
				for _, s := range r.Scores {
					l.sum[r.UID] += s
				}
				l.n[r.UID] += h.Problems
			}
		}
		if len(lh.rows) > 0 {
			l.heats = append(l.heats, lh)
		}
	}
	return l, nil
}

// between returns the paired statistics of a − b over the heats both ran,
// summed in race order and problem order so that every validator gets
// the same bits from the same results.
func (l *ledger) between(a, b uint16) Pairs {
	key, flip := [2]uint16{a, b}, false
	if b < a {
		key, flip = [2]uint16{b, a}, true
	}
	p, ok := l.memo[key]
	if !ok {
		for _, h := range l.heats {
			x, okx := h.rows[key[0]]
			y, oky := h.rows[key[1]]
			if !okx || !oky {
				continue
			}
			for k := range h.problems {
				d := x[k] - y[k]
				p.Sum += d
				p.SumSq += d * d
			}
			p.N += h.problems
		}
		l.memo[key] = p
	}
	if flip {
		p.Sum = -p.Sum
	}
	return p
}

// mean is a miner's mean score over the problems it ran in the window.
func (l *ledger) mean(uid uint16) float64 {
	if l.n[uid] == 0 {
		return 0
	}
	return l.sum[uid] / float64(l.n[uid])
}
