package episode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/shop"
	"arena/shop/gen"
)

// testCatalog is built once per test binary: generating and indexing it
// is the slowest part of the suite.
type testCatalog struct {
	once     sync.Once
	tools    *shop.Tools
	problems []Problem
	err      error
}

var sharedCatalog testCatalog

func catalogTools(t testing.TB, products int) (*shop.Tools, []Problem) {
	t.Helper()
	build := func() (*shop.Tools, []Problem, error) {
		g, err := gen.New(gen.Options{Products: products, Seed: 7}, zerolog.Nop())
		if err != nil {
			return nil, nil, err
		}
		ps, err := g.Products(context.Background())
		if err != nil {
			return nil, nil, err
		}
		var problems []Problem
		for i := 0; i < len(ps) && len(problems) < 64; i += len(ps)/64 + 1 {
			words := strings.Fields(ps[i].Title)
			problems = append(problems, Problem{ID: fmt.Sprintf("p%03d", len(problems)), Query: "I want " + strings.Join(words[:min(4, len(words))], " ")})
		}
		cat, err := shop.NewCatalog(ps)
		if err != nil {
			return nil, nil, err
		}
		idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{Workers: 2}, zerolog.Nop())
		if err != nil {
			return nil, nil, err
		}
		tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil)
		return tools, problems, err
	}
	if products != 0 {
		tools, problems, err := build()
		if err != nil {
			t.Fatal(err)
		}
		return tools, problems
	}
	sharedCatalog.once.Do(func() {
		products = 3000
		sharedCatalog.tools, sharedCatalog.problems, sharedCatalog.err = build()
	})
	if sharedCatalog.err != nil {
		t.Fatal(sharedCatalog.err)
	}
	return sharedCatalog.tools, sharedCatalog.problems
}

func newSigner(t testing.TB) *chain.Signer {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return chain.NewSigner(key)
}

// scriptedAgent is a deterministic honest agent: search the query, view
// the top two results, recommend the first, terminate.
func scriptedAgent() Agent {
	return AgentFunc(func(ctx context.Context, v EpisodeView) (Action, error) {
		call := func(name string, params any) ToolCall {
			raw, _ := json.Marshal(params)
			return ToolCall{ID: fmt.Sprintf("c%d", len(v.History)), Name: name, Parameters: raw}
		}
		switch len(v.History) {
		case 0:
			return Action{Think: "Search for the request.", ToolCalls: []ToolCall{call("find_product", map[string]any{"q": v.Query, "page": 1})}}, nil
		case 1:
			ids := resultIDs(v.History[0].Results)
			if len(ids) == 0 {
				return Action{Think: "Nothing found.", ToolCalls: []ToolCall{call("terminate", map[string]string{"status": "failure"})}}, nil
			}
			ids = ids[:min(2, len(ids))]
			return Action{Think: "Compare " + strings.Join(ids, " and ") + ".", ToolCalls: []ToolCall{call("view_product_information", map[string]string{"product_ids": strings.Join(ids, ",")})}}, nil
		case 2:
			ids := resultIDs(v.History[0].Results)
			return Action{Think: "Pick " + ids[0] + ".", ToolCalls: []ToolCall{call("recommend_product", map[string]string{"product_ids": ids[0]})}}, nil
		default:
			return Action{Think: "Done.", ToolCalls: []ToolCall{call("terminate", map[string]string{"status": "success"})}, Response: "Here is my pick."}, nil
		}
	})
}

func resultIDs(results []ToolResult) []string {
	if len(results) == 0 || results[0].Error != nil {
		return nil
	}
	var items []struct {
		ProductID string `json:"product_id"`
	}
	if json.Unmarshal(results[0].Result, &items) != nil {
		return nil
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ProductID
	}
	return ids
}

// startServer runs a miner Server on a loopback port until the test ends.
func startServer(t testing.TB, signer *chain.Signer, agent Agent, opts ServerOptions) string {
	t.Helper()
	opts.Signer, opts.Agent = signer, agent
	srv, err := NewServer(opts, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("server: %v", err)
		}
	})
	return ln.Addr().String()
}

// testLimits keep the deadline cases fast while leaving honest miners a
// wide margin on a loaded 2-core machine under -race.
func testLimits() Limits {
	return Limits{
		MaxFrameBytes: DefaultMaxFrameBytes,
		MaxThinkBytes: DefaultMaxThinkBytes,
		MaxToolCalls:  DefaultMaxToolCalls,
		MaxSteps:      10,
		// Generous for loaded CI machines: timing-based cases must not fire by
		// accident when the scheduler is slow.
		StepTimeout:           2 * time.Second,
		EpisodeTimeout:        6 * time.Second,
		MaxConcurrentEpisodes: 2,
	}
}

func newTestRunner(t testing.TB, tools *shop.Tools, lim Limits) *Runner {
	t.Helper()
	r, err := NewRunner(RunnerOptions{
		Signer:           newSigner(t),
		Tools:            tools,
		Limits:           lim,
		DialTimeout:      3 * time.Second,
		HandshakeTimeout: 3 * time.Second,
		WriteTimeout:     3 * time.Second,
	}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// normalized strips what legitimately differs between two runs of the
// same agent (ids, addresses, times) so trajectories can be compared.
func normalized(t testing.TB, tr Trajectory) string {
	t.Helper()
	tr.EpisodeID, tr.ValidatorAddress, tr.Timings = "", "", Timings{}
	steps := make([]StepRecord, len(tr.Steps))
	for i, s := range tr.Steps {
		s.TSent, s.TReceived, s.TObserved, s.ToolTime = time.Time{}, time.Time{}, time.Time{}, 0
		steps[i] = s
	}
	tr.Steps = steps
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
