package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"arena/shop"
)

// Caller runs one tool call and returns its JSON output; a tool's error
// result, or running out of calls, is an error.
type Caller func(ctx context.Context, name string, args map[string]any) (json.RawMessage, error)

// Solve answers p through the shop tools as an agent that knows the
// problem's constraints (the reward without its product ids, and the
// voucher's rules) but not its targets: it searches with the constraint
// words and filters, checks every constraint on the listings and the
// viewed details, finds one shop for same-shop items, does the voucher
// arithmetic and calls recommend_product. It returns the recommended ids.
//
// It is the reference that generated problems are solvable and the
// ground-truth-aware baseline of calibration.
func Solve(ctx context.Context, p *Problem, call Caller) ([]string, error) {
	s := &solver{ctx: ctx, call: call}
	items := make([]Item, len(p.Reward.Items))
	for i, it := range p.Reward.Items {
		it.ProductID = ""
		items[i] = it
	}
	cands := make([][]hit, len(items))
	sameShop := p.Type == TypeShop || p.Voucher != nil && p.Voucher.VoucherType == VoucherShop
	for i := range items {
		c, err := s.candidates(&items[i], "", shop.MaxPages, sameShop && i == 0)
		if err != nil {
			return nil, err
		}
		cands[i] = c
	}
	var answer []hit
	switch p.Type {
	case TypeProduct:
		if len(cands[0]) > 0 {
			answer = cands[0][:1]
		}
	case TypeShop:
		answer = s.sameShop(items, cands, nil)
	case TypeVoucher:
		ok := func(hs []hit) bool { return budgetMet(p.Voucher, hs) }
		if p.Voucher.VoucherType == VoucherShop {
			answer = s.sameShop(items, cands, ok)
		} else {
			answer = anyCombination(cands, ok)
		}
	default:
		return nil, fmt.Errorf("solve: no strategy for %s problems", p.Type)
	}
	if answer == nil {
		return nil, errors.New("no answer meets the constraints")
	}
	ids := make([]string, len(answer))
	for i, h := range answer {
		ids[i] = h.ProductID
	}
	if _, err := call(ctx, shop.ToolRecommendProduct, map[string]any{"product_ids": strings.Join(ids, ",")}); err != nil {
		return nil, err
	}
	return ids, nil
}

type solver struct {
	ctx  context.Context
	call Caller
}

func (s *solver) get(name string, args map[string]any, out any) error {
	raw, err := s.call(s.ctx, name, args)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

type hit struct {
	ProductID string  `json:"product_id"`
	ShopID    string  `json:"shop_id"`
	Title     string  `json:"title"`
	Price     float64 `json:"price"`
}

type info struct {
	ProductID  string                       `json:"product_id"`
	SKUOptions map[string]map[string]string `json:"sku_options"`
	Attributes map[string][]string          `json:"attributes"`
}

// titleSimilar is the lexical title rule: at least titleThreshold of the
// phrase's words occur in the title.
func titleSimilar(title, phrase string) bool {
	t, p := titleTokens(title), titleTokens(phrase)
	inter := 0
	for _, w := range p {
		if slices.Contains(t, w) {
			inter++
		}
	}
	return len(p) == 0 || float64(inter) >= titleThreshold*float64(len(p))
}

// constraintsMet checks an item's constraints against a search hit and
// its product information.
func constraintsMet(it *Item, h hit, in info) bool {
	if len(it.Title) > 0 && !titleSimilar(h.Title, it.Title[0]) {
		return false
	}
	for _, b := range it.Price {
		if !b.Contains(h.Price) {
			return false
		}
	}
	for _, a := range it.Attributes {
		for k, vs := range a {
			for _, v := range vs {
				if !slices.Contains(in.Attributes[k], v) {
					return false
				}
			}
		}
	}
	if len(it.SKUOptions) > 0 {
		ok := false
		for _, variant := range in.SKUOptions {
			all := true
			for _, kv := range it.SKUOptions {
				for k, v := range kv {
					if variant[k] != v {
						all = false
					}
				}
			}
			ok = ok || all
		}
		if !ok {
			return false
		}
	}
	return true
}

// candidates searches for an item (optionally within one shop) and returns
// the hits that meet its constraints.
//
// A search stops at the first page with a match unless exhaustive is set:
// same-shop problems need every shop that carries the first item, not the
// first few.
func (s *solver) candidates(it *Item, shopID string, pages int, exhaustive bool) ([]hit, error) {
	args := map[string]any{"q": strings.Join(append(slices.Clone(it.Title), itemWords(it)...), " ")}
	if len(it.Price) > 0 {
		args["price"] = it.Price[0].Filter()
	}
	if len(it.Service) > 0 {
		args["service"] = strings.Join(it.Service, ",")
	}
	if shopID != "" {
		args["shop_id"] = shopID
	}
	var out []hit
	for page := 1; page <= pages; page++ {
		args["page"] = page
		var hits []hit
		if err := s.get(shop.ToolFindProduct, args, &hits); err != nil {
			return nil, err
		}
		var ids []string
		for _, h := range hits {
			if len(it.Title) == 0 || titleSimilar(h.Title, it.Title[0]) {
				ids = append(ids, h.ProductID)
			}
		}
		if len(ids) > 0 {
			var infos []info
			if err := s.get(shop.ToolViewProductInformation, map[string]any{"product_ids": strings.Join(ids, ",")}, &infos); err != nil {
				return nil, err
			}
			byID := map[string]info{}
			for _, in := range infos {
				byID[in.ProductID] = in
			}
			for _, h := range hits {
				if in, ok := byID[h.ProductID]; ok && constraintsMet(it, h, in) {
					out = append(out, h)
				}
			}
		}
		if len(out) > 0 && !exhaustive || len(hits) < shop.PageSize {
			break
		}
	}
	return out, nil
}

func itemWords(it *Item) []string {
	var ws []string
	for _, a := range it.Attributes {
		for _, vs := range a {
			ws = append(ws, vs...)
		}
	}
	for _, kv := range it.SKUOptions {
		for _, v := range kv {
			ws = append(ws, v)
		}
	}
	return ws
}

// budgetMet applies the voucher rules the query states.
func budgetMet(v *Voucher, hs []hit) bool {
	total := 0.0
	shops := map[string]bool{}
	for _, h := range hs {
		total += h.Price
		shops[h.ShopID] = true
	}
	if total <= v.Budget {
		return true
	}
	if v.VoucherType == VoucherShop && len(shops) != 1 {
		return false
	}
	after, applies := v.Apply(total)
	return applies && after <= v.Budget+1e-9
}

// anyCombination returns the first choice of one hit per item that ok
// accepts (nil ok accepts anything).
func anyCombination(cands [][]hit, ok func([]hit) bool) []hit {
	choice := make([]hit, len(cands))
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(cands) {
			return ok == nil || ok(choice)
		}
		for _, h := range cands[i] {
			choice[i] = h
			if rec(i + 1) {
				return true
			}
		}
		return false
	}
	if rec(0) {
		return choice
	}
	return nil
}

// sameShop finds one hit per item, all from one shop. Shops found for the
// first item are searched for the other items with the shop filter when
// the catalog-wide searches did not already find them there.
func (s *solver) sameShop(items []Item, cands [][]hit, ok func([]hit) bool) []hit {
	shopsOf := func(hs []hit) []string {
		var out []string
		for _, h := range hs {
			if !slices.Contains(out, h.ShopID) {
				out = append(out, h.ShopID)
			}
		}
		return out
	}
	// Shops that already carry candidates for more items are tried first,
	// as a shopper would, so the in-shop searches go where they pay off.
	shops := shopsOf(cands[0])
	cover := map[string]int{}
	for _, cs := range cands {
		for _, sid := range shopsOf(cs) {
			cover[sid]++
		}
	}
	slices.SortStableFunc(shops, func(a, b string) int { return cover[b] - cover[a] })
	for _, sid := range shops {
		per := make([][]hit, len(items))
		complete := true
		for i := range items {
			for _, h := range cands[i] {
				if h.ShopID == sid {
					per[i] = append(per[i], h)
				}
			}
			if len(per[i]) == 0 {
				found, err := s.candidates(&items[i], sid, 1, false)
				if err != nil {
					return nil
				}
				per[i] = found
			}
			if len(per[i]) == 0 {
				complete = false
				break
			}
		}
		if complete {
			if a := anyCombination(per, ok); a != nil {
				return a
			}
		}
	}
	return nil
}
