package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/episode/episodetest"
	"arena/internal/browsertest"
	"arena/shop"
	"arena/shop/gen"
	"arena/validator/records"
)

// hostileText is text a hostile miner writes straight into its frames:
// raw invalid UTF-8, a lone surrogate escape, NUL, ESC, a carriage return
// and a C1 control. hostileShown is what the validator keeps of it.
const (
	hostileText  = "evil\xff\xfe \\ud800 nul\\u0000 esc\\u001b[2J cr\\r c1\\u0085 end"
	hostileShown = "evil\uFFFD\uFFFD \uFFFD nul esc[2J cr c1 end"
)

// TestBrowserHostileInput runs a hostile miner through the real episode
// runner over a real websocket: it pads its tool-call parameters with
// unknown keys and writes invalid UTF-8, a lone surrogate and control
// characters in its think, parameters and response. The trajectory is
// stored as the validator stores it; the console's episode page, loaded in
// Chromium, shows the normalised text (U+FFFD for the invalid bytes, no
// control character, no padding), and its JSON twin is valid UTF-8 with
// no lone surrogate or control character in any string.
func TestBrowserHostileInput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser")
	}
	f := buildArena(t, t.TempDir(), arenaOptions{Races: 1, Racers: 2, Problems: 2, Pool: 2, Miners: 2})
	p := f.public[0]
	tr := runHostileMiner(t, p.ID, p.Query)
	if tr.EndReason != episode.ReasonTerminated {
		t.Fatalf("hostile episode ended %s (%s), want terminated", tr.EndReason, tr.EndDetail)
	}
	w := &bulkWriter{st: f.v.st}
	w.episode(t, f.v.rec, records.Episode{Kind: records.Qualifying, Hotkey: fixtureHotkey(1), ProblemType: p.Type, Cluster: p.Cluster, Block: 5, Trajectory: tr},
		fixtureVerdict(tr.EpisodeID, p.Type, 0.1))
	w.flush(t)
	c := newConsole(t, f, Options{})
	srv := httptest.NewServer(c.Operator())
	t.Cleanup(srv.Close)

	resp, err := http.Get(srv.URL + "/episodes/" + tr.EpisodeID + "?format=json")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("JSON twin: %d %v", resp.StatusCode, err)
	}
	if !utf8.Valid(body) || !json.Valid(body) {
		t.Fatal("the episode's JSON is not valid UTF-8 JSON")
	}
	if p := episode.JSONTextProblem(body); p != "" {
		t.Fatalf("the episode's JSON: %s", p)
	}
	if strings.Contains(string(body), "pppp") {
		t.Fatal("the episode's JSON holds the padding")
	}

	b := browsertest.Start(t)
	page := b.Visit(t, srv.URL+"/episodes/"+tr.EpisodeID)
	page.RequireNoProblems(t)
	var got struct {
		Text   string   `json:"text"`
		Thinks []string `json:"thinks"`
		Params []string `json:"params"`
	}
	page.EvalJSON(t, `(() => ({
		text: document.body.textContent,
		thinks: [...document.querySelectorAll(".think")].map(e => e.textContent.trim()),
		params: [...document.querySelectorAll(".call pre")].map(e => e.textContent),
	}))()`, &got)
	if i := strings.IndexFunc(got.Text, func(r rune) bool { return r != '\n' && r != '\t' && (r < 0x20 || r >= 0x7f && r < 0xa0) }); i >= 0 {
		t.Errorf("the page shows control character %U: %q", []rune(got.Text[i:])[0], episode.ClipText(got.Text[max(0, i-40):], 80))
	}
	if strings.Contains(got.Text, "pppp") {
		t.Error("the page shows the padding")
	}
	if !strings.Contains(got.Text, hostileShown) {
		t.Errorf("the page does not show the normalised text %q", hostileShown)
	}
	if len(got.Params) == 0 || !strings.Contains(got.Params[0], "phone "+hostileShown) || strings.Contains(got.Params[0], "pad") {
		t.Errorf("the first call's parameters show %q, want q with the normalised text and no padding", got.Params)
	}
}

// runHostileMiner runs one episode of the hostile miner against a real
// runner on a small generated catalog and returns its trajectory.
func runHostileMiner(t *testing.T, problemID, query string) episode.Trajectory {
	t.Helper()
	ctx := context.Background()
	tools, _, err := gen.Tools(ctx, gen.Options{Products: 300, Seed: 3}, shop.IndexOptions{Workers: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	signer := func() *chain.Signer {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		return chain.NewSigner(key)
	}
	r, err := episode.NewRunner(episode.RunnerOptions{Signer: signer(), Tools: tools,
		Limits: episode.Limits{StepTimeout: 10 * time.Second, EpisodeTimeout: 20 * time.Second}}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	env := &episodetest.Env{Signer: signer()}
	pad := strings.Repeat("p", 200<<10)
	addr := episodetest.Serve(t, env, episodetest.Play(func(s *episode.EpisodeStart, n int, _ *episode.Observation) []byte {
		switch n {
		case 0:
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","think":"` + hostileText + `","tool_calls":[` +
				`{"id":"c0","name":"find_product","parameters":{"q":"phone ` + hostileText + `","page":1,"pad":"` + pad + `"}}]}`)
		case 1:
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","think":"done","response":"` + hostileText + `","tool_calls":[` +
				`{"id":"c1","name":"terminate","parameters":{"status":"failure","pad":{"more":"` + pad[:1024] + `"}}}]}`)
		}
		return nil
	}))
	return r.Run(ctx, episode.Miner{UID: 1, Hotkey: chain.Mirror(env.Signer.Address), Endpoint: addr}, []episode.Problem{{ID: problemID, Query: query}})[0]
}
