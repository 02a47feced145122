package race

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"arena/internal/testseed"
)

func testParams() Params {
	return Params{Floor: 0.3, RatioStart: 1.0, RatioFloor: 0.95, DecayBlocks: 1000, Margin: 0.02, Confidence: 0.95, TieMargin: 0.05}
}

func hk(uid uint16) string { return "hk" + string(rune('a'+uid)) }

func leaderState(uid uint16, qual float64, since uint64) State {
	return State{Leader: &Leader{UID: uid, Hotkey: hk(uid), Qualifying: qual, QualifiedAt: since, Since: since}, LastBlock: since}
}

func qual(uid uint16, score float64) Qualifying {
	return Qualifying{UID: uid, Hotkey: hk(uid), Score: score, QualifiedAt: uint64(uid)}
}

// pattern is a racer's scores in one heat: wins of n problems, the wins
// first (so two patterns of one heat overlap as much as they can).
func pattern(n, wins int) []float64 {
	s := make([]float64, n)
	for i := range wins {
		s[i] = 1
	}
	return s
}

// heat builds a heat from uid → scores.
func heat(id, block uint64, rows map[uint16][]float64) Heat {
	h := Heat{Race: id, Block: block}
	for uid, s := range rows {
		h.Problems = len(s)
		h.Racers = append(h.Racers, HeatRacer{UID: uid, Hotkey: hk(uid), Scores: s})
	}
	slices.SortFunc(h.Racers, func(a, b HeatRacer) int { return int(a.UID) - int(b.UID) })
	return h
}

// heats is k heats, ids from 1, every `every` blocks up to block `last`,
// each with the same rows.
func heats(k int, last, every uint64, rows map[uint16][]float64) []Heat {
	var out []Heat
	for i := range k {
		b := last - uint64(k-1-i)*every
		out = append(out, heat(uint64(i+1), b, rows))
	}
	return out
}

// raceInput is a race at the last heat's block, with the earlier heats as
// history.
func raceInput(qs []Qualifying, hs []Heat) Input {
	last := hs[len(hs)-1]
	return Input{Block: last.Block, Qualifying: qs, Race: &last, History: hs[:len(hs)-1]}
}

func mustStep(t *testing.T, p Params, s State, in Input) (Output, State) {
	t.Helper()
	out, next, err := p.Step(s, in)
	if err != nil {
		t.Fatalf("Step: %v", err)
	}
	return out, next
}

// testSeed is the seed of a random test (testseed.Seed: ARENATEST_SEED
// replays one).
func testSeed(t *testing.T) uint64 {
	t.Helper()
	return testseed.Seed(t)
}

// TestEvidenceClosedForm checks the closed form of the one-sided normal
// mixture against a numerical integral of its definition,
// M = ∫₀^∞ exp(λS − λ²V/2) · 2·N(λ; 0, 1/ρ) dλ.
func TestEvidenceClosedForm(t *testing.T) {
	tests := []Pairs{
		{N: 10, Sum: 3, SumSq: 5},
		{N: 100, Sum: 15, SumSq: 30},
		{N: 500, Sum: 60, SumSq: 120},
		{N: 2000, Sum: 130, SumSq: 480},
		{N: 50, Sum: 0.5, SumSq: 0.5},
	}
	for _, p := range tests {
		t.Run(fmt.Sprintf("%+v", p), func(t *testing.T) {
			s, v, rho := p.Sum, p.SumSq, float64(mixtureVariance)
			// Simpson's rule over λ in [0, 2]: the integrand is negligible beyond.
			const steps = 200000
			h := 2.0 / steps
			f := func(l float64) float64 {
				return math.Exp(l*s-l*l*v/2) * 2 * math.Sqrt(rho/(2*math.Pi)) * math.Exp(-rho*l*l/2)
			}
			sum := f(0) + f(2)
			for i := 1; i < steps; i++ {
				w := 2.0
				if i%2 == 1 {
					w = 4
				}
				sum += w * f(float64(i)*h)
			}
			want := sum * h / 3
			if got := p.Evidence(0); math.Abs(got-want) > 1e-6*want {
				t.Fatalf("Evidence = %v, numerical integral %v", got, want)
			}
		})
	}
}

func TestEvidence(t *testing.T) {
	tests := []struct {
		name  string
		p     Pairs
		shift float64
		want  func(e float64) bool
	}{
		{"no pairs", Pairs{}, 0, func(e float64) bool { return e == 0 }},
		{"behind", Pairs{N: 100, Sum: -5, SumSq: 20}, 0, func(e float64) bool { return e == 0 }},
		{"ahead but not by the shift", Pairs{N: 100, Sum: 5, SumSq: 20}, 0.05, func(e float64) bool { return e == 0 }},
		{"a little ahead: weak evidence", Pairs{N: 100, Sum: 5, SumSq: 20}, 0, func(e float64) bool { return e > 0 && e < 20 }},
		{"far ahead: strong evidence", Pairs{N: 1000, Sum: 150, SumSq: 300}, 0, func(e float64) bool { return e > 1000 }},
		{"a tie shown no worse", Pairs{N: 4000, Sum: 0, SumSq: 1000}, -0.05, func(e float64) bool { return e > 20 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e := tt.p.Evidence(tt.shift); !tt.want(e) {
				t.Fatalf("Evidence(%v) of %+v = %v", tt.shift, tt.p, e)
			}
		})
	}
	// More wins on the same number of discordant problems is more evidence.
	prev := 0.0
	for sum := 1.0; sum <= 40; sum++ {
		e := Pairs{N: 200, Sum: sum, SumSq: 60}.Evidence(0)
		if e <= prev {
			t.Fatalf("evidence %v at Σd=%v did not grow from %v", e, sum, prev)
		}
		prev = e
	}
}

func TestUpper(t *testing.T) {
	tests := []struct {
		q      Qualifying
		lo, hi float64
	}{
		{Qualifying{Score: 0.5}, 0.5, 0.5},                   // no problem count: the score itself
		{Qualifying{Score: 0.5, Problems: 20}, 0.66, 0.69},   // Wilson, z = 1.645
		{Qualifying{Score: 0, Problems: 20}, 0.11, 0.13},     // never 0: no run rules out a small rate
		{Qualifying{Score: 1, Problems: 20}, 1, 1},           // capped
		{Qualifying{Score: 0.5, Problems: 1000}, 0.52, 0.53}, // tight with many problems
	}
	for _, tt := range tests {
		if u := tt.q.Upper(0.95); u < tt.lo || u > tt.hi {
			t.Errorf("Upper(%+v) = %v, want in [%v, %v]", tt.q, u, tt.lo, tt.hi)
		}
	}
	if z := normalQuantile(0.975); math.Abs(z-1.959964) > 1e-6 {
		t.Errorf("normalQuantile(0.975) = %v", z)
	}
}

func TestStep(t *testing.T) {
	p := testParams()
	// Every 100 blocks up to block 5000; uid 1 solves 30 of 50, uid 0 25.
	better := map[uint16][]float64{0: pattern(50, 25), 1: pattern(50, 30)}
	tied := map[uint16][]float64{0: pattern(50, 25), 1: pattern(50, 25)}
	tests := []struct {
		name        string
		p           Params
		state       State
		in          Input
		wantOutcome Outcome
		wantLeader  int // -1: none
		wantQual    []uint16
		wantRanked  []uint16
		wantBar     float64
	}{
		{
			// Leader 0.8 at block 0, now block 500: ratio 1 - .05*.5 = .975, bar .78.
			name:        "no race: bar from the leader and its decay",
			p:           p,
			state:       leaderState(0, 0.8, 0),
			in:          Input{Block: 500, Qualifying: []Qualifying{qual(1, 0.78), qual(2, 0.77)}},
			wantOutcome: NoRace, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{}, wantBar: 0.78,
		},
		{
			// 0.65 over 20 problems does not rule out 0.78 (Wilson bound .80);
			// 0.4 over 20 does (.58).
			name:  "the bar is applied to the upper confidence bound",
			p:     p,
			state: leaderState(0, 0.8, 0),
			in: Input{Block: 500, Qualifying: []Qualifying{
				{UID: 1, Hotkey: hk(1), Score: 0.65, Problems: 20}, {UID: 2, Hotkey: hk(2), Score: 0.4, Problems: 20}}},
			wantOutcome: NoRace, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{}, wantBar: 0.78,
		},
		{
			name:        "first race with one racer crowns it",
			p:           p,
			state:       State{},
			in:          raceInput([]Qualifying{qual(1, 0.5)}, heats(1, 100, 100, map[uint16][]float64{1: pattern(10, 4)})),
			wantOutcome: Crowned, wantLeader: 1, wantQual: []uint16{1}, wantRanked: []uint16{1}, wantBar: 0.3,
		},
		{
			name:        "first crown waits for evidence",
			p:           p,
			state:       State{},
			in:          raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(1, 100, 100, better)),
			wantOutcome: Undecided, wantLeader: -1, wantQual: []uint16{0, 1}, wantRanked: []uint16{}, wantBar: 0.3,
		},
		{
			name:        "first crown on accumulated evidence",
			p:           p,
			state:       State{},
			in:          raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(40, 4000, 100, better)),
			wantOutcome: Crowned, wantLeader: 1, wantQual: []uint16{0, 1}, wantRanked: []uint16{1, 0}, wantBar: 0.3,
		},
		{
			name:  "first crown between equals goes to the lower uid once the tie is shown",
			p:     p,
			state: State{},
			in: raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(40, 4000, 100,
				map[uint16][]float64{0: pattern(50, 25), 1: append(pattern(25, 24), pattern(25, 1)...)})),
			wantOutcome: Crowned, wantLeader: 0, wantQual: []uint16{0, 1}, wantRanked: []uint16{0, 1}, wantBar: 0.3,
		},
		{
			// uid 1 is better by 0.03: inside the tie margin for uid 0, but
			// shown better than the margin, so uid 1 wins.
			name:  "first crown: shown better beats a near-tie claim",
			p:     p,
			state: State{},
			in: raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(100, 10000, 100,
				map[uint16][]float64{0: pattern(100, 50), 1: pattern(100, 53)})),
			wantOutcome: Crowned, wantLeader: 1, wantQual: []uint16{0, 1}, wantRanked: []uint16{1, 0}, wantBar: 0.3,
		},
		{
			name:        "one race is not enough to dethrone",
			p:           p,
			state:       leaderState(0, 0.5, 0),
			in:          raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(1, 5000, 100, better)),
			wantOutcome: Defended, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{0, 1}, wantBar: 0.475,
		},
		{
			name:        "accumulated evidence dethrones",
			p:           p,
			state:       leaderState(0, 0.5, 0),
			in:          raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(40, 5000, 100, better)),
			wantOutcome: Dethroned, wantLeader: 1, wantQual: []uint16{1}, wantRanked: []uint16{1, 0}, wantBar: 0.475,
		},
		{
			name:        "a tie never dethrones",
			p:           p,
			state:       leaderState(0, 0.5, 0),
			in:          raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(80, 9000, 100, tied)),
			wantOutcome: Defended, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{0, 1}, wantBar: 0.475,
		},
		{
			name: "evidence outside the window does not count",
			p: func() Params {
				q := p
				q.WindowBlocks = 150
				return q
			}(),
			state:       leaderState(0, 0.5, 0),
			in:          raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(40, 5000, 100, better)),
			wantOutcome: Defended, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{0, 1}, wantBar: 0.475,
		},
		{
			name:  "a re-registered uid starts from scratch",
			p:     p,
			state: leaderState(0, 0.5, 0),
			in: func() Input {
				hs := heats(40, 5000, 100, better)
				for i := range hs[:39] {
					hs[i].Racers[1].Hotkey = "old-owner"
				}
				return raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, hs)
			}(),
			wantOutcome: Defended, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{0, 1}, wantBar: 0.475,
		},
		{
			name:  "an absent incumbent scores zero",
			p:     p,
			state: leaderState(0, 0.5, 0),
			in: raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5)}, heats(3, 5000, 100,
				map[uint16][]float64{0: pattern(50, 0), 1: pattern(50, 30)})),
			wantOutcome: Dethroned, wantLeader: 1, wantQual: []uint16{1}, wantRanked: []uint16{1, 0}, wantBar: 0.475,
		},
		{
			name:  "strongest evidence wins among challengers shown better",
			p:     p,
			state: leaderState(0, 0.5, 0),
			in: raceInput([]Qualifying{qual(0, 0.5), qual(1, 0.5), qual(2, 0.5)}, heats(40, 5000, 100,
				map[uint16][]float64{0: pattern(50, 20), 1: pattern(50, 30), 2: pattern(50, 35)})),
			wantOutcome: Dethroned, wantLeader: 2, wantQual: []uint16{1, 2}, wantRanked: []uint16{2, 1, 0}, wantBar: 0.475,
		},
		{
			name:  "deregistered incumbent vacates the crown",
			p:     p,
			state: leaderState(0, 0.8, 0),
			in: raceInput([]Qualifying{{UID: 0, Hotkey: "new-owner", Score: 0.4, QualifiedAt: 4990}, qual(1, 0.35)},
				heats(1, 5000, 100, map[uint16][]float64{1: pattern(10, 6)})),
			wantOutcome: Crowned, wantLeader: 1, wantQual: []uint16{1, 0}, wantRanked: []uint16{1}, wantBar: 0.3,
		},
		{
			name:        "race with no eligible racer",
			p:           p,
			state:       State{},
			in:          raceInput([]Qualifying{qual(1, 0.1)}, heats(1, 100, 100, map[uint16][]float64{1: pattern(10, 9)})),
			wantOutcome: NoRacers, wantLeader: -1, wantQual: []uint16{}, wantRanked: []uint16{}, wantBar: 0.3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, next := mustStep(t, tt.p, tt.state, tt.in)
			if out.Outcome != tt.wantOutcome {
				t.Fatalf("outcome %q, want %q; decision %+v", out.Outcome, tt.wantOutcome, out.Decision)
			}
			if tt.wantLeader < 0 {
				if out.Leader != nil || next.Leader != nil {
					t.Fatalf("want no leader, got %+v", out.Leader)
				}
			} else if out.Leader == nil || out.Leader.UID != uint16(tt.wantLeader) || next.Leader.UID != uint16(tt.wantLeader) {
				t.Fatalf("leader %+v, want uid %d; decision %+v", out.Leader, tt.wantLeader, out.Decision)
			}
			var q []uint16
			for _, x := range out.Qualifiers {
				q = append(q, x.UID)
			}
			if !slices.Equal(q, tt.wantQual) && !(len(q) == 0 && len(tt.wantQual) == 0) {
				t.Fatalf("qualifiers %v, want %v", q, tt.wantQual)
			}
			if !slices.Equal(out.Ranked, tt.wantRanked) {
				t.Fatalf("ranked %v, want %v", out.Ranked, tt.wantRanked)
			}
			if diff := out.Bar - tt.wantBar; diff > 1e-12 || diff < -1e-12 {
				t.Fatalf("bar %v, want %v", out.Bar, tt.wantBar)
			}
			if tt.in.Race != nil && out.Outcome != NoRacers && len(out.Decision) == 0 && len(out.Ranked) > 1 {
				t.Fatalf("a decision between racers carries no comparison")
			}
		})
	}
}

func TestStepErrors(t *testing.T) {
	p := testParams()
	withParams := func(f func(*Params)) Params {
		q := p
		f(&q)
		return q
	}
	good := heat(1, 100, map[uint16][]float64{1: pattern(4, 2)})
	tests := []struct {
		name    string
		p       Params
		s       State
		in      Input
		wantErr string
	}{
		{"ratio floor above start", withParams(func(q *Params) { q.RatioStart, q.RatioFloor = 0.9, 1 }), State{}, Input{}, "ratio_floor"},
		{"negative margin", withParams(func(q *Params) { q.Margin = -1 }), State{}, Input{}, "margin"},
		{"confidence too high", withParams(func(q *Params) { q.Confidence = 0.9999 }), State{}, Input{}, "confidence"},
		{"confidence unset", withParams(func(q *Params) { q.Confidence = 0 }), State{}, Input{}, "confidence"},
		{"tie margin below margin", withParams(func(q *Params) { q.TieMargin = 0.01 }), State{}, Input{}, "tie_margin"},
		{"block goes back", p, State{LastBlock: 10}, Input{Block: 9}, "before the last"},
		{"duplicate qualifying", p, State{}, Input{Qualifying: []Qualifying{{UID: 1}, {UID: 1}}}, "two qualifying"},
		{"racer twice in a heat", p, State{}, Input{Block: 100, Race: &Heat{Race: 1, Block: 100, Problems: 1,
			Racers: []HeatRacer{{UID: 1, Scores: []float64{1}}, {UID: 1, Scores: []float64{0}}}}}, "twice"},
		{"score count mismatch", p, State{}, Input{Block: 100, Race: &Heat{Race: 1, Block: 100, Problems: 2,
			Racers: []HeatRacer{{UID: 1, Scores: []float64{1}}}}}, "1 scores for 2 problems"},
		{"score out of range", p, State{}, Input{Block: 100, Race: &Heat{Race: 1, Block: 100, Problems: 1,
			Racers: []HeatRacer{{UID: 1, Scores: []float64{1.5}}}}}, "outside [0, 1]"},
		{"heat given twice", p, State{}, Input{Block: 100, Qualifying: []Qualifying{qual(1, 0.5)}, Race: &good, History: []Heat{good}}, "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.p.Step(tt.s, tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

// world is a random race history: miners of random skill race heats of
// random size, some of them every time, some now and then.
type world struct {
	Quals []Qualifying
	Heats []Heat
	State State
}

func randomWorld(r *rand.Rand) world {
	n := 2 + r.IntN(5)
	skill := make([]float64, n)
	var w world
	for u := range n {
		skill[u] = 0.3 + 0.4*r.Float64()
		w.Quals = append(w.Quals, Qualifying{UID: uint16(u), Hotkey: hk(uint16(u)), Score: 0.5 + 0.5*r.Float64(), QualifiedAt: uint64(r.IntN(5))})
	}
	if r.IntN(2) == 0 {
		w.State = leaderState(uint16(r.IntN(n)), 0.5, 0)
	}
	races := 1 + r.IntN(60)
	for i := range races {
		h := Heat{Race: uint64(i + 1), Block: uint64(100 * (i + 1)), Problems: 1 + r.IntN(30)}
		for u := range n {
			isLeader := w.State.Leader != nil && w.State.Leader.UID == uint16(u)
			if !isLeader && r.IntN(4) == 0 {
				continue
			}
			s := make([]float64, h.Problems)
			for k := range s {
				if r.Float64() < skill[u] {
					s[k] = 1
				}
				if r.IntN(10) == 0 {
					s[k] *= 0.3 + 0.7*r.Float64() // a reasoning coefficient below 1
				}
			}
			h.Racers = append(h.Racers, HeatRacer{UID: uint16(u), Hotkey: hk(uint16(u)), Scores: s})
		}
		w.Heats = append(w.Heats, h)
	}
	return w
}

func (w world) input() Input { return raceInput(w.Quals, w.Heats) }

// TestPropertyOrderIndependent: the outcome depends on the results, not on
// the order in which heats, racers or qualifying results arrive, and not
// on a JSON round trip of the persisted state and heats (a restart).
func TestPropertyOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 1))
	p := testParams()
	p.WindowBlocks = 3000
	for i := range 300 {
		w := randomWorld(r)
		out1, s1 := mustStep(t, p, w.State, w.input())

		var w2 world
		raw, err := json.Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &w2); err != nil {
			t.Fatal(err)
		}
		in2 := w2.input()
		r.Shuffle(len(in2.History), func(a, b int) { in2.History[a], in2.History[b] = in2.History[b], in2.History[a] })
		r.Shuffle(len(in2.Qualifying), func(a, b int) { in2.Qualifying[a], in2.Qualifying[b] = in2.Qualifying[b], in2.Qualifying[a] })
		for _, h := range append(in2.History, *in2.Race) {
			r.Shuffle(len(h.Racers), func(a, b int) { h.Racers[a], h.Racers[b] = h.Racers[b], h.Racers[a] })
		}
		out2, s2 := mustStep(t, p, w2.State, in2)
		if !reflect.DeepEqual(out1, out2) || !reflect.DeepEqual(s1, s2) {
			t.Fatalf("world %d: order changed the step:\n%+v\n%+v", i, out1, out2)
		}
	}
}

// TestPropertyMonotone: a better record never loses a crown it would win,
// and a worse one never wins a crown it would lose. One score of one racer
// is raised (or the leader's lowered) at a time.
func TestPropertyMonotone(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 2))
	p := testParams()
	leaderOf := func(out Output) int {
		if out.Leader == nil {
			return -1
		}
		return int(out.Leader.UID)
	}
	checked := 0
	for i := range 400 {
		w := randomWorld(r)
		out, _ := mustStep(t, p, w.State, w.input())
		winner := leaderOf(out)
		for try := range 10 {
			hi := r.IntN(len(w.Heats))
			h := w.Heats[hi]
			if len(h.Racers) == 0 {
				continue
			}
			ri, k := r.IntN(len(h.Racers)), r.IntN(h.Problems)
			uid := int(h.Racers[ri].UID)
			old := h.Racers[ri].Scores[k]
			var better float64
			switch {
			case uid == winner && old < 1:
				better = old + (1-old)*r.Float64() // the winner does better: it must still win
			case uid != winner && old > 0:
				better = old * r.Float64() // a loser does worse: it must still lose
			default:
				continue
			}
			mod := slices.Clone(w.Heats)
			mod[hi].Racers = slices.Clone(h.Racers)
			mod[hi].Racers[ri].Scores = slices.Clone(h.Racers[ri].Scores)
			mod[hi].Racers[ri].Scores[k] = better
			w2 := w
			w2.Heats = mod
			out2, _ := mustStep(t, p, w.State, w2.input())
			if uid == winner && leaderOf(out2) != winner {
				t.Fatalf("world %d try %d: uid %d led, scored %v instead of %v on heat %d problem %d, and lost (leader %d)",
					i, try, uid, better, old, h.Race, k, leaderOf(out2))
			}
			if uid != winner && winner >= 0 && leaderOf(out2) == uid {
				t.Fatalf("world %d try %d: uid %d did worse and took the crown from %d", i, try, uid, winner)
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d changes checked", checked)
	}
}

// TestPropertyFalseCrownRate: between two exchangeable miners the chance
// that the challenger is ever crowned, looked at after every race, stays
// below 1 − confidence (Ville's inequality), even with no margin. Over 400
// sequences of 60 races the count of crowns is checked against the
// binomial 99.9% quantile of α = 0.05.
func TestPropertyFalseCrownRate(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	p := testParams()
	p.Margin = 0
	const sequences, races, problems = 400, 60, 20
	crowned := 0
	for range sequences {
		st := leaderState(0, 0.5, 0)
		var hs []Heat
		for i := range races {
			h := Heat{Race: uint64(i + 1), Block: uint64(100 * (i + 1)), Problems: problems}
			for u := range uint16(2) {
				s := make([]float64, problems)
				for k := range s {
					if r.Float64() < 0.5 {
						s[k] = 1
					}
				}
				h.Racers = append(h.Racers, HeatRacer{UID: u, Hotkey: hk(u), Scores: s})
			}
			out, next := mustStep(t, p, st, Input{Block: h.Block, Qualifying: []Qualifying{qual(0, 0.5), qual(1, 0.5)}, Race: &h, History: hs})
			hs = append(hs, h)
			st = next
			if out.Outcome == Dethroned {
				crowned++
				break
			}
		}
	}
	// Binomial(400, 0.05): mean 20, sd 4.4; 99.9% quantile about 35.
	t.Logf("challenger crowned in %d of %d sequences (bound: at most %.0f expected)", crowned, sequences, 0.05*sequences)
	if crowned > 35 {
		t.Fatalf("an equal challenger was crowned in %d of %d sequences, above the 5%% bound", crowned, sequences)
	}
}

func TestPropertyThresholdDecaysToFloor(t *testing.T) {
	tests := []struct {
		name string
		p    Params
	}{
		{"default", testParams()},
		{"no decay window", Params{Floor: 0.1, RatioStart: 1, RatioFloor: 0.9, DecayBlocks: 0}},
		{"high floor", Params{Floor: 0.79, RatioStart: 1, RatioFloor: 0.9, DecayBlocks: 777}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := leaderState(0, 0.8, 1000)
			prevRatio, prevBar := 2.0, 2.0
			for b := uint64(1000); b < 1000+3*tt.p.DecayBlocks+10; b += 7 {
				ratio, bar := tt.p.Bar(s, b)
				if ratio > prevRatio || bar > prevBar {
					t.Fatalf("block %d: ratio %v bar %v rose from %v %v", b, ratio, bar, prevRatio, prevBar)
				}
				if ratio < tt.p.RatioFloor || bar < tt.p.Floor {
					t.Fatalf("block %d: ratio %v bar %v below floors", b, ratio, bar)
				}
				if b-1000 >= tt.p.DecayBlocks && ratio != tt.p.RatioFloor {
					t.Fatalf("block %d: ratio %v, want floor %v after decay", b, ratio, tt.p.RatioFloor)
				}
				prevRatio, prevBar = ratio, bar
			}
			if r0, _ := tt.p.Bar(s, 1000); tt.p.DecayBlocks > 0 && r0 != tt.p.RatioStart {
				t.Fatalf("ratio at reign start %v, want %v", r0, tt.p.RatioStart)
			}
		})
	}
}

func TestPropertyNoneQualifiesBelowFloorOrBar(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 4))
	p := Params{Floor: 0.45, RatioStart: 1, RatioFloor: 0.5, DecayBlocks: 50, Confidence: 0.95}
	for i := range 1000 {
		w := randomWorld(r)
		for k := range w.Quals {
			w.Quals[k].Problems = r.IntN(40)
			w.Quals[k].Score = float64(r.IntN(11)) / 10
		}
		out, next := mustStep(t, p, w.State, w.input())
		for _, q := range out.Qualifiers {
			if q.Score < p.Floor || q.Upper(p.Confidence) < out.Bar {
				t.Fatalf("world %d: uid %d qualified with %v over %d (floor %v, bar %v)", i, q.UID, q.Score, q.Problems, p.Floor, out.Bar)
			}
		}
		if next.Leader != nil && (w.State.Leader == nil || next.Leader.UID != w.State.Leader.UID) && next.Leader.Qualifying < p.Floor {
			t.Fatalf("world %d: leader crowned below floor: %+v", i, next.Leader)
		}
	}
}
