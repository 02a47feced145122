package calibrate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"arena/knowledge"
	"arena/shop"
	"arena/shop/gen"
	"arena/suite"
)

// TestCalibrateSeparatesAgents plays the baselines over a small generated
// suite, through the real episode protocol and rule metrics: the solver
// solves nearly everything, the lazy agent little, and the heuristic's
// success falls with its skill. The full-size numbers are in
// docs/benchmarks.md; this only checks the order, which a broken agent,
// scorer or generator would upset.
func TestCalibrateSeparatesAgents(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon"))
	ctx := context.Background()
	g, err := gen.New(gen.Options{Products: 5000, Seed: 3}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	prods, err := g.Products(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := shop.NewCatalog(prods)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	web, err := knowledge.Build(ctx, cat, knowledge.Options{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	sg, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: 11, Knowledge: web}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	const perType = 20
	mix := suite.Mix{suite.TypeProduct: 1, suite.TypeShop: 1, suite.TypeVoucher: 1, suite.TypeKnowledge: 1}
	problems, _, err := sg.Generate(ctx, suite.Request{Count: 4 * perType, Mix: mix})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Index: idx, Knowledge: web}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	var last int
	rep, err := c.Run(ctx, problems, DefaultAgents(1, 0.4), func(done, total int) {
		if done <= last || done > total {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != 4*len(problems) {
		t.Errorf("progress ended at %d, want %d", last, 4*len(problems))
	}
	rate := map[string]float64{}
	for _, a := range rep.Agents {
		// The reference agent at full skill reasons from what it saw in
		// its own words; the lazy agent's one fixed think is a template.
		switch a.Name {
		case "heuristic:1.0":
			if a.Templated.Solved > 0 || a.Q < 0.7 {
				t.Errorf("%s: q %.2f, %d of %d runs templated; want q >= 0.7 and none templated", a.Name, a.Q, a.Templated.Solved, a.Templated.Total)
			}
		case "lazy":
			if a.Templated.Solved != a.Templated.Total {
				t.Errorf("lazy: %d of %d runs templated, want all", a.Templated.Solved, a.Templated.Total)
			}
		}
		rate[a.Name] = a.All.Rate()
		if a.All.Total != len(problems) {
			t.Errorf("%s played %d problems, want %d", a.Name, a.All.Total, len(problems))
		}
		t.Logf("%-14s all %.3f  by type %v  steps %.1f  q %.2f  templated runs %d/%d", a.Name, a.All.Rate(), a.ByType, a.Steps, a.Q, a.Templated.Solved, a.Templated.Total)
	}
	if rate["lazy"] > 0.10 {
		t.Errorf("the lazy agent solves %.3f, want <= 0.10: the suite rewards taking the first hit", rate["lazy"])
	}
	if rate["solver"] < 0.95 {
		t.Errorf("solver solves %.3f, want >= 0.95: some problems are unsolvable", rate["solver"])
	}
	if !(rate["lazy"] < rate["heuristic:0.4"] && rate["heuristic:0.4"] < rate["heuristic:1.0"] && rate["heuristic:1.0"] <= rate["solver"]) {
		t.Errorf("want lazy < heuristic:0.4 < heuristic:1.0 <= solver, got %v", rate)
	}

	raw, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Agents map[string]map[string]*float64 `json:"agents"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lazy", "heuristic:1.0", "heuristic:0.4", "solver"} {
		rates := out.Agents[name]
		for _, k := range []string{"product", "shop", "voucher", "knowledge", "all"} {
			if v := rates[k]; v == nil || *v < 0 || *v > 1 {
				t.Errorf("json %s.%s = %v, want a rate in [0, 1]", name, k, v)
			}
		}
	}
}
