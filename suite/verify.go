package suite

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"arena/shop"
)

// serviceWords are the phrases that state a service; a query states the
// service when it contains one of them (whole words, any case).
var serviceWords = map[string][]string{
	"freeShipping": {"free shipping", "free delivery", "ships free", "shipping must be free", "no shipping fee", "shipping is free", "ship for free", "ships for free"},
	"COD":          {"cash on delivery", "cod", "pay for on delivery", "payable on delivery", "pay on delivery", "pay when it arrives", "pay upon delivery"},
	"official":     {"lazmall", "official store", "official seller", "official shop"},
	"flashsale":    {"flash sale", "lazflash", "flash deal"},
}

var reAmount = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// amounts are the numbers a text states, thousands separators removed.
func amounts(text string) []float64 {
	var out []float64
	for _, m := range reAmount.FindAllString(text, -1) {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimRight(m, ","), ",", ""), 64); err == nil {
			out = append(out, f)
		}
	}
	return out
}

func hasAmount(as []float64, x float64) bool {
	for _, a := range as {
		if math.Abs(a-x) < 0.005 {
			return true
		}
	}
	return false
}

// containsWords reports whether the words of phrase occur consecutively
// among words.
func containsWords(words []string, phrase string) bool {
	run := titleWords(phrase)
	return len(run) > 0 && containsRun(words, run)
}

// Unstated lists what a query fails to convey of problem p, one readable
// reason each; nil means the query states every constraint. A constraint
// is stated by its value: every word of a title phrase (a plural counts),
// an attribute or SKU value in any of its unit spellings, a service by one
// of its phrases, a price bound by its amounts (or, for a range, by its
// middle and half-width: "around 500, give or take 100"), the voucher's
// budget and rules by their figures. Given the catalog, it also refuses a
// query that names a product or shop id, or quotes a target's whole title.
func Unstated(query string, p *Problem, cat *shop.Catalog) []string {
	words := titleWords(query)
	have := map[string]bool{}
	for _, w := range words {
		have[w] = true
	}
	nums := amounts(query)
	var out []string
	for i, it := range p.Reward.Items {
		item := func(format string, args ...any) {
			out = append(out, fmt.Sprintf("item %d: ", i+1)+fmt.Sprintf(format, args...))
		}
		for _, ph := range it.Title {
			for _, w := range titleWords(ph) {
				if !have[w] && !have[w+"s"] && !have[w+"es"] {
					item("title word %q is not stated", w)
				}
			}
		}
		values := func(kind, key, v string) {
			for _, form := range unitVariants(v) {
				if containsWords(words, form) {
					return
				}
			}
			item("%s %s=%q is not stated", kind, key, v)
		}
		for _, kv := range it.SKUOptions {
			for k, v := range kv {
				values("option", k, v)
			}
		}
		for _, a := range it.Attributes {
			for k, vs := range a {
				for _, v := range vs {
					values("attribute", k, v)
				}
			}
		}
		for _, s := range it.Service {
			stated := false
			for _, ph := range serviceWords[s] {
				stated = stated || containsWords(words, ph)
			}
			if !stated {
				item("service %s is not stated", s)
			}
		}
		for _, b := range it.Price {
			if !priceStated(nums, b) {
				item("price bound %s %s is not stated", b.Op, b.Filter())
			}
		}
	}
	if v := p.Voucher; v != nil {
		need := []float64{v.Budget, v.Threshold}
		if v.FaceValue != nil {
			need = append(need, *v.FaceValue)
		}
		if v.Discount != nil {
			need = append(need, math.Round(*v.Discount*10000)/100)
		}
		if v.Cap != nil {
			need = append(need, *v.Cap)
		}
		for _, x := range need {
			if !hasAmount(nums, x) {
				out = append(out, fmt.Sprintf("voucher figure %s is not stated", number(x)))
			}
		}
	}
	if cat != nil {
		for _, w := range words {
			if _, ok := cat.Product(w); ok {
				out = append(out, fmt.Sprintf("names product id %s", w))
			} else if cat.ShopProducts(w) != nil {
				out = append(out, fmt.Sprintf("names shop id %s", w))
			}
		}
		for _, id := range p.Targets {
			if prod, ok := cat.Product(id); ok && containsWords(words, prod.Title) {
				out = append(out, fmt.Sprintf("quotes the whole title of %s", id))
			}
		}
	}
	return out
}

func priceStated(nums []float64, b PriceBound) bool {
	switch {
	case b.Lo != nil && b.Hi != nil:
		if hasAmount(nums, *b.Lo) && hasAmount(nums, *b.Hi) {
			return true
		}
		mid := (*b.Lo + *b.Hi) / 2
		return hasAmount(nums, mid) && hasAmount(nums, mid-*b.Lo)
	case b.Lo != nil:
		return hasAmount(nums, *b.Lo)
	case b.Hi != nil:
		return hasAmount(nums, *b.Hi)
	}
	return true
}
