package validator

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/episode"
	"arena/internal/llmclient/llmtest"
	"arena/miner"
	"arena/relay"
	"arena/scoring/judge"
	"arena/validator/records"
)

// TestVerifiedRaceExport runs a race under relay.required between the
// reference LLM agent taking its completions through the relay (uid 1)
// and the scripted heuristic (uid 2), then reads it back as an operator
// and a trainer would: the API shows uid 2's unverified findings and no
// credit, and `arena export --format completions` has, for every step of
// every uid 1 race episode, the request the provider received and its
// raw completion and usage; uid 2's unverified steps have no row, and
// every other format's meta says which episodes are verified.
func TestVerifiedRaceExport(t *testing.T) {
	prov := llmtest.NewServer(t, llmtest.Shopper)
	rl, err := relay.New(relay.Options{BaseURL: prov.URL + "/v1", Models: []string{"m"}, Required: true,
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	llm, err := miner.NewLLM(miner.LLMOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, harnessOptions{miners: 2,
		wrapAgent: func(uid uint16, a episode.Agent) episode.Agent {
			if uid == 1 {
				return llm
			}
			return a
		},
		edit: func(o *Options) {
			o.Relay, o.Verification = rl, judge.VerifyRequire
			o.RaceEveryBlocks, o.RaceProblems = 10, 3
			o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
		}})
	h.run(1, 15)

	var rc records.Race
	raceEps := map[uint16][]records.Episode{}
	if err := h.store.View(func(txn *badger.Txn) error {
		races, err := h.v.rec.ListRaces(txn, 0)
		if err != nil || len(races) != 1 {
			t.Fatalf("races %d (%v), want 1", len(races), err)
		}
		rc = races[0]
		ids, err := h.v.rec.RaceEpisodes(txn, rc.ID)
		for _, id := range ids {
			e, _, err := h.v.rec.GetEpisode(txn, id)
			if err != nil {
				return err
			}
			raceEps[e.Trajectory.MinerUID] = append(raceEps[e.Trajectory.MinerUID], e)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if rc.Phase != records.PhaseDone || len(raceEps[1]) != 3 || len(raceEps[2]) != 3 {
		t.Fatalf("race %d: phase %s, episodes %d and %d; want done with 3 each", rc.ID, rc.Phase, len(raceEps[1]), len(raceEps[2]))
	}

	// The operator API shows the findings and the lost credit.
	api := h.serveOperator(h.v, h.reg).api
	for uid, wantVerified := range map[uint16]bool{1: true, 2: false} {
		for _, e := range raceEps[uid] {
			var doc EpisodeDoc
			getJSON(t, api+"/api/v1/episodes/"+e.Trajectory.EpisodeID, &doc)
			vd := doc.Verdict
			if vd == nil || vd.Judge.Verification == nil {
				t.Fatalf("uid %d episode %s: verdict %+v without verification", uid, e.Trajectory.EpisodeID, vd)
			}
			if got := vd.Judge.Verification.OK(); got != wantVerified || vd.Judge.NoCredit == wantVerified ||
				vd.Judge.Has(judge.FindingUnverified) == wantVerified {
				t.Errorf("uid %d episode %s: verified %v, no_credit %v, findings %v", uid, e.Trajectory.EpisodeID, got, vd.Judge.NoCredit, vd.Judge.FindingNames())
			}
		}
	}

	// The trainer's view.
	export := func(format dataset.Format) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), string(format))
		if _, err := dataset.Export(t.Context(), dataset.Options{Store: h.store, Ledger: h.ledger, Format: format, Out: out,
			Filters: dataset.Filters{KeepDuplicates: true}}, zerolog.Nop()); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(out, "train.jsonl")
	}
	type key struct {
		episode string
		step    int
	}
	rows := map[key]dataset.CompletionRow{}
	for _, line := range jsonLines(t, export(dataset.FormatCompletions)) {
		var r dataset.CompletionRow
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		rows[key{r.Meta.EpisodeID, r.Meta.Step}] = r
	}
	steps := 0
	for _, e := range raceEps[1] {
		tr := &e.Trajectory
		for i, st := range tr.Steps {
			steps++
			r, ok := rows[key{tr.EpisodeID, i}]
			c, named := tr.CompletionByID(st.CompletionID)
			if !ok || !named || len(r.Request) == 0 || len(r.Response) == 0 {
				t.Errorf("race episode %s step %d lacks its request or completion (row %v, named %v)", tr.EpisodeID, i, ok, named)
				continue
			}
			if r.CompletionID != c.ID || !equalJSON(t, r.Request, c.Request) || !equalJSON(t, r.Response, c.Response) || r.Usage.TotalTokens != c.Usage.TotalTokens {
				t.Errorf("race episode %s step %d: the row is not the relay's record", tr.EpisodeID, i)
			}
			if !equalJSON(t, r.Request, findRequest(t, prov, c.Request)) {
				t.Errorf("race episode %s step %d: the provider received another request", tr.EpisodeID, i)
			}
		}
	}
	for _, e := range raceEps[2] {
		for i := range e.Trajectory.Steps {
			if _, ok := rows[key{e.Trajectory.EpisodeID, i}]; ok {
				t.Errorf("uid 2's unverified step %d of %s was exported", i, e.Trajectory.EpisodeID)
			}
		}
	}
	if steps == 0 {
		t.Fatal("uid 1 took no step")
	}
	for _, line := range jsonLines(t, export(dataset.FormatSFT)) {
		var r dataset.SFTRow
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if want := r.Meta.MinerUID == 1; r.Meta.Verified != want {
			t.Errorf("sft meta of %s (uid %d): verified %v, want %v", r.Meta.EpisodeID, r.Meta.MinerUID, r.Meta.Verified, want)
		}
	}
}

// findRequest is the body the provider received that equals want, or nil.
func findRequest(t *testing.T, prov *llmtest.Server, want json.RawMessage) json.RawMessage {
	t.Helper()
	for _, r := range prov.Requests() {
		if equalJSON(t, r.Raw, want) {
			return r.Raw
		}
	}
	return nil
}

func equalJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func jsonLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v: %s", url, resp.StatusCode, err, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
