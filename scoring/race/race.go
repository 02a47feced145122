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
	// Margin is how much a challenger's race score must exceed the
	// incumbent's (strictly) to take the crown.
	Margin float64 `json:"margin" yaml:"margin"`
}

// Validate reports the first invalid parameter.
func (p Params) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"floor", p.Floor}, {"ratio_start", p.RatioStart}, {"ratio_floor", p.RatioFloor}, {"margin", p.Margin}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("race params: %s %v must be a finite non-negative number", f.name, f.v)
		}
	}
	if p.RatioFloor > p.RatioStart {
		return fmt.Errorf("race params: ratio_floor %v above ratio_start %v", p.RatioFloor, p.RatioStart)
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
	// QualifiedAt is the block at which the miner's qualifying run completed;
	// earlier wins ties.
	QualifiedAt uint64 `json:"qualified_at"`
}

// RaceResult is one racer's result in this window.
type RaceResult struct {
	UID   uint16  `json:"uid"`
	Score float64 `json:"score"` // mean final score on the hidden problems
}

// Input is everything one Step sees.
type Input struct {
	Block      uint64       `json:"block"`
	Qualifying []Qualifying `json:"qualifying"`
	// Race holds the results of the race run this window (qualifiers and the
	// incumbent); empty when no race ran.
	Race []RaceResult `json:"race"`
}

// Outcome says what the race did.
type Outcome string

const (
	NoRace    Outcome = "no_race"   // no race results this step
	Crowned   Outcome = "crowned"   // there was no leader; the best racer took the crown
	Defended  Outcome = "defended"  // the incumbent kept the crown
	Dethroned Outcome = "dethroned" // a challenger beat the incumbent by more than Margin
	NoRacers  Outcome = "no_racers" // race results named no eligible racer
)

// Output is the result of one Step.
type Output struct {
	Ratio float64 `json:"ratio"`
	Bar   float64 `json:"bar"`
	// Qualifiers are the miners at or above the bar (incumbent excluded),
	// earliest qualifier first.
	Qualifiers []Qualifying `json:"qualifiers"`
	Outcome    Outcome      `json:"outcome"`
	Leader     *Leader      `json:"leader,omitempty"`
	// Ranked lists racer uids for the weights policy: the leader first, then
	// the other racers by race score, earlier qualifier first on ties. Empty
	// when no race ran.
	Ranked []uint16 `json:"ranked"`
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
	raceBy := make(map[uint16]float64, len(in.Race))
	for _, r := range in.Race {
		if err := validScore("race", r.UID, r.Score); err != nil {
			return Output{}, s, err
		}
		if _, dup := raceBy[r.UID]; dup {
			return Output{}, s, fmt.Errorf("race: uid %d has two race results", r.UID)
		}
		raceBy[r.UID] = r.Score
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
	for _, q := range byUID {
		if next.Leader != nil && q.UID == next.Leader.UID {
			continue
		}
		if q.Score >= bar && q.Score >= p.Floor {
			out.Qualifiers = append(out.Qualifiers, q)
		}
	}
	earlier := func(a, b Qualifying) int {
		return cmp.Or(cmp.Compare(a.QualifiedAt, b.QualifiedAt), cmp.Compare(a.UID, b.UID))
	}
	slices.SortFunc(out.Qualifiers, earlier)

	if len(in.Race) == 0 {
		out.Leader = copyLeader(next.Leader)
		return out, next, nil
	}

	// Challengers: qualifiers with a race result, best score first, earlier
	// qualifier first on ties.
	type racer struct {
		q     Qualifying
		score float64
	}
	var challengers []racer
	for _, q := range out.Qualifiers {
		if sc, ok := raceBy[q.UID]; ok {
			challengers = append(challengers, racer{q, sc})
		}
	}
	slices.SortFunc(challengers, func(a, b racer) int {
		return cmp.Or(cmp.Compare(b.score, a.score), earlier(a.q, b.q))
	})

	next.Races++
	switch {
	case next.Leader == nil && len(challengers) == 0:
		next.Races--
		out.Outcome = NoRacers
	case next.Leader == nil:
		best := challengers[0]
		next.Leader = crown(best.q, in.Block)
		out.Outcome = Crowned
		challengers = challengers[1:]
	default:
		incumbent := raceBy[next.Leader.UID] // 0 if it did not race
		if len(challengers) > 0 && challengers[0].score > incumbent+p.Margin {
			old := racer{Qualifying{UID: next.Leader.UID, Hotkey: next.Leader.Hotkey, QualifiedAt: next.Leader.QualifiedAt}, incumbent}
			next.Leader = crown(challengers[0].q, in.Block)
			out.Outcome = Dethroned
			challengers = append(challengers[1:], old)
			slices.SortFunc(challengers, func(a, b racer) int {
				return cmp.Or(cmp.Compare(b.score, a.score), earlier(a.q, b.q))
			})
		} else {
			out.Outcome = Defended
		}
	}
	if next.Leader != nil {
		out.Ranked = append(out.Ranked, next.Leader.UID)
	}
	for _, c := range challengers {
		out.Ranked = append(out.Ranked, c.q.UID)
	}
	out.Leader = copyLeader(next.Leader)
	return out, next, nil
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
