package dataset_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/suite"
	"arena/validator/records"
)

// TestPipelineMatchesSequential exports the fixture (anomalies included:
// duplicates, unjudged, aborted, unknown tools; more episodes than the
// pipeline holds in flight) with the parallel pipeline at several worker
// counts and with the sequential reference pass, and requires every
// output file (JSONL, Parquet, card) and the report to be identical.
func TestPipelineMatchesSequential(t *testing.T) {
	e := newEnv(t)
	now := func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	cases := map[string]dataset.Options{
		"sft":                 {Format: dataset.FormatSFT, EvalFraction: evalFraction},
		"sft-parquet":         {Format: dataset.FormatSFT, EvalFraction: evalFraction, Parquet: true, RowGroupBytes: 4096},
		"sft-openai":          {Format: dataset.FormatSFT, Style: dataset.StyleOpenAI, EvalFraction: evalFraction},
		"sft-filtered":        {Format: dataset.FormatSFT, EvalFraction: evalFraction, Filters: dataset.Filters{Agentic: true, Types: []suite.Type{suite.TypeShop, suite.TypeVoucher}}},
		"sft-keep-dups":       {Format: dataset.FormatSFT, Filters: dataset.Filters{KeepDuplicates: true, MinFinal: 0.2}},
		"steps":               {Format: dataset.FormatSteps, EvalFraction: evalFraction, Think: dataset.ThinkTags},
		"steps-parquet":       {Format: dataset.FormatSteps, EvalFraction: evalFraction, Parquet: true},
		"dpo":                 {Format: dataset.FormatDPO, EvalFraction: evalFraction, MinMargin: 0.1},
		"dpo-openai":          {Format: dataset.FormatDPO, Style: dataset.StyleOpenAI, EvalFraction: evalFraction},
		"grpo":                {Format: dataset.FormatGRPO, EvalFraction: evalFraction, Parquet: true},
		"grpo-success":        {Format: dataset.FormatGRPO, Filters: dataset.Filters{SuccessOnly: true}},
		"grpo-keep-dups":      {Format: dataset.FormatGRPO, Filters: dataset.Filters{KeepDuplicates: true}},
		"completions":         {Format: dataset.FormatCompletions, EvalFraction: evalFraction},
		"completions-parquet": {Format: dataset.FormatCompletions, EvalFraction: evalFraction, Parquet: true},
		"sft-verified-only":   {Format: dataset.FormatSFT, Filters: dataset.Filters{VerifiedOnly: true}},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			o.Now, o.Command = now, "arena export (test)"
			ref := o
			ref.Workers = -1
			refDir, refRep := e.export(t, ref)
			refFiles := readDir(t, refDir)
			if len(refFiles) < 2 {
				t.Fatalf("reference wrote %d files", len(refFiles))
			}
			for _, workers := range []int{0, 1, 2, 7} {
				p := o
				p.Workers = workers
				dir, rep := e.export(t, p)
				files := readDir(t, dir)
				if len(files) != len(refFiles) {
					t.Fatalf("workers=%d: %d files, reference %d", workers, len(files), len(refFiles))
				}
				for name, want := range refFiles {
					got, ok := files[name]
					if name == "README.md" {
						// The card names the output directory.
						got = bytes.ReplaceAll(got, []byte(dir), []byte(refDir))
					}
					if !ok || !bytes.Equal(got, want) {
						t.Errorf("workers=%d: %s differs from the sequential reference (%d vs %d bytes)", workers, name, len(got), len(want))
					}
				}
				rep.Out = refRep.Out
				if !reflect.DeepEqual(rep, refRep) {
					t.Errorf("workers=%d: report differs:\n%+v\nreference:\n%+v", workers, rep, refRep)
				}
			}
		})
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, en := range entries {
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[en.Name()] = b
	}
	return out
}

// TestForEachEpisodeRaw checks the raw iteration against ForEachEpisode:
// same episodes in the same order, the same verdicts (nil when unjudged),
// and decoding the raw JSON gives identical structs.
func TestForEachEpisodeRaw(t *testing.T) {
	e := newEnv(t)
	rec := records.New()
	type pair struct {
		e records.Episode
		v *records.Verdict
	}
	var want, got []pair
	var ids []string
	err := e.st.View(func(txn *badger.Txn) error {
		if err := rec.ForEachEpisode(txn, func(ep *records.Episode, v *records.Verdict) error {
			want = append(want, pair{*ep, v})
			return nil
		}); err != nil {
			return err
		}
		return rec.ForEachEpisodeRaw(txn, func(id string, ev, vv []byte) error {
			var p pair
			if err := records.DecodeEpisode(ev, &p.e); err != nil {
				return err
			}
			if vv != nil {
				p.v = new(records.Verdict)
				if err := records.DecodeVerdict(vv, p.v); err != nil {
					return err
				}
			}
			ids = append(ids, id)
			got = append(got, p)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(e.fx.Episodes) || len(got) != len(want) {
		t.Fatalf("ForEachEpisode gave %d, raw %d, fixture has %d", len(want), len(got), len(e.fx.Episodes))
	}
	unjudged := 0
	for i := range want {
		if ids[i] != want[i].e.Trajectory.EpisodeID {
			t.Errorf("episode %d: raw id %s, want %s", i, ids[i], want[i].e.Trajectory.EpisodeID)
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("episode %s decodes differently", ids[i])
		}
		if want[i].v == nil {
			unjudged++
		}
	}
	if unjudged == 0 {
		t.Error("fixture has no unjudged episode")
	}
}

// TestPipelineCancel stops an export through its context while the
// pipeline runs: it must return the context's error and leave no goroutine
// using the transaction (the race detector and View's return check that).
func TestPipelineCancel(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := dataset.Export(ctx, dataset.Options{Store: e.st, Ledger: e.ledger, Format: dataset.FormatSFT, Out: filepath.Join(t.TempDir(), "out")}, zerolog.Nop())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("export with a cancelled context: %v", err)
	}
}

// TestFastDecodeMatchesStore decodes every stored episode and verdict of
// the fixture with the pipeline's decoder (goccy/go-json) and with the
// store's codec (encoding/json) and requires identical structs.
func TestFastDecodeMatchesStore(t *testing.T) {
	e := newEnv(t)
	n := 0
	err := e.st.View(func(txn *badger.Txn) error {
		return records.New().ForEachEpisodeRaw(txn, func(id string, ev, vv []byte) error {
			var a, b records.Episode
			if err := records.DecodeEpisode(ev, &a); err != nil {
				return err
			}
			if err := dataset.DecodeEpisode(ev, &b); err != nil {
				return err
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("episode %s: decoders differ:\n%+v\n%+v", id, a, b)
			}
			if vv != nil {
				var va, vb records.Verdict
				if err := records.DecodeVerdict(vv, &va); err != nil {
					return err
				}
				if err := dataset.DecodeVerdict(vv, &vb); err != nil {
					return err
				}
				if !reflect.DeepEqual(va, vb) {
					t.Errorf("verdict %s: decoders differ:\n%+v\n%+v", id, va, vb)
				}
			}
			n++
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(e.fx.Episodes) {
		t.Fatalf("decoded %d of %d episodes", n, len(e.fx.Episodes))
	}
	// Malformed input is an error for both.
	var x records.Episode
	if dataset.DecodeEpisode([]byte(`{"trajectory":`), &x) == nil || records.DecodeEpisode([]byte(`{"trajectory":`), &x) == nil {
		t.Error("truncated JSON decoded without error")
	}
}
