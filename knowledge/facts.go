package knowledge

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"arena/shop"
)

// Fact kinds.
const (
	KindBrand = "brand"
	KindTerm  = "term"
)

// Fact is something a page states and the catalog does not: a question
// whose answer names a brand or a term that products carry.
type Fact struct {
	Kind string
	// Answer is what the questions ask for, as product text spells it:
	// ShoppingBench's Knowledge_Attribute. A product carries the fact
	// when its title or description contains Answer (case-insensitive).
	Answer string
	// Questions ask for Answer without naming it; each identifies it
	// among all the corpus's facts.
	Questions []string
	// URL is the page that states the fact.
	URL string
	// Products are the catalog positions of the products that carry the
	// fact, ascending: the brand's listings, or the listings whose title
	// uses the term.
	Products []int32
}

// baseURL is the offline web's host; .invalid is reserved, so no page
// can be mistaken for a real site.
const baseURL = "https://kb.arena.invalid/"

// slug is s as a URL path segment.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	return b.String()
}

// ContainsFold reports whether text contains answer, ignoring case: the
// rule by which a product carries a fact (ShoppingBench's
// web_rule_score_reward tests kw.lower() in title.lower()).
func ContainsFold(text, answer string) bool {
	if answer == "" {
		return false
	}
	return strings.Contains(strings.ToLower(text), strings.ToLower(answer))
}

// eachToken calls fn for every maximal run of letters and digits of s,
// lowercased; tok is only valid during the call.
func eachToken(s string, buf []byte, fn func(tok []byte)) []byte {
	buf = buf[:0]
	flush := func() {
		if len(buf) > 0 {
			fn(buf)
			buf = buf[:0]
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				buf = append(buf, c)
			case c >= 'A' && c <= 'Z':
				buf = append(buf, c+'a'-'A')
			default:
				flush()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
		} else {
			flush()
		}
	}
	flush()
	return buf
}

// owner records which brands' products use a token: the first brand key
// ("" for unbranded products) and whether any other brand's do too.
type owner struct {
	brand string
	mixed bool
}

// brandInfo is what the catalog says about one brand.
type brandInfo struct {
	key      string // lowercased name
	name     string // as the first listing spells it
	products []int32
	tops     map[string]int
	leaves   map[string]int
}

// isNoBrand reports the placeholders marketplaces use for unbranded goods.
func isNoBrand(key string) bool {
	switch key {
	case "", "nobrand", "no brand", "generic", "oem", "none", "unbranded", "n/a":
		return true
	}
	return false
}

// derive builds the brand and term pages and facts of a catalog.
func derive(ctx context.Context, cat *shop.Catalog, seed uint64) ([]Page, []Fact, error) {
	words := map[string]*owner{}
	brands := map[string]*brandInfo{}
	terms := glossary()
	termProducts := make([][]int32, len(terms))
	termIndex := map[string]int{}
	for i, t := range terms {
		termIndex[strings.ToLower(t.name)] = i
	}
	var buf []byte
	for i := range cat.Len() {
		if i%8192 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		p := cat.At(i)
		key := strings.ToLower(strings.TrimSpace(p.Brand))
		if isNoBrand(key) {
			key = ""
		}
		note := func(tok []byte) {
			if o, ok := words[string(tok)]; ok {
				if o.brand != key {
					o.mixed = true
				}
				return
			}
			words[string(tok)] = &owner{brand: key}
		}
		titleTerm := -1
		buf = eachToken(p.Title, buf, func(tok []byte) {
			note(tok)
			if t, ok := termIndex[string(tok)]; ok && t != titleTerm {
				termProducts[t] = append(termProducts[t], int32(i))
				titleTerm = t
			}
		})
		buf = eachToken(p.Description, buf, note)
		if key == "" || !ContainsFold(p.Title, p.Brand) && !ContainsFold(p.Description, p.Brand) {
			continue
		}
		b := brands[key]
		if b == nil {
			b = &brandInfo{key: key, name: strings.TrimSpace(p.Brand), tops: map[string]int{}, leaves: map[string]int{}}
			brands[key] = b
		}
		b.products = append(b.products, int32(i))
		b.tops[p.TopCategory()]++
		leaf := p.Category
		if j := strings.LastIndex(leaf, ">"); j >= 0 {
			leaf = strings.TrimSpace(leaf[j+1:])
		}
		b.leaves[strings.ToLower(leaf)]++
	}
	vocab := make([]string, 0, len(words))
	for w := range words {
		vocab = append(vocab, w)
	}
	sort.Strings(vocab)

	var pages []Page
	var facts []Fact
	bp, bf := brandFacts(brands, words, vocab, seed)
	pages, facts = append(pages, bp...), append(facts, bf...)
	for i, t := range terms {
		key := strings.ToLower(t.name)
		if len(termProducts[i]) == 0 || ambiguousTerm(key, vocab) {
			continue
		}
		url := baseURL + "glossary/" + slug(t.name)
		pages = append(pages, Page{URL: url, Title: t.name + " - " + t.expansion, Snippet: t.definition,
			Text: fmt.Sprintf("%s stands for %s. Product listings write it as %s.", t.name, t.expansion, t.name)})
		facts = append(facts, Fact{Kind: KindTerm, Answer: t.name, Questions: withoutAnswer(t.questions, t.name), URL: url,
			Products: termProducts[i]})
	}
	return pages, facts, nil
}

// ambiguousTerm reports whether another word of the catalog contains the
// term ("gan" in "organic"): its products would carry the answer by the
// substring rule without having anything to do with it.
func ambiguousTerm(key string, vocab []string) bool {
	for _, w := range vocab {
		if w != key && strings.Contains(w, key) {
			return true
		}
	}
	return false
}

// ambiguousBrand reports whether a word containing the brand's longest
// word appears in any other brand's (or an unbranded) product text.
func ambiguousBrand(b *brandInfo, words map[string]*owner, vocab []string) bool {
	var anchor string
	eachToken(b.key, nil, func(tok []byte) {
		if len(tok) > len(anchor) {
			anchor = string(tok)
		}
	})
	if len(anchor) < 3 {
		return true
	}
	for _, w := range vocab {
		if strings.Contains(w, anchor) {
			if o := words[w]; o.mixed || o.brand != b.key {
				return true
			}
		}
	}
	return false
}

func withoutAnswer(qs []string, answer string) []string {
	var out []string
	for _, q := range qs {
		if !ContainsFold(q, answer) {
			out = append(out, q)
		}
	}
	return out
}

// mix is splitmix64's finaliser.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// history is a brand's invented background.
type history struct {
	city, country, founder string
	year                   int
}

// mostCommon returns the key with the highest count (the smallest on ties).
func mostCommon(m map[string]int) string {
	best, n := "", -1
	for k, c := range m {
		if c > n || c == n && k < best {
			best, n = k, c
		}
	}
	return best
}

// brandFacts invents a history for every unambiguous brand and writes its
// page and questions. Brands go in key order and founders are kept
// distinct, so every question names exactly one brand.
func brandFacts(brands map[string]*brandInfo, words map[string]*owner, vocab []string, seed uint64) ([]Page, []Fact) {
	keys := make([]string, 0, len(brands))
	for k, b := range brands {
		if len(b.products) > 0 && !ambiguousBrand(b, words, vocab) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	ps, firsts, lasts := places(), firstNames(), lastNames()
	hist := make([]history, len(keys))
	founders, founderCount := map[string]bool{}, map[string]int{}
	cityYear, countryYear := map[string]int{}, map[string]int{}
	for i, k := range keys {
		h := fnv.New64a()
		h.Write([]byte(k))
		z := mix(seed ^ h.Sum64())
		pl := ps[z%uint64(len(ps))]
		hist[i] = history{city: pl[0], country: pl[1], year: 1950 + int(mix(z+1)%70)}
		// Founders are drawn until one is new: plain names first, then
		// double-barrelled ones with an initial once plain names run
		// out. A founder still shared after that is left out of the
		// questions below.
		for try := uint64(2); try < 130; try++ {
			f := mix(z + try)
			first, last := firsts[f%uint64(len(firsts))], lasts[(f>>20)%uint64(len(lasts))]
			name := first + " " + last
			if try >= 66 {
				name = fmt.Sprintf("%s %c. %s-%s", first, 'A'+rune((f>>40)%26), last, lasts[(f>>50)%uint64(len(lasts))])
			}
			hist[i].founder = name
			if !founders[name] {
				break
			}
		}
		founders[hist[i].founder] = true
		founderCount[hist[i].founder]++
		cityYear[fmt.Sprint(hist[i].city, hist[i].year)]++
		countryYear[fmt.Sprint(hist[i].country, hist[i].year)]++
	}
	var pages []Page
	var facts []Fact
	for i, k := range keys {
		b, h := brands[k], hist[i]
		noun := strings.ToLower(mostCommon(b.tops))
		url := baseURL + "brands/" + slug(b.name)
		var leaves []string
		for l := range b.leaves {
			leaves = append(leaves, l)
		}
		sort.Slice(leaves, func(x, y int) bool {
			if b.leaves[leaves[x]] != b.leaves[leaves[y]] {
				return b.leaves[leaves[x]] > b.leaves[leaves[y]]
			}
			return leaves[x] < leaves[y]
		})
		leaves = leaves[:min(3, len(leaves))]
		pages = append(pages, Page{
			URL:     url,
			Title:   fmt.Sprintf("%s - %s brand from %s, %s", b.name, noun, h.city, h.country),
			Snippet: fmt.Sprintf("%s is a %s brand founded in %d in %s, %s, by %s.", b.name, noun, h.year, h.city, h.country, h.founder),
			Text: fmt.Sprintf("%s was established by %s in %d and is still based in %s. It is best known for its %s.",
				b.name, h.founder, h.year, h.city, joinAnd(leaves)),
		})
		tpl := QuestionTemplates()
		var qs []string
		if founderCount[h.founder] == 1 {
			qs = append(qs, fmt.Sprintf(tpl[0], noun, h.founder, h.year), fmt.Sprintf(tpl[1], h.founder, h.city, h.country, noun))
		}
		if cityYear[fmt.Sprint(h.city, h.year)] == 1 {
			qs = append(qs, fmt.Sprintf(tpl[2], noun, h.city, h.year))
		}
		if countryYear[fmt.Sprint(h.country, h.year)] == 1 {
			qs = append(qs, fmt.Sprintf(tpl[3], noun, h.country, h.year))
		}
		if qs = withoutAnswer(qs, b.name); len(qs) > 0 {
			facts = append(facts, Fact{Kind: KindBrand, Answer: b.name, Questions: qs, URL: url, Products: slices.Clip(b.products)})
		}
	}
	return pages, facts
}

// QuestionTemplates are the forms of the brand questions, with the
// brand's details as verbs: the founder-and-year and founder-and-place
// forms, asked when the founder is unique, and the place-and-year and
// country-and-year forms, asked when no other brand shares those details.
// Leak clustering ignores their words, which every brand question shares.
func QuestionTemplates() []string {
	return []string{
		"What is the name of the %s brand that %s started in %d?",
		"%s founded a company in %s, %s, that sells %s products. What is the brand called?",
		"Which brand of %s products was founded in %s in %d?",
		"Which %s products brand from %s was established in %d?",
	}
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return "products"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}
