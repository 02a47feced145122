package race

import (
	"fmt"
	"math"
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
	// TieMargin bounds a near-tie for the first crown: with no incumbent
	// and no racer yet shown to beat another, the earliest-registered
	// undominated racer is crowned once it is shown to be no worse than
	// each other undominated racer by more than TieMargin. It must be at
	// least Margin.
	TieMargin float64 `json:"tie_margin" yaml:"tie_margin"`
	// WindowBlocks is the length of an evidence epoch: epochs are the
	// block ranges [k·W, (k+1)·W), the same on every validator, and a
	// decision counts the heats of the current epoch and the one before;
	// 0 counts every race.
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
	// RegisteredAt is the block at which the leader's hotkey registered on
	// the subnet (0 when the chain does not tell).
	RegisteredAt uint64 `json:"registered_at,omitempty"`
	// Reference is the racer the leader's group was shown to beat when it
	// took the crown (the incumbent it dethroned, or for a first crown the
	// strongest racer it beat): an earlier-registered racer also shown to
	// beat it, and not shown worse than the leader, is a copy and takes the
	// crown (HandedOver).
	Reference *Miner `json:"reference,omitempty"`
	// Qualifying is the leader's qualifying score when it took the crown; the
	// bar is computed from it.
	Qualifying  float64 `json:"qualifying"`
	QualifiedAt uint64  `json:"qualified_at"`
	// Since is the block at which the reign began.
	Since uint64 `json:"since"`
}

// Miner names a racer by uid and the hotkey it raced under.
type Miner struct {
	UID    uint16 `json:"uid"`
	Hotkey string `json:"hotkey"`
}

// State is what the validator persists between steps.
type State struct {
	Leader *Leader `json:"leader,omitempty"`
	// VacantSince is the block of the first race run with no leader in the
	// current vacancy (0 while there is a leader); it indexes the vacancy's
	// evidence epochs as Leader.Since does a reign's.
	VacantSince uint64 `json:"vacant_since,omitempty"`
	// FirstRaced maps each challenger of the current reign ("uid/hotkey")
	// to the block of its first race against it: its comparisons' evidence
	// epochs count from there. Cleared when the crown changes hands.
	FirstRaced map[string]uint64 `json:"first_raced,omitempty"`
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
	// RegisteredAt is the block at which the miner's hotkey registered on
	// the subnet (subtensor's BlockAtRegistration; 0 when unknown). Racers
	// that cannot be told apart are ordered by it, then by uid.
	RegisteredAt uint64 `json:"registered_at,omitempty"`
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
	// History holds earlier heats. Those that started before
	// Params.EvidenceFrom(Block) are ignored, so the caller may pass more
	// than the window.
	History []Heat `json:"history,omitempty"`
	// Cache, if set, keeps paired counts from one Step to the next so that
	// a caller stepping often does not recount the whole window each time.
	// The outcome never depends on it. With a cache, a heat seen before
	// (same race id and block) is not validated again.
	Cache *Cache `json:"-"`
}

// Outcome says what the race did.
type Outcome string

const (
	NoRace    Outcome = "no_race"   // no race this step
	Crowned   Outcome = "crowned"   // there was no leader; a racer was shown to be the best
	Undecided Outcome = "undecided" // there is no leader, and no racer is shown to be the best yet
	Defended  Outcome = "defended"  // the incumbent kept the crown
	Dethroned Outcome = "dethroned" // a challenger was shown to beat the incumbent by more than Margin
	// HandedOver: an earlier-registered racer that the leader is not shown
	// to beat, and that is shown to beat the racer the leader's group beat,
	// is a copy of the leader and leads its group.
	HandedOver Outcome = "handed_over"
	NoRacers   Outcome = "no_racers" // the race named no eligible racer
	// Void: the race's trajectories could not be judged as the operator
	// chose (judge.on_unavailable: void), so it is not evidence and the
	// standing is unchanged. Set by the validator, never by Step.
	Void Outcome = "void"
)

// DecidedOutcomes are the outcomes a decided race can have: all but NoRace.
func DecidedOutcomes() []Outcome {
	return []Outcome{Crowned, Undecided, Defended, Dethroned, HandedOver, NoRacers, Void}
}

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
	// Threshold is the e-value the evidence had to reach: 1/(1 − Confidence)
	// for a single test, times the number of challengers K and j(j+1) for
	// the j-th evidence epoch of the reign or vacancy when the comparison
	// can move the crown (docs/scoring.md, "The test").
	Threshold float64 `json:"threshold,omitempty"`
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
	// Reference, when set, races too although it may be below the bar: it
	// is the racer the leader's group was shown to beat, and racing it lets
	// a copy of the leader registered before it be recognised. It is set
	// only when a challenger qualified (no race is run for it alone).
	Reference *Qualifying `json:"reference,omitempty"`
	Outcome   Outcome     `json:"outcome"`
	Leader    *Leader     `json:"leader,omitempty"`
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
	// Group lists the racers that led with the leader as one competitor in
	// this race (copies that could not be told apart), earliest registered
	// first; the leader is the first.
	Group []uint16 `json:"group,omitempty"`
	// MergedEvidence is, with an incumbent, the weighted average of the
	// challengers' evidence against it that moves the crown when it
	// reaches 1/(1 − Confidence) (docs/scoring.md, "Many challengers").
	MergedEvidence float64 `json:"merged_evidence,omitempty"`
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
