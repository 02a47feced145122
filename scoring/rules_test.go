package scoring

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"arena/episode"
	"arena/shop"
	"arena/suite"
)

func f64(v float64) *float64 { return &v }

func between(lo, hi float64) suite.PriceBound {
	return suite.PriceBound{Op: suite.OpBetween, Lo: f64(lo), Hi: f64(hi)}
}
func lessThan(hi float64) suite.PriceBound {
	return suite.PriceBound{Op: suite.OpLessThan, Hi: f64(hi)}
}
func greaterThan(lo float64) suite.PriceBound {
	return suite.PriceBound{Op: suite.OpGreaterThan, Lo: f64(lo)}
}

// prod builds a product; opts are "shop=S", "price=P" style setters
// applied by the caller instead, to keep it simple.
func prod(id, shopID, title string, price float64) *shop.Product {
	return &shop.Product{ProductID: id, ShopID: shopID, Title: title, Price: price}
}

func productProblem(it suite.Item) *suite.Problem {
	return &suite.Problem{ID: "p", Type: suite.TypeProduct, Query: "q", Reward: suite.Reward{Items: []suite.Item{it}}}
}

func answers(ps ...*shop.Product) []Answer {
	out := make([]Answer, len(ps))
	for i, p := range ps {
		out[i] = Answer{ID: p.ProductID, Product: p}
	}
	return out
}

func mustRules(t *testing.T, in Input) Metrics {
	t.Helper()
	m, err := Rules(context.Background(), in, Options{})
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	return m
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPriceBounds(t *testing.T) {
	cases := []struct {
		name  string
		b     suite.PriceBound
		price float64
		want  bool
	}{
		{"less than below", lessThan(100), 99.99, true},
		{"less than at hi", lessThan(100), 100, true},
		{"less than above", lessThan(100), 100.01, false},
		{"greater than above", greaterThan(50), 50.01, true},
		{"greater than at lo", greaterThan(50), 50, true},
		{"greater than below", greaterThan(50), 49.99, false},
		{"between at lo", between(10, 20), 10, true},
		{"between at hi", between(10, 20), 20, true},
		{"between inside", between(10, 20), 15, true},
		{"between below", between(10, 20), 9.99, false},
		{"between above", between(10, 20), 20.01, false},
		{"between point", between(5, 5), 5, true},
		{"less than without hi", suite.PriceBound{Op: suite.OpLessThan, Lo: f64(1)}, 0, false},
		{"greater than without lo", suite.PriceBound{Op: suite.OpGreaterThan, Hi: f64(1)}, 5, false},
		{"between missing hi", suite.PriceBound{Op: suite.OpBetween, Lo: f64(1)}, 5, false},
		{"unknown op", suite.PriceBound{Op: "around", Lo: f64(1), Hi: f64(9)}, 5, false},
		{"NaN price", between(0, 10), math.NaN(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PriceOK(c.b, c.price); got != c.want {
				t.Fatalf("PriceOK(%s, %v) = %v, want %v", describeBound(c.b), c.price, got, c.want)
			}
			// The same bound through Rules, on a non-target product.
			p := prod("other", "s1", "Red Mug", c.price)
			m := mustRules(t, Input{Problem: productProblem(suite.Item{ProductID: "target", Price: []suite.PriceBound{c.b}}), Answers: answers(p)})
			want := 0.0
			if c.want {
				want = 1
			}
			if m.Rule != want || m.Success != c.want {
				t.Fatalf("rule = %v success = %v, want %v; failed %v", m.Rule, m.Success, want, m.Items[0].Failed)
			}
		})
	}
}

func TestItemConstraints(t *testing.T) {
	mug := func() *shop.Product {
		p := prod("other", "s1", "Ceramic Coffee Mug 350ml Blue", 120)
		p.Service = shop.ServiceFreeShipping | shop.ServiceCOD
		p.SKUOptions = []shop.SKU{
			{{Key: "color", Value: "red"}, {Key: "size", Value: "small"}},
			{{Key: "color", Value: "blue"}, {Key: "size", Value: "large"}},
			{{Key: "color", Value: "blue"}, {Key: "size", Value: "small"}},
		}
		p.Attributes = []shop.Attribute{{Key: "material", Values: []string{"ceramic", "glaze"}}, {Key: "brand", Values: []string{"Acme"}}}
		return p
	}
	cases := []struct {
		name        string
		item        suite.Item
		hits, cons  int
		variant     int
		wantGT      bool
		wantRuleOne bool
	}{
		{"title passes", suite.Item{ProductID: "t", Title: []string{"ceramic coffee mug blue"}}, 1, 1, 0, false, true},
		{"title fails", suite.Item{ProductID: "t", Title: []string{"stainless steel travel tumbler"}}, 0, 1, 0, false, false},
		{"service present", suite.Item{ProductID: "t", Service: []string{"freeShipping", "COD"}}, 2, 2, 0, false, true},
		{"service case-insensitive", suite.Item{ProductID: "t", Service: []string{"cod"}}, 1, 1, 0, false, true},
		{"service missing", suite.Item{ProductID: "t", Service: []string{"official", "COD"}}, 1, 2, 0, false, false},
		{"service unknown name", suite.Item{ProductID: "t", Service: []string{"teleport"}}, 0, 1, 0, false, false},
		{"empty service list", suite.Item{ProductID: "t", Service: []string{}, Title: []string{"coffee mug"}}, 1, 1, 0, false, true},
		{"sku single variant", suite.Item{ProductID: "t", SKUOptions: []map[string]string{{"color": "blue", "size": "large"}}}, 2, 2, 2, false, true},
		{"sku pairs split across variants", suite.Item{ProductID: "t", SKUOptions: []map[string]string{{"color": "red", "size": "large"}}}, 1, 2, 1, false, false},
		{"best variant is the later one", suite.Item{ProductID: "t", SKUOptions: []map[string]string{{"color": "blue", "size": "small"}}}, 2, 2, 3, false, true},
		{"attribute values", suite.Item{ProductID: "t", Attributes: []map[string][]string{{"material": {"ceramic"}}, {"brand": {"acme"}}}}, 2, 2, 1, false, true},
		{"attribute missing value", suite.Item{ProductID: "t", Attributes: []map[string][]string{{"material": {"ceramic", "steel"}}}}, 1, 2, 1, false, false},
		{"sku and attributes together", suite.Item{ProductID: "t", SKUOptions: []map[string]string{{"size": "large"}}, Attributes: []map[string][]string{{"material": {"glaze"}}}}, 2, 2, 2, false, true},
		{"sku pair satisfied by attribute", suite.Item{ProductID: "t", SKUOptions: []map[string]string{{"material": "ceramic", "color": "red"}}}, 2, 2, 1, false, true},
		{"everything", suite.Item{ProductID: "t", Title: []string{"Ceramic Coffee Mug"}, Price: []suite.PriceBound{between(100, 120)}, Service: []string{"COD"},
			SKUOptions: []map[string]string{{"color": "blue"}}, Attributes: []map[string][]string{{"brand": {"Acme"}}}}, 5, 5, 2, false, true},
		{"matching id counts as 1", suite.Item{ProductID: "other", Title: []string{"nothing alike"}, Price: []suite.PriceBound{lessThan(1)}}, 0, 2, 0, true, true},
		{"no constraints, wrong id", suite.Item{ProductID: "t"}, 0, 0, 0, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustRules(t, Input{Problem: productProblem(c.item), Answers: answers(mug())})
			it := m.Items[0]
			if it.Hits != c.hits || it.Constraints != c.cons || it.GT != c.wantGT || it.Variant != c.variant {
				t.Fatalf("hits/constraints/gt/variant = %d/%d/%v/%d, want %d/%d/%v/%d (failed %v)",
					it.Hits, it.Constraints, it.GT, it.Variant, c.hits, c.cons, c.wantGT, c.variant, it.Failed)
			}
			if (m.Rule == 1) != c.wantRuleOne || m.Success != c.wantRuleOne {
				t.Fatalf("rule = %v success = %v, want rule==1: %v", m.Rule, m.Success, c.wantRuleOne)
			}
			if c.cons > 0 && !c.wantGT && !near(m.Rule, float64(c.hits)/float64(c.cons)) {
				t.Fatalf("rule = %v, want %d/%d", m.Rule, c.hits, c.cons)
			}
		})
	}
}

func TestMultiItemByPosition(t *testing.T) {
	items := []suite.Item{
		{ProductID: "a", Title: []string{"red wool scarf"}},
		{ProductID: "b", Title: []string{"leather belt"}, Price: []suite.PriceBound{lessThan(50)}},
	}
	pa := prod("a", "s1", "Red Wool Scarf", 10)
	pb := prod("b2", "s1", "Leather Belt Brown", 80) // title ok, price not
	problem := &suite.Problem{ID: "p", Type: suite.TypeShop, Query: "q", Reward: suite.Reward{Items: items, List: true}}
	cases := []struct {
		name     string
		answers  []Answer
		gt, rule float64
		shop     float64
	}{
		{"in order", answers(pa, pb), 0.5, (1 + 0.5) / 2, 1},
		{"swapped positions", answers(pb, pa), 0, (0 + 0.5) / 2, 1}, // only b's price bound holds for pa
		{"one missing", answers(pa), 0.5, 0.5, 0},
		{"none", nil, 0, 0, 0},
		{"extra ignored", answers(pa, pb, prod("x", "s9", "x", 1)), 0.5, 0.75, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustRules(t, Input{Problem: problem, Answers: c.answers})
			if !near(m.GT, c.gt) || !near(m.Rule, c.rule) || m.Shop != c.shop {
				t.Fatalf("gt/rule/shop = %v/%v/%v, want %v/%v/%v", m.GT, m.Rule, m.Shop, c.gt, c.rule, c.shop)
			}
		})
	}
}

func TestShop(t *testing.T) {
	items := []suite.Item{{ProductID: "a"}, {ProductID: "b"}, {ProductID: "c"}}
	problem := &suite.Problem{ID: "p", Type: suite.TypeShop, Query: "q", Reward: suite.Reward{Items: items, List: true}}
	cases := []struct {
		name    string
		answers []Answer
		shop    float64
		success bool
	}{
		{"one shop", answers(prod("a", "s1", "A", 1), prod("b", "s1", "B", 1), prod("c", "s1", "C", 1)), 1, true},
		{"two shops", answers(prod("a", "s1", "A", 1), prod("b", "s2", "B", 1), prod("c", "s1", "C", 1)), 0, false},
		{"unknown id", []Answer{{ID: "a", Product: prod("a", "s1", "A", 1)}, {ID: "b"}, {ID: "c", Product: prod("c", "s1", "C", 1)}}, 0, false},
		{"too few", answers(prod("a", "s1", "A", 1), prod("b", "s1", "B", 1)), 0, false},
		{"empty shop id", answers(prod("a", "", "A", 1), prod("b", "", "B", 1), prod("c", "", "C", 1)), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustRules(t, Input{Problem: problem, Answers: c.answers})
			if m.Shop != c.shop || m.Success != c.success {
				t.Fatalf("shop = %v success = %v, want %v %v (rule %v)", m.Shop, m.Success, c.shop, c.success, m.Rule)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	fixed := func(typ string, threshold, face, budget float64) *suite.Voucher {
		return &suite.Voucher{VoucherType: typ, Threshold: threshold, DiscountType: suite.DiscountFixed, FaceValue: f64(face), Budget: budget}
	}
	pct := func(typ string, threshold, d, cap, budget float64) *suite.Voucher {
		return &suite.Voucher{VoucherType: typ, Threshold: threshold, DiscountType: suite.DiscountPercentage, Discount: f64(d), Cap: f64(cap), Budget: budget}
	}
	two := []suite.Item{{ProductID: "a"}, {ProductID: "b"}}
	cases := []struct {
		name    string
		v       *suite.Voucher
		answers []Answer
		budget  float64
		applied bool
		after   float64
	}{
		{"within budget without voucher", fixed(suite.VoucherPlatform, 1000, 10, 200), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 1, false, 190},
		{"fixed brings it under", fixed(suite.VoucherPlatform, 150, 30, 170), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 1, true, 160},
		{"fixed not enough", fixed(suite.VoucherPlatform, 150, 10, 170), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 0, true, 180},
		{"fixed exactly at budget", fixed(suite.VoucherPlatform, 150, 20, 170), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 1, true, 170},
		{"at threshold applies", fixed(suite.VoucherPlatform, 190, 30, 170), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 1, true, 160},
		{"below threshold", fixed(suite.VoucherPlatform, 190.01, 30, 170), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 0, false, 190},
		{"percentage uncapped", pct(suite.VoucherPlatform, 100, 0.1, 50, 171), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 1, true, 171},
		{"percentage capped, over budget", pct(suite.VoucherPlatform, 100, 0.5, 20, 169), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 0, true, 170}, // max(190·0.5, 190−20)
		{"percentage cap binds, fits", pct(suite.VoucherPlatform, 100, 0.5, 20, 170), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 1, true, 170},
		{"shop voucher one shop", fixed(suite.VoucherShop, 150, 30, 170), answers(prod("a", "s1", "A", 90), prod("b", "s1", "B", 100)), 1, true, 160},
		{"shop voucher across two shops", fixed(suite.VoucherShop, 150, 30, 170), answers(prod("a", "s1", "A", 90), prod("b", "s2", "B", 100)), 0, false, 190},
		{"missing item", fixed(suite.VoucherPlatform, 0, 30, 1000), answers(prod("a", "s1", "A", 90)), 0, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problem := &suite.Problem{ID: "p", Type: suite.TypeVoucher, Query: "q", Reward: suite.Reward{Items: two, List: true}, Voucher: c.v}
			m := mustRules(t, Input{Problem: problem, Answers: c.answers})
			if m.Budget != c.budget || m.VoucherApplied != c.applied || !near(m.AfterVoucher, c.after) {
				t.Fatalf("budget/applied/after = %v/%v/%v, want %v/%v/%v", m.Budget, m.VoucherApplied, m.AfterVoucher, c.budget, c.applied, c.after)
			}
			// Ids differ from the targets and there are no other
			// constraints, so rule (and thus success) is 0 by design;
			// check success on the target ids instead.
			tgt := make([]Answer, len(c.answers))
			for i, a := range c.answers {
				p := *a.Product
				p.ProductID = two[i].ProductID
				tgt[i] = Answer{ID: p.ProductID, Product: &p}
			}
			m = mustRules(t, Input{Problem: problem, Answers: tgt})
			if m.Success != (c.budget == 1) {
				t.Fatalf("success = %v with rule %v budget %v", m.Success, m.Rule, m.Budget)
			}
		})
	}
}

func TestASRByType(t *testing.T) {
	a, b := prod("a", "s1", "A", 60), prod("b", "s2", "B", 60)
	items := []suite.Item{{ProductID: "a"}, {ProductID: "b"}}
	v := &suite.Voucher{VoucherType: suite.VoucherPlatform, Threshold: 0, DiscountType: suite.DiscountFixed, FaceValue: f64(10), Budget: 100}
	cases := []struct {
		name    string
		p       *suite.Problem
		answers []Answer
		success bool
	}{
		{"product rule 1", productProblem(suite.Item{ProductID: "a"}), answers(a), true},
		{"product rule 0", productProblem(suite.Item{ProductID: "a"}), answers(b), false},
		{"shop rule 1 shop 0", &suite.Problem{Type: suite.TypeShop, Reward: suite.Reward{Items: items}}, answers(a, b), false},
		{"shop rule 1 shop 1", &suite.Problem{Type: suite.TypeShop, Reward: suite.Reward{Items: items}}, answers(a, prod("b", "s1", "B", 1)), true},
		{"shop rule <1 shop 1", &suite.Problem{Type: suite.TypeShop, Reward: suite.Reward{Items: items}}, answers(a, prod("x", "s1", "B", 1)), false},
		{"voucher budget 0", &suite.Problem{Type: suite.TypeVoucher, Voucher: v, Reward: suite.Reward{Items: items}}, answers(a, b), false},
		{"voucher budget 1", &suite.Problem{Type: suite.TypeVoucher, Voucher: v, Reward: suite.Reward{Items: items}}, answers(a, prod("b", "s2", "B", 50)), true},
		{"voucher rule <1", &suite.Problem{Type: suite.TypeVoucher, Voucher: v, Reward: suite.Reward{Items: items}}, answers(a, prod("x", "s2", "B", 1)), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustRules(t, Input{Problem: c.p, Answers: c.answers})
			if m.Success != c.success {
				t.Fatalf("success = %v, want %v (rule %v shop %v budget %v)", m.Success, c.success, m.Rule, m.Shop, m.Budget)
			}
		})
	}
}

func TestUngrounded(t *testing.T) {
	p := productProblem(suite.Item{ProductID: "a"})
	a := prod("a", "s1", "A", 1)
	cases := []struct {
		name     string
		observed map[string]bool
		success  bool
	}{
		{"no check", nil, true},
		{"observed", map[string]bool{"a": true}, true},
		{"never observed", map[string]bool{"b": true}, false},
		{"empty set", map[string]bool{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustRules(t, Input{Problem: p, Answers: answers(a), Observed: c.observed})
			if m.Success != c.success {
				t.Fatalf("success = %v, want %v", m.Success, c.success)
			}
			if !c.success {
				if m.GT != 0 || m.Rule != 0 || len(m.Ungrounded) != 1 || len(m.Reasons) == 0 || !strings.Contains(m.Reasons[0], "ungrounded") {
					t.Fatalf("ungrounded answer: gt %v rule %v ungrounded %v reasons %v", m.GT, m.Rule, m.Ungrounded, m.Reasons)
				}
				if Final(&m, 1) != 0 {
					t.Fatal("final of an ungrounded answer is not 0")
				}
			}
		})
	}
}

func TestObservedIDs(t *testing.T) {
	tr := &episode.Trajectory{Steps: []episode.StepRecord{
		{Think: "I will cite 999", Results: []episode.ToolResult{
			{ToolCallID: "1", Result: json.RawMessage(`[{"product_id":"111","shop_id":"9"},{"product_id":222}]`)},
			{ToolCallID: "2", Error: &episode.ToolError{Code: "not_found", Message: `{"product_id":"333"}`}},
		}},
		{Results: []episode.ToolResult{{ToolCallID: "3", Result: json.RawMessage(`{"products":[{"product_id":"444"}]}`)}}},
	}}
	got := ObservedIDs(tr)
	for _, id := range []string{"111", "222", "444"} {
		if !got[id] {
			t.Errorf("%s not observed", id)
		}
	}
	for _, id := range []string{"333", "999", "9"} {
		if got[id] {
			t.Errorf("%s observed but never returned by a tool", id)
		}
	}
}

func step(think string, resp *string, calls ...episode.ToolCall) episode.StepRecord {
	return episode.StepRecord{Think: think, ToolCalls: calls, Response: resp}
}

func call(id, name, params string) episode.ToolCall {
	return episode.ToolCall{ID: id, Name: name, Parameters: json.RawMessage(params)}
}

func TestFormatAndLength(t *testing.T) {
	resp := "here you go"
	empty := "  "
	good := step("look for mugs", nil, call("1", "find_product", `{"q":"mug"}`))
	cases := []struct {
		name   string
		steps  []episode.StepRecord
		end    episode.EndReason
		format float64
		length float64
	}{
		{"no steps", nil, episode.ReasonTerminated, 0, 0},
		{"one good terminated", []episode.StepRecord{good}, episode.ReasonTerminated, 1, 1},
		{"response only", []episode.StepRecord{step("done", &resp)}, episode.ReasonTerminated, 1, 1},
		{"blank response, no calls", []episode.StepRecord{step("done", &empty)}, episode.ReasonTerminated, 0, 1},
		{"empty think", []episode.StepRecord{good, step(" ", nil, call("2", "terminate", `{"status":"success"}`))}, episode.ReasonTerminated, 0.5, 0.5},
		{"two think blocks", []episode.StepRecord{step("<think>a</think><think>b</think>", nil, call("1", "find_product", `{}`))}, episode.ReasonTerminated, 0, 1},
		{"params not an object", []episode.StepRecord{step("t", nil, call("1", "find_product", `["q"]`))}, episode.ReasonTerminated, 0, 1},
		{"params null", []episode.StepRecord{step("t", nil, call("1", "find_product", `null`))}, episode.ReasonTerminated, 0, 1},
		{"no call id", []episode.StepRecord{step("t", nil, call("", "find_product", `{}`))}, episode.ReasonTerminated, 0, 1},
		{"unknown tool observed", []episode.StepRecord{{Think: "t", ToolCalls: []episode.ToolCall{call("1", "buy_now", `{}`)},
			Results: []episode.ToolResult{{ToolCallID: "1", Error: &episode.ToolError{Code: "unknown_tool"}}}}}, episode.ReasonTerminated, 0, 1},
		{"not found is still well formed", []episode.StepRecord{{Think: "t", ToolCalls: []episode.ToolCall{call("1", "view_product_information", `{"product_ids":"9"}`)},
			Results: []episode.ToolResult{{ToolCallID: "1", Error: &episode.ToolError{Code: "not_found"}}}}}, episode.ReasonTerminated, 1, 1},
		{"four steps terminated", []episode.StepRecord{good, good, good, good}, episode.ReasonTerminated, 1, 0.25},
		{"max steps", []episode.StepRecord{good, good}, episode.ReasonMaxSteps, 1, 0},
		{"violation", []episode.StepRecord{good}, episode.ReasonThinkTooLong, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := &episode.Trajectory{Steps: c.steps, EndReason: c.end}
			if got := Format(tr); !near(got, c.format) {
				t.Errorf("format = %v, want %v", got, c.format)
			}
			if got := Length(tr); !near(got, c.length) {
				t.Errorf("length = %v, want %v", got, c.length)
			}
		})
	}
}

func TestViolationZeroesSuccess(t *testing.T) {
	p := productProblem(suite.Item{ProductID: "a"})
	tr := &episode.Trajectory{Steps: []episode.StepRecord{step("t", nil, call("1", "find_product", `{}`))}, EndReason: episode.ReasonStepTimeout}
	m := mustRules(t, Input{Problem: p, Answers: answers(prod("a", "s", "A", 1)), Trajectory: tr})
	if m.Success || m.Rule != 0 || len(m.Reasons) == 0 {
		t.Fatalf("violation: success %v rule %v reasons %v", m.Success, m.Rule, m.Reasons)
	}
}

func TestCoefficientAndFinal(t *testing.T) {
	cases := []struct{ q, c float64 }{
		{0, 0.3}, {0.4, 0.65}, {0.79, 0.3 + 0.7*0.79/0.8}, {0.8, 1}, {0.9, 1}, {1, 1}, {-1, 0.3}, {2, 1}, {math.NaN(), 0.3},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(fmtFloat(c.q), ".", "_"), func(t *testing.T) {
			if got := Coefficient(c.q); !near(got, c.c) {
				t.Fatalf("c(%v) = %v, want %v", c.q, got, c.c)
			}
			m := Metrics{Success: true}
			if got := Final(&m, c.q); !near(got, c.c) {
				t.Fatalf("final = %v, want %v", got, c.c)
			}
			m.Success = false
			if Final(&m, c.q) != 0 {
				t.Fatal("final of a failure is not 0")
			}
		})
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func TestTokenSetSimilarity(t *testing.T) {
	cases := []struct {
		phrase, title string
		want          float64
	}{
		{"Red Mug", "red mug", 1},
		{"red-mug!!", "RED MUG 350ml", 1},
		{"red mug", "blue mug", 0.5},
		{"", "anything", 1},
		{"a b c d e", "a b c d", 0.8},
		{"【Arrive 1-3 Days】Waterproof", "arrive 1 3 days waterproof bag", 1},
	}
	for _, c := range cases {
		t.Run(c.phrase, func(t *testing.T) {
			if got := TokenSetSimilarity(c.phrase, c.title); !near(got, c.want) {
				t.Fatalf("sim = %v, want %v", got, c.want)
			}
		})
	}
}

func TestRulesErrors(t *testing.T) {
	cases := []struct {
		name string
		p    *suite.Problem
	}{
		{"nil problem", nil},
		{"no items", &suite.Problem{Type: suite.TypeProduct}},
		{"voucher without voucher", &suite.Problem{Type: suite.TypeVoucher, Reward: suite.Reward{Items: []suite.Item{{ProductID: "a"}}}}},
		{"unknown type", &suite.Problem{Type: "knowledge", Reward: suite.Reward{Items: []suite.Item{{ProductID: "a"}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Rules(context.Background(), Input{Problem: c.p}, Options{}); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestObservedAmong(t *testing.T) {
	tr := &episode.Trajectory{Steps: []episode.StepRecord{{Results: []episode.ToolResult{
		{ToolCallID: "1", Result: json.RawMessage(`[{"product_id" : "111", "description": "see \"product_id\": \"999\""},{"product_id":2.22e2},{"product_id":"a\u0062c"}]`)},
	}}}}
	got := ObservedAmong(tr, []string{"111", "222", "abc", "999", "333"})
	want := map[string]bool{"111": true, "222": true, "abc": true}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for id := range want {
		if !got[id] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	all := ObservedIDs(tr)
	if len(all) != 3 || all["999"] {
		t.Fatalf("ObservedIDs = %v", all)
	}
}

func TestCountFold(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{{"", 0}, {"<think>", 1}, {"<THINK>a<think>", 2}, {"<thin", 0}, {"a < b <think", 0}}
	for _, c := range cases {
		t.Run(c.s, func(t *testing.T) {
			if got := countFold(c.s, "<think>"); got != c.want {
				t.Fatalf("countFold(%q) = %d, want %d", c.s, got, c.want)
			}
		})
	}
}

// TestOddInputsDoNotPanic: malformed but typed input gives scores or an
// error, never a panic.
func TestOddInputsDoNotPanic(t *testing.T) {
	nan := prod("a", "s", "A", math.NaN())
	v := &suite.Voucher{VoucherType: "galactic", DiscountType: "bogus", Budget: 10}
	cases := []struct {
		name string
		in   Input
	}{
		{"nil products", Input{Problem: productProblem(suite.Item{ProductID: "a", Title: []string{"x"}}), Answers: []Answer{{ID: "a"}, {}}}},
		{"NaN price", Input{Problem: &suite.Problem{Type: suite.TypeVoucher, Voucher: v, Reward: suite.Reward{Items: []suite.Item{{ProductID: "a", Price: []suite.PriceBound{{Op: suite.OpBetween}}}}}}, Answers: answers(nan)}},
		{"empty trajectory", Input{Problem: productProblem(suite.Item{ProductID: "a"}), Trajectory: &episode.Trajectory{}, Observed: map[string]bool{}}},
		{"steps without results", Input{Problem: productProblem(suite.Item{ProductID: "a"}), Trajectory: &episode.Trajectory{Steps: make([]episode.StepRecord, 3)}}},
		{"empty maps", Input{Problem: productProblem(suite.Item{ProductID: "a", SKUOptions: []map[string]string{{}}, Attributes: []map[string][]string{{"k": nil}}}), Answers: answers(prod("b", "", "", 0))}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Rules(context.Background(), c.in, Options{})
			if err == nil && m.Success && c.name != "nil products" {
				t.Fatalf("odd input succeeded: %+v", m)
			}
		})
	}
}
