package episode_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"arena/chain"
	"arena/episode"
	"arena/episode/episodetest"
)

// hostileText is a step frame's text fields as raw JSON string bodies: raw
// invalid UTF-8 bytes, a lone surrogate escape, NUL, ESC, a carriage
// return and a C1 control.
const hostileText = "bad\xff\xfe \\ud800 nul\\u0000 esc\\u001b[31m cr\\r\\n c1\\u0085 ok"

// hostileNormal is hostileText as the validator keeps it.
const hostileNormal = "bad\uFFFD\uFFFD \uFFFD nul esc[31m cr\n c1 ok"

// TestHostileInputNormalised: a miner that pads its tool-call parameters
// with unknown keys and puts invalid UTF-8, lone surrogates and control
// characters in its think, parameters, ids and response, over a real
// websocket to the real runner, gets the episode run on the normalised
// form, and the trajectory holds nothing else.
func TestHostileInputNormalised(t *testing.T) {
	tools, problems := episode.CatalogTools(t, 0)
	r := episode.NewTestRunner(t, tools, episode.LimitsForTest())
	env := &episodetest.Env{Signer: episode.NewSigner(t)}
	pad := strings.Repeat("p", 100<<10)
	addr := episodetest.Serve(t, env, episodetest.Play(func(s *episode.EpisodeStart, n int, _ *episode.Observation) []byte {
		switch n {
		case 0:
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","think":"` + hostileText + `","tool_calls":[` +
				`{"id":"c0` + hostileText + `","name":"find_product","parameters":{"q":"phone ` + hostileText + `","page":1,"pad":"` + pad + `","x":{"y":"` + pad + `"}}}]}`)
		case 1:
			return []byte(`{"type":"step","episode_id":"` + s.EpisodeID + `","think":"done","response":"` + hostileText + `","tool_calls":[` +
				`{"id":"c1","name":"terminate","parameters":{"status":"failure","pad":"` + pad + `"}}]}`)
		}
		return nil
	}))
	tr := r.Run(context.Background(), episode.Miner{UID: 3, Hotkey: chain.Mirror(env.Signer.Address), Endpoint: addr}, problems[:1])[0]
	if tr.EndReason != episode.ReasonTerminated || len(tr.Steps) != 2 {
		t.Fatalf("end %s (%s) after %d steps, want terminated after 2", tr.EndReason, tr.EndDetail, len(tr.Steps))
	}
	st0, st1 := tr.Steps[0], tr.Steps[1]
	wantParams := `{"page":1,"q":"phone ` + strings.ReplaceAll(hostileNormal, "\n", `\n`) + `"}`
	checks := []struct{ what, got, want string }{
		{"think", st0.Think, hostileNormal},
		{"call id", st0.ToolCalls[0].ID, "c0" + hostileNormal},
		{"parameters", string(st0.ToolCalls[0].Parameters), wantParams},
		{"result id", st0.Results[0].ToolCallID, "c0" + hostileNormal},
		{"terminate parameters", string(st1.ToolCalls[0].Parameters), `{"status":"failure"}`},
		{"response", *st1.Response, hostileNormal},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
	if st0.Results[0].Error != nil {
		t.Errorf("the search ran with an error: %+v", st0.Results[0].Error)
	}
	if tr.TerminateStatus != "failure" {
		t.Errorf("terminate status %q: the normalised call was not the one run", tr.TerminateStatus)
	}
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(raw) {
		t.Error("the trajectory's JSON is not valid UTF-8")
	}
	if strings.Contains(string(raw), "pp") || len(raw) > 32<<10 {
		t.Errorf("the padding is stored (%d bytes)", len(raw))
	}
	for _, s := range []string{st0.Think, st0.ToolCalls[0].ID, *st1.Response} {
		q, _ := json.Marshal(s)
		if p := episode.JSONTextProblem(q); p != "" {
			t.Errorf("%q: %s", s, p)
		}
	}
}

// TestEpisodeBytesBudget: a miner whose steps fill the stored-bytes
// budget with text the tools accept ends with episode_too_large, having
// stored at most the budget, while an honest miner on the same runner at
// the same time is unaffected.
func TestEpisodeBytesBudget(t *testing.T) {
	tools, problems := episode.CatalogTools(t, 0)
	lim := episode.LimitsForTest()
	lim.MaxEpisodeBytes = lim.MaxFrameBytes
	r := episode.NewTestRunner(t, tools, lim)
	env := &episodetest.Env{Signer: episode.NewSigner(t)}
	q := strings.Repeat("phone ", 10<<10) // 60 KiB a step, in a key find_product reads
	addr := episodetest.Serve(t, env, episodetest.Play(func(s *episode.EpisodeStart, n int, _ *episode.Observation) []byte {
		return []byte(fmt.Sprintf(`{"type":"step","episode_id":%q,"think":"more","tool_calls":[{"id":"c%d","name":"find_product","parameters":{"q":%q,"page":1}}]}`, s.EpisodeID, n, q))
	}))
	honestSigner := episode.NewSigner(t)
	honest := episode.Miner{UID: 1, Hotkey: chain.Mirror(honestSigner.Address), Endpoint: episode.StartServer(t, honestSigner, episode.ScriptedAgent(), episode.ServerOptions{})}
	baseline := r.Run(context.Background(), honest, problems[:2])

	var padded, mixed []episode.Trajectory
	var wg sync.WaitGroup
	wg.Go(func() {
		padded = r.Run(context.Background(), episode.Miner{UID: 2, Hotkey: chain.Mirror(env.Signer.Address), Endpoint: addr}, problems[:2])
	})
	wg.Go(func() { mixed = r.Run(context.Background(), honest, problems[:2]) })
	wg.Wait()

	for i, tr := range padded {
		if tr.EndReason != episode.ReasonEpisodeTooLarge || !strings.Contains(tr.EndDetail, "limit 262144") {
			t.Errorf("padded episode %d: end %s (%s), want episode_too_large", i, tr.EndReason, tr.EndDetail)
		}
		stored := 0
		for _, st := range tr.Steps {
			stored += len(st.Think) + len(st.ToolCalls[0].Parameters) + len(st.Results[0].Result)
		}
		if stored > lim.MaxEpisodeBytes || len(tr.Steps) < 3 {
			t.Errorf("padded episode %d stored %d bytes in %d steps (budget %d)", i, stored, len(tr.Steps), lim.MaxEpisodeBytes)
		}
		t.Logf("padded episode %d: %d steps stored, %s", i, len(tr.Steps), tr.EndDetail)
	}
	for i := range mixed {
		if mixed[i].EndReason != episode.ReasonTerminated || episode.Normalized(t, mixed[i]) != episode.Normalized(t, baseline[i]) {
			t.Errorf("honest episode %d: %s, or it differs from the run without the padding miner", i, mixed[i].EndReason)
		}
	}
}
