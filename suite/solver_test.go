package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/shop"
)

var errOutOfCalls = errors.New("out of tool calls")

// toolCaller runs tools.Execute directly, at most maxCalls times, and
// counts the calls.
type toolCaller struct {
	tools    *shop.Tools
	calls    int
	maxCalls int
}

func (c *toolCaller) call(ctx context.Context, name string, args map[string]any) (json.RawMessage, error) {
	if c.calls >= c.maxCalls {
		return nil, errOutOfCalls
	}
	c.calls++
	raw, _ := json.Marshal(args)
	res := c.tools.Execute(ctx, name, raw)
	if !res.OK() {
		return nil, fmt.Errorf("%s: %s", name, res.Err.Message)
	}
	return res.Output, nil
}

// checkAnswer verifies an answer against the catalog, independently of
// the solver: every item's constraints, one shop for shop problems, the
// budget for voucher problems.
func checkAnswer(cat *shop.Catalog, p *Problem, ids []string) error {
	if len(ids) != len(p.Reward.Items) {
		return fmt.Errorf("%d answers for %d items", len(ids), len(p.Reward.Items))
	}
	shops := map[string]bool{}
	answer := make([]hit, len(ids))
	for i, id := range ids {
		prod, ok := cat.Product(id)
		if !ok {
			return fmt.Errorf("unknown product %s", id)
		}
		in := info{ProductID: prod.ProductID, SKUOptions: map[string]map[string]string{}, Attributes: map[string][]string{}}
		for j, sku := range prod.SKUOptions {
			m := map[string]string{}
			for _, o := range sku {
				m[o.Key] = o.Value
			}
			in.SKUOptions[fmt.Sprint(j+1)] = m
		}
		for _, a := range prod.Attributes {
			in.Attributes[a.Key] = a.Values
		}
		truth := hit{ProductID: prod.ProductID, ShopID: prod.ShopID, Title: prod.Title, Price: prod.Price}
		if !constraintsMet(&p.Reward.Items[i], truth, in) {
			return fmt.Errorf("item %d: %s misses a constraint", i+1, prod.ProductID)
		}
		for _, svc := range p.Reward.Items[i].Service {
			if sv, _ := shop.ParseService(svc); !prod.Service.Has(sv) {
				return fmt.Errorf("item %d: %s lacks service %s", i+1, prod.ProductID, svc)
			}
		}
		shops[prod.ShopID] = true
		answer[i] = truth
	}
	if p.Type == TypeShop && len(shops) != 1 {
		return fmt.Errorf("answer spans %d shops", len(shops))
	}
	if p.Type == TypeVoucher && !budgetMet(p.Voucher, answer) {
		return errors.New("answer is over budget")
	}
	return nil
}

// solvability generates perType problems of each type on an n-product
// catalog and reports the solver's success rate by type.
func solvability(t *testing.T, n, perType int) {
	t.Helper()
	g := testGenerator(t, n, 42)
	tools, err := shop.NewTools(shop.ToolsOptions{Index: g.idx}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range Types() {
		t.Run(string(typ), func(t *testing.T) {
			start := time.Now()
			ps, rep, err := g.Generate(context.Background(), Request{Count: perType, Mix: Mix{typ: 1}})
			if err != nil {
				t.Fatal(err)
			}
			genTook := time.Since(start)
			if rep.Problems < perType*99/100 {
				t.Fatalf("generated %d of %d problems: %+v", rep.Problems, perType, rep)
			}
			solved, calls := 0, 0
			var failures []string
			for i := range ps {
				c := &toolCaller{tools: tools, maxCalls: 30}
				answer, err := Solve(context.Background(), &ps[i], c.call)
				if err == nil {
					err = checkAnswer(g.cat, &ps[i], answer)
				}
				calls += c.calls
				if err != nil {
					failures = append(failures, fmt.Sprintf("%s: %v", ps[i].ID, err))
					continue
				}
				solved++
			}
			rate := float64(solved) / float64(len(ps))
			t.Logf("%s: %d/%d solved (%.1f%%), %.1f tool calls on average; generated in %v, solved in %v",
				typ, solved, len(ps), 100*rate, float64(calls)/float64(len(ps)), genTook, time.Since(start)-genTook)
			if rate < 0.98 {
				t.Errorf("solved %.1f%% < 98%%; first failures: %v", 100*rate, failures[:min(5, len(failures))])
			}
		})
	}
}

// TestSolvable is issue 4's acceptance check as stated: 500 problems of
// each type on a 100k catalog (about 10 s). -short uses a 20k catalog.
func TestSolvable(t *testing.T) {
	if testing.Short() {
		solvability(t, 20_000, 150)
		return
	}
	solvability(t, 100_000, 500)
}
