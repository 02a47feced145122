package suite

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"arena/shop"
	"arena/shop/index"
)

// itemSpec is the constraints of one requested item, before they become
// JSON and words.
type itemSpec struct {
	target   *shop.Product
	pos      int
	core     coreName
	price    *PriceBound
	services []string
	attrs    [][2]string
	skus     [][2]string
}

// coreName is the target's core name: the title words the title rule
// requires (the reward's title phrase is exactly these words, in title
// order), with the part each plays in the title, so that a query can
// describe the product by brand and kind instead of quoting its title.
//
// A query "contains the core name verbatim" when these words appear in it
// consecutively and in this order (compared as the title rule compares
// words: lower-cased runs of letters and digits).
type coreName struct {
	words []string // title order, spelled as in the title
	brand []string // the words naming the brand
	kind  []string // words that the category's titles share across brands: the product type
	extra []string // a descriptive word the category's titles use
}

func (c coreName) phrase() string { return strings.Join(c.words, " ") }

// titleWords are the lower-cased runs of letters and digits of s, in
// order: the words the lexical title rule compares (scoring.Tokens).
func titleWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// titleTokens are the distinct titleWords of s, in first occurrence order.
func titleTokens(s string) []string {
	words := titleWords(s)
	out := words[:0]
	for _, w := range words {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// titleThreshold is the lexical title rule's default share of phrase words
// a title must hold (scoring.DefaultLexicalThreshold).
const titleThreshold = 0.8

// fillerWords are title words sellers add for marketing; they say nothing
// about the product.
var fillerWords = map[string]bool{"original": true, "new": true, "hot": true, "sale": true, "ready": true, "stock": true,
	"best": true, "seller": true, "authentic": true, "local": true, "high": true, "quality": true, "free": true,
	"gift": true, "premium": true, "budget": true, "friendly": true, "korean": true, "style": true, "trending": true,
	"1pc": true, "2pcs": true, "set": true, "pack": true, "bundle": true, "of": true, "2025": true, "cod": true}

var errUnsuitable = errors.New("unsuitable target")

// sellerText is what the seller wrote about p besides the title (short
// description and description, the description's copy of the title cut
// out), in lower case, split into phrases at punctuation.
func sellerText(p *shop.Product) [][]string {
	text := strings.ToLower(p.ShortDescription + ". " + strings.Replace(p.Description, p.Title, "", 1))
	var out [][]string
	for _, part := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(".,;:!?()\n", r) }) {
		if ws := titleWords(part); len(ws) > 0 {
			out = append(out, ws)
		}
	}
	return out
}

// coreOf picks the core name of p: usually the brand; the kind, the title
// word the seller repeats most in the descriptions (sellers name the
// product type again and again), with a neighbour the descriptions pair
// it with; and a descriptive word (a feature the descriptions mention),
// always when brand and kind make fewer than two words.
func (g *Generator) coreOf(r *rand.Rand, p *shop.Product) (coreName, error) {
	fields := strings.Fields(p.Title)
	role := make([]byte, len(fields)) // 'b'rand, 'k'ind, 'e'xtra
	if bt := titleTokens(p.Brand); len(bt) > 0 && r.Float64() < 0.8 {
		for i := 0; i+len(bt) <= len(fields); i++ {
			if slices.Equal(titleTokens(strings.Join(fields[i:i+len(bt)], " ")), bt) {
				for j := range bt {
					role[i+j] = 'b'
				}
				break
			}
		}
	}
	// tok is a field's one word, or "" when the field is not a usable
	// word: numbers, codes, filler, stop words and repeats are left out.
	tok := make([]string, len(fields))
	seen := map[string]bool{}
	for i, f := range fields {
		ws := titleWords(f)
		if role[i] != 0 || len(ws) != 1 || len(ws[0]) < 2 || fillerWords[ws[0]] || seen[ws[0]] ||
			strings.ContainsFunc(ws[0], unicode.IsDigit) || len(index.Terms(f)) == 0 {
			continue
		}
		seen[ws[0]] = true
		tok[i] = ws[0]
	}
	count, pairs := map[string]int{}, map[string]bool{}
	for _, phrase := range sellerText(p) {
		for j, w := range phrase {
			count[w]++
			if j > 0 {
				pairs[phrase[j-1]+" "+w] = true
			}
		}
	}
	leaf := index.Terms(leafName(p.Category))
	inLeaf := func(i int) bool { t := index.Terms(fields[i]); return len(t) == 1 && slices.Contains(leaf, t[0]) }
	// The most repeated word; on a tie, one naming the category, then the
	// later one (English puts the noun last). Without descriptions that is
	// the last word naming the category, or the last usable word.
	head := -1
	for i := range fields {
		if tok[i] == "" {
			continue
		}
		if head < 0 || count[tok[i]] > count[tok[head]] || count[tok[i]] == count[tok[head]] && (inLeaf(i) || !inLeaf(head)) {
			head = i
		}
	}
	if head < 0 {
		return coreName{}, errUnsuitable
	}
	role[head] = 'k'
	// grow adds to the word at i the neighbour the descriptions pair it
	// with (the more repeated one if both are).
	grow := func(i int, as byte) {
		best := -1
		for _, j := range []int{i - 1, i + 1} {
			if j < 0 || j >= len(fields) || tok[j] == "" || role[j] != 0 {
				continue
			}
			if (j < i && pairs[tok[j]+" "+tok[i]] || j > i && pairs[tok[i]+" "+tok[j]]) && (best < 0 || count[tok[j]] > count[tok[best]]) {
				best = j
			}
		}
		if best >= 0 {
			role[best] = as
		}
	}
	grow(head, 'k')
	n := 0
	for _, b := range role {
		if b != 0 {
			n++
		}
	}
	if n < 2 || r.Float64() < 0.25 {
		var starts []int
		for i := range fields {
			if tok[i] != "" && role[i] == 0 && count[tok[i]] > 0 {
				starts = append(starts, i)
			}
		}
		if len(starts) > 0 {
			i := starts[r.IntN(len(starts))]
			role[i] = 'e'
			grow(i, 'e')
			n++
		}
	}
	if n < 2 {
		return coreName{}, errUnsuitable
	}
	var c coreName
	for i, f := range fields {
		switch role[i] {
		case 'b':
			c.brand = append(c.brand, f)
		case 'k':
			c.kind = append(c.kind, f)
		case 'e':
			c.extra = append(c.extra, f)
		default:
			continue
		}
		c.words = append(c.words, f)
	}
	return c, nil
}

// spec draws constraints that the product at pos satisfies, with nPairs
// attribute or SKU pairs. SKU pairs always single out one variant of the
// target, as a shopper who names a colour and a size means one variant.
func (g *Generator) spec(r *rand.Rand, pos int, nPairs int) (*itemSpec, error) {
	p := g.cat.At(pos)
	core, err := g.coreOf(r, p)
	if err != nil {
		return nil, err
	}
	c := &itemSpec{target: p, pos: pos, core: core}

	// Price: a rounded bound close enough to the price that other
	// listings of the same item often fall outside it; open-ended bounds
	// less often, as they exclude less.
	lo := math.Floor(p.Price * (0.88 + 0.1*r.Float64()))
	hi := math.Ceil(p.Price * (1.02 + 0.1*r.Float64()))
	switch x := r.IntN(20); {
	case x < 10:
		c.price = &PriceBound{Op: OpBetween, Lo: ptr(lo), Hi: ptr(hi)}
	case x < 13:
		c.price = &PriceBound{Op: OpGreaterThan, Lo: ptr(lo)}
	default:
		c.price = &PriceBound{Op: OpLessThan, Hi: ptr(hi)}
	}
	// Services: usually one or two of the target's, the rarer first
	// (shops differ most in them).
	if svc := p.Service.Names(); len(svc) > 0 {
		slices.SortStableFunc(svc, func(a, b string) int { return serviceRarity(a) - serviceRarity(b) })
		c.services = svc[:min(len(svc), 1+r.IntN(2))]
		slices.Sort(c.services)
	}

	// SKU pairs first (when the target has variants, usually), from one
	// variant, adding its options until no other variant matches; then
	// attributes up to nPairs.
	if len(p.SKUOptions) > 0 && r.Float64() < 0.65 {
		v := p.SKUOptions[r.IntN(len(p.SKUOptions))]
		opts := slices.Clone(v)
		r.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
		for _, o := range opts {
			c.skus = append(c.skus, [2]string{o.Key, o.Value})
			if matchingVariants(p, c.skus) == 1 {
				break
			}
		}
		if matchingVariants(p, c.skus) != 1 {
			c.skus = nil // two identical variants: no pair singles one out
		}
	}
	var attrs [][2]string
	for _, a := range p.Attributes {
		if a.Key == "brand" || len(a.Values) == 0 {
			continue
		}
		attrs = append(attrs, [2]string{a.Key, a.Values[r.IntN(len(a.Values))]})
	}
	r.Shuffle(len(attrs), func(i, j int) { attrs[i], attrs[j] = attrs[j], attrs[i] })
	c.attrs = attrs[:min(len(attrs), max(0, nPairs-len(c.skus)))]
	if len(c.attrs)+len(c.skus) == 0 {
		return nil, errUnsuitable
	}
	return c, nil
}

// serviceRarity orders services from the rarest in marketplaces.
func serviceRarity(name string) int {
	switch name {
	case "official":
		return 0
	case "flashsale":
		return 1
	case "freeShipping":
		return 2
	}
	return 3
}

// matchingVariants counts p's variants that have every SKU pair.
func matchingVariants(p *shop.Product, skus [][2]string) int {
	n := 0
	for _, sku := range p.SKUOptions {
		if missingOptions(sku, skus) == 0 {
			n++
		}
	}
	return n
}

func missingOptions(sku shop.SKU, skus [][2]string) int {
	miss := 0
	for _, kv := range skus {
		if v, ok := sku.Value(kv[0]); !ok || v != kv[1] {
			miss++
		}
	}
	return miss
}

// misses counts the constraints of c that the product at pos fails, as
// the rule metric counts them (the title phrase, the price bound, each
// service, each attribute or SKU pair with the best variant), stopping
// early once it exceeds limit.
func (g *Generator) misses(pos int, c *itemSpec, limit int) int {
	p := g.cat.At(pos)
	miss := 0
	if c.price != nil && !c.price.Contains(p.Price) {
		miss++
	}
	for _, s := range c.services {
		if sv, _ := shop.ParseService(s); !p.Service.Has(sv) {
			miss++
		}
	}
	if miss > limit {
		return miss
	}
	if !g.titleHas(pos, c.core) {
		miss++
	}
	for _, kv := range c.attrs {
		if vals, ok := p.Attribute(kv[0]); !ok || !slices.Contains(vals, kv[1]) {
			miss++
		}
	}
	if len(c.skus) > 0 {
		best := len(c.skus)
		for _, sku := range p.SKUOptions {
			best = min(best, missingOptions(sku, c.skus))
		}
		miss += best
	}
	return miss
}

// titleHas reports whether the title at pos passes the lexical title rule
// for the core name.
func (g *Generator) titleHas(pos int, core coreName) bool {
	want := titleTokens(core.phrase())
	hits := 0
	for _, w := range want {
		if _, ok := slices.BinarySearch(g.terms[pos], w); ok {
			hits++
		}
	}
	return float64(hits) >= titleThreshold*float64(len(want))
}

// survey counts the products of c's category that satisfy c (candidates)
// and those that miss exactly one constraint (distractors). Products of
// other categories could match too; they are rare and only make a problem
// easier, so the grade errs on the hard side.
func (g *Generator) survey(c *itemSpec) (candidates []int32, distractors int) {
	for _, pos := range g.byLeaf[c.target.Category] {
		switch g.misses(int(pos), c, 1) {
		case 0:
			candidates = append(candidates, pos)
		case 1:
			distractors++
		}
	}
	return candidates, distractors
}

// searchQuery is the query made from the constraint words.
func (c *itemSpec) searchQuery() string {
	parts := []string{c.core.phrase()}
	for _, kv := range c.attrs {
		parts = append(parts, kv[1])
	}
	for _, kv := range c.skus {
		parts = append(parts, kv[1])
	}
	return strings.Join(parts, " ")
}

// findable reports whether the target is within find_product's 5 pages
// for the constraint words with the stated filters (and shopID, if set).
func (g *Generator) findable(c *itemSpec, shopID string) bool {
	req := shop.FindRequest{Query: c.searchQuery(), ShopID: shopID}
	if c.price != nil {
		if pr, err := shop.ParsePriceRange(c.price.Filter()); err == nil {
			req.Price = pr
		}
	}
	if len(c.services) > 0 {
		sv, err := shop.ParseServices(strings.Join(c.services, ","))
		if err != nil {
			return false
		}
		req.Services = sv
	}
	for page := 1; page <= shop.MaxPages; page++ {
		req.Page = page
		res, err := g.idx.Find(req)
		if err != nil {
			return false
		}
		for _, it := range res.Items {
			if it.ProductID == c.target.ProductID {
				return true
			}
		}
		if len(res.Items) < shop.PageSize {
			return false
		}
	}
	return false
}

// item is c as ShoppingBench reward JSON.
func (c *itemSpec) item() Item {
	// The title constraint is the core name, not the target's whole title:
	// any product whose title carries those words answers the query as
	// asked, and scoring a full title would reward guessing the one hidden
	// target among equally good products.
	it := Item{ProductID: c.target.ProductID, Title: []string{c.core.phrase()}}
	for _, kv := range c.skus {
		it.SKUOptions = append(it.SKUOptions, map[string]string{kv[0]: kv[1]})
	}
	for _, kv := range c.attrs {
		it.Attributes = append(it.Attributes, map[string][]string{kv[0]: {kv[1]}})
	}
	if len(c.services) > 0 {
		it.Service = slices.Clone(c.services)
	}
	if c.price != nil {
		it.Price = []PriceBound{*c.price}
	}
	return it
}

// grade turns the evidence into a difficulty: fewer products satisfying
// the constraints (the typical item's count), more tool steps and more
// pairs to verify make a problem harder.
func grade(candidates []int, steps, pairs int) Difficulty {
	c := slices.Clone(candidates)
	slices.Sort(c)
	median := c[len(c)/2]
	points := 0
	switch {
	case median <= 1:
		points += 2
	case median <= 3:
		points++
	}
	switch {
	case steps >= 12:
		points += 2
	case steps >= 8:
		points++
	}
	if pairs > len(candidates) {
		points++
	}
	switch {
	case points >= 3:
		return Hard
	case points >= 2:
		return Medium
	}
	return Easy
}

func pairCount(specs []*itemSpec) int {
	n := 0
	for _, c := range specs {
		n += len(c.attrs) + len(c.skus)
	}
	return n
}

// steps estimates the tool calls an efficient agent needs: a search per
// item, a view per item with attribute or SKU constraints, one more for a
// voucher's arithmetic, and the recommendation.
func steps(specs []*itemSpec, voucher bool) int {
	n := 1
	for _, c := range specs {
		n++
		if len(c.attrs)+len(c.skus) > 0 {
			n++
		}
	}
	if voucher {
		n++
	}
	return n
}
