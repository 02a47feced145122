// Package kit tests the example miners (examples/ts-miner and
// examples/py-miner) the way docs/mining.md tells a newcomer to: `arena
// miner check` must pass every clause, and `arena practice --stand-in`
// must play 20 problems offline, every step a verified completion of the
// stand-in, with the reference heuristic's decisions.
package kit

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/episode"
	"arena/examples/minerproc"
	"arena/examples/pyminer"
	"arena/examples/tsminer"
	"arena/miner"
	"arena/minercheck"
	"arena/practice"
	"arena/shop"
	"arena/shop/gen"
	"arena/suite"
)

// miners are the examples, each started with no model endpoint of its
// own: only a validator's relay serves them.
var miners = []struct {
	name   string
	launch func(t *testing.T) *minerproc.Miner
}{
	{"ts-miner", func(t *testing.T) *minerproc.Miner { return tsminer.Launch(t, tsminer.Options{}) }},
	{"py-miner", func(t *testing.T) *minerproc.Miner { return pyminer.Launch(t, pyminer.Options{}) }},
}

// TestMinerCheck: every clause of `arena miner check` passes, version 2
// included, with no endpoint of the miner's own.
func TestMinerCheck(t *testing.T) {
	for _, m := range miners {
		t.Run(m.name, func(t *testing.T) {
			proc := m.launch(t)
			c, err := minercheck.New(minercheck.Options{}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			rep, err := c.Run(t.Context(), "ws://"+proc.Endpoint+episode.Path)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Miner != proc.Address {
				t.Errorf("the check saw address %s, the miner printed %s", rep.Miner, proc.Address)
			}
			for _, r := range rep.Clauses {
				if r.Status != minercheck.Pass {
					t.Errorf("clause %s: %s: %s", r.Clause, r.Status, r.Detail)
				}
			}
			if len(rep.Clauses) != len(minercheck.Clauses()) {
				t.Errorf("%d clauses reported, want %d", len(rep.Clauses), len(minercheck.Clauses()))
			}
			if err := proc.Alive(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestPracticeStandIn plays 20 generated problems against each example
// through the stand-in relay, and the same problems against the reference
// heuristic in process: the example's every step verifies, and each
// problem ends as the heuristic's does (same success, same number of
// steps), since the stand-in plays the heuristic's decisions.
func TestPracticeStandIn(t *testing.T) {
	st, ps := shopAndProblems(t, 20)
	want := practiceRun(t, st, ps, nil, "")
	for _, m := range miners {
		t.Run(m.name, func(t *testing.T) {
			proc := m.launch(t)
			rl, err := practice.StandInRelay(false, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			got := practiceRun(t, st, ps, rl, proc.Endpoint)
			if got.Miner.Address != proc.Address {
				t.Errorf("practice saw address %s, the miner printed %s", got.Miner.Address, proc.Address)
			}
			if got.VerifiedShare == nil || *got.VerifiedShare != 1 {
				t.Errorf("verified share %v of %d steps, want 1 (findings %v)", got.VerifiedShare, got.Steps, got.Findings)
			}
			for i, r := range got.Results {
				w := want.Results[i]
				if r.EndReason != episode.ReasonTerminated || r.Success != w.Success || r.Steps != w.Steps {
					t.Errorf("problem %s: ended %s, success %v in %d steps; the heuristic: success %v in %d steps (why %v)",
						r.ProblemID, r.EndReason, r.Success, r.Steps, w.Success, w.Steps, r.Why)
				}
			}
			t.Logf("%s: %d episodes, success %.2f, %d steps, all verified", m.name, got.Episodes, got.Success, got.Steps)
		})
	}
}

// practiceRun plays ps with practice against endpoint, or against the
// heuristic agent served in process when endpoint is empty.
func practiceRun(t *testing.T, st *shop.Tools, ps []suite.Problem, rl episode.Relay, endpoint string) *practice.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if endpoint == "" {
		h, err := miner.NewHeuristic(miner.HeuristicOptions{Skill: 1})
		if err != nil {
			t.Fatal(err)
		}
		addr, stop, err := practice.Serve(ctx, h, 64, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		endpoint = addr
	}
	opts := practice.Options{Tools: st, Relay: rl}
	if rl != nil {
		opts.Verification, opts.StandIn = "record", true
	}
	p, err := practice.New(opts, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.Run(ctx, endpoint, ps, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(rep.Results, ps, func(r practice.Result, p suite.Problem) bool { return r.ProblemID == p.ID }) {
		t.Fatal("the report's results are not in the problems' order")
	}
	return rep
}

var (
	shopOnce sync.Once
	shopT    *shop.Tools
	shopPs   []suite.Problem
	shopErr  error
)

// shopAndProblems is a small generated catalog's tools and n problems of
// the default mix, built once.
func shopAndProblems(t *testing.T, n int) (*shop.Tools, []suite.Problem) {
	t.Helper()
	shopOnce.Do(func() {
		ctx := context.Background()
		g, err := gen.New(gen.Options{Products: 2000, Seed: 3}, zerolog.Nop())
		if err != nil {
			shopErr = err
			return
		}
		prods, err := g.Products(ctx)
		if err != nil {
			shopErr = err
			return
		}
		cat, err := shop.NewCatalog(prods)
		if err != nil {
			shopErr = err
			return
		}
		idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Workers: 2}, zerolog.Nop())
		if err != nil {
			shopErr = err
			return
		}
		if shopT, shopErr = shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil); shopErr != nil {
			return
		}
		sg, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: 5, Workers: 2}, zerolog.Nop())
		if err != nil {
			shopErr = err
			return
		}
		shopPs, _, shopErr = sg.Generate(ctx, suite.Request{Count: n})
	})
	if shopErr != nil {
		t.Fatalf("build the shop: %v", shopErr)
	}
	return shopT, shopPs
}

// TestPythonOwnEndpoint: the Python miner at --max-version 1 plays with
// its own endpoint (the TypeScript tests' fake model, which checks each
// request's path, key, model, tools and replay of the episode), and
// passes every version-1 clause.
func TestPythonOwnEndpoint(t *testing.T) {
	f := tsminer.NewFakeLLM(t, 0, tsminer.Deterministic)
	proc := pyminer.Launch(t, pyminer.Options{LLMBaseURL: f.URL(), LLMModel: tsminer.FakeModel, LLMAPIKey: tsminer.FakeKey, MaxVersion: 1})
	c, err := minercheck.New(minercheck.Options{MaxVersion: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.Run(t.Context(), "ws://"+proc.Endpoint+episode.Path)
	if err != nil {
		t.Fatal(err)
	}
	v1 := minercheck.Clauses()[:slices.Index(minercheck.Clauses(), minercheck.Negotiation)]
	for _, r := range rep.Clauses {
		want := minercheck.Skip
		if slices.Contains(v1, r.Clause) {
			want = minercheck.Pass
		}
		if r.Status != want {
			t.Errorf("clause %s: %s (%s), want %s", r.Clause, r.Status, r.Detail, want)
		}
	}
}
