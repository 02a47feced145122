package validator

import (
	"context"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring/race"
	"arena/validator/records"
)

// quitter ends every episode at once, without an answer: it scores 0.
type quitter struct{}

func (quitter) Step(context.Context, episode.EpisodeView) (episode.Action, error) {
	return episode.Action{Think: "I give up.", ToolCalls: []episode.ToolCall{{ID: "t1", Name: "terminate", Parameters: []byte(`{"status":"failure"}`)}}}, nil
}

// TestEvidenceAccumulates: no single 3-problem race shows that a miner
// who solves everything beats one who solves nothing, but the races add
// up: the crown comes once the stored heats together reach the
// confidence, and a validator restarted on the same store reads the
// earlier heats back and reaches the same decision at the same race.
func TestEvidenceAccumulates(t *testing.T) {
	for _, restart := range []bool{false, true} {
		name := "one process"
		if restart {
			name = "restarted after the third race"
		}
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{miners: 2,
				wrapAgent: func(uid uint16, a episode.Agent) episode.Agent {
					if uid == 2 {
						return quitter{}
					}
					return a
				},
				edit: func(o *Options) {
					o.RaceEveryBlocks = 10
					// Everyone qualifies: the race, not the bar, decides.
					o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
				}})
			for n := uint64(1); n <= 75; n++ {
				if restart && n == 35 {
					v, err := New(h.v.opts, zerolog.Nop(), nil)
					if err != nil {
						t.Fatal(err)
					}
					h.v = v
				}
				h.head(n)
				h.settle()
			}
			var done []records.Race
			if err := h.store.View(func(txn *badger.Txn) (err error) { done, err = h.v.rec.ListRaces(txn, 0); return err }); err != nil {
				t.Fatal(err)
			}
			var outcomes []race.Outcome
			for i := len(done) - 1; i >= 0; i-- {
				rc := done[i]
				if rc.Phase != records.PhaseDone || rc.Heat == nil || rc.Output == nil {
					t.Fatalf("race %d: phase %s, heat %v", rc.ID, rc.Phase, rc.Heat != nil)
				}
				outcomes = append(outcomes, rc.Output.Outcome)
				if rc.Output.Outcome == race.Crowned {
					if rc.Output.Leader.UID != 1 {
						t.Fatalf("race %d crowned uid %d, want 1", rc.ID, rc.Output.Leader.UID)
					}
					if rc.Output.WindowRaces != int(rc.ID) {
						t.Fatalf("race %d decided on %d heats, want every race so far", rc.ID, rc.Output.WindowRaces)
					}
				}
			}
			// Uid 1 solves nearly everything and uid 2 nothing: each race
			// adds about 3 to Σd; the evidence crosses 20 at the fifth.
			want := []race.Outcome{race.Undecided, race.Undecided, race.Undecided, race.Undecided, race.Crowned, race.Defended, race.Defended}
			if len(outcomes) != len(want) {
				t.Fatalf("outcomes %v, want %v", outcomes, want)
			}
			for i := range want {
				if outcomes[i] != want[i] {
					t.Fatalf("outcomes %v, want %v", outcomes, want)
				}
			}
		})
	}
}
