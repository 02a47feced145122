package validator

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring/race"
	"arena/store"
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
			// adds about 3 wins; the evidence crosses 25 (20 at confidence
			// 0.95 over the first epoch's 0.8 share of the error rate) at
			// the sixth.
			want := []race.Outcome{race.Undecided, race.Undecided, race.Undecided, race.Undecided, race.Undecided, race.Crowned, race.Defended}
			if len(outcomes) != len(want) {
				t.Fatalf("outcomes %v, want %v", outcomes, want)
			}
			for i := range want {
				if outcomes[i] != want[i] {
					t.Fatalf("outcomes %v, want %v", outcomes, want)
				}
			}
			// Every race drew its own clusters within the last day, the
			// restarted process's too.
			st, err := h.v.StatusNow(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			used := 0
			for _, rc := range done {
				used += len(rc.Clusters)
			}
			if used == 0 || st.HiddenClustersUsed24h != used {
				t.Fatalf("status shows %d hidden clusters used in 24 h, the races drew %d", st.HiddenClustersUsed24h, used)
			}
		})
	}
}

// TestRecentRaces: only races drawn at or after the cut count, whatever
// their phase, and the walk back stops once nothing older can count.
func TestRecentRaces(t *testing.T) {
	cut := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	races := []records.Race{
		{ID: 3, StartedAt: cut.Add(time.Hour), Clusters: []string{"a", "b", "c"}, Phase: records.PhaseRunning},
		{ID: 2, StartedAt: cut, Clusters: []string{"d", "e"}, Phase: records.PhaseAborted},
		{ID: 1, StartedAt: cut.Add(-time.Second), Clusters: []string{"f"}, Phase: records.PhaseDone},
		{ID: 0, Clusters: []string{"g"}},
	}
	tests := []struct {
		since       time.Time
		want        int
		wantVisited int
	}{
		{cut.Add(2 * time.Hour), 0, 3},
		{cut.Add(time.Hour), 3, 3},
		{cut, 5, 3},
		{cut.Add(-time.Minute), 6, 4},
		{time.Time{}, 7, 4},
	}
	for _, tt := range tests {
		visited := 0
		got, last, err := recentRaces(func(fn func(*records.Race) error) error {
			for i := range races {
				visited++
				if err := fn(&races[i]); errors.Is(err, store.ErrStop) {
					return nil
				} else if err != nil {
					return err
				}
			}
			return nil
		}, tt.since)
		if err != nil || got != tt.want {
			t.Errorf("since %v: %d clusters (%v), want %d", tt.since, got, err, tt.want)
		}
		if last == nil || last.ID != 1 {
			t.Errorf("since %v: last decided race %+v, want race 1", tt.since, last)
		}
		// The walk stops at the first race that is both older than the
		// cut and not before the last decided one.
		if want := tt.wantVisited; visited != want {
			t.Errorf("since %v: read %d races, want %d", tt.since, visited, want)
		}
	}
}
