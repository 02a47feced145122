package race

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func testParams() Params {
	return Params{Floor: 0.3, RatioStart: 1.0, RatioFloor: 0.95, DecayBlocks: 1000, Margin: 0.02}
}

func leaderState(uid uint16, qual float64, since uint64) State {
	return State{Leader: &Leader{UID: uid, Hotkey: "hk" + string(rune('a'+uid)), Qualifying: qual, QualifiedAt: since, Since: since}, LastBlock: since}
}

func hk(uid uint16) string { return "hk" + string(rune('a'+uid)) }

func mustStep(t *testing.T, p Params, s State, in Input) (Output, State) {
	t.Helper()
	out, next, err := p.Step(s, in)
	if err != nil {
		t.Fatalf("Step: %v", err)
	}
	return out, next
}

func TestStep(t *testing.T) {
	p := testParams()
	tests := []struct {
		name        string
		state       State
		in          Input
		wantOutcome Outcome
		wantLeader  int // -1: none
		wantQual    []uint16
		wantRanked  []uint16
		wantBar     float64
	}{
		{
			name:  "first race crowns best racer",
			state: State{},
			in: Input{Block: 100, Qualifying: []Qualifying{{1, hk(1), 0.5, 90}, {2, hk(2), 0.6, 95}, {3, hk(3), 0.2, 80}},
				Race: []RaceResult{{1, 0.7}, {2, 0.6}}},
			wantOutcome: Crowned, wantLeader: 1, wantQual: []uint16{1, 2}, wantRanked: []uint16{1, 2}, wantBar: 0.3,
		},
		{
			// Leader 0.8 at block 0, now block 500: ratio 1 - .05*.5 = .975, bar .78.
			name:        "bar from leader and decay",
			state:       leaderState(0, 0.8, 0),
			in:          Input{Block: 500, Qualifying: []Qualifying{{1, hk(1), 0.78, 10}, {2, hk(2), 0.77, 5}}},
			wantOutcome: NoRace, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{}, wantBar: 0.78,
		},
		{
			name:  "challenger by more than margin dethrones",
			state: leaderState(0, 0.8, 0),
			in: Input{Block: 2000, Qualifying: []Qualifying{{1, hk(1), 0.8, 10}},
				Race: []RaceResult{{0, 0.70}, {1, 0.73}}},
			wantOutcome: Dethroned, wantLeader: 1, wantQual: []uint16{1}, wantRanked: []uint16{1, 0}, wantBar: 0.76,
		},
		{
			name:  "challenger by exactly the margin does not",
			state: leaderState(0, 0.8, 0),
			in: Input{Block: 2000, Qualifying: []Qualifying{{1, hk(1), 0.8, 10}},
				Race: []RaceResult{{0, 0.5}, {1, 0.52}}},
			wantOutcome: Defended, wantLeader: 0, wantQual: []uint16{1}, wantRanked: []uint16{0, 1}, wantBar: 0.76,
		},
		{
			name:  "tie among challengers goes to earlier qualifier",
			state: State{},
			in: Input{Block: 100, Qualifying: []Qualifying{{5, hk(5), 0.5, 50}, {2, hk(2), 0.9, 60}},
				Race: []RaceResult{{2, 0.7}, {5, 0.7}}},
			wantOutcome: Crowned, wantLeader: 5, wantQual: []uint16{5, 2}, wantRanked: []uint16{5, 2}, wantBar: 0.3,
		},
		{
			name:  "absent incumbent scores zero",
			state: leaderState(0, 0.8, 0),
			in: Input{Block: 2000, Qualifying: []Qualifying{{1, hk(1), 0.9, 10}},
				Race: []RaceResult{{1, 0.1}}},
			wantOutcome: Dethroned, wantLeader: 1, wantQual: []uint16{1}, wantRanked: []uint16{1, 0}, wantBar: 0.76,
		},
		{
			name:  "deregistered incumbent vacates the crown",
			state: leaderState(0, 0.8, 0),
			in: Input{Block: 2000, Qualifying: []Qualifying{{0, "new-owner", 0.4, 1990}, {1, hk(1), 0.35, 10}},
				Race: []RaceResult{{0, 0.5}, {1, 0.6}}},
			wantOutcome: Crowned, wantLeader: 1, wantQual: []uint16{1, 0}, wantRanked: []uint16{1, 0}, wantBar: 0.3,
		},
		{
			name:        "race with no eligible racer",
			state:       State{},
			in:          Input{Block: 100, Qualifying: []Qualifying{{1, hk(1), 0.1, 90}}, Race: []RaceResult{{1, 0.9}}},
			wantOutcome: NoRacers, wantLeader: -1, wantQual: []uint16{}, wantRanked: []uint16{}, wantBar: 0.3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, next := mustStep(t, p, tt.state, tt.in)
			if out.Outcome != tt.wantOutcome {
				t.Fatalf("outcome %q, want %q", out.Outcome, tt.wantOutcome)
			}
			if tt.wantLeader < 0 {
				if out.Leader != nil || next.Leader != nil {
					t.Fatalf("want no leader, got %+v", out.Leader)
				}
			} else if out.Leader == nil || out.Leader.UID != uint16(tt.wantLeader) || next.Leader.UID != uint16(tt.wantLeader) {
				t.Fatalf("leader %+v, want uid %d", out.Leader, tt.wantLeader)
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
		})
	}
}

func TestStepErrors(t *testing.T) {
	p := testParams()
	tests := []struct {
		name    string
		p       Params
		s       State
		in      Input
		wantErr string
	}{
		{"ratio floor above start", Params{RatioStart: 0.9, RatioFloor: 1}, State{}, Input{}, "ratio_floor"},
		{"negative margin", Params{Margin: -1}, State{}, Input{}, "margin"},
		{"block goes back", p, State{LastBlock: 10}, Input{Block: 9}, "before the last"},
		{"duplicate qualifying", p, State{}, Input{Qualifying: []Qualifying{{UID: 1}, {UID: 1}}}, "two qualifying"},
		{"duplicate race", p, State{}, Input{Race: []RaceResult{{1, 0}, {1, 0}}}, "two race"},
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

func randomInput(r *rand.Rand, block uint64) Input {
	n := r.IntN(12)
	in := Input{Block: block}
	uids := r.Perm(16)[:n]
	for _, u := range uids {
		// Coarse scores so ties happen often.
		in.Qualifying = append(in.Qualifying, Qualifying{UID: uint16(u), Hotkey: hk(uint16(u)), Score: float64(r.IntN(11)) / 10, QualifiedAt: uint64(r.IntN(5))})
		if r.IntN(3) > 0 {
			in.Race = append(in.Race, RaceResult{UID: uint16(u), Score: float64(r.IntN(11)) / 10})
		}
	}
	return in
}

func TestPropertyDeterministic(t *testing.T) {
	p := testParams()
	r := rand.New(rand.NewPCG(1, 2))
	s := State{}
	for i := range 500 {
		in := randomInput(r, uint64(i)*100)
		out1, s1 := mustStep(t, p, s, in)
		// Same input in another order, and through a JSON round trip of the state.
		shuffled := Input{Block: in.Block, Qualifying: slices.Clone(in.Qualifying), Race: slices.Clone(in.Race)}
		r.Shuffle(len(shuffled.Qualifying), func(a, b int) {
			shuffled.Qualifying[a], shuffled.Qualifying[b] = shuffled.Qualifying[b], shuffled.Qualifying[a]
		})
		r.Shuffle(len(shuffled.Race), func(a, b int) { shuffled.Race[a], shuffled.Race[b] = shuffled.Race[b], shuffled.Race[a] })
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var s2in State
		if err := json.Unmarshal(raw, &s2in); err != nil {
			t.Fatal(err)
		}
		out2, s2 := mustStep(t, p, s2in, shuffled)
		if !reflect.DeepEqual(out1, out2) || !reflect.DeepEqual(s1, s2) {
			t.Fatalf("step %d not deterministic:\n%+v\n%+v", i, out1, out2)
		}
		s = s1
	}
}

func TestPropertyIncumbentKeepsCrownOnTie(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, margin := range []float64{0, 0.02, 0.1} {
		p := testParams()
		p.Margin = margin
		t.Run(fmt.Sprintf("margin %v", margin), func(t *testing.T) {
			for i := range 300 {
				s := leaderState(0, 0.5, 0)
				score := float64(r.IntN(11)) / 10
				in := Input{Block: uint64(i) * 10, Race: []RaceResult{{0, score}}}
				for u := uint16(1); u < 1+uint16(r.IntN(6)); u++ {
					in.Qualifying = append(in.Qualifying, Qualifying{UID: u, Hotkey: hk(u), Score: 1, QualifiedAt: uint64(r.IntN(3))})
					// Tied with the incumbent, or ahead by at most the margin.
					in.Race = append(in.Race, RaceResult{UID: u, Score: score + margin*float64(r.IntN(2))})
				}
				out, next := mustStep(t, p, s, in)
				if next.Leader == nil || next.Leader.UID != 0 || (len(in.Race) > 0 && out.Outcome != Defended) {
					t.Fatalf("incumbent lost on a tie: %+v", out)
				}
			}
		})
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

func TestPropertyNoneQualifiesBelowFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := Params{Floor: 0.45, RatioStart: 1, RatioFloor: 0.5, DecayBlocks: 50, Margin: 0}
	s := State{}
	for i := range 1000 {
		out, next := mustStep(t, p, s, randomInput(r, uint64(i)*20))
		for _, q := range out.Qualifiers {
			if q.Score < p.Floor || q.Score < out.Bar {
				t.Fatalf("step %d: uid %d qualified with %v (floor %v, bar %v)", i, q.UID, q.Score, p.Floor, out.Bar)
			}
		}
		if next.Leader != nil && next.Leader.Qualifying < p.Floor {
			t.Fatalf("step %d: leader crowned below floor: %+v", i, next.Leader)
		}
		s = next
	}
}
