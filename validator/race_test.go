package validator

import (
	"strings"
	"testing"

	"arena/config"
	"arena/scoring/race"
)

// TestRaceStory: the race line shows the evidence that decided the
// outcome and what it needed.
func TestRaceStory(t *testing.T) {
	p := RaceParams(config.Default().Race)
	results := []race.RaceResult{{UID: 1, Score: 0.934}, {UID: 2, Score: 0.95}, {UID: 3, Score: 0.5}}
	leader := func(uid uint16) *race.Leader { return &race.Leader{UID: uid} }
	cmp := func(uid, against uint16, n int, sum, ev float64) race.Comparison {
		return race.Comparison{UID: uid, Against: against, Pairs: race.Pairs{N: n, Sum: sum, SumSq: sum}, Evidence: ev}
	}
	tie := func(uid, against uint16, n int, sum, ev, need float64, shown bool) race.Comparison {
		c := cmp(uid, against, n, sum, ev)
		c.Shift, c.Threshold, c.Confident = -0.02, need, shown
		return c
	}
	tests := []struct {
		name string
		out  race.Output
		prev int
		want []string
	}{
		{"no racers", race.Output{Outcome: race.NoRacers}, -1, []string{"race 7: no_racers"}},
		{"undecided", race.Output{Outcome: race.Undecided, Results: results,
			Decision: []race.Comparison{cmp(1, 2, 100, 2, 1.5), cmp(2, 1, 100, 4, 3.2)}}, -1,
			[]string{"race 7: undecided", "closest: uid 2 beating uid 1, +0.040 a problem over 100 shared problems, evidence 3.2 of the 20 needed"}},
		{"undecided, waiting for a tie test", race.Output{Outcome: race.Undecided, Results: results,
			Decision: []race.Comparison{tie(1, 3, 50, 14, 57.5, 50, true), tie(1, 2, 50, 4, 6.1, 50, false)}}, -1,
			[]string{"closest: uid 1 being no worse than (by more than 0.020) uid 2, +0.080 a problem over 50 shared problems, evidence 6.1 of the 50 needed"}},
		{"crowned", race.Output{Outcome: race.Crowned, Leader: leader(2), Results: results,
			Decision: []race.Comparison{cmp(1, 2, 300, 3, 0.5), cmp(2, 1, 300, 30, 400)}}, -1,
			[]string{"crowned, leader uid 2 (0.950 this race)", "weakest against uid 1: +0.100 a problem over 300 shared problems, evidence 400"}},
		{"defended, a challenger ahead this race", race.Output{Outcome: race.Defended, Leader: leader(1), Results: results,
			Decision: []race.Comparison{cmp(2, 1, 50, 1, 2.5), cmp(3, 1, 50, 0, 0)}}, 1,
			[]string{"defended, leader uid 1 (0.934 this race)", "best challenger uid 2 (0.950): +0.020 a problem over 50 shared problems, evidence 2.5 of the 20 needed to show more than the 0.010 margin"}},
		{"dethroned", race.Output{Outcome: race.Dethroned, Leader: leader(2), Results: results, MergedEvidence: 600,
			Decision: []race.Comparison{cmp(2, 4, 500, 50, 1e4)}}, 4,
			[]string{"dethroned, leader uid 2 (0.950 this race), over uid 4 (did not race): the challengers' merged evidence of beating it by more than the 0.010 margin reached 600 of the 20 needed",
				"(uid 2: +0.100 a problem over 500"}},
		{"dethroned by copies", race.Output{Outcome: race.Dethroned, Leader: leader(2), Results: results, MergedEvidence: 30, Group: []uint16{2, 3},
			Decision: []race.Comparison{cmp(2, 1, 500, 40, 25), cmp(3, 1, 500, 45, 35)}}, 1,
			[]string{"uids 2, 3 could not be told apart and lead as one, the earliest registered first"}},
		{"handed over", race.Output{Outcome: race.HandedOver, Leader: leader(2), Results: results, Group: []uint16{2, 3}}, 3,
			[]string{"handed_over, leader uid 2 (0.950 this race), handed over from uid 3: registered earlier"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := raceStory(7, tt.out, tt.prev, p)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got  %q\nwant it to contain %q", got, w)
				}
			}
		})
	}
}
