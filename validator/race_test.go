package validator

import (
	"testing"

	"arena/scoring/race"
)

// TestRaceStory: the race line shows the scores that decided the outcome.
func TestRaceStory(t *testing.T) {
	results := []race.RaceResult{{UID: 1, Score: 0.934}, {UID: 2, Score: 0.934}, {UID: 3, Score: 0.5}}
	leader := func(uid uint16) *race.Leader { return &race.Leader{UID: uid} }
	tests := []struct {
		name string
		out  race.Output
		prev int
		want string
	}{
		{"no racers", race.Output{Outcome: race.NoRacers}, -1, "race 7: no_racers"},
		{"crowned", race.Output{Outcome: race.Crowned, Leader: leader(1), Ranked: []uint16{1, 2, 3}}, -1,
			"race 7: crowned, leader uid 1 (0.934)"},
		{"defended on a tie", race.Output{Outcome: race.Defended, Leader: leader(1), Ranked: []uint16{1, 2, 3}}, 1,
			"race 7: defended, leader uid 1 (0.934); best challenger uid 2 (0.934) needed more than the leader plus the 0.010 margin"},
		{"defended without challengers", race.Output{Outcome: race.Defended, Leader: leader(1), Ranked: []uint16{1}}, 1,
			"race 7: defended, leader uid 1 (0.934)"},
		{"dethroned", race.Output{Outcome: race.Dethroned, Leader: leader(2), Ranked: []uint16{2, 3}}, 4,
			"race 7: dethroned, leader uid 2 (0.934), beating uid 4 (did not race) by more than the 0.010 margin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := raceStory(7, tt.out, results, tt.prev, 0.01); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
