package dataset_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"arena/dataset"
	"arena/episode"
	"arena/validator/records"
)

// trajectories reads the stored trajectory of every fixture episode.
func (e *env) trajectories(t *testing.T) map[string]episode.Trajectory {
	t.Helper()
	out := map[string]episode.Trajectory{}
	rec := records.New()
	if err := e.st.View(func(txn *badger.Txn) error {
		return rec.ForEachEpisode(txn, func(ep *records.Episode, _ *records.Verdict) error {
			out[ep.Trajectory.EpisodeID] = ep.Trajectory
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompletionsExport: --format completions has one row per verified
// step, carrying the request the provider received and its answer and
// usage exactly as the relay recorded them; dictated and unverified steps
// have none, and an episode with no verified step is left out with its
// reason.
func TestCompletionsExport(t *testing.T) {
	e := newEnv(t)
	trs := e.trajectories(t)
	dir, rep := e.export(t, dataset.Options{Format: dataset.FormatCompletions, EvalFraction: evalFraction, Parquet: true,
		Filters: dataset.Filters{KeepDuplicates: true}})
	type key struct {
		episode string
		step    int
	}
	got := map[key]dataset.CompletionRow{}
	rows := map[string]int{}
	for _, split := range splits(dir) {
		typed := readJSONL[dataset.CompletionRow](t, filepath.Join(dir, split+".jsonl"))
		rows[split] = len(typed)
		for _, r := range typed {
			if r.Meta == nil || !r.Meta.Verified || r.Meta.Split != split {
				t.Fatalf("row %s: meta %+v, want verified in split %s", r.CompletionID, r.Meta, split)
			}
			k := key{r.Meta.EpisodeID, r.Meta.Step}
			if _, dup := got[k]; dup {
				t.Fatalf("episode %s step %d exported twice", k.episode, k.step)
			}
			got[k] = r
		}
		checkParquet[dataset.CompletionRow](t, dir, split)
	}
	checkCard(t, dir, rows)
	want := 0
	for id, ep := range e.fx.Episodes {
		if !ep.Judged || ep.Role == "aborted" || ep.Role == "unknown_tool" {
			continue
		}
		tr := trs[id]
		for i := range tr.Steps {
			r, ok := got[key{id, i}]
			if verified := i < len(ep.StepVerified) && ep.StepVerified[i]; !verified {
				if ok {
					t.Errorf("episode %s (%s) step %d is not verified but was exported", id, ep.Role, i)
				}
				continue
			}
			want++
			if !ok {
				t.Errorf("episode %s (%s) step %d is verified but has no row", id, ep.Role, i)
				continue
			}
			c, _ := tr.CompletionByID(tr.Steps[i].CompletionID)
			if r.CompletionID != c.ID || r.Model != c.Model || !sameJSON(r.Request, c.Request) || !sameJSON(r.Response, c.Response) ||
				r.Usage.PromptTokens != c.Usage.PromptTokens || r.Usage.CompletionTokens != c.Usage.CompletionTokens || r.Usage.TotalTokens != c.Usage.TotalTokens {
				t.Errorf("episode %s step %d: row %+v is not the relay's record %+v", id, i, r, c)
			}
			if len(r.Request) == 0 || len(r.Response) == 0 {
				t.Errorf("episode %s step %d lacks its request or completion", id, i)
			}
		}
	}
	if want == 0 || len(got) != want {
		t.Errorf("%d rows, want %d (one per verified step)", len(got), want)
	}
	if rep.Dropped[dataset.DropNoVerifiedStep] == 0 {
		t.Errorf("dropped %v: episodes without a verified step are not counted", rep.Dropped)
	}
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// TestVerifiedFlag: every other format's meta says whether its content
// came from the relay, and --verified-only keeps fully verified episodes.
func TestVerifiedFlag(t *testing.T) {
	e := newEnv(t)
	fx := e.fx
	tests := []struct {
		name  string
		opts  dataset.Options
		check func(t *testing.T, dir, split string) int // returns the verified rows seen
	}{
		{name: "sft", opts: dataset.Options{Format: dataset.FormatSFT}, check: func(t *testing.T, dir, split string) int {
			n := 0
			for _, r := range readJSONL[dataset.SFTRow](t, filepath.Join(dir, split+".jsonl")) {
				if ep := fx.Episodes[r.Meta.EpisodeID]; r.Meta.Verified != ep.Verified() {
					t.Errorf("sft %s (%s): verified %v, want %v", ep.ID, ep.Role, r.Meta.Verified, ep.Verified())
				}
				if r.Meta.Verified {
					n++
				}
			}
			return n
		}},
		{name: "steps", opts: dataset.Options{Format: dataset.FormatSteps}, check: func(t *testing.T, dir, split string) int {
			n := 0
			for _, r := range readJSONL[dataset.StepsRow](t, filepath.Join(dir, split+".jsonl")) {
				ep := fx.Episodes[r.Meta.EpisodeID]
				want := r.Meta.Step < len(ep.StepVerified) && ep.StepVerified[r.Meta.Step]
				if r.Meta.Verified != want {
					t.Errorf("steps %s (%s) step %d: verified %v, want %v", ep.ID, ep.Role, r.Meta.Step, r.Meta.Verified, want)
				}
				if r.Meta.Verified {
					n++
				}
			}
			return n
		}},
		{name: "dpo", opts: dataset.Options{Format: dataset.FormatDPO}, check: func(t *testing.T, dir, split string) int {
			n := 0
			for _, r := range readJSONL[dataset.DPORow](t, filepath.Join(dir, split+".jsonl")) {
				m := r.Meta
				c, rj := fx.Episodes[m.ChosenEpisode].Verified(), fx.Episodes[m.RejectedEpisode].Verified()
				if m.ChosenVerified != c || m.RejectedVerified != rj || m.Verified != (c && rj) {
					t.Errorf("pair %s/%s: %+v, want chosen %v rejected %v", m.ChosenEpisode, m.RejectedEpisode, m, c, rj)
				}
				if m.ChosenVerified {
					n++
				}
			}
			return n
		}},
		{name: "grpo", opts: dataset.Options{Format: dataset.FormatGRPO}, check: func(t *testing.T, dir, split string) int {
			n := 0
			for _, r := range readJSONL[dataset.GRPORow](t, filepath.Join(dir, split+".jsonl")) {
				all := true
				for _, m := range r.ExtraInfo.Group {
					want := fx.Episodes[m.EpisodeID].Verified()
					if m.Verified != want {
						t.Errorf("group %s member %s: verified %v, want %v", r.ExtraInfo.ProblemID, m.EpisodeID, m.Verified, want)
					}
					all = all && want
					if m.Verified {
						n++
					}
				}
				if r.ExtraInfo.Verified != all {
					t.Errorf("group %s: verified %v, want %v", r.ExtraInfo.ProblemID, r.ExtraInfo.Verified, all)
				}
			}
			return n
		}},
		{name: "sft verified only", opts: dataset.Options{Format: dataset.FormatSFT, Filters: dataset.Filters{VerifiedOnly: true}},
			check: func(t *testing.T, dir, split string) int {
				rows := readJSONL[dataset.SFTRow](t, filepath.Join(dir, split+".jsonl"))
				for _, r := range rows {
					if ep := fx.Episodes[r.Meta.EpisodeID]; !ep.Verified() || !r.Meta.Verified {
						t.Errorf("--verified-only exported %s (%s)", ep.ID, ep.Role)
					}
				}
				return len(rows)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.EvalFraction = evalFraction
			dir, rep := e.export(t, o)
			verified := 0
			for _, split := range splits(dir) {
				verified += tt.check(t, dir, split)
			}
			if verified == 0 {
				t.Errorf("no verified row: the flag is never set")
			}
			card, err := os.ReadFile(filepath.Join(dir, "README.md"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(card), "are verified inference") || rep.Verified == 0 {
				t.Errorf("card or report does not count verified episodes (report %d)", rep.Verified)
			}
			if o.Filters.VerifiedOnly && rep.Dropped[dataset.DropNotVerified] == 0 {
				t.Errorf("dropped %v: no episode left out as not verified", rep.Dropped)
			}
		})
	}
}
