package records

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/store"
	"arena/suite"
)

// fixture is an in-memory store with a suite ledger holding one hidden
// problem, and one stored, judged race episode on it.
type fixture struct {
	st     *store.Store
	ledger *suite.Ledger
	rec    *Records
	ep     Episode
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := store.Open(store.Options{InMemory: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := suite.Problem{ID: "p1", Type: suite.TypeProduct, Query: "a blue mug", Targets: []string{"100"},
		Reward: suite.Reward{Items: []suite.Item{{ProductID: "100", Title: []string{"blue mug"}}}}}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Add(context.Background(), []suite.Problem{p}, suite.Hidden); err != nil {
		t.Fatal(err)
	}
	stored, ok, err := ledger.Problem(p.ID) // Finish gave it its content id
	if err != nil || !ok {
		t.Fatalf("problem %s: ok=%v err=%v", p.ID, ok, err)
	}
	f := &fixture{st: st, ledger: ledger, rec: New()}
	f.ep = Episode{Trajectory: episode.Trajectory{EpisodeID: "e1", ProblemID: p.ID, MinerUID: 3, EndReason: episode.ReasonTerminated},
		Kind: Racing, RaceID: 1, Hotkey: "hk", ProblemType: suite.TypeProduct, Cluster: stored.Cluster, Block: 10}
	rc := Race{ID: 1, Window: 10, Phase: PhaseDone, StartedBlock: 10, Problems: []string{p.ID}, Clusters: []string{stored.Cluster},
		Racers: []Racer{{UID: 3, Hotkey: "hk"}}}
	err = st.Update(func(txn *badger.Txn) error {
		if err := ledger.MarkExposedTxn(txn, rc.Clusters, []string{"hk"}, 10); err != nil {
			return err
		}
		if err := f.rec.PutRace(txn, &rc); err != nil {
			return err
		}
		if err := f.rec.PutState(txn, RaceState{NextRaceID: 2, LastWindow: 10}); err != nil {
			return err
		}
		if err := f.rec.PutEpisode(txn, &f.ep); err != nil {
			return err
		}
		return f.rec.PutVerdict(txn, &Verdict{EpisodeID: "e1", Final: 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestPutEpisodeRefusesDuplicates(t *testing.T) {
	f := newFixture(t)
	err := f.st.Update(func(txn *badger.Txn) error { return f.rec.PutEpisode(txn, &f.ep) })
	if !errors.Is(err, ErrDuplicateEpisode) {
		t.Fatalf("second put: %v, want ErrDuplicateEpisode", err)
	}
	err = f.st.Update(func(txn *badger.Txn) error { return f.rec.PutVerdict(txn, &Verdict{EpisodeID: "ghost"}) })
	if err == nil || !strings.Contains(err.Error(), "not stored") {
		t.Fatalf("verdict without episode: %v", err)
	}
}

// TestCheckFindsDamage breaks one cross-reference at a time and expects
// Check to name it, after a clean baseline.
func TestCheckFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(f *fixture, txn *badger.Txn) error
		want   string
	}{
		{"clean", func(*fixture, *badger.Txn) error { return nil }, ""},
		{"missing miner index", func(f *fixture, txn *badger.Txn) error {
			return f.rec.ByMiner.Delete(txn, f.rec.ByMiner.Key(store.U16(3), store.String("e1")))
		}, "missing from the miner index"},
		{"dangling race index", func(f *fixture, txn *badger.Txn) error {
			return f.rec.ByRace.Put(txn, f.rec.ByRace.Key(store.U64(1), store.String("ghost")), RaceEntry{})
		}, "names missing episode ghost"},
		{"verdict lost", func(f *fixture, txn *badger.Txn) error {
			return f.rec.Verdicts.Delete(txn, f.rec.Verdicts.Key(store.String("e1")))
		}, "has no verdict"},
		{"episode missing from done race", func(f *fixture, txn *badger.Txn) error {
			rc, _, err := f.rec.GetRace(txn, 1)
			if err != nil {
				return err
			}
			rc.Problems = append(rc.Problems, "p2")
			return f.rec.PutRace(txn, &rc)
		}, "episodes stored, want 2"},
		{"commit without salt", func(f *fixture, txn *badger.Txn) error {
			return f.rec.PutSubmission(txn, &Submission{Window: 1, Status: StatusCommitted, TxHash: "0x1"})
		}, "without salt"},
		{"race state names no race", func(f *fixture, txn *badger.Txn) error {
			return f.rec.PutState(txn, RaceState{NextRaceID: 2, Current: 7})
		}, "current race 7 is not stored"},
		{"episode pruned", func(f *fixture, txn *badger.Txn) error {
			_, err := f.rec.PruneEpisode(txn, "e1")
			return err
		}, ""},
		{"episode deleted without its count", func(f *fixture, txn *badger.Txn) error {
			if _, err := f.rec.PruneEpisode(txn, "e1"); err != nil {
				return err
			}
			rc, _, err := f.rec.GetRace(txn, 1)
			if err != nil {
				return err
			}
			rc.EpisodesPruned = 0
			return f.rec.PutRace(txn, &rc)
		}, "race 1: 0 episodes stored, want 1"},
		{"pruned count above the racers' episodes", func(f *fixture, txn *badger.Txn) error {
			rc, _, err := f.rec.GetRace(txn, 1)
			if err != nil {
				return err
			}
			rc.EpisodesPruned = 1
			return f.rec.PutRace(txn, &rc)
		}, "race 1: 1 episodes stored and 1 pruned by store retention, want 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if err := f.st.Update(func(txn *badger.Txn) error { return tt.damage(f, txn) }); err != nil {
				t.Fatal(err)
			}
			rep, err := f.rec.Check(context.Background(), f.st, f.ledger)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if !rep.OK() {
					t.Fatalf("clean store reported %v", rep.Problems)
				}
				return
			}
			if !strings.Contains(strings.Join(rep.Problems, "\n"), tt.want) {
				t.Fatalf("problems %v lack %q", rep.Problems, tt.want)
			}
		})
	}
}

// TestPruneEpisode: pruning deletes the episode, its verdict and its three
// index entries and counts it in its race; a second prune finds nothing.
// ForEachEpisodeInfo reads what a full decode reads, without the steps.
func TestPruneEpisode(t *testing.T) {
	f := newFixture(t)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	q := Episode{Trajectory: episode.Trajectory{EpisodeID: "q1", ProblemID: "p9", MinerUID: 4, EndReason: episode.ReasonTerminated,
		Timings: episode.Timings{Start: start, End: start.Add(time.Second)},
		Steps:   []episode.StepRecord{{Think: strings.Repeat("long think ", 500)}}}, Kind: Qualifying, Hotkey: "hk4"}
	if err := f.st.Update(func(txn *badger.Txn) error { return f.rec.PutEpisode(txn, &q) }); err != nil {
		t.Fatal(err)
	}
	infos := map[string]EpisodeInfo{}
	err := f.st.View(func(txn *badger.Txn) error {
		return f.rec.ForEachEpisodeInfo(txn, func(i EpisodeInfo) error { infos[i.ID] = i; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := infos["q1"]; got.Kind != Qualifying || got.UID != 4 || got.Problem != "p9" || !got.Start.Equal(start) || got.Bytes < 5000 {
		t.Errorf("q1: %+v", got)
	}
	if got := infos["e1"]; got.Kind != Racing || got.RaceID != 1 || got.UID != 3 || got.Problem != f.ep.Trajectory.ProblemID || got.Bytes <= 0 {
		t.Errorf("e1: %+v", got)
	}
	if len(infos) != 2 {
		t.Errorf("%d episodes read, want 2", len(infos))
	}
	for _, id := range []string{"e1", "q1"} {
		err := f.st.Update(func(txn *badger.Txn) error {
			ok, err := f.rec.PruneEpisode(txn, id)
			if err == nil && !ok {
				err = errors.New("not found")
			}
			return err
		})
		if err != nil {
			t.Fatalf("prune %s: %v", id, err)
		}
	}
	err = f.st.View(func(txn *badger.Txn) error {
		for _, k := range [][]byte{
			f.rec.Episodes.Key(store.String("e1")), f.rec.Verdicts.Key(store.String("e1")),
			f.rec.ByProblem.Key(store.String(f.ep.Trajectory.ProblemID), store.String("e1")),
			f.rec.ByMiner.Key(store.U16(3), store.String("e1")), f.rec.ByRace.Key(store.U64(1), store.String("e1")),
			f.rec.Episodes.Key(store.String("q1")), f.rec.ByProblem.Key(store.String("p9"), store.String("q1")),
			f.rec.ByMiner.Key(store.U16(4), store.String("q1")),
		} {
			if _, err := txn.Get(k); !errors.Is(err, badger.ErrKeyNotFound) {
				t.Errorf("key %x still there after pruning (%v)", k, err)
			}
		}
		rc, _, err := f.rec.GetRace(txn, 1)
		if rc.EpisodesPruned != 1 {
			t.Errorf("race 1 counts %d episodes pruned, want 1", rc.EpisodesPruned)
		}
		if ok, err := f.rec.PruneEpisode(txn, "e1"); ok || err != nil {
			t.Errorf("pruning e1 again: %v %v, want nothing found", ok, err)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := f.rec.Check(context.Background(), f.st, f.ledger); err != nil || !rep.OK() {
		t.Fatalf("check after pruning: %v %v", rep.Problems, err)
	}
}
