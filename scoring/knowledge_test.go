package scoring

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/episode"
	"arena/shop"
	"arena/suite"
)

// TestKnowledgeRules scores knowledge problems as ShoppingBench's eval_web
// does (src/agent/run_evaluate.py): the recommended id equal to the
// target is a full score; otherwise the rule is the share of met
// constraints, the key attribute in title or description being one and
// the title phrase (ShoppingBench: the target's title) another, and
// success needs them all.
func TestKnowledgeRules(t *testing.T) {
	imported := loadReference(t, suite.FormatShoppingBench, "shoppingbench/knowledge_sample.jsonl")
	violin := imported[0] // Knowledge_Attribute "Violin", a violin bow
	if violin.Type != suite.TypeKnowledge || violin.Knowledge != "Violin" {
		t.Fatalf("sample 1 imported as %s %q", violin.Type, violin.Knowledge)
	}
	title := violin.Reward.Items[0].Title[0]
	lo, hi := 100.0, 300.0
	generated := &suite.Problem{ID: "g", Type: suite.TypeKnowledge, Query: "Which brand? A speaker from it.", Knowledge: "Kovix",
		Reward: suite.Reward{Items: []suite.Item{{ProductID: "t", Title: []string{"Bluetooth Speaker"},
			Price: []suite.PriceBound{{Op: suite.OpBetween, Lo: &lo, Hi: &hi}}}}}}
	prod := func(id, title, desc string, price float64) *shop.Product {
		return &shop.Product{ProductID: id, ShopID: "s", Title: title, Description: desc, Price: price}
	}
	for _, tc := range []struct {
		name    string
		p       *suite.Problem
		answer  *shop.Product
		rule    float64
		success bool
		failed  string
	}{
		{"the target", &violin, prod(violin.Targets[0], "anything", "", 1), 1, true, ""},
		{"same title, attribute in title", &violin, prod("x", title, "", 1), 1, true, ""},
		{"attribute only in the description", &violin, prod("x", strings.ReplaceAll(title, "Violin", "Fiddle"), "for the violin", 1), 1, true, ""},
		{"title fits, attribute nowhere", &violin, prod("x", strings.ReplaceAll(title, "Violin", "Fiddle"), "for the cello", 1), 0.5, false, "knowledge \"Violin\""},
		{"attribute but another title", &violin, prod("x", "Violin Rosin Cake", "", 1), 0.5, false, "title"},
		{"neither", &violin, prod("x", "Guitar Strings Nickel", "", 1), 0, false, "knowledge"},
		{"generated: all three", generated, prod("y", "Kovix Waterproof Bluetooth Speaker", "", 200), 1, true, ""},
		{"generated: brand in the description", generated, prod("y", "Waterproof Bluetooth Speaker", "Genuine Kovix speaker.", 200), 1, true, ""},
		{"generated: another brand", generated, prod("y", "Trelo Bluetooth Speaker", "Genuine Trelo speaker.", 200), 2.0 / 3, false, "knowledge \"Kovix\""},
		{"generated: over the price", generated, prod("y", "Kovix Bluetooth Speaker", "", 450), 2.0 / 3, false, "price"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Rules(context.Background(), Input{Problem: tc.p, Answers: []Answer{{ID: tc.answer.ProductID, Product: tc.answer}}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := m.Rule - tc.rule; diff > 1e-9 || diff < -1e-9 || m.Success != tc.success || m.Type != suite.TypeKnowledge {
				t.Fatalf("rule %v success %v (type %s), want %v %v; failed %v", m.Rule, m.Success, m.Type, tc.rule, tc.success, m.Items[0].Failed)
			}
			if tc.failed != "" && !strings.Contains(strings.Join(m.Items[0].Failed, "; "), tc.failed) {
				t.Fatalf("failed %v, want one about %q", m.Items[0].Failed, tc.failed)
			}
		})
	}
	broken := violin
	broken.Knowledge = ""
	if _, err := Rules(context.Background(), Input{Problem: &broken}, Options{}); err == nil {
		t.Fatal("a knowledge problem without its attribute was scored")
	}
}

// TestNewToolsDoNotGround checks that web_search and python_execute
// outputs cannot make a product id "observed": an agent that prints a
// product id with python_execute, or finds one in a web page, has still
// not been shown that product by the shop.
func TestNewToolsDoNotGround(t *testing.T) {
	tools, err := shop.NewTools(shop.ToolsOptions{Index: mustTinyIndex(t)}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res := tools.Execute(context.Background(), shop.ToolPythonExecute,
		json.RawMessage(`{"code": "print('{\"product_id\": \"4428034196\"}', ['product_id', 77])"}`))
	if !res.OK() {
		t.Fatal(res.Err.Message)
	}
	web := json.RawMessage(`[{"url": "u", "title": "product_id: 4428034196", "content": "{\"product_id\": \"4428034196\"}"}]`)
	tr := &episode.Trajectory{Steps: []episode.StepRecord{{
		ToolCalls: []episode.ToolCall{{ID: "a", Name: shop.ToolPythonExecute}, {ID: "b", Name: shop.ToolWebSearch}},
		Results:   []episode.ToolResult{{ToolCallID: "a", Result: res.Output}, {ToolCallID: "b", Result: web}},
	}}}
	if got := ObservedIDs(tr); len(got) != 0 {
		t.Fatalf("tool text made ids observed: %v (python output %s)", got, res.Output)
	}
}

func mustTinyIndex(t *testing.T) *shop.Index {
	t.Helper()
	cat, err := shop.NewCatalog([]shop.Product{{ProductID: "4428034196", Title: "Jersey", Price: 1}})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return idx
}
