package dataset_test

import (
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/dataset/datasettest"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// TestExportLeavesOutUndecidedRaces: an export taken while a race runs or
// is being judged leaves that race's episodes out (counted under
// race_not_decided), by both read paths and for every format; episodes of
// decided races are exported as before.
func TestExportLeavesOutUndecidedRaces(t *testing.T) {
	fx := datasettest.Build(t, filepath.Join(t.TempDir(), "data"), datasettest.Options{Racers: 3})
	rec := records.New()
	st, err := store.Open(store.Options{Dir: fx.Dir}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	err = st.Update(func(txn *badger.Txn) error {
		for id, phase := range map[uint64]records.Phase{1: records.PhaseRunning, 2: records.PhaseJudging, 3: records.PhaseDone, 4: records.PhaseAborted} {
			if err := rec.PutRace(txn, &records.Race{ID: id, Phase: phase}); err != nil {
				return err
			}
			if !phase.Live() {
				continue
			}
			ids, err := rec.RaceEpisodes(txn, id)
			if err != nil {
				return err
			}
			for _, e := range ids {
				live[e] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if len(live) == 0 {
		t.Fatal("the fixture has no episodes in races 1 and 2")
	}
	st, err = store.Open(store.Options{Dir: fx.Dir, ReadOnly: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		format  dataset.Format
		workers int
	}{{"sft pipeline", dataset.FormatSFT, 0}, {"sft sequential", dataset.FormatSFT, -1}, {"grpo", dataset.FormatGRPO, 0}, {"dpo sequential", dataset.FormatDPO, -1}} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			rep, err := dataset.Export(t.Context(), dataset.Options{Store: st, Ledger: ledger, Records: rec, Source: fx.Dir, Out: out,
				Format: tc.format, Workers: tc.workers, SplitSeed: 1}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Dropped[dataset.DropRaceNotDecided]; got != len(live) {
				t.Fatalf("dropped %d as race_not_decided, want the %d episodes of races 1 and 2 (report %v)", got, len(live), rep.Dropped)
			}
			if tc.format != dataset.FormatSFT {
				return
			}
			exported := 0
			for _, split := range splits(out) {
				for _, row := range readJSONL[dataset.SFTRow](t, filepath.Join(out, split+".jsonl")) {
					exported++
					if live[row.Meta.EpisodeID] {
						t.Errorf("episode %s of an undecided race (race %d) exported", row.Meta.EpisodeID, row.Meta.RaceID)
					}
				}
			}
			if exported == 0 {
				t.Fatal("nothing exported: the decided races' episodes should be")
			}
		})
	}
}
