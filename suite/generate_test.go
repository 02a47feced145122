package suite

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
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
				if n < 2 || n > 4 {
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
				if len(it.Attributes)+len(it.SKUOptions) == 0 || len(it.Attributes)+len(it.SKUOptions) > 2 {
					t.Errorf("item %d: %d attribute/SKU pairs, want 1-2", i, len(it.Attributes)+len(it.SKUOptions))
				}
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
