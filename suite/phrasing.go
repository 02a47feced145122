package suite

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// The phrasings below turn constraints into requests a shopper would
// write. The target is described by its brand, its kind and a recurring
// descriptive word (its core name, see coreName), reordered and split so
// that the title's words rarely appear as the title has them; prices,
// services, attribute values and units are written several ways; a
// first-person context, a purpose or the category often come along.
// Everything is drawn from the problem's random stream, so the same seed
// gives the same words.

// productLeads introduce a single item (%s).
var productLeads = []string{
	"I'm looking for %s.",
	"Can you find me %s?",
	"I need %s.",
	"Please help me find %s.",
	"I want to buy %s.",
	"Looking for %s.",
	"Do you have %s?",
	"Could you recommend %s?",
	"I'd like %s.",
	"Help me pick %s.",
	"Show me %s.",
	"I'm shopping for %s.",
	"Any suggestions for %s?",
	"I'm after %s.",
}

// shopLeads introduce a list of items that must come from one shop.
var shopLeads = []string{
	"I'd like to buy all of these from one shop:",
	"Is there a single store that sells everything below?",
	"Find me one seller that has all of the following:",
	"I want to order these together from the same shop:",
	"Which shop carries all of these?",
	"Help me find a store where I can get everything here in one order:",
	"I need one shop for all of this:",
	"Please find a seller offering every item on my list:",
	"Everything below has to come from the same store:",
	"Can one shop cover my whole list?",
}

// basketLeads introduce a voucher task's list of items.
var basketLeads = []string{
	"I'm buying these:",
	"Here is my shopping list:",
	"I want to get the following:",
	"My cart should have:",
	"I'd like to purchase these items:",
	"Please help me buy the following:",
}

// contexts open a request in the first person.
var contexts = []string{
	"My daughter starts school next week.",
	"I'm setting up my first apartment.",
	"It's my dad's birthday soon.",
	"We're restocking the office.",
	"My old one just broke.",
	"I'm buying a gift for my sister.",
	"We just moved house.",
	"I want to treat myself this payday.",
	"My son keeps asking for one.",
	"I'm getting ready for a trip.",
	"Our family reunion is coming up.",
	"I work from home now.",
	"My mom asked me to order this for her.",
	"I'm replacing a cheap one that didn't last.",
	"A friend recommended I get one.",
}

// purposes follow an item's name.
var purposes = []string{
	"for my daughter's school", "for my mom", "for the office", "for our trip", "as a gift",
	"for my brother", "for my husband", "for my wife", "for my grandparents", "for a friend",
}

// categoryFrames mention the item's category (%s, the leaf's name).
var categoryFrames = []string{"from the %s category", "(%s section)", "in %s", "(the kind listed under %s)"}

// brandForms state the kind (%[1]s) with the brand (%[2]s).
var brandForms = []string{"%[1]s from %[2]s", "%[1]s made by %[2]s", "%[1]s by %[2]s", "%[2]s-brand %[1]s",
	"%[1]s, brand %[2]s", "%[1]s, and I want %[2]s"}

// extraForms state the kind (%[1]s) with a descriptive word (%[2]s).
var extraForms = []string{"%[1]s, %[2]s", "%[1]s (%[2]s)", "%[1]s that's %[2]s", "%[1]s, it has to be %[2]s", "%[2]s %[1]s"}

// splitForms state a kind of several words: the last (%[1]s) and the
// others (%[2]s).
var splitForms = []string{"%[1]s (%[2]s)", "%[1]s, the %[2]s kind", "%[1]s of the %[2]s type"}

// Attribute and SKU wordings: %[1]s is the key as words, %[2]s the value.
var (
	attributeForms = []string{"with %[1]s %[2]s", "whose %[1]s is %[2]s", "with %[2]s %[1]s", "%[1]s: %[2]s",
		"where the %[1]s is %[2]s", "that has %[2]s as its %[1]s"}
	flagForms = []string{"%[1]s: %[2]s", "with %[1]s %[2]s"} // yes, no, none
	skuForms  = []string{"in %[2]s", "in the %[2]s variant", "the %[2]s option", "with the %[1]s option %[2]s",
		"%[1]s %[2]s", "choosing %[2]s as the %[1]s"}
	// keyForms are wordings for keys that have their own idiom, by a word
	// the key contains (a slice, so the first match is always the same).
	keyForms = []struct {
		word  string
		forms []string
	}{
		{"material", []string{"made of %[2]s", "in %[2]s", "%[2]s material"}},
		{"compatible", []string{"that fits the %[2]s", "compatible with the %[2]s", "for a %[2]s"}},
		{"color", []string{"in %[2]s", "the %[2]s one", "in %[2]s colour"}},
		{"size", []string{"in size %[2]s", "size %[2]s"}},
		{"warranty", []string{"with %[2]s", "covered by %[2]s"}},
		{"capacity", []string{"with %[2]s capacity", "%[2]s", "that holds %[2]s"}},
		{"screen", []string{"with a %[2]s screen", "%[2]s screen"}},
		{"connectivity", []string{"that connects via %[2]s", "with %[2]s connectivity"}},
		{"power_source", []string{"%[2]s-powered", "power source: %[2]s"}},
		{"ram", []string{"with %[2]s RAM", "%[2]s of RAM"}},
		{"output_power", []string{"rated at %[2]s", "with %[2]s output"}},
	}
)

// Price wordings: %[1]s and %[2]s are amounts.
var (
	betweenForms = []string{"between %[1]s and %[2]s", "from %[1]s to %[2]s", "in the %[1]s-%[2]s range",
		"priced %[1]s to %[2]s", "somewhere between %[1]s and %[2]s", "costing %[1]s-%[2]s"}
	aroundForms = []string{"around %[1]s, give or take %[2]s", "roughly %[1]s (plus or minus %[2]s)"}
	underForms  = []string{"under %[1]s", "below %[1]s", "less than %[1]s", "no more than %[1]s", "at most %[1]s",
		"up to %[1]s", "max %[1]s", "for %[1]s or less", "not over %[1]s", "%[1]s tops"}
	overForms = []string{"over %[1]s", "above %[1]s", "more than %[1]s", "at least %[1]s", "for %[1]s or more",
		"no less than %[1]s", "starting from %[1]s", "upwards of %[1]s"}
	// moneyForms write an amount (%s).
	moneyForms = []string{"₱%s", "PHP %s", "%s pesos", "P%s", "Php %s", "%s PHP"}
)

// serviceForms word the four services.
var serviceForms = map[string][]string{
	"freeShipping": {"with free shipping", "that ships free", "with free delivery", "with no shipping fee", "and shipping must be free"},
	"COD":          {"with cash on delivery", "that I can pay for on delivery", "with COD available", "payable on delivery", "cash on delivery only"},
	"official":     {"from a LazMall store", "sold by an official store", "from the official store", "LazMall only", "from an official (LazMall) seller"},
	"flashsale":    {"on flash sale", "in a LazFlash deal", "currently in a flash sale", "on a flash deal"},
}

// tailForms turn a clause into a sentence after the item.
var tailForms = []string{"Also, %s.", "One more thing: %s.", "Oh, and %s."}

var ordinals = []string{"First", "Second", "Third", "Fourth", "Fifth"}

func pick(r *rand.Rand, xs []string) string { return xs[r.IntN(len(xs))] }

func shuffle[T any](r *rand.Rand, xs []T) {
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
}

// number formats a price bound or voucher figure as a person would write
// it: integers without decimals.
func number(f float64) string {
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// thousands writes an integer amount with comma separators.
func thousands(s string) string {
	if len(s) <= 3 || strings.ContainsAny(s, ".") {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// money writes an amount in one of the currency forms.
func money(r *rand.Rand, f float64) string {
	n := number(f)
	if r.IntN(2) == 0 {
		n = thousands(n)
	}
	return fmt.Sprintf(pick(r, moneyForms), n)
}

func priceClause(r *rand.Rand, b PriceBound) string {
	switch b.Op {
	case OpBetween:
		lo, hi := *b.Lo, *b.Hi
		if mid := (lo + hi) / 2; r.IntN(4) == 0 && mid == float64(int64(mid)) && lo < hi {
			return fmt.Sprintf(pick(r, aroundForms), money(r, mid), number(mid-lo))
		}
		return fmt.Sprintf(pick(r, betweenForms), money(r, lo), money(r, hi))
	case OpGreaterThan:
		return fmt.Sprintf(pick(r, overForms), money(r, *b.Lo))
	default:
		return fmt.Sprintf(pick(r, underForms), money(r, *b.Hi))
	}
}

func serviceClause(r *rand.Rand, service string) string {
	if forms, ok := serviceForms[service]; ok {
		return pick(r, forms)
	}
	return "with " + service
}

func humanKey(k string) string { return strings.ReplaceAll(k, "_", " ") }

// formsFor returns the wordings of a key: its own idiom when it has one,
// half of the time, or the generic ones.
func formsFor(r *rand.Rand, key string, generic []string) []string {
	for _, kf := range keyForms {
		if strings.Contains(key, kf.word) {
			if r.IntN(2) == 0 {
				return kf.forms
			}
			break
		}
	}
	return generic
}

func attributeClause(r *rand.Rand, key, value string) string {
	switch strings.ToLower(value) {
	case "yes", "no", "none":
		return fmt.Sprintf(pick(r, flagForms), humanKey(key), value)
	}
	return fmt.Sprintf(pick(r, formsFor(r, key, attributeForms)), humanKey(key), valueForm(r, value))
}

func skuClause(r *rand.Rand, key, value string) string {
	return fmt.Sprintf(pick(r, formsFor(r, key, skuForms)), humanKey(key), valueForm(r, value))
}

// units are the unit spellings a value may be written in, by the unit as
// catalog values write it after the number ("1.8l", "16 inch").
var units = map[string][]string{
	"l":    {"L", " L", " liters", " litres", "-litre"},
	"ml":   {"ml", " mL", " milliliters"},
	"m":    {"m", " m", " meters", " metres"},
	"mah":  {"mAh", " mAh"},
	"w":    {"W", " W", " watts", "-watt"},
	"gb":   {"GB", " GB", " gigabytes"},
	"tb":   {"TB", " TB", " terabytes"},
	"kg":   {"kg", " kg", " kilos", " kilograms"},
	"v":    {"V", " V", " volts", "-volt"},
	"mm":   {"mm", " mm", " millimeters"},
	"cm":   {"cm", " cm", " centimeters"},
	"inch": {" inch", "-inch", " inches", "\""},
	"dpi":  {" dpi", " DPI"},
	"oz":   {"oz", " oz", " ounces"},
}

var reQuantity = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s?([a-z]+)$`)

// unitVariants lists the ways a value with a unit may be written (the
// value itself first); a value without a known unit has only itself.
func unitVariants(value string) []string {
	out := []string{value}
	m := reQuantity.FindStringSubmatch(strings.ToLower(value))
	if m == nil {
		return out
	}
	forms, ok := units[m[2]]
	if !ok {
		return out
	}
	num := []string{m[1]}
	if t := thousands(m[1]); t != m[1] {
		num = append(num, t)
	}
	for _, n := range num {
		for _, u := range forms {
			if v := n + u; v != value {
				out = append(out, v)
			}
		}
	}
	return out
}

// valueForm writes a value, often with its unit spelled another way.
func valueForm(r *rand.Rand, value string) string {
	vs := unitVariants(value)
	if len(vs) > 1 && r.IntN(3) > 0 {
		return vs[1+r.IntN(len(vs)-1)]
	}
	return value
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

// article puts "a", "an" or, before a plural ("earrings"), "some" in
// front of a description whose noun is last.
func article(s, noun string) string {
	noun = strings.ToLower(noun)
	switch {
	case strings.HasSuffix(noun, "s") && !strings.HasSuffix(noun, "ss") && len(noun) > 3:
		return "some " + s
	case s != "" && strings.ContainsRune("aeiouAEIOU", rune(s[0])):
		return "an " + s
	}
	return "a " + s
}

// coreText describes the core name. One time in ten the shopper writes
// the words as the listing has them; otherwise the brand moves after the
// kind, a kind of several words is split and a descriptive word goes
// elsewhere, drawn again while the result still quotes the core name.
func coreText(r *rand.Rand, c coreName) string {
	if r.IntN(10) == 0 {
		var ws []string
		for _, w := range c.words {
			if !containsWord(c.brand, w) {
				w = strings.ToLower(w)
			}
			ws = append(ws, w)
		}
		return article(strings.Join(ws, " "), c.kind[len(c.kind)-1])
	}
	phrase := titleWords(c.phrase())
	var s string
	for range 8 {
		s = describeCore(r, c)
		if !containsRun(titleWords(s), phrase) {
			break
		}
	}
	return article(s, c.kind[len(c.kind)-1])
}

func describeCore(r *rand.Rand, c coreName) string {
	lower := func(ws []string) string { return strings.ToLower(strings.Join(ws, " ")) }
	kind := lower(c.kind)
	if len(c.kind) > 1 && r.IntN(2) == 0 {
		kind = fmt.Sprintf(pick(r, splitForms), lower(c.kind[len(c.kind)-1:]), lower(c.kind[:len(c.kind)-1]))
	}
	if len(c.extra) > 0 {
		kind = fmt.Sprintf(pick(r, extraForms), kind, lower(c.extra))
	}
	if len(c.brand) > 0 {
		kind = fmt.Sprintf(pick(r, brandForms), kind, strings.Join(c.brand, " "))
	}
	return kind
}

func containsWord(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// leafName is the last part of a category path, in lower case.
func leafName(category string) string {
	i := strings.LastIndex(category, ">")
	return strings.ToLower(strings.TrimSpace(category[i+1:]))
}

// describe states one item: its core name, maybe its category or purpose,
// and its constraints in random order. With tails, some constraints become
// sentences of their own after the item.
func describe(r *rand.Rand, c *itemSpec, tails bool) (string, string) {
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
	shuffle(r, cs)
	s := coreText(r, c.core)
	if r.IntN(3) == 0 {
		s += " " + fmt.Sprintf(pick(r, categoryFrames), leafName(c.target.Category))
	} else if r.IntN(4) == 0 {
		s += " " + pick(r, purposes)
	}
	var tail []string
	if tails && len(cs) > 1 && r.IntN(2) == 0 {
		k := 1 + r.IntN(min(2, len(cs)-1))
		for _, cl := range cs[len(cs)-k:] {
			tail = append(tail, fmt.Sprintf(pick(r, tailForms), cl))
		}
		cs = cs[:len(cs)-k]
	}
	if len(cs) > 0 {
		s += ", " + joinClauses(cs)
	}
	return s, strings.Join(tail, " ")
}

// withContext prefixes a first-person context sentence half of the time.
func withContext(r *rand.Rand, s string) string {
	if r.IntN(2) == 0 {
		return pick(r, contexts) + " " + s
	}
	return s
}

func productQuery(r *rand.Rand, c *itemSpec) string {
	body, tail := describe(r, c, true)
	q := withContext(r, fmt.Sprintf(pick(r, productLeads), body))
	if tail != "" {
		q += " " + tail
	}
	return q
}

// listItems states several items as a list: numbered lines, bullets,
// numbered clauses or ordinal sentences.
func listItems(r *rand.Rand, specs []*itemSpec) string {
	parts := make([]string, len(specs))
	for i, c := range specs {
		parts[i], _ = describe(r, c, false)
	}
	var b strings.Builder
	switch r.IntN(4) {
	case 0:
		for i, p := range parts {
			fmt.Fprintf(&b, "\n%d. %s", i+1, capitalizeFirst(p))
		}
	case 1:
		for _, p := range parts {
			fmt.Fprintf(&b, "\n- %s", p)
		}
	case 2:
		for i, p := range parts {
			if i > 0 {
				b.WriteByte(';')
			}
			fmt.Fprintf(&b, " (%d) %s", i+1, p)
		}
		b.WriteByte('.')
	default:
		for i, p := range parts {
			fmt.Fprintf(&b, " %s, %s.", ordinals[i], p)
		}
	}
	return b.String()
}

func shopQuery(r *rand.Rand, specs []*itemSpec) string {
	return withContext(r, pick(r, shopLeads)) + listItems(r, specs)
}

func voucherQuery(r *rand.Rand, specs []*itemSpec, v *Voucher) string {
	var body string
	if len(specs) == 1 {
		body = productQuery(r, specs[0])
	} else {
		body = withContext(r, pick(r, basketLeads)) + listItems(r, specs)
	}
	return body + voucherRules(r, v)
}

func capitalizeFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var budgetLeads = []string{
	"My budget is only `%s`, but I have a voucher with the following rules:",
	"I can spend at most `%s`, and I have a voucher with these rules:",
	"My budget is `%s`. I also have a voucher with the following rules:",
	"I don't want to pay more than `%s`, but I can use a voucher with the following rules:",
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
// with variously worded, reordered constraint clauses, contexts and list
// styles).
func Phrasings(t Type) int {
	switch t {
	case TypeProduct:
		return len(productLeads) * (len(contexts) + 1)
	case TypeShop:
		return len(shopLeads) * (len(contexts) + 1)
	case TypeVoucher:
		return (len(productLeads) + len(basketLeads)) * (len(contexts) + 1) * len(budgetLeads)
	}
	return 0
}

var reVerb = regexp.MustCompile(`%(\[\d\])?[sd]`)

// templateWords are the words the phrasings themselves contribute; leak
// clustering ignores them so two problems are not near-duplicates merely
// because they share a template.
func templateWords() map[string]bool {
	var all []string
	for _, list := range [][]string{productLeads, shopLeads, basketLeads, contexts, purposes, categoryFrames, brandForms,
		extraForms, splitForms, attributeForms, flagForms, skuForms, betweenForms, aroundForms, underForms, overForms,
		moneyForms, tailForms, ordinals, budgetLeads} {
		all = append(all, list...)
	}
	for _, kf := range keyForms {
		all = append(all, kf.forms...)
	}
	for _, forms := range serviceForms {
		all = append(all, forms...)
	}
	for _, forms := range units {
		all = append(all, forms...)
	}
	all = append(all, "a an some",
		"The voucher only applies to the products from the same shop all It is valid when total price of exceeds",
		"provides fixed discount percentage cap")
	words := map[string]bool{}
	for _, s := range all {
		for _, w := range tokens(reVerb.ReplaceAllString(s, " ")) {
			words[w] = true
		}
	}
	return words
}
