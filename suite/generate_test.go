package suite

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"arena/shop"
)

func TestGenerateDeterministic(t *testing.T) {
	ctx := context.Background()
	a, _, err := testGenerator(t, 5000, 9).Generate(ctx, Request{Count: 60})
	if err != nil {
		t.Fatal(err)
	}
	g := testGenerator(t, 5000, 9)
	g.opts.Workers = 1 // the output must not depend on parallelism
	b, _, err := g.Generate(ctx, Request{Count: 60})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different problems")
	}
	c, _, err := testGenerator(t, 5000, 10).Generate(ctx, Request{Count: 60})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same problems")
	}
}

func TestGenerateShape(t *testing.T) {
	g := testGenerator(t, 20_000, 3)
	ps, rep, err := g.Generate(context.Background(), Request{Count: 600, Mix: Mix{TypeProduct: 1, TypeShop: 1, TypeVoucher: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Problems < 590 {
		t.Fatalf("generated %d of 600: %+v", rep.Problems, rep)
	}
	owner := map[string]string{}
	for _, p := range ps {
		for _, tg := range p.Targets {
			if o, ok := owner[tg]; ok && o != p.ID {
				t.Fatalf("target %s used by %s and %s", tg, o, p.ID)
			}
			owner[tg] = p.ID
		}
	}
	leads := map[Type]map[string]bool{}
	diffs := map[Type]map[Difficulty]int{}
	for _, p := range ps {
		t.Run(p.ID, func(t *testing.T) {
			if id, _ := p.ContentID(); id != p.ID {
				t.Errorf("id %s is not the content id %s", p.ID, id)
			}
			n := len(p.Reward.Items)
			switch p.Type {
			case TypeProduct:
				if n != 1 || p.Reward.List {
					t.Errorf("product problem with %d items (list %v)", n, p.Reward.List)
				}
			case TypeShop:
				if n < 2 || n > 5 {
					t.Errorf("shop problem with %d items", n)
				}
			case TypeVoucher:
				if n < 1 || n > 4 || p.Voucher == nil {
					t.Fatalf("voucher problem with %d items, voucher %v", n, p.Voucher)
				}
				total := 0.0
				for _, id := range p.Targets {
					prod, _ := g.cat.Product(id)
					total += prod.Price
				}
				after, ok := p.Voucher.Apply(total)
				if !ok || after > p.Voucher.Budget || after-p.Voucher.PriceAfterVoucher > 0.01 {
					t.Errorf("targets total %.2f → %.2f (applies %v), budget %v, price_after_voucher %v", total, after, ok, p.Voucher.Budget, p.Voucher.PriceAfterVoucher)
				}
				if p.Difficulty != Easy && total <= p.Voucher.Budget {
					t.Errorf("%s voucher problem is within budget without the voucher (%.2f <= %v)", p.Difficulty, total, p.Voucher.Budget)
				}
				if !strings.Contains(p.Query, "voucher with the following rules") && !strings.Contains(p.Query, "voucher with these rules") {
					t.Errorf("query does not state the voucher rules: %q", p.Query)
				}
			}
			for i, it := range p.Reward.Items {
				prod, ok := g.cat.Product(it.ProductID)
				if !ok {
					t.Fatalf("item %d: unknown target %s", i, it.ProductID)
				}
				for _, b := range it.Price {
					if !b.Contains(prod.Price) {
						t.Errorf("item %d: bound %s excludes the target's price %v", i, b.Filter(), prod.Price)
					}
				}
				if n := len(it.Attributes) + len(it.SKUOptions); n == 0 || n > 3 {
					t.Errorf("item %d: %d attribute/SKU pairs, want 1-3", i, n)
				}
				if len(it.Title) != 1 || !titleSimilar(prod.Title, it.Title[0]) {
					t.Errorf("item %d: title phrase %q does not match the target's title %q", i, it.Title, prod.Title)
				}
				if len(it.SKUOptions) > 0 {
					var skus [][2]string
					for _, kv := range it.SKUOptions {
						for k, v := range kv {
							skus = append(skus, [2]string{k, v})
						}
					}
					if n := matchingVariants(prod, skus); n != 1 {
						t.Errorf("item %d: %d of the target's variants meet %v, want exactly one", i, n, it.SKUOptions)
					}
				}
				c := specOf(prod, it)
				if _, d := g.survey(c); d < g.opts.MinDistractors {
					t.Errorf("item %d: %d distractors, want at least %d", i, d, g.opts.MinDistractors)
				}
				if len(p.Reward.Items) == 1 && g.rawQuerySolves(p.Query, c) {
					t.Errorf("the first hit for the query as written solves it:\n%s", p.Query)
				}
			}
			if u := Unstated(p.Query, &p, g.cat); u != nil {
				t.Errorf("the query does not state %v:\n%s", u, p.Query)
			}
		})
		words := strings.Fields(p.Query)
		if leads[p.Type] == nil {
			leads[p.Type], diffs[p.Type] = map[string]bool{}, map[Difficulty]int{}
		}
		leads[p.Type][strings.Join(words[:2], " ")] = true
		diffs[p.Type][p.Difficulty]++
	}
	for _, typ := range Types() {
		if len(leads[typ]) < 10 {
			t.Errorf("%s: only %d distinct openings: %v", typ, len(leads[typ]), leads[typ])
		}
		for _, d := range []Difficulty{Easy, Medium, Hard} {
			if typ != TypeVoucher && diffs[typ][d] == 0 {
				t.Errorf("%s: no %s problems: %v", typ, d, diffs[typ])
			}
		}
		t.Logf("%s difficulties: %v, %d openings", typ, diffs[typ], len(leads[typ]))
	}
}

// specOf rebuilds an item's constraints from its reward JSON.
func specOf(prod *shop.Product, it Item) *itemSpec {
	c := &itemSpec{target: prod, core: coreName{words: strings.Fields(it.Title[0])}, services: it.Service}
	if len(it.Price) > 0 {
		c.price = &it.Price[0]
	}
	for _, a := range it.Attributes {
		for k, vs := range a {
			c.attrs = append(c.attrs, [2]string{k, vs[0]})
		}
	}
	for _, kv := range it.SKUOptions {
		for k, v := range kv {
			c.skus = append(c.skus, [2]string{k, v})
		}
	}
	return c
}

// TestQueriesDescribeTargets measures the default suite's queries against
// their targets (issue 14's targets): at most 20% of items have their core
// name (the title rule's phrase) in the query word for word, and queries
// hold at most half of a target title's words on average.
func TestQueriesDescribeTargets(t *testing.T) {
	g := testGenerator(t, 20_000, 21)
	ps, _, err := g.Generate(context.Background(), Request{Count: 600})
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range Types() {
		var sub []Problem
		for _, p := range ps {
			if p.Type == typ {
				sub = append(sub, p)
			}
		}
		st := MeasureQueries(sub, g.cat)
		t.Logf("%s: %d items, core name verbatim %.1f%%, title words in the query %.1f%%", typ, st.Items, 100*st.VerbatimShare(), 100*st.TitleShare)
		if st.Items == 0 || st.VerbatimShare() > 0.2 || st.TitleShare > 0.5 {
			t.Errorf("%s: %+v: want verbatim <= 20%% and title share <= 50%%", typ, st)
		}
	}
}

func TestMeasureQueries(t *testing.T) {
	p := Problem{Reward: Reward{Items: []Item{{ProductID: "1", Title: []string{"Kovix Phone Case"}}}}}
	cat, err := shop.NewCatalog([]shop.Product{{ProductID: "1", ShopID: "9", Title: "Kovix X12 Shockproof Phone Case", Price: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query    string
		verbatim int
		share    float64
	}{
		{"a kovix phone case please", 1, 3.0 / 5},
		{"a phone case from Kovix", 0, 3.0 / 5},
		{"a case for my phone, x12", 0, 3.0 / 5},
		{"Kovix-Phone-Case", 1, 3.0 / 5},
		{"something else", 0, 0},
	} {
		p.Query = tc.query
		st := MeasureQueries([]Problem{p}, cat)
		if st.Items != 1 || st.Verbatim != tc.verbatim || math.Abs(st.TitleShare-tc.share) > 1e-9 {
			t.Errorf("%q: %+v, want verbatim %d, share %.2f", tc.query, st, tc.verbatim, tc.share)
		}
	}
}

func TestParseMix(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Mix
		wantErr string
	}{
		{"product:0.4,shop:0.3,voucher:0.3", Mix{TypeProduct: 0.4, TypeShop: 0.3, TypeVoucher: 0.3}, ""},
		{"Voucher:1", Mix{TypeVoucher: 1}, ""},
		{"product", nil, "type:weight"},
		{"cake:1", nil, "unknown problem type"},
		{"product:-1", nil, "non-negative"},
		{"product:0", nil, "sum to zero"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseMix(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v %v, want %v", got, err, tc.want)
			}
		})
	}
	c := DefaultMix().counts(10)
	if c[TypeProduct] != 4 || c[TypeShop] != 3 || c[TypeVoucher] != 3 {
		t.Errorf("counts(10) = %v", c)
	}
}

func TestGeneratedProblemJSON(t *testing.T) {
	ps, _, err := testGenerator(t, 5000, 4).Generate(context.Background(), Request{Count: 30})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back Problem
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, p) {
			t.Errorf("%s does not round-trip:\n%s", p.ID, b)
		}
		// ShoppingBench's importer reads the generated record back as the
		// same problem.
		rec, _ := ShoppingBenchRecord(&p)
		imported, rep, err := ImportShoppingBench(strings.NewReader(string(rec)), "gen")
		if err != nil || len(rep.Errors) > 0 || len(imported) != 1 || imported[0].ID != p.ID || imported[0].Type != p.Type {
			t.Errorf("%s: ShoppingBench re-import gave %v %v %v", p.ID, imported, rep.Errors, err)
		}
	}
}

// TestGenerateExclude: with Request.Exclude no problem targets an excluded
// product, and a suite keeps coming while few products are left; without
// it the suite is the one generated before exclusions existed.
func TestGenerateExclude(t *testing.T) {
	ctx := context.Background()
	g := testGenerator(t, 5000, 9)
	cat := g.cat
	ids := func(keep func(i int) bool) []string {
		var out []string
		for i := range cat.Len() {
			if keep(i) {
				out = append(out, cat.At(i).ProductID)
			}
		}
		return out
	}
	plain, _, err := g.Generate(ctx, Request{Count: 60})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		exclude []string
		// min is the fewest problems wanted of 60.
		min int
	}{
		{"nothing excluded", nil, 60},
		{"half the catalog", ids(func(i int) bool { return i%2 == 0 }), 58},
		{"all but 600 products", ids(func(i int) bool { return i >= 600 }), 50},
		{"ids the catalog does not hold", []string{"no-such-product", "1"}, 60},
		{"everything", ids(func(int) bool { return true }), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, rep, err := g.Generate(ctx, Request{Count: 60, Exclude: tt.exclude})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d problems, %d attempts, %d given up", len(ps), rep.Attempts, rep.GivenUp)
			if len(ps) < tt.min {
				t.Fatalf("%d problems, want at least %d", len(ps), tt.min)
			}
			excluded := map[string]bool{}
			for _, id := range tt.exclude {
				excluded[id] = true
			}
			for _, p := range ps {
				for _, tg := range p.Targets {
					if excluded[tg] {
						t.Fatalf("problem %s targets excluded product %s", p.ID, tg)
					}
				}
			}
			if len(tt.exclude) == 0 || tt.name == "ids the catalog does not hold" {
				if len(ps) != len(plain) {
					t.Fatalf("%d problems, %d without Exclude", len(ps), len(plain))
				}
				for i := range ps {
					if ps[i].ID != plain[i].ID {
						t.Fatalf("problem %d is %s, %s without Exclude", i, ps[i].ID, plain[i].ID)
					}
				}
			}
		})
	}
}
