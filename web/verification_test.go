package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/scoring/judge"
	"arena/scoring/verify"
	"arena/store"
)

// TestVerificationShown: an episode's verified inference (each step's
// check against its relay completion, the unverified and dictated
// findings, lost credit, relay use) and a race's void racers are on the
// console's pages and their JSON twins, public and operator alike.
func TestVerificationShown(t *testing.T) {
	f := smallArena(t, "")
	const id = "r000001-u02-p001"
	rec := f.v.rec
	err := f.v.st.Update(func(txn *badger.Txn) error {
		e, _, err := rec.GetEpisode(txn, id)
		if err != nil {
			return err
		}
		vd, _, err := rec.GetVerdict(txn, id)
		if err != nil {
			return err
		}
		e.Trajectory.Protocol = 2
		e.Trajectory.Steps[0].CompletionID = "arc-first"
		e.Trajectory.RelayUsage = &episode.RelayUsage{Completions: 1, PromptTokens: 1234, CompletionTokens: 56}
		vd.Judge.Verification = &verify.Report{Steps: 2, Verified: 1,
			Unverified: []verify.Issue{{Step: 1, Reason: "names no completion"}}}
		vd.Judge.Findings = append(vd.Judge.Findings, judge.Finding{Name: judge.FindingUnverified, Detail: "step 2: names no completion", Steps: []int{1}})
		vd.Judge.NoCredit, vd.Final = true, 0
		if err := txn.Set(rec.Episodes.Key(store.String(id)), mustJSON(t, e)); err != nil {
			return err
		}
		if err := txn.Set(rec.Verdicts.Key(store.String(id)), mustJSON(t, vd)); err != nil {
			return err
		}
		rc, _, err := rec.GetRace(txn, 1)
		if err != nil {
			return err
		}
		rc.VoidRacers = []uint16{3}
		return txn.Set(rec.Races.Key(store.U64(1)), mustJSON(t, rc))
	})
	if err != nil {
		t.Fatal(err)
	}
	c := newConsole(t, f, Options{})
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"operator", c.Operator()}, {"public", c.Public()}} {
		t.Run(h.name, func(t *testing.T) {
			tests := []struct {
				path string
				want []string
			}{
				{"/episodes/" + id, []string{`<span class="pill verified">verified</span>`, `<span class="pill unverified">unverified</span>`,
					"unverified: names no completion", "arc-first", "Verified inference: 1 of 2 steps", "no credit", "Finding unverified",
					"1 completions", "1234 prompt"}},
				{"/races/1", []string{`<span class="pill void"`, "uid 3 is void in this race"}},
			}
			for _, tt := range tests {
				code, body, _ := get(t, h.h, tt.path)
				if code != http.StatusOK {
					t.Fatalf("%s: %d", tt.path, code)
				}
				for _, w := range tt.want {
					if !strings.Contains(body, w) {
						t.Errorf("%s lacks %q", tt.path, w)
					}
				}
			}
			_, js, _ := get(t, h.h, "/episodes/"+id+"?format=json")
			var ev EpisodeView
			if err := json.Unmarshal([]byte(js), &ev); err != nil {
				t.Fatal(err)
			}
			if len(ev.Steps) != 2 || ev.Steps[0].Check != "verified" || ev.Steps[1].Check != judge.FindingUnverified ||
				ev.Verdict == nil || !ev.Verdict.Judge.NoCredit || ev.Relay == nil || ev.Relay.PromptTokens != 1234 {
				t.Errorf("JSON twin: steps %+v, verdict %v, relay %+v", ev.Steps, ev.Verdict != nil, ev.Relay)
			}
			_, js, _ = get(t, h.h, "/races/1?format=json")
			var rv RaceView
			if err := json.Unmarshal([]byte(js), &rv); err != nil {
				t.Fatal(err)
			}
			for _, r := range rv.Race.Racers {
				if r.Void != (r.UID == 3) {
					t.Errorf("race 1 JSON: uid %d void %v", r.UID, r.Void)
				}
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
