package suite

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The phrasings below turn constraints into natural-language requests.
// Every constraint is stated with one of several wordings and the clauses
// are shuffled, so the same constraints rarely give the same sentence and a
// memorised template says nothing about the answer.

var productLeads = []string{
	"I'm looking for %s.",
	"Show me %s.",
	"Can you find %s?",
	"I need %s.",
	"Looking for %s.",
	"Help me find %s.",
	"Please recommend %s.",
	"Find me %s.",
	"I want to buy %s.",
	"Any suggestions for %s?",
	"Search for %s, please.",
	"Do you have %s?",
}

var shopLeads = []string{
	"Find a shop that offers these items: %s. The shop should sell all these products.",
	"Looking for a shop that sells all of the following: %s.",
	"I want to buy everything from one store: %s.",
	"Which shop has all of these? %s.",
	"Help me find a single seller offering %s.",
	"I need one shop that carries %s. Everything must come from the same shop.",
	"Please find a store where I can get %s, all from that one store.",
	"Can you find one shop with all these products: %s?",
	"Search for a shop selling %s. All items must be from this shop.",
	"I'd like to order these from a single shop: %s.",
	"Show me a shop that stocks %s.",
}

var voucherLeads = []string{
	"Looking for %s.",
	"Show me %s.",
	"I'm shopping for %s.",
	"Help me buy %s.",
	"I need %s.",
	"Can you find %s?",
	"Find me %s.",
	"I want to get %s.",
	"Please recommend %s.",
	"I'd like to purchase %s.",
	"Search for %s.",
}

var budgetLeads = []string{
	"My budget is only `%s`, but I have a voucher with the following rules:",
	"I can spend at most `%s`, and I have a voucher with these rules:",
	"My budget is `%s`. I also have a voucher with the following rules:",
	"I don't want to pay more than `%s`, but I can use a voucher with the following rules:",
}

var itemArticles = []string{"a", "some", "a", "an option for a"}

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

// number formats a price bound or voucher figure as a person would write
// it: integers without decimals.
func number(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.2f", f)
}

func priceClause(r *rand.Rand, b PriceBound) string {
	switch b.Op {
	case OpBetween:
		return fmt.Sprintf(pick(r, []string{
			"priced between %s and %s pesos", "costing %s to %s PHP", "with a price from %s to %s PHP",
			"in the %s-%s peso range", "between %s and %s pesos"}), number(*b.Lo), number(*b.Hi))
	case OpGreaterThan:
		return fmt.Sprintf(pick(r, []string{
			"priced above %s pesos", "costing more than %s PHP", "over %s pesos", "that costs over %s PHP"}), number(*b.Lo))
	default:
		return fmt.Sprintf(pick(r, []string{
			"under %s pesos", "priced below %s PHP", "costing less than %s pesos", "for at most %s PHP"}), number(*b.Hi))
	}
}

func serviceClause(r *rand.Rand, service string) string {
	switch service {
	case "freeShipping":
		return pick(r, []string{"with free shipping", "that ships free", "with free delivery"})
	case "COD":
		return pick(r, []string{"with cash on delivery", "that I can pay for on delivery (COD)", "with COD available"})
	case "official":
		return pick(r, []string{"from LazMall", "sold by an official LazMall store", "available through LazMall"})
	case "flashsale":
		return pick(r, []string{"on LazFlash sale", "available with LazFlash", "in a flash sale"})
	}
	return "with " + service
}

func humanKey(k string) string { return strings.ReplaceAll(k, "_", " ") }

func attributeClause(r *rand.Rand, key, value string) string {
	return fmt.Sprintf(pick(r, []string{"with %s %s", "whose %s is %s", "that has %s: %s"}), humanKey(key), value)
}

func skuClause(r *rand.Rand, key, value string) string {
	switch r.IntN(3) {
	case 0:
		return fmt.Sprintf("in %s %s", humanKey(key), value)
	case 1:
		return fmt.Sprintf("with the %s option %s", humanKey(key), value)
	}
	return fmt.Sprintf("available in %s %q", humanKey(key), value)
}

// joinClauses writes "a, b and c".
func joinClauses(cs []string) string {
	switch len(cs) {
	case 0:
		return ""
	case 1:
		return cs[0]
	}
	return strings.Join(cs[:len(cs)-1], ", ") + " and " + cs[len(cs)-1]
}

// describe states one item: its phrase and its constraints in random order.
func describe(r *rand.Rand, c *itemSpec) string {
	var cs []string
	for _, kv := range c.attrs {
		cs = append(cs, attributeClause(r, kv[0], kv[1]))
	}
	for _, kv := range c.skus {
		cs = append(cs, skuClause(r, kv[0], kv[1]))
	}
	for _, s := range c.services {
		cs = append(cs, serviceClause(r, s))
	}
	if c.price != nil {
		cs = append(cs, priceClause(r, *c.price))
	}
	r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	s := pick(r, itemArticles) + " " + c.phrase
	if len(cs) > 0 {
		s += " " + joinClauses(cs)
	}
	return s
}

// listItems states several items as a numbered or worded list.
func listItems(r *rand.Rand, specs []*itemSpec) string {
	parts := make([]string, len(specs))
	style := r.IntN(3)
	ordinals := []string{"first", "second", "third", "fourth"}
	for i, c := range specs {
		d := describe(r, c)
		switch style {
		case 0:
			parts[i] = fmt.Sprintf("(%d) %s", i+1, capitalizeFirst(d))
		case 1:
			parts[i] = fmt.Sprintf("%s, %s", ordinals[i], d)
		default:
			parts[i] = d
		}
	}
	if style == 2 {
		return joinClauses(parts)
	}
	return strings.Join(parts, "; ")
}

func capitalizeFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// voucherRules states the voucher the way ShoppingBench's voucher tasks do.
func voucherRules(r *rand.Rand, v *Voucher) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n"+pick(r, budgetLeads), number(v.Budget))
	if v.VoucherType == VoucherShop {
		b.WriteString("\n1. The voucher only applies to the products from the same shop.")
	} else {
		b.WriteString("\n1. The voucher applies to all products.")
	}
	fmt.Fprintf(&b, "\n2. It is valid only when the total price of the products exceeds `%s`.", number(v.Threshold))
	if v.DiscountType == DiscountFixed {
		fmt.Fprintf(&b, "\n3. It provides a fixed discount of `%s`.", number(*v.FaceValue))
	} else {
		fmt.Fprintf(&b, "\n3. It provides a percentage discount of `%s%%` with a cap of `%s`.", number(*v.Discount*100), number(*v.Cap))
	}
	return b.String()
}

// Phrasings reports how many lead-in templates a type has (each combined
// with shuffled, variously worded constraint clauses).
func Phrasings(t Type) int {
	switch t {
	case TypeProduct:
		return len(productLeads)
	case TypeShop:
		return len(shopLeads)
	case TypeVoucher:
		return len(voucherLeads) * len(budgetLeads)
	}
	return 0
}

// templateWords are the words the phrasings themselves contribute; leak
// clustering ignores them so two problems are not near-duplicates merely
// because they share a template.
func templateWords() map[string]bool {
	var all []string
	all = append(all, productLeads...)
	all = append(all, shopLeads...)
	all = append(all, voucherLeads...)
	all = append(all, budgetLeads...)
	all = append(all, itemArticles...)
	all = append(all,
		"priced between and pesos costing to PHP with a price from in the peso range above more than over that costs",
		"under below less than for at most with free shipping ships free delivery cash on delivery pay COD available",
		"from LazMall sold by an official store through LazFlash sale flash whose is has option first second third fourth",
		"The voucher only applies to the products from same shop all It is valid when total price of exceeds",
		"provides fixed discount percentage cap")
	words := map[string]bool{}
	for _, s := range all {
		for _, w := range tokens(s) {
			words[w] = true
		}
	}
	return words
}
