package practice

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"arena/chain"
	"arena/episode"
	"arena/episode/episodetest"
	"arena/scoring"
	"arena/shop"
	"arena/shop/gen"
	"arena/suite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestEndpoint(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{in: "ws://127.0.0.1:8091/arena/v1", want: "127.0.0.1:8091"},
		{in: "ws://[::1]:8091/arena/v1", want: "[::1]:8091"},
		{in: "ws://miner.example:9000/arena/v1", want: "miner.example:9000"},
		{in: "ws://127.0.0.1:8091/", err: `wrong path "/"`},
		{in: "ws://127.0.0.1:8091", err: `wrong path ""`},
		{in: "ws://127.0.0.1:8091/arena/v2", err: `wrong path "/arena/v2"`},
		{in: "wss://127.0.0.1:8091/arena/v1", err: "want ws://"},
		{in: "127.0.0.1:8091", err: "want ws://"},
		{in: "ws://127.0.0.1/arena/v1", err: "host and port are required"},
		{in: "ws://127.0.0.1:8091/arena/v1?x=1", err: "nothing after the path"},
		{in: "ws://%zz", err: "want ws://"},
	} {
		got, err := Endpoint(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Endpoint(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Endpoint(%q) error %v, want one containing %q", tt.in, err, tt.err)
		}
	}
}

// TestRunReport plays a scripted agent over generated problems and checks
// that the report's aggregates follow from its per-episode results.
func TestRunReport(t *testing.T) {
	tools, problems := testProblems(t, 8)
	p, err := New(Options{Tools: tools, RunSize: 4}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	addr, stop, err := Serve(t.Context(), firstHit{}, 16, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var connected Identity
	var last Progress
	rep, err := p.Run(t.Context(), addr, problems, func(id Identity) { connected = id }, func(pg Progress) { last = pg })
	if err != nil {
		t.Fatal(err)
	}
	if connected.Address == "" || !strings.HasPrefix(connected.Hotkey, "5") || rep.Miner != connected {
		t.Errorf("identity %+v, report %+v", connected, rep.Miner)
	}
	if last.Done != len(problems) || last.Total != len(problems) {
		t.Errorf("last progress %+v", last)
	}
	succ, score, q := 0.0, 0.0, 0.0
	byType := map[suite.Type][2]float64{}
	for _, r := range rep.Results {
		s := 0.0
		if r.Success {
			s = 1
		} else if len(r.Why) == 0 {
			t.Errorf("problem %s failed without a reason", r.ProblemID)
		}
		succ, score, q = succ+s, score+r.Final, q+r.Q
		bt := byType[r.Type]
		byType[r.Type] = [2]float64{bt[0] + s, bt[1] + 1}
		if r.Final != scoring.Coefficient(r.Q)*s {
			t.Errorf("problem %s: final %v, success %v, q %v", r.ProblemID, r.Final, r.Success, r.Q)
		}
	}
	n := float64(len(problems))
	if rep.Episodes != len(problems) || rep.Success != succ/n || rep.Score != score/n || rep.Q != q/n || last.Succeeded != int(succ) {
		t.Errorf("aggregates %d %v %v %v (progress %d), want %d %v %v %v", rep.Episodes, rep.Success, rep.Score, rep.Q, last.Succeeded, len(problems), succ/n, score/n, q/n)
	}
	for ty, c := range byType {
		if rep.ByType[ty] != c[0]/c[1] {
			t.Errorf("by_type %s = %v, want %v", ty, rep.ByType[ty], c[0]/c[1])
		}
	}
	if len(rep.Worst) != 5 || rep.Worst[0].Final > rep.Worst[4].Final {
		t.Errorf("worst: %+v", rep.Worst)
	}
	if rep.EndReasons[episode.ReasonTerminated] != len(problems) {
		t.Errorf("end reasons %v", rep.EndReasons)
	}
	b, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"episodes", "success", "score", "q", "by_type", "findings", "miner", "results"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var out strings.Builder
	rep.Print(&out)
	if !strings.Contains(out.String(), connected.Hotkey) || !strings.Contains(out.String(), "worst problems:") {
		t.Errorf("printed report:\n%s", out.String())
	}
}

// TestMinerThatFailsEveryEpisode: a miner that completes the handshake
// but ends every episode with the same violation is one error, not a
// report of zeros.
func TestMinerThatFailsEveryEpisode(t *testing.T) {
	tools, problems := testProblems(t, 3)
	p, err := New(Options{Tools: tools, Limits: episode.Limits{StepTimeout: 200 * time.Millisecond}}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	// A frame above max_frame_bytes ends the connection, and with it every
	// episode on it, the same way.
	addr := episodetest.Serve(t, &episodetest.Env{Signer: chain.NewSigner(key)}, episodetest.AfterStart(func(s *episode.EpisodeStart) []byte {
		return episodetest.StepJSON(s.EpisodeID, strings.Repeat("a", 1<<20), 1)
	}))
	_, err = p.Run(t.Context(), addr, problems, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "every episode ended") {
		t.Fatalf("error %v, want every episode ended ...", err)
	}
}

func testProblems(t *testing.T, n int) (*shop.Tools, []suite.Problem) {
	t.Helper()
	ctx := context.Background()
	g, err := gen.New(gen.Options{Products: 2000, Seed: 5}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := g.Products(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := shop.NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sg, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: 9}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	problems, _, err := sg.Generate(ctx, suite.Request{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	return tools, problems
}

// firstHit searches the query, recommends the first hit and stops.
type firstHit struct{}

func (firstHit) Step(_ context.Context, v episode.EpisodeView) (episode.Action, error) {
	call := func(name string, args string) episode.Action {
		return episode.Action{Think: "Step " + name + " for " + v.Query, ToolCalls: []episode.ToolCall{{ID: "c", Name: name, Parameters: json.RawMessage(args)}}}
	}
	switch len(v.History) {
	case 0:
		q, _ := json.Marshal(v.Query)
		return call(shop.ToolFindProduct, `{"q":`+string(q)+`}`), nil
	case 1:
		var hits []struct {
			ID string `json:"product_id"`
		}
		if r := v.History[0].Results; len(r) > 0 && json.Unmarshal(r[0].Result, &hits) == nil && len(hits) > 0 {
			return call(shop.ToolRecommendProduct, `{"product_ids":"`+hits[0].ID+`"}`), nil
		}
	}
	return call("terminate", `{"status":"success"}`), nil
}
