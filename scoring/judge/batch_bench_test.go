package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"arena/scoring"
	"arena/scoring/scoringtest"
)

// synthCases builds n recorded episodes for the full scoring path, with
// the answered ids observed at the second-to-last step: the data of
// scoring's BenchmarkRules10k (see scoringtest.Episodes).
func synthCases(tb testing.TB, n, steps int) []Case {
	tb.Helper()
	return synthCasesAt(tb, n, steps, steps-2)
}

// synthCasesAt is synthCases with the answered ids observed at step at
// (never if at is out of range: every answer is then ungrounded). The
// episodes are scoringtest's, with a query that states constraints and
// varied thinks (genuineThink) about the previous step's results in
// place of its one fixed line, which the template detection would cap;
// every 20 consecutive cases are one miner's run (Case.Group).
func synthCasesAt(tb testing.TB, n, steps, at int) []Case {
	tb.Helper()
	eps := scoringtest.Episodes(n, steps, at)
	out := make([]Case, len(eps))
	w := wish{kind: "mug", color: "blue", material: "ceramic", under: 60}
	for i, e := range eps {
		r := rand.New(rand.NewPCG(uint64(i), 6))
		tr := e.Trajectory
		tr.Query = "a blue ceramic mug with free shipping under 60"
		var prev []item
		for s := range tr.Steps {
			tr.Steps[s].Think = genuineThink(r, w, s, prev, nil)
			prev = prev[:0]
			for _, res := range tr.Steps[s].Results {
				var ps []struct {
					ID    string  `json:"product_id"`
					Shop  string  `json:"shop_id"`
					Price float64 `json:"price"`
				}
				if err := json.Unmarshal(res.Result, &ps); err != nil {
					tb.Fatal(err)
				}
				for _, p := range ps {
					prev = append(prev, item{id: p.ID, shop: p.Shop, price: p.Price, color: w.color, material: w.material})
				}
			}
		}
		out[i] = Case{Problem: e.Problem, Trajectory: tr, Answers: e.Answers, Group: fmt.Sprint("miner ", i/20)}
	}
	return out
}

// oneByOne is the reference for EvaluateBatch: the existing public
// functions called one by one.
func oneByOne(ctx context.Context, g *Grounding, c Case, opt scoring.Options) Evaluation {
	var ev Evaluation
	ids := make([]string, len(c.Answers))
	for j, a := range c.Answers {
		ids[j] = a.ID
	}
	observed := scoring.ObservedAmong(c.Trajectory, ids)
	ev.Metrics, ev.Err = scoring.Rules(ctx, scoring.Input{Problem: c.Problem, Answers: c.Answers, Trajectory: c.Trajectory, Observed: observed}, opt)
	ev.Verdict, _ = g.Judge(ctx, c.Trajectory)
	if ev.Err == nil {
		ev.Final = scoring.Final(&ev.Metrics, ev.Verdict.Score)
	}
	return ev
}

// BenchmarkRulesAndGrounding10kOneByOne is the full scoring path (rule
// metrics with the grounding set, grounding verdict, final score) of
// 10,000 synthetic 30-step trajectories through the existing functions,
// one trajectory after another on one goroutine: the baseline of
// BenchmarkRulesAndGrounding10k.
func BenchmarkRulesAndGrounding10kOneByOne(b *testing.B) {
	benchmarkEvaluate(b, synthCases(b, 10000, 30), func(ctx context.Context, g *Grounding, cases []Case) []Evaluation {
		evs := make([]Evaluation, len(cases))
		for i, c := range cases {
			evs[i] = oneByOne(ctx, g, c, scoring.Options{})
		}
		return evs
	})
}
