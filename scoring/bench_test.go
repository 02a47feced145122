package scoring

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"arena/episode"
	"arena/shop"
	"arena/suite"
)

// benchCase is one recorded episode: a problem, its trajectory and the
// catalog documents of the recommended ids.
type benchCase struct {
	problem *suite.Problem
	traj    *episode.Trajectory
	answers []Answer
}

// synthCases builds n synthetic 30-step trajectories over product, shop
// and voucher problems. Every step searches and observes ten products
// (about 1.3 KB of JSON), the last recommends and terminates.
func synthCases(tb testing.TB, n, steps int) []benchCase {
	tb.Helper()
	out := make([]benchCase, n)
	for i := range out {
		typ := suite.Types()[i%3]
		nItems := 1
		if typ != suite.TypeProduct {
			nItems = 2 + i%3
		}
		var items []suite.Item
		var answers []Answer
		for j := 0; j < nItems; j++ {
			id := fmt.Sprintf("%d%02d", 1000000+i, j)
			items = append(items, suite.Item{
				ProductID:  id,
				Title:      []string{fmt.Sprintf("Acme Ceramic Coffee Mug %d Blue Glaze 350ml", j)},
				Price:      []suite.PriceBound{between(10, 200)},
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
			answers = append(answers, Answer{ID: p.ProductID, Product: p})
		}
		prob := &suite.Problem{ID: fmt.Sprint(i), Type: typ, Query: "q", Reward: suite.Reward{Items: items, List: typ != suite.TypeProduct}}
		if typ == suite.TypeVoucher {
			prob.Voucher = &suite.Voucher{VoucherType: suite.VoucherShop, Threshold: 100, DiscountType: suite.DiscountPercentage, Discount: f64(0.2), Cap: f64(30), Budget: 180}
		}
		tr := &episode.Trajectory{EpisodeID: fmt.Sprint(i), EndReason: episode.ReasonTerminated}
		for s := 0; s < steps; s++ {
			var res []map[string]any
			for k := 0; k < 10; k++ {
				id := fmt.Sprintf("%d%02d", 5000000+i*10+k, s)
				if s == steps-2 && k < len(answers) {
					id = answers[k].ID
				}
				res = append(res, map[string]any{"product_id": id, "shop_id": "s1", "title": "Acme Ceramic Coffee Mug Blue Glaze 350ml Gift Set", "price": 49.5, "service": []string{"freeShipping"}, "sold_count": 120})
			}
			raw, err := json.Marshal(res)
			if err != nil {
				tb.Fatal(err)
			}
			tr.Steps = append(tr.Steps, episode.StepRecord{
				Think:     "The user wants a blue ceramic mug; product 5000001 costs 49.5 and ships free, so compare it with the others.",
				ToolCalls: []episode.ToolCall{{ID: fmt.Sprint(s), Name: "find_product", Parameters: json.RawMessage(`{"q":"blue ceramic mug","page":1}`)}},
				Results:   []episode.ToolResult{{ToolCallID: fmt.Sprint(s), Result: raw}},
			})
		}
		out[i] = benchCase{problem: prob, traj: tr, answers: answers}
	}
	return out
}

// BenchmarkRules10k: one op is the rule metrics (grounding set, format,
// length, gt, rule, shop, budget, ASR) of 10,000 recorded 30-step
// trajectories.
func BenchmarkRules10k(b *testing.B) {
	cases := synthCases(b, 10000, 30)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		success := 0
		for i := range cases {
			c := &cases[i]
			ids := make([]string, len(c.answers))
			for j, a := range c.answers {
				ids[j] = a.ID
			}
			m, err := Rules(ctx, Input{Problem: c.problem, Answers: c.answers, Trajectory: c.traj, Observed: ObservedAmong(c.traj, ids)}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			if m.Success {
				success++
			}
		}
		if success == 0 {
			b.Fatal("no successes: the synthetic data is wrong")
		}
	}
}

// TestSyntheticCasesScore checks the benchmark data means something:
// answers are grounded and score as designed.
func TestSyntheticCasesScore(t *testing.T) {
	for i, c := range synthCases(t, 6, 30) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m, err := Rules(context.Background(), Input{Problem: c.problem, Answers: c.answers, Trajectory: c.traj, Observed: ObservedIDs(c.traj)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Ungrounded) != 0 || m.Format != 1 || !near(m.Length, 1.0/30) || m.Rule != 1 || !m.Success {
				t.Fatalf("synthetic case: %+v", m)
			}
		})
	}
}
