// Package scoringtest builds synthetic recorded episodes for the scoring
// benchmarks and tests, so that the rule metrics (package scoring) and the
// full judging path (package judge) are measured on the same data.
package scoringtest

import (
	"encoding/json"
	"fmt"

	"arena/episode"
	"arena/scoring"
	"arena/shop"
	"arena/suite"
)

// Episode is one recorded episode: a problem, its trajectory and the
// catalog documents of the recommended ids.
type Episode struct {
	Problem    *suite.Problem
	Trajectory *episode.Trajectory
	Answers    []scoring.Answer
}

// Episodes builds n synthetic episodes of the given number of steps over
// product, shop and voucher problems in turn. Every step searches and
// observes ten products (about 1.3 KB of JSON); the answered ids are
// observed at step at (never if at is out of range, and every answer is
// then ungrounded); one answer in seven is a non-target id, so the
// constraints decide. Every step after the first cites and compares two
// products of the previous step's results, so a grounding judge reads
// every step in full. The data is deterministic: golden hashes in the
// judge tests depend on it.
func Episodes(n, steps, at int) []Episode {
	out := make([]Episode, n)
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
				Price:      []suite.PriceBound{{Op: suite.OpBetween, Lo: ptr(10.0), Hi: ptr(200.0)}},
				Service:    []string{"freeShipping"},
				SKUOptions: []map[string]string{{"color": "blue", "size": "large"}},
				Attributes: []map[string][]string{{"material": {"ceramic"}}},
			})
			p := &shop.Product{ProductID: id, ShopID: "s1", Title: fmt.Sprintf("Acme Ceramic Coffee Mug %d Blue Glaze 350ml Gift", j), Price: 50,
				Service:    shop.ServiceFreeShipping | shop.ServiceCOD,
				SKUOptions: []shop.SKU{{{Key: "color", Value: "red"}, {Key: "size", Value: "large"}}, {{Key: "color", Value: "blue"}, {Key: "size", Value: "large"}}},
				Attributes: []shop.Attribute{{Key: "material", Values: []string{"ceramic"}}}}
			if i%7 == 0 {
				p.ProductID += "x"
			}
			answers = append(answers, scoring.Answer{ID: p.ProductID, Product: p})
		}
		prob := &suite.Problem{ID: fmt.Sprint(i), Type: typ, Query: "q", Reward: suite.Reward{Items: items, List: typ != suite.TypeProduct}}
		if typ == suite.TypeVoucher {
			prob.Voucher = &suite.Voucher{VoucherType: suite.VoucherShop, Threshold: 100, DiscountType: suite.DiscountPercentage, Discount: ptr(0.2), Cap: ptr(30.0), Budget: 180}
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
				panic(err) // maps of strings and numbers always marshal
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
		out[i] = Episode{Problem: prob, Trajectory: tr, Answers: answers}
	}
	return out
}

func ptr(v float64) *float64 { return &v }
