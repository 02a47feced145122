package miner

import (
	"regexp"
	"slices"
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

// ItemWish is one requested product.
type ItemWish struct {
	// Text is the item's own part of the query, lower-cased.
	Text string
	// Phrase is the quoted product phrase; PhraseWords its words, which a
	// matching title must contain.
	Phrase      string
	PhraseWords []string
	// PriceLo and PriceHi bound the price; 0 means unbounded.
	PriceLo, PriceHi float64
	// Services are required services, with the shop's names.
	Services []string
	// Pairs are attribute and SKU wishes.
	Pairs []Pair
	// Loose marks a free-form request that matched none of the phrasings
	// (ShoppingBench's own queries, say): PhraseWords are then its content
	// words, and a title needs only half of them.
	Loose bool
}

// Pair is an attribute or SKU wish. When the wording does not separate the
// key from the value ("with color family grey"), Key is empty and Value
// holds the whole phrase; a product satisfies it when one of its
// "key value" pairs spells exactly that phrase.
type Pair struct {
	Key, Value string
	// SKU marks a variant option (sku_options) rather than an attribute.
	SKU bool
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

var (
	reBudget    = regexp.MustCompile("(?i)(?:budget is(?: only)?|spend at most|pay more than)\\s*`?" + num)
	reThreshold = regexp.MustCompile("(?i)exceeds\\s*`?" + num)
	reFixed     = regexp.MustCompile("(?i)fixed discount of\\s*`?" + num)
	rePercent   = regexp.MustCompile("(?i)discount of\\s*`?" + num + "%`?\\s*with a cap of\\s*`?" + num)

	// Price clauses end in a currency word, so that numbers inside product
	// phrases or attribute values ("4k", "750ml") are not read as prices.
	rePriceRange = regexp.MustCompile(`(?:between|costing|from|in the)\s+` + num + `\s*(?:and|to|-)\s*` + num + `\s*(?:pesos?|php)`)
	rePriceHi    = regexp.MustCompile(`(?:under|below|less than|at most)\s+` + num + `\s*(?:pesos?|php)`)
	rePriceLo    = regexp.MustCompile(`(?:above|over|more than)\s+` + num + `\s*(?:pesos?|php)`)

	reSKUOption = regexp.MustCompile(`^with the (.+?) option (.+)$`)
	reSKUQuoted = regexp.MustCompile(`^available in (.+?) "(.+)"$`)
	reAttrIs    = regexp.MustCompile(`^whose (.+?) is (.+)$`)
	reAttrHas   = regexp.MustCompile(`^that has (.+?): (.+)$`)

	// Items in a list: "(1) ...; (2) ..." or "first, ...; second, ...".
	reNumbered = regexp.MustCompile(`(?:^|[;:]\s*|\s)\(\d\)\s+`)
	reOrdinal  = regexp.MustCompile(`(?:^|[;:]\s*|\s)(?:first|second|third|fourth),\s+`)
)

// clauseStarts are the words that begin a constraint clause after the
// product phrase. The phrase ends at the first of them.
var clauseStarts = []string{
	"with ", "whose ", "that has ", "that ships", "that i can pay", "that costs", "in ", "available ",
	"priced ", "costing ", "under ", "over ", "for at most", "from lazmall", "sold by", "on lazflash", "between ",
}

// articles open an item's description.
var articles = []string{"an option for a ", "an option for an ", "some ", "an ", "a "}

// ParseTask reads a shopping query: the task kind, the items and their
// constraints, and the voucher rules when there are any.
func ParseTask(q string) Task {
	body, rules, _ := strings.Cut(q, "\n\n")
	lower := strings.ToLower(strings.TrimSpace(body))
	t := Task{Kind: KindProduct}
	if strings.Contains(strings.ToLower(rules), "voucher") {
		t.Kind = KindVoucher
		t.Voucher = parseVoucher(rules)
	} else if isShopRequest(lower) {
		t.Kind = KindShop
	}
	switch t.Kind {
	case KindProduct:
		// One item: it starts at the first article ("I need a ...").
		if i := firstArticle(lower); i >= 0 {
			t.Items = []ItemWish{parseItem(trimItem(lower[i:]))}
		}
		if len(t.Items) == 1 && t.Items[0].Loose {
			// A free-form request: every sentence may name the product.
			t.Items = []ItemWish{parseItem(lower)}
		}
	case KindShop:
		t.Items = parseItems(splitItems(dropShopLead(lower)))
	default:
		t.Items = parseItems(splitItems(lower))
	}
	if len(t.Items) == 0 {
		t.Items = []ItemWish{parseItem(lower)}
	}
	return t
}

func parseItems(parts []string) []ItemWish {
	var out []ItemWish
	for _, part := range parts {
		out = append(out, parseItem(part))
	}
	return out
}

func firstArticle(s string) int {
	for i := 0; i < len(s); i++ {
		if (i == 0 || s[i-1] == ' ') && articleAt(s[i:]) != "" {
			return i
		}
	}
	return -1
}

// shopLeadEnds mark where a shop request's lead-in ends and the list of
// items begins; the lead-in itself has articles ("a shop that ...").
var shopLeadEnds = []string{": ", "? ", " offering ", " carries ", " where i can get ", " selling ", " stocks "}

func dropShopLead(s string) string {
	best := -1
	for _, m := range shopLeadEnds {
		if i := strings.Index(s, m); i >= 0 && (best < 0 || i+len(m) < best) {
			best = i + len(m)
		}
	}
	if best < 0 {
		return s
	}
	return s[best:]
}

func isShopRequest(lower string) bool {
	for _, s := range []string{"shop", "store", "seller"} {
		if containsPhrase(lower, s) {
			return true
		}
	}
	return false
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

// splitItems cuts the request into item descriptions, each starting at its
// article. The lead-in ("Which shop has all of these?") is dropped.
func splitItems(s string) []string {
	s = strings.TrimRight(s, ".?! ")
	for _, re := range []*regexp.Regexp{reNumbered, reOrdinal} {
		if locs := re.FindAllStringIndex(s, -1); len(locs) > 1 {
			var out []string
			for i, l := range locs {
				end := len(s)
				if i+1 < len(locs) {
					end = locs[i+1][0]
				}
				out = append(out, trimItem(s[l[1]:end]))
			}
			return out
		}
	}
	// Otherwise the items are "a X, some Y and a Z": an item starts at an
	// article that follows the lead-in, a comma or "and".
	var starts []int
	for i := 0; i < len(s); i++ {
		if i > 0 && !(s[i-1] == ' ') {
			continue
		}
		art := articleAt(s[i:])
		if art == "" {
			continue
		}
		prev := strings.TrimRight(s[:i], " ")
		if len(starts) == 0 || strings.HasSuffix(prev, ",") || strings.HasSuffix(prev, " and") || strings.HasSuffix(prev, ":") {
			if len(starts) > 0 && !strings.HasSuffix(prev, ",") && !strings.HasSuffix(prev, " and") {
				continue
			}
			// "in a flash sale" and "with a price" are clauses, not items.
			if strings.HasSuffix(prev, " in") || strings.HasSuffix(prev, " with") {
				continue
			}
			starts = append(starts, i)
			i += len(art) - 1
		}
	}
	var out []string
	for i, st := range starts {
		end := len(s)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		out = append(out, trimItem(s[st:end]))
	}
	return out
}

func articleAt(s string) string {
	for _, a := range articles {
		if strings.HasPrefix(s, a) {
			return a
		}
	}
	return ""
}

func trimItem(s string) string {
	s = strings.TrimSpace(s)
	// "Search for X, please." ends the only item with a courtesy.
	s = strings.TrimSuffix(strings.TrimRight(s, ".?! "), ", please")
	s = strings.TrimSuffix(s, " and")
	s = strings.TrimRight(s, ",;. ")
	// A list's lead-out ("everything must come from the same shop") is not
	// part of the last item.
	for _, tail := range []string{". everything must", ". all items must", ". the shop should", ", all from that"} {
		if i := strings.Index(s, tail); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

// parseItem reads one item description: article, phrase, clauses.
func parseItem(text string) ItemWish {
	text = strings.TrimSpace(text)
	w := ItemWish{Text: text}
	rest := strings.TrimPrefix(text, articleAt(text))
	cut := len(rest)
	for _, cs := range clauseStarts {
		for from := 0; from < len(rest); {
			i := strings.Index(rest[from:], " "+cs)
			if i < 0 {
				break
			}
			i += from
			// "in a flash sale" is a clause; "3 in 1" inside a phrase is
			// not, but a clause always follows at least two phrase words.
			if len(strings.Fields(rest[:i])) >= 2 {
				cut = min(cut, i)
				break
			}
			from = i + 1
		}
	}
	w.Phrase = strings.TrimSpace(rest[:cut])
	for _, t := range reWord.FindAllString(w.Phrase, -1) {
		if t = strings.Trim(t, ".-'"); t != "" {
			w.PhraseWords = append(w.PhraseWords, t)
		}
	}
	clauses := splitClauses(strings.TrimSpace(rest[cut:]))
	numf := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	for _, c := range clauses {
		switch {
		case rePriceRange.MatchString(c):
			m := rePriceRange.FindStringSubmatch(c)
			w.PriceLo, w.PriceHi = numf(m[1]), numf(m[2])
			continue
		case rePriceHi.MatchString(c):
			w.PriceHi = numf(rePriceHi.FindStringSubmatch(c)[1])
			continue
		case rePriceLo.MatchString(c):
			w.PriceLo = numf(rePriceLo.FindStringSubmatch(c)[1])
			continue
		}
		if svc := clauseService(c); svc != "" {
			w.Services = append(w.Services, svc)
			continue
		}
		if p, ok := clausePair(c); ok {
			w.Pairs = append(w.Pairs, p)
		}
	}
	// Every generated item quotes 2-4 title words and states at least one
	// attribute or option. An item without clauses, or with a long
	// "phrase", is free-form text: fall back to its content words, which a
	// title needs only half of, and to loosely worded bounds.
	if len(w.PhraseWords) > 5 || w.PriceLo == 0 && w.PriceHi == 0 && len(w.Services) == 0 && len(w.Pairs) == 0 {
		in := ParseQuery(text)
		w.Loose = true
		w.PhraseWords = in.Words
		w.Phrase = strings.Join(in.Words, " ")
		w.Pairs = nil // their words are among in.Words
		if w.PriceLo == 0 && w.PriceHi == 0 {
			w.PriceLo, w.PriceHi = in.PriceLo, in.PriceHi
		}
		for _, s := range in.Services {
			if !slices.Contains(w.Services, s) {
				w.Services = append(w.Services, s)
			}
		}
	}
	return w
}

// splitClauses cuts "with x y, under 5 pesos and whose k is v" at commas
// and "and" that are followed by a clause start, so that values containing
// "and" stay whole.
func splitClauses(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		var sep int
		switch {
		case strings.HasPrefix(s[i:], ", "):
			sep = 2
		case strings.HasPrefix(s[i:], " and "):
			sep = 5
		default:
			continue
		}
		if startsClause(s[i+sep:]) {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + sep
			i += sep - 1
		}
	}
	if tail := strings.TrimSpace(s[start:]); tail != "" {
		out = append(out, tail)
	}
	return out
}

func startsClause(s string) bool {
	for _, cs := range clauseStarts {
		if strings.HasPrefix(s, cs) {
			return true
		}
	}
	return false
}

func clauseService(c string) string {
	switch {
	case strings.Contains(c, "free shipping"), strings.Contains(c, "ships free"), strings.Contains(c, "free delivery"):
		return "freeShipping"
	case strings.Contains(c, "cash on delivery"), strings.Contains(c, "pay for on delivery"), containsPhrase(c, "cod"):
		return "COD"
	case strings.Contains(c, "lazmall"), strings.Contains(c, "official store"):
		return "official"
	case strings.Contains(c, "lazflash"), strings.Contains(c, "flash sale"):
		return "flashsale"
	}
	return ""
}

func clausePair(c string) (Pair, bool) {
	if m := reSKUOption.FindStringSubmatch(c); m != nil {
		return Pair{Key: m[1], Value: m[2], SKU: true}, true
	}
	if m := reSKUQuoted.FindStringSubmatch(c); m != nil {
		return Pair{Key: m[1], Value: m[2], SKU: true}, true
	}
	if m := reAttrIs.FindStringSubmatch(c); m != nil {
		return Pair{Key: m[1], Value: m[2]}, true
	}
	if m := reAttrHas.FindStringSubmatch(c); m != nil {
		return Pair{Key: m[1], Value: m[2]}, true
	}
	if v, ok := strings.CutPrefix(c, "in "); ok {
		return Pair{Value: v, SKU: true}, true
	}
	if v, ok := strings.CutPrefix(c, "with "); ok {
		return Pair{Value: v}, true
	}
	return Pair{}, false
}

// SearchQuery is what the agent types into find_product for the item: the
// phrase and the wished values. Keys are left out where the wording
// separates them: the index matches attribute values, and "color family"
// would only add noise.
func (w ItemWish) SearchQuery() string {
	parts := []string{w.Phrase}
	for _, p := range w.Pairs {
		parts = append(parts, p.Value)
	}
	q := strings.Join(parts, " ")
	if strings.TrimSpace(q) == "" {
		return w.Text
	}
	return q
}

// PriceArg is find_product's price argument for the item, or "".
func (w ItemWish) PriceArg() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case w.PriceHi > 0:
		return f(w.PriceLo) + "-" + f(w.PriceHi)
	case w.PriceLo > 0:
		return f(w.PriceLo) + "-"
	}
	return ""
}
