package practice

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/miner"
	"arena/relay"
	"arena/scoring/judge"
)

// costEnv names the directory TestRelayCost writes its measurement to;
// unset, the test is skipped (it plays 50 problems).
const costEnv = "ARENA_RELAY_COST_OUT"

// TestRelayCost measures what the reference LLM agent sends through a
// validator's relay per episode (docs/operations.md, "Inference relay:
// cost"). The provider is the offline stand-in (the heuristic agent's
// decisions behind the chat wire format) under another model name, so
// the conversations have a real episode's length and real observations;
// its reasoning is a sentence a step, far shorter than a thinking
// model's, so only the prompt side is representative. Every request the
// provider received and every answer it gave is written to
// $ARENA_RELAY_COST_OUT/calls.jsonl with its episode, for a tokenizer to
// count, and a byte summary is logged. docs/benchmarks.md ("Inference
// relay") has the counting command and the numbers.
func TestRelayCost(t *testing.T) {
	out := os.Getenv(costEnv)
	if out == "" {
		t.Skipf("set %s=DIR to measure the relay's cost per episode", costEnv)
	}
	standIn, err := miner.NewStandIn(zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		// Episode is the episode's query, its first user message.
		Episode  string          `json:"episode"`
		Request  json.RawMessage `json:"request"`
		Response json.RawMessage `json:"response"`
	}
	var mu sync.Mutex
	var calls []call
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		if _, err := body.ReadFrom(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fwd, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), bytes.NewReader(body.Bytes()))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec := httptest.NewRecorder()
		standIn.ServeHTTP(rec, fwd)
		// The relay refuses the stand-in by name; this measures the
		// conversation's size, not a model.
		resp := bytes.ReplaceAll(bytes.TrimSpace(rec.Body.Bytes()), []byte(strconv.Quote(config.StandInModel)), []byte(`"cost-model"`))
		mu.Lock()
		calls = append(calls, call{Episode: firstUser(body.Bytes()), Request: slices.Clone(body.Bytes()), Response: resp})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(resp)
	}))
	defer prov.Close()
	rl, err := relay.New(relay.Options{BaseURL: prov.URL + "/v1", Models: []string{"cost-model"}, Required: true,
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	tools, problems := testProblems(t, 50)
	p, err := New(Options{Tools: tools, Relay: rl, Verification: judge.VerifyRequire}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	llm, err := miner.NewLLM(miner.LLMOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	addr, stop, err := Serve(t.Context(), llm, 16, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	rep, err := p.Run(t.Context(), addr, problems, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.VerifiedShare == nil || *rep.VerifiedShare != 1 {
		t.Fatalf("verified share %v, findings %v, end reasons %v: the measurement must be of verified episodes", *rep.VerifiedShare, rep.Findings, rep.EndReasons)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(out, "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	var reqBytes, respBytes int
	perEpisode := map[string]int{}
	for _, c := range calls {
		reqBytes += len(c.Request)
		respBytes += len(c.Response)
		perEpisode[c.Episode] += len(c.Request)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	most := slices.Max(slices.Collect(maps.Values(perEpisode)))
	n := float64(len(rep.Results))
	t.Logf("%d episodes, %d steps, %d completions: %.1f completions, %.0f request bytes (most %d) and %.0f answer bytes an episode; success %.2f",
		len(rep.Results), rep.Steps, len(calls), float64(len(calls))/n, float64(reqBytes)/n, most, float64(respBytes)/n, rep.Success)
}

// firstUser is the content of a chat request's first user message.
func firstUser(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	for _, m := range req.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}
