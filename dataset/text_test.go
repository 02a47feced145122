package dataset_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/dataset/datasettest"
	"arena/store"
	"arena/validator/records"
)

// TestExportRefusesCorruptText: a store holding text that a training
// pipeline would fail on, or that encoding/json would silently replace (a
// store written before miner input was normalised), makes every format
// fail with one error naming the episode, the field and the problem,
// whether the episodes are read by the pipeline or sequentially.
func TestExportRefusesCorruptText(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	datasettest.Build(t, dir, datasettest.Options{ProblemsPerType: 1, Racers: 4})
	st, ledger := openStore(t, dir, false)
	rec := records.New()
	var originals []records.Episode
	if err := st.View(func(txn *badger.Txn) error {
		return rec.ForEachEpisode(txn, func(e *records.Episode, _ *records.Verdict) error {
			originals = append(originals, *e)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	// rewrite stores every episode with corrupt applied to its first step
	// that calls a tool (nil: as built).
	rewrite := func(corrupt func(e *records.Episode)) {
		t.Helper()
		if err := st.Update(func(txn *badger.Txn) error {
			for _, e := range originals {
				raw, err := json.Marshal(e)
				if err != nil {
					return err
				}
				var c records.Episode
				if err := json.Unmarshal(raw, &c); err != nil {
					return err
				}
				if corrupt != nil {
					corrupt(&c)
				}
				if err := rec.Episodes.Put(txn, rec.Episodes.Key(store.String(c.Trajectory.EpisodeID)), c); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	params := func(p string) func(*records.Episode) {
		return func(e *records.Episode) {
			for i := range e.Trajectory.Steps {
				if calls := e.Trajectory.Steps[i].ToolCalls; len(calls) > 0 {
					calls[0].Parameters = json.RawMessage(p)
					return
				}
			}
		}
	}
	cases := []struct {
		name    string
		corrupt func(*records.Episode)
		want    string // in the error; "" for none
	}{
		{"clean", nil, ""},
		{"lone surrogate in arguments", params(`{"q":"a\ud800b"}`), `tool call 1 arguments: lone surrogate \ud800`},
		{"NUL in arguments", params(`{"q":"a\u0000b"}`), `tool call 1 arguments: control character \u0000`},
		{"ESC in arguments", params(`{"q":"\u001b[31mred"}`), `tool call 1 arguments: control character \u001b`},
		{"invalid UTF-8 in arguments", params("{\"q\":\"a\xffb\"}"), `tool call 1 arguments: invalid UTF-8 byte 0xff`},
		{"invalid UTF-8 in a result", func(e *records.Episode) {
			for i := range e.Trajectory.Steps {
				if rs := e.Trajectory.Steps[i].Results; len(rs) > 0 && rs[0].Error == nil {
					rs[0].Result = json.RawMessage("[\"\xc3\"]")
					return
				}
			}
		}, `result 1: invalid UTF-8 byte 0xc3`},
	}
	formats := []struct {
		format  dataset.Format
		workers int
	}{{dataset.FormatSFT, 0}, {dataset.FormatSFT, -1}, {dataset.FormatSteps, 0}, {dataset.FormatDPO, 0}, {dataset.FormatGRPO, 0}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rewrite(tc.corrupt)
			for _, f := range formats {
				_, err := dataset.Export(context.Background(), dataset.Options{Store: st, Ledger: ledger, Records: rec, Format: f.format, Workers: f.workers,
					Out: filepath.Join(t.TempDir(), "out"), Filters: dataset.Filters{KeepDuplicates: true}}, zerolog.Nop())
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%s (workers %d): %v", f.format, f.workers, err)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "episode ")):
					t.Errorf("%s (workers %d): error %v, want one naming the episode and %q", f.format, f.workers, err, tc.want)
				case err != nil && strings.Count(err.Error(), "\n") > 0:
					t.Errorf("%s: the error is not one line: %q", f.format, err)
				}
			}
		})
	}
}
