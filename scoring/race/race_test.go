package race

import (
	"cmp"
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

// pairsOfDiffs builds the paired statistics of a list of differences.
func pairsOfDiffs(ds ...float64) Pairs {
	counts := map[float64]int{}
	for _, d := range ds {
		counts[d]++
	}
	var dc []DiffCount
	for d, n := range counts {
		dc = append(dc, DiffCount{D: d, N: n})
	}
	slices.SortFunc(dc, func(a, b DiffCount) int { return cmp.Compare(a.D, b.D) })
	return pairsOf(dc)
}

// repeat is n copies of d.
func repeat(n int, d float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// TestEvidenceIsAMixtureOfBets checks LogEvidence against its definition,
// the mixture over the bets λ of Π(1 + λξ) computed problem by problem in
// a random order, for pass/fail, judged and continuous differences.
func TestEvidenceIsAMixtureOfBets(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 5))
	draws := map[string]func() float64{
		"pass/fail": func() float64 { return float64(r.IntN(3) - 1) },
		"judged": func() float64 {
			cs := []float64{0, 0.5625, 0.7375, 0.9125, 1}
			return cs[r.IntN(5)] - cs[r.IntN(5)]
		},
		"continuous": func() float64 { return r.Float64() - r.Float64() },
	}
	for name, draw := range draws {
		t.Run(name, func(t *testing.T) {
			for trial := range 20 {
				n := 1 + r.IntN(400)
				ds := make([]float64, n)
				for i := range ds {
					ds[i] = draw() + 0.1*r.Float64()*float64(trial%2) // half the trials lean towards A
					ds[i] = max(-1, min(1, ds[i]))
				}
				shift := []float64{0, 0.01, -0.05}[trial%3]
				p := pairsOfDiffs(ds...)
				got := p.LogEvidence(shift)
				r.Shuffle(len(ds), func(a, b int) { ds[a], ds[b] = ds[b], ds[a] })
				c := 1 + max(shift, 0)
				var terms []float64
				for _, b := range bets {
					lw := b.logWeight
					for _, d := range ds {
						lw += math.Log1p(b.lambda * (d - shift) / c)
					}
					terms = append(terms, lw)
				}
				top := slices.Max(terms)
				var sum float64
				for _, x := range terms {
					sum += math.Exp(x - top)
				}
				want := top + math.Log(sum)
				if p.Sum-shift*float64(p.N) <= 0 {
					want = math.Inf(-1)
				}
				if !(got == want || math.Abs(got-want) <= 1e-9*max(1, math.Abs(want))) {
					t.Fatalf("trial %d (n %d, shift %v): LogEvidence %v, the bets give %v", trial, n, shift, got, want)
				}
				if up := p.upperLogEvidence(shift); got > up+1e-12 {
					t.Fatalf("trial %d: the quick upper bound %v is below the evidence %v ", trial, up, got)
				}
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
		{"counts missing (a summary read back without its differences)", Pairs{N: 1000, Sum: 150, SumSq: 300}, 0, func(e float64) bool { return e == 0 }},
		{"behind", pairsOfDiffs(append(repeat(10, -1), repeat(5, 1)...)...), 0, func(e float64) bool { return e == 0 }},
		{"ahead but not by the shift", pairsOfDiffs(append(repeat(95, 0), repeat(5, 1)...)...), 0.05, func(e float64) bool { return e == 0 }},
		{"a little ahead: weak evidence", pairsOfDiffs(append(append(repeat(80, 0), repeat(12, 1)...), repeat(8, -1)...)...), 0, func(e float64) bool { return e > 0 && e < 20 }},
		{"far ahead: strong evidence", pairsOfDiffs(append(append(repeat(700, 0), repeat(225, 1)...), repeat(75, -1)...)...), 0, func(e float64) bool { return e > 1000 }},
		{"a tie shown no worse", pairsOfDiffs(append(append(repeat(3000, 0), repeat(500, 1)...), repeat(500, -1)...)...), -0.05, func(e float64) bool { return e > 20 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e := tt.p.Evidence(tt.shift); !tt.want(e) {
				t.Fatalf("Evidence(%v) of N %d Σd %v = %v", tt.shift, tt.p.N, tt.p.Sum, e)
			}
		})
	}
	// More wins on the same number of discordant problems is more evidence.
	prev := 0.0
	for wins := 31; wins <= 60; wins++ {
		e := pairsOfDiffs(append(append(repeat(140, 0), repeat(wins, 1)...), repeat(60-wins, -1)...)...).Evidence(0)
		if e <= prev {
			t.Fatalf("evidence %v at %d wins of 60 did not grow from %v", e, wins, prev)
		}
		prev = e
	}
}

// TestEvidenceRoundsDown: with more distinct differences than are summed
// one by one, each is rounded down, which can only lower the evidence.
func TestEvidenceRoundsDown(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 6))
	ds := make([]float64, 3000)
	for i := range ds {
		ds[i] = 0.2 + 0.6*r.Float64() - 0.6*r.Float64()
	}
	p := pairsOfDiffs(ds...)
	if len(p.Diffs) <= maxDistinct {
		t.Fatalf("only %d distinct differences", len(p.Diffs))
	}
	exact := func() float64 {
		var best []float64
		for _, b := range bets {
			lw := b.logWeight
			for _, d := range ds {
				lw += math.Log1p(b.lambda * d)
			}
			best = append(best, lw)
		}
		top := slices.Max(best)
		var sum float64
		for _, x := range best {
			sum += math.Exp(x - top)
		}
		return top + math.Log(sum)
	}()
	got := p.LogEvidence(0)
	if got > exact || got < exact-float64(len(ds))/binsPerUnit {
		t.Fatalf("rounded evidence %v, exact %v: want slightly below", got, exact)
	}
}

// TestEvidenceValidForSkewedScores runs the test between two miners of
// equal mean whose per-problem differences are far from symmetric
// (frequent small wins against rare large losses, as judged scores give
// a careful but less capable miner against a strong one) and
// checks that the evidence reaches 1/α in at most α of the sequences,
// looked at after every problem. An evidence inflated by a constant factor
// of 4.5 fails it (about 10% of sequences).
func TestEvidenceValidForSkewedScores(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 7))
	const sequences, problems = 400, 2000
	reached := 0
	for range sequences {
		var p pairCounts
		for i := range problems {
			d := 0.1
			if r.Float64() < 0.1 {
				d = -0.9
			}
			p.add(d)
			if i%25 == 24 && pairsOf(p.counts).Confident(0, 0.95) {
				reached++
				break
			}
		}
	}
	t.Logf("evidence reached 20 in %d of %d sequences (bound %d)", reached, sequences, sequences/20)
	// Binomial(400, 0.05): mean 20, sd 4.4; 99.9% quantile about 35.
	if reached > 35 {
		t.Fatalf("an equal miner was shown better in %d of %d sequences", reached, sequences)
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

// TestPropertyMonotone: a better record never loses its group a crown it
// would win, and a worse one never wins a crown it would lose. The unit is
// the leading group, the racers led as one competitor (Output.Group): a
// leader that does better may still hand the crown to an earlier-registered
// copy, and one that does worse may no longer be told to be copied. One
// score of one racer is raised (the winner's) or lowered (another's) at a
// time.
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
		group := out.Group
		if winner >= 0 && len(group) == 0 {
			group = []uint16{uint16(winner)}
		}
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
			case !slices.Contains(group, uint16(uid)) && old > 0:
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
			if uid == winner && !slices.Contains(group, uint16(leaderOf(out2))) {
				t.Fatalf("world %d try %d: uid %d led group %v, scored %v instead of %v on heat %d problem %d, and the group lost (leader %d)",
					i, try, uid, group, better, old, h.Race, k, leaderOf(out2))
			}
			if uid != winner && winner >= 0 && leaderOf(out2) == uid {
				t.Fatalf("world %d try %d: uid %d did worse and took the crown from %d's group %v", i, try, uid, winner, group)
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

// copiesWorld is k copies of one agent (uids 10, 11, …, each with its own
// luck) against a weaker leader, uid 1, over heats of 50 problems every 100
// blocks; reg gives each copy's registration block.
func copiesWorld(r *rand.Rand, k, races int, reg []uint64) ([]Qualifying, []Heat) {
	quals := []Qualifying{{UID: 1, Hotkey: hk(1), Score: 0.5, RegisteredAt: 1}}
	for i := range k {
		u := uint16(10 + i)
		quals = append(quals, Qualifying{UID: u, Hotkey: hk(u), Score: 0.6, RegisteredAt: reg[i], QualifiedAt: 1})
	}
	var hs []Heat
	for h := range races {
		heat := Heat{Race: uint64(h + 1), Block: uint64(100 * (h + 1)), Problems: 50}
		for _, q := range quals {
			p := 0.5
			if q.UID != 1 {
				p = 0.6
			}
			s := make([]float64, 50)
			for i := range s {
				if r.Float64() < p {
					s[i] = 1
				}
			}
			heat.Racers = append(heat.Racers, HeatRacer{UID: q.UID, Hotkey: q.Hotkey, Scores: s})
		}
		hs = append(hs, heat)
	}
	return quals, hs
}

// TestPropertyCloneSymmetry: copies of one agent are one competitor, led by
// the earliest registered whatever uid it has: permuting which uid carries
// which registration block does not change the winning registration block.
// The copies here have their own luck per problem, so one can still be
// shown, falsely, to beat another and take the crown within the group: a
// type I error of the test. Over 20,000 such runs (5,000 worlds with 4
// permutations each, seeds 5 and 6) it happened in 10 (0.05%); at 0.2% per
// world (a world has 6 permutations) the chance that 2 or more of the 12
// worlds here show it, which fails the test, is below 3e-4.
func TestPropertyCloneSymmetry(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 8))
	p := testParams()
	p.Margin = 0.01
	var wrong []string
	for world := range 12 {
		reg := []uint64{500, 300, 900, 700}
		quals, hs := copiesWorld(r, len(reg), 60, reg)
		for perm := range 6 {
			// Carry the registration blocks to other uids; the results stay
			// with their uids.
			shuffled := slices.Clone(reg)
			r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			qs := slices.Clone(quals)
			for i := range shuffled {
				qs[1+i].RegisteredAt = shuffled[i]
			}
			st := leaderState(1, 0.5, 0)
			st.Leader.RegisteredAt = 1
			var leader *Leader
			cache := NewCache()
			for i := range hs {
				out, next := mustStep(t, p, st, Input{Block: hs[i].Block, Qualifying: qs, Race: &hs[i], History: hs[:i], Cache: cache})
				st, leader = next, out.Leader
			}
			if leader == nil || leader.UID == 1 {
				t.Fatalf("world %d: the copies never took the crown (%+v)", world, leader)
			}
			if leader.RegisteredAt != 300 {
				wrong = append(wrong, fmt.Sprintf("world %d permutation %d: uid %d (registered at %d) leads, want the copy registered at 300", world, perm, leader.UID, leader.RegisteredAt))
				break
			}
		}
	}
	for _, w := range wrong {
		t.Log(w)
	}
	if len(wrong) >= 2 {
		t.Fatalf("%d of 12 worlds did not crown the earliest-registered copy", len(wrong))
	}
}

// TestPropertyCacheChangesNothing: stepping with a cache, as a validator
// does race after race, gives the same output and state, bit for bit, as
// recounting every heat; so does a fresh cache after a restart.
func TestPropertyCacheChangesNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 9))
	p := testParams()
	p.WindowBlocks = 1000 // epochs of 10 races: the window moves during the run
	for world := range 10 {
		quals, hs := copiesWorld(r, 3, 45, []uint64{30, 20, 40})
		cache := NewCache()
		plain, cached := State{}, State{}
		for i := range hs {
			if i == 25 {
				cache = NewCache() // a restart
			}
			in := Input{Block: hs[i].Block, Qualifying: quals, Race: &hs[i], History: hs[:i]}
			out1, next1 := mustStep(t, p, plain, in)
			in.Cache = cache
			out2, next2 := mustStep(t, p, cached, in)
			if !reflect.DeepEqual(out1, out2) || !reflect.DeepEqual(next1, next2) {
				t.Fatalf("world %d race %d: the cache changed the step:\n%+v\n%+v", world, i, out1, out2)
			}
			plain, cached = next1, next2
		}
	}
}
