package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring"
	"arena/shop"
	"arena/suite"
)

func f64(v float64) *float64 { return &v }

// synthCases builds n recorded episodes for the full scoring path: the
// problems, answers and observations of scoring's BenchmarkRules10k data
// (product, shop and voucher problems; ten products, about 1.3 KB of JSON,
// per step; the answered ids observed at the second-to-last step; one
// answer in seven a non-target id), with the thinks of
// BenchmarkGrounding10k (every step after the first cites and compares
// two products of the previous step's results, so every step is read in
// full).
func synthCases(tb testing.TB, n, steps int) []Case {
	tb.Helper()
	return synthCasesAt(tb, n, steps, steps-2)
}

// synthCasesAt is synthCases with the answered ids observed at step at
// (never if at is out of range: every answer is then ungrounded).
func synthCasesAt(tb testing.TB, n, steps, at int) []Case {
	tb.Helper()
	out := make([]Case, n)
	for i := range out {
		typ := suite.Types()[i%3]
		nItems := 1
		if typ != suite.TypeProduct {
			nItems = 2 + i%3
		}
		var items []suite.Item
		var answers []scoring.Answer
		for j := 0; j < nItems; j++ {
			id := fmt.Sprintf("%d%02d", 1000000+i, j)
			items = append(items, suite.Item{
				ProductID:  id,
				Title:      []string{fmt.Sprintf("Acme Ceramic Coffee Mug %d Blue Glaze 350ml", j)},
				Price:      []suite.PriceBound{{Op: suite.OpBetween, Lo: f64(10), Hi: f64(200)}},
				Service:    []string{"freeShipping"},
				SKUOptions: []map[string]string{{"color": "blue", "size": "large"}},
				Attributes: []map[string][]string{{"material": {"ceramic"}}},
			})
			p := &shop.Product{ProductID: id, ShopID: "s1", Title: fmt.Sprintf("Acme Ceramic Coffee Mug %d Blue Glaze 350ml Gift", j), Price: 50,
				Service:    shop.ServiceFreeShipping | shop.ServiceCOD,
				SKUOptions: []shop.SKU{{{Key: "color", Value: "red"}, {Key: "size", Value: "large"}}, {{Key: "color", Value: "blue"}, {Key: "size", Value: "large"}}},
				Attributes: []shop.Attribute{{Key: "material", Values: []string{"ceramic"}}}}
			if i%7 == 0 {
				p.ProductID += "x" // a wrong product: constraints decide
			}
			answers = append(answers, scoring.Answer{ID: p.ProductID, Product: p})
		}
		prob := &suite.Problem{ID: fmt.Sprint(i), Type: typ, Query: "q", Reward: suite.Reward{Items: items, List: typ != suite.TypeProduct}}
		if typ == suite.TypeVoucher {
			prob.Voucher = &suite.Voucher{VoucherType: suite.VoucherShop, Threshold: 100, DiscountType: suite.DiscountPercentage, Discount: f64(0.2), Cap: f64(30), Budget: 180}
		}
		tr := &episode.Trajectory{EpisodeID: fmt.Sprint(i), Query: "q", EndReason: episode.ReasonTerminated}
		var prev []string
		for s := 0; s < steps; s++ {
			var res []map[string]any
			var ids []string
			for k := 0; k < 10; k++ {
				id := fmt.Sprintf("%d%02d", 5000000+i*10+k, s)
				if s == at && k < len(answers) {
					id = answers[k].ID
				}
				ids = append(ids, id)
				res = append(res, map[string]any{"product_id": id, "shop_id": "s1", "title": "Acme Ceramic Coffee Mug Blue Glaze 350ml Gift Set", "price": 49.5, "service": []string{"freeShipping"}, "sold_count": 120})
			}
			raw, err := json.Marshal(res)
			if err != nil {
				tb.Fatal(err)
			}
			think := "The user wants a blue ceramic mug; search first."
			if s > 0 {
				think = fmt.Sprintf("The user wants a blue ceramic mug; product %s costs 49.5 and ships free, cheaper than %s, so compare it with the others.", prev[1], prev[2])
			}
			prev = ids
			tr.Steps = append(tr.Steps, episode.StepRecord{
				Think:     think,
				ToolCalls: []episode.ToolCall{{ID: fmt.Sprint(s), Name: "find_product", Parameters: json.RawMessage(`{"q":"blue ceramic mug","page":1}`)}},
				Results:   []episode.ToolResult{{ToolCallID: fmt.Sprint(s), Result: raw}},
			})
		}
		out[i] = Case{Problem: prob, Trajectory: tr, Answers: answers}
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
	cases := synthCases(b, 10000, 30)
	g := NewGrounding(GroundingOptions{}, zerolog.Nop())
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		success := 0
		for _, c := range cases {
			ev := oneByOne(ctx, g, c, scoring.Options{})
			if ev.Err != nil || ev.Verdict.Score != ScoreCompared {
				b.Fatalf("%v %v", ev.Err, ev.Verdict.Score)
			}
			if ev.Final > 0 {
				success++
			}
		}
		if success == 0 {
			b.Fatal("no successes: the synthetic data is wrong")
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
