package race

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Params holds every tunable of the race. All scores are mean final scores in
// [0, 1].
type Params struct {
	// Floor is the absolute minimum qualifying score.
	Floor float64 `json:"floor" yaml:"floor"`
	// RatioStart is the share of the leader's qualifying score a challenger
	// needs when the reign starts (e.g. 1.0).
	RatioStart float64 `json:"ratio_start" yaml:"ratio_start"`
	// RatioFloor is the share it decays to (e.g. 0.95); RatioFloor <= RatioStart.
	RatioFloor float64 `json:"ratio_floor" yaml:"ratio_floor"`
	// DecayBlocks is how many blocks of reign the decay takes.
	DecayBlocks uint64 `json:"decay_blocks" yaml:"decay_blocks"`
	// Margin is how much better than the incumbent, per problem on the
	// hidden problems both ran, a challenger must be shown to be to take
	// the crown.
	Margin float64 `json:"margin" yaml:"margin"`
	// Confidence is the level at which "better by more than Margin" must be
	// shown (the test's error rate is 1 − Confidence however often it is
	// looked at); in [0.5, 0.999].
	Confidence float64 `json:"confidence" yaml:"confidence"`
	// TieMargin bounds a near-tie for the first crown: with no incumbent,
	// a racer is also crowned over a higher-uid rival that it is shown to
	// be no worse than by more than TieMargin. It must be at least Margin.
	TieMargin float64 `json:"tie_margin" yaml:"tie_margin"`
	// WindowBlocks is how far back, in blocks before the deciding race,
	// race evidence counts; 0 counts every race.
	WindowBlocks uint64 `json:"window_blocks" yaml:"window_blocks"`
}

// Validate reports the first invalid parameter.
func (p Params) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"floor", p.Floor}, {"ratio_start", p.RatioStart}, {"ratio_floor", p.RatioFloor}, {"margin", p.Margin}, {"tie_margin", p.TieMargin}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("race params: %s %v must be a finite non-negative number", f.name, f.v)
		}
	}
	if p.RatioFloor > p.RatioStart {
		return fmt.Errorf("race params: ratio_floor %v above ratio_start %v", p.RatioFloor, p.RatioStart)
	}
	if p.Margin >= 1 {
		return fmt.Errorf("race params: margin %v must be below 1", p.Margin)
	}
	if p.TieMargin < p.Margin || p.TieMargin >= 1 {
		return fmt.Errorf("race params: tie_margin %v must be in [margin %v, 1)", p.TieMargin, p.Margin)
	}
	// Above 0.999 the test's boundary grows faster than one score point per
	// discordant problem, and a better record could lose a crown it had.
	if math.IsNaN(p.Confidence) || p.Confidence < 0.5 || p.Confidence > 0.999 {
		return fmt.Errorf("race params: confidence %v must be in [0.5, 0.999]", p.Confidence)
	}
	return nil
}

// Leader is the current crown holder.
type Leader struct {
	UID    uint16 `json:"uid"`
	Hotkey string `json:"hotkey"`
	// Qualifying is the leader's qualifying score when it took the crown; the
	// bar is computed from it.
	Qualifying  float64 `json:"qualifying"`
	QualifiedAt uint64  `json:"qualified_at"`
	// Since is the block at which the reign began.
	Since uint64 `json:"since"`
}

// State is what the validator persists between steps.
type State struct {
	Leader *Leader `json:"leader,omitempty"`
	// Races counts completed races.
	Races uint64 `json:"races"`
	// LastBlock is the block of the last Step; blocks must not go backwards.
	LastBlock uint64 `json:"last_block"`
}

// Qualifying is one miner's qualifying result.
type Qualifying struct {
	UID    uint16 `json:"uid"`
	Hotkey string `json:"hotkey"`
	// Score is the mean final score over the public qualifying set.
	Score float64 `json:"score"`
	// QualifiedAt is the block at which the miner's qualifying run completed.
	QualifiedAt uint64 `json:"qualified_at"`
	// Problems is the size of the qualifying set; with it the bar is
	// applied to the score's upper confidence bound (0: to the score).
	Problems int `json:"problems,omitempty"`
}

// Upper is the Wilson upper confidence bound, at the given confidence, of
// a qualifying score over q.Problems problems: the highest success rate
// the run does not rule out. A miner is kept out of races only when it is
// shown to be below the bar, so that one unlucky qualifying run does not
// shut a better miner out (docs/scoring.md, "Qualifying").
func (q Qualifying) Upper(confidence float64) float64 { return q.upper(normalQuantile(confidence)) }

func (q Qualifying) upper(z float64) float64 {
	if q.Problems <= 0 {
		return q.Score
	}
	n, p := float64(q.Problems), min(1, max(0, q.Score))
	z2 := z * z
	return min(1, (p+z2/(2*n)+z*math.Sqrt(p*(1-p)/n+z2/(4*n*n)))/(1+z2/n))
}

// normalQuantile is the standard normal quantile for p in (0.5, 1),
// found by bisection on math.Erfc: exact to float64 precision, and only
// called once per miner per step.
func normalQuantile(p float64) float64 {
	lo, hi := 0.0, 10.0
	for range 80 {
		mid := (lo + hi) / 2
		if 0.5*math.Erfc(-mid/math.Sqrt2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// RaceResult is one racer's mean score in one race.
type RaceResult struct {
	UID   uint16  `json:"uid"`
	Score float64 `json:"score"` // mean final score on the race's hidden problems
}

// Input is everything one Step sees.
type Input struct {
	Block      uint64       `json:"block"`
	Qualifying []Qualifying `json:"qualifying"`
	// Race is the heat run this window (qualifiers and the incumbent); nil
	// when no race ran.
	Race *Heat `json:"race,omitempty"`
	// History holds earlier heats. Those that started more than
	// Params.WindowBlocks before Block are ignored, so the caller may pass
	// more than the window.
	History []Heat `json:"history,omitempty"`
}

// Outcome says what the race did.
type Outcome string

const (
	NoRace    Outcome = "no_race"   // no race this step
	Crowned   Outcome = "crowned"   // there was no leader; a racer was shown to be the best
	Undecided Outcome = "undecided" // there is no leader, and no racer is shown to be the best yet
	Defended  Outcome = "defended"  // the incumbent kept the crown
	Dethroned Outcome = "dethroned" // a challenger was shown to beat the incumbent by more than Margin
	NoRacers  Outcome = "no_racers" // the race named no eligible racer
	// Void: the race's trajectories could not be judged as the operator
	// chose (judge.on_unavailable: void), so it is not evidence and the
	// standing is unchanged. Set by the validator, never by Step.
	Void Outcome = "void"
)

// Comparison is the paired evidence behind one decision: does UID beat
// Against by more than Shift on the problems both ran in the window?
type Comparison struct {
	UID     uint16 `json:"uid"`
	Against uint16 `json:"against"`
	// Shift is the margin tested: Margin, or −TieMargin for "no worse than
	// by more than TieMargin".
	Shift float64 `json:"shift"`
	Pairs Pairs   `json:"pairs"`
	// Evidence is the test's e-value; Confident means it reached
	// 1/(1 − Confidence).
	Evidence  float64 `json:"evidence"`
	Confident bool    `json:"confident"`
}

// MeanDiff is the mean per-problem score difference UID − Against.
func (c Comparison) MeanDiff() float64 { return c.Pairs.Mean() }

// Output is the result of one Step.
type Output struct {
	Ratio float64 `json:"ratio"`
	Bar   float64 `json:"bar"`
	// Qualifiers are the miners at or above the bar (incumbent excluded),
	// earliest qualifier first.
	Qualifiers []Qualifying `json:"qualifiers"`
	Outcome    Outcome      `json:"outcome"`
	Leader     *Leader      `json:"leader,omitempty"`
	// Ranked lists racer uids for the weights policy: the leader first,
	// then the other racers by mean score over the evidence window, lower
	// uid first on ties. Empty when no race ran or nobody leads.
	Ranked []uint16 `json:"ranked"`
	// Results are this race's mean scores per racer, by uid.
	Results []RaceResult `json:"results,omitempty"`
	// Decision holds the comparisons that decided the outcome: each
	// challenger against the incumbent, or, for a first crown, each racer
	// against the rival it was weakest against.
	Decision []Comparison `json:"decision,omitempty"`
	// WindowRaces counts the heats in the evidence window.
	WindowRaces int `json:"window_races"`
}

// Ratio is ratio(t) for a reign of `age` blocks.
func (p Params) Ratio(age uint64) float64 {
	if p.DecayBlocks == 0 || age >= p.DecayBlocks {
		return p.RatioFloor
	}
	return p.RatioStart - (p.RatioStart-p.RatioFloor)*float64(age)/float64(p.DecayBlocks)
}

// Bar returns the ratio and the qualifying bar at block for state s.
func (p Params) Bar(s State, block uint64) (ratio, bar float64) {
	if s.Leader == nil {
		return p.RatioStart, p.Floor
	}
	var age uint64
	if block > s.Leader.Since {
		age = block - s.Leader.Since
	}
	ratio = p.Ratio(age)
	return ratio, max(p.Floor, s.Leader.Qualifying*ratio)
}

func validScore(what string, uid uint16, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("race: %s score for uid %d is %v", what, uid, v)
	}
	return nil
}

// Step advances the race by one window. It never mutates s or in.
//
// With a race (in.Race set), the crown moves only on evidence: the
// incumbent keeps it unless a challenger is shown, with Confidence, to beat
// it by more than Margin on the hidden problems both ran in the window. With
// no incumbent, a racer is crowned only once it is shown to beat every
// other racer by more than Margin, or, for a higher-uid rival, to be no
// worse than it by more than TieMargin; until then the outcome is
// Undecided. The rules and their error rates are in docs/scoring.md.
func (p Params) Step(s State, in Input) (Output, State, error) {
	if err := p.Validate(); err != nil {
		return Output{}, s, err
	}
	if in.Block < s.LastBlock {
		return Output{}, s, fmt.Errorf("race: block %d is before the last step's block %d", in.Block, s.LastBlock)
	}
	byUID := make(map[uint16]Qualifying, len(in.Qualifying))
	for _, q := range in.Qualifying {
		if err := validScore("qualifying", q.UID, q.Score); err != nil {
			return Output{}, s, err
		}
		if _, dup := byUID[q.UID]; dup {
			return Output{}, s, fmt.Errorf("race: uid %d has two qualifying results", q.UID)
		}
		byUID[q.UID] = q
	}

	next := State{Races: s.Races, LastBlock: in.Block}
	if s.Leader != nil {
		l := *s.Leader
		next.Leader = &l
	}
	// An incumbent whose uid now belongs to another hotkey was deregistered:
	// the crown is vacant.
	if next.Leader != nil {
		if q, ok := byUID[next.Leader.UID]; ok && q.Hotkey != next.Leader.Hotkey {
			next.Leader = nil
		}
	}

	ratio, bar := p.Bar(next, in.Block)
	out := Output{Ratio: ratio, Bar: bar, Outcome: NoRace, Qualifiers: []Qualifying{}, Ranked: []uint16{}}
	z := normalQuantile(p.Confidence)
	for _, q := range byUID {
		if next.Leader != nil && q.UID == next.Leader.UID {
			continue
		}
		if q.Score >= p.Floor && q.upper(z) >= bar {
			out.Qualifiers = append(out.Qualifiers, q)
		}
	}
	slices.SortFunc(out.Qualifiers, func(a, b Qualifying) int {
		return cmp.Or(cmp.Compare(a.QualifiedAt, b.QualifiedAt), cmp.Compare(a.UID, b.UID))
	})

	if in.Race == nil {
		out.Leader = copyLeader(next.Leader)
		return out, next, nil
	}
	if err := in.Race.validate(); err != nil {
		return Output{}, s, err
	}

	// Evidence counts for the incumbent and the qualifiers, under their
	// current hotkeys.
	hotkeys := make(map[uint16]string, len(out.Qualifiers)+1)
	for _, q := range out.Qualifiers {
		hotkeys[q.UID] = q.Hotkey
	}
	if next.Leader != nil {
		hotkeys[next.Leader.UID] = next.Leader.Hotkey
	}
	var from uint64
	if p.WindowBlocks > 0 && in.Block > p.WindowBlocks {
		from = in.Block - p.WindowBlocks
	}
	heats := append(slices.Clip(in.History), *in.Race)
	lg, err := buildLedger(heats, from, in.Block, hotkeys)
	if err != nil {
		return Output{}, s, err
	}
	out.WindowRaces = len(lg.heats)

	var racers []uint16 // eligible racers of this race, by uid
	for _, r := range in.Race.Racers {
		if hk, ok := hotkeys[r.UID]; ok && hk == r.Hotkey {
			racers = append(racers, r.UID)
			sum := 0.0
			for _, sc := range r.Scores {
				sum += sc
			}
			out.Results = append(out.Results, RaceResult{UID: r.UID, Score: sum / float64(max(1, in.Race.Problems))})
		}
	}
	slices.Sort(racers)
	slices.SortFunc(out.Results, func(a, b RaceResult) int { return cmp.Compare(a.UID, b.UID) })
	if len(racers) == 0 {
		out.Outcome = NoRacers
		out.Leader = copyLeader(next.Leader)
		return out, next, nil
	}
	next.Races++

	compare := func(a, b uint16, shift float64) Comparison {
		pr := lg.between(a, b)
		e := pr.Evidence(shift)
		return Comparison{UID: a, Against: b, Shift: shift, Pairs: pr, Evidence: e, Confident: e*(1-p.Confidence) >= 1}
	}

	if next.Leader == nil {
		winner, decision := p.firstCrown(racers, compare)
		out.Decision = decision
		if winner < 0 {
			out.Outcome = Undecided
			out.Leader = nil
			return out, next, nil
		}
		next.Leader = crown(byUID[uint16(winner)], in.Block)
		out.Outcome = Crowned
	} else {
		leader := next.Leader.UID
		best := -1
		var bestEv float64
		for _, c := range racers {
			if c == leader {
				continue
			}
			cmpr := compare(c, leader, p.Margin)
			out.Decision = append(out.Decision, cmpr)
			// Among challengers shown to be better, the strongest evidence
			// wins; racers are visited by uid, so ties go to the lower uid.
			if cmpr.Confident && (best < 0 || cmpr.Evidence > bestEv) {
				best, bestEv = int(c), cmpr.Evidence
			}
		}
		if best >= 0 {
			next.Leader = crown(byUID[uint16(best)], in.Block)
			out.Outcome = Dethroned
		} else {
			out.Outcome = Defended
		}
	}

	out.Ranked = append(out.Ranked, next.Leader.UID)
	rest := slices.DeleteFunc(slices.Clone(racers), func(u uint16) bool { return u == next.Leader.UID })
	slices.SortStableFunc(rest, func(a, b uint16) int { return cmp.Compare(lg.mean(b), lg.mean(a)) })
	out.Ranked = append(out.Ranked, rest...)
	out.Leader = copyLeader(next.Leader)
	return out, next, nil
}

// firstCrown returns the racer shown to be the best, or −1, and the
// comparisons that decided: for each racer, the one against the rival it
// is least shown to beat. Racer c is the best when, against every rival j:
//
//   - j < c: c is shown to beat j by more than Margin;
//   - j > c: c is shown to be no worse than j by more than TieMargin, and
//     j is not shown to beat c by more than Margin.
//
// At most one racer can be the best: for a < b, b needs "b beats a by more
// than Margin" shown, which rules a out.
func (p Params) firstCrown(racers []uint16, compare func(a, b uint16, shift float64) Comparison) (int, []Comparison) {
	winner := -1
	var decision []Comparison
	for _, c := range racers {
		var weakest *Comparison
		ok := true
		note := func(cmpr Comparison) {
			if weakest == nil || cmpr.Evidence < weakest.Evidence {
				weakest = &cmpr
			}
			ok = ok && cmpr.Confident
		}
		for _, j := range racers {
			switch {
			case j < c:
				note(compare(c, j, p.Margin))
			case j > c:
				note(compare(c, j, -p.TieMargin))
				if compare(j, c, p.Margin).Confident {
					ok = false
				}
			}
		}
		if weakest != nil {
			decision = append(decision, *weakest)
		}
		if ok && winner < 0 {
			winner = int(c)
		}
	}
	return winner, decision
}

func copyLeader(l *Leader) *Leader {
	if l == nil {
		return nil
	}
	c := *l
	return &c
}

func crown(q Qualifying, block uint64) *Leader {
	return &Leader{UID: q.UID, Hotkey: q.Hotkey, Qualifying: q.Score, QualifiedAt: q.QualifiedAt, Since: block}
}
