package miner

import (
	"regexp"
	"strconv"
	"strings"
)

// Task kinds the heuristic agent distinguishes. They follow ShoppingBench's
// task types: one product, several products from one shop, and products
// bought under a budget with a voucher.
const (
	KindProduct = "product"
	KindShop    = "shop"
	KindVoucher = "voucher"
)

// Task is what the heuristic agent understands of a whole query: the items
// requested, in order, and for voucher tasks the budget and the voucher.
type Task struct {
	Kind  string
	Items []ItemWish
	// Voucher is set for voucher tasks.
	Voucher *VoucherRules
}

// ItemWish is one requested product: its part of the query and what the
// agent read from it.
type ItemWish struct {
	// Text is the item's own part of the query.
	Text string
	Intent
}

// Phrase is a short description of the item for the agent's notes: its
// first content words.
func (w ItemWish) Phrase() string {
	return strings.Join(w.Words[:min(len(w.Words), 6)], " ")
}

// SearchQuery is what the agent types into find_product for the item: its
// content words.
func (w ItemWish) SearchQuery() string {
	if len(w.Words) == 0 {
		return strings.TrimSpace(w.Text)
	}
	return strings.Join(w.Words, " ")
}

// VoucherRules are a voucher task's budget and voucher, as stated in the
// query.
type VoucherRules struct {
	Budget    float64
	Threshold float64
	// SameShop: the voucher applies only to products of one shop.
	SameShop bool
	// Fixed discount FaceValue, or percentage Discount (a fraction) capped
	// at Cap.
	Fixed     bool
	FaceValue float64
	Discount  float64
	Cap       float64
}

// Apply returns what a basket totalling total costs after the voucher, and
// whether the voucher applies (total at or above the threshold).
func (v *VoucherRules) Apply(total float64) (float64, bool) {
	if total < v.Threshold {
		return total, false
	}
	if v.Fixed {
		return total - v.FaceValue, true
	}
	after := total * (1 - v.Discount)
	if v.Cap > 0 && total-v.Cap > after {
		after = total - v.Cap
	}
	return after, true
}

// Fits reports whether a basket of total, from shops distinct shops, is
// within the budget, with the voucher if it applies, and the price paid.
func (v *VoucherRules) Fits(total float64, shops int) (bool, float64) {
	if total <= v.Budget {
		return true, total
	}
	if v.SameShop && shops != 1 {
		return false, total
	}
	after, ok := v.Apply(total)
	return ok && after <= v.Budget+1e-9, after
}

const num = `(\d+(?:\.\d+)?)`

// The voucher rules follow ShoppingBench's voucher tasks, which state them
// in a fixed form after the request.
var (
	reBudget    = regexp.MustCompile("(?i)(?:budget is(?: only)?|spend at most|pay more than)\\s*`?" + num)
	reThreshold = regexp.MustCompile("(?i)exceeds\\s*`?" + num)
	reFixed     = regexp.MustCompile("(?i)fixed discount of\\s*`?" + num)
	rePercent   = regexp.MustCompile("(?i)discount of\\s*`?" + num + "%`?\\s*with a cap of\\s*`?" + num)

	// listMarkers start the items of a list: numbered lines, bullets,
	// numbered clauses, ordinal sentences.
	listMarkers = []*regexp.Regexp{
		regexp.MustCompile(`(?m)^[ \t]*\d{1,2}[.)][ \t]+`),
		regexp.MustCompile(`(?m)^[ \t]*[-•*][ \t]+`),
		regexp.MustCompile(`\(\d{1,2}\)\s+`),
		regexp.MustCompile(`(?i)\b(?:first|second|third|fourth|fifth|sixth)(?:ly)?,\s+`),
	}

	// reShopRequest recognises a request that everything come from one
	// shop.
	reShopRequest = regexp.MustCompile(`\b(?:one|single|same)\s+(?:shop|store|seller)\b|\b(?:shop|store|seller)\s+(?:that|which|who)\s+(?:sells|carries|has|offers|stocks|can)\b|\b(?:shop|store|seller)\s+(?:where|carries|carrying|offering|offers|sells|selling|stocks|stocking)\b`)
)

// ParseTask reads a shopping query with every reading ability.
func ParseTask(q string) Task { return fullReader.task(q) }

// task reads a query: the voucher rules after a blank line, the kind, the
// items of a list (or the whole request as one item) and each item's
// words, price and services.
func (rd reader) task(q string) Task {
	body, rules, _ := strings.Cut(q, "\n\n")
	t := Task{Kind: KindProduct}
	if strings.Contains(strings.ToLower(rules), "voucher") {
		t.Kind = KindVoucher
		t.Voucher = parseVoucher(rules)
	} else {
		body = q
	}
	if t.Kind == KindProduct && reShopRequest.MatchString(strings.ToLower(body)) {
		t.Kind = KindShop
	}
	parts := splitList(body)
	if len(parts) < 2 {
		if t.Kind == KindShop {
			t.Kind = KindProduct
		}
		parts = []string{body}
	}
	for _, part := range parts {
		t.Items = append(t.Items, ItemWish{Text: part, Intent: rd.parse(part)})
	}
	return t
}

// splitList cuts a request into its items by the first list style that
// marks at least two; nil when there is no list. What comes before the
// first item is the request's lead-in and is dropped.
func splitList(s string) []string {
	for _, re := range listMarkers {
		locs := re.FindAllStringIndex(s, -1)
		if len(locs) < 2 {
			continue
		}
		var out []string
		for i, l := range locs {
			end := len(s)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			out = append(out, strings.Trim(s[l[1]:end], " \t\n;.,"))
		}
		return out
	}
	return nil
}

func parseVoucher(rules string) *VoucherRules {
	f := func(re *regexp.Regexp, i int) float64 {
		m := re.FindStringSubmatch(rules)
		if m == nil {
			return 0
		}
		x, _ := strconv.ParseFloat(m[i], 64)
		return x
	}
	v := &VoucherRules{Budget: f(reBudget, 1), Threshold: f(reThreshold, 1),
		SameShop: strings.Contains(strings.ToLower(rules), "same shop")}
	if reFixed.MatchString(rules) {
		v.Fixed, v.FaceValue = true, f(reFixed, 1)
	} else {
		v.Discount, v.Cap = f(rePercent, 1)/100, f(rePercent, 2)
	}
	return v
}
