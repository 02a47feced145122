package miner

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Intent is what the heuristic agent understands of one request: the
// words that describe the product, the price bound and the services.
type Intent struct {
	// Words are the request's content words, lower-cased, with sizes and
	// units written as listings write them when the reader knows how.
	Words []string
	// PriceLo and PriceHi bound the price; 0 means unbounded.
	PriceLo, PriceHi float64
	// Services are required services, with the shop's names.
	Services []string
}

// reader reads requests. Its abilities grow with the agent's skill.
type reader struct {
	// units rewrites sizes the way listings write them ("1.8 liters" is
	// 1.8l, "16-inch" is 16 inch).
	units bool
	// around reads a price given as a middle and a tolerance ("around 500,
	// give or take 50").
	around bool
}

var fullReader = reader{units: true, around: true}

const (
	amount = `(\d[\d,]*(?:\.\d+)?)`
	// money is an amount with a currency: ₱ is rewritten to php first.
	money = `(?:\b(?:php|p)\s?` + amount + `|` + amount + `\s?(?:pesos?|php)\b)`
)

var (
	reMoney   = regexp.MustCompile(money)
	reRange   = regexp.MustCompile(money + `\s*(?:and|to|-|–)\s*` + money)
	reAround  = regexp.MustCompile(`(?:around|roughly|about|approximately)\s+` + money + `[,\s]*(?:give or take|plus or minus|±|\(plus or minus)\s*` + amount + `\)?`)
	reUpper   = regexp.MustCompile(`(?:under|below|less than|no more than|not more than|at most|up to|max(?:imum)?|not over|within|cheaper than|budget is|budget of)\s+` + money)
	reUpperAt = regexp.MustCompile(money + `\s*(?:or less|tops|max(?:imum)?|at most)\b`)
	reLower   = regexp.MustCompile(`(?:over|above|more than|at least|no less than|not under|starting (?:from|at)|upwards of|min(?:imum)?|from)\s+` + money)
	reLowerAt = regexp.MustCompile(money + `\s*(?:or more|and up|and above|\+)`)

	reThousands = regexp.MustCompile(`(\d),(\d{3})\b`)
	reUnit      = regexp.MustCompile(`(\d+(?:\.\d+)?)\s?-?\s?(milliliters?|millilitres?|ml|liters?|litres?|l|meters?|metres?|m|mah|watts?|w|gigabytes?|gb|terabytes?|tb|kilograms?|kilos?|kg|volts?|v|millimeters?|mm|centimeters?|cm|inches|inch|dpi|ounces?|oz)\b`)
	reInchMark  = regexp.MustCompile(`(\d+(?:\.\d+)?)"`)
)

// unitCodes maps unit words to the spelling listings use after a number;
// a leading space keeps it a word of its own ("16 inch").
var unitCodes = map[string]string{
	"milliliter": "ml", "milliliters": "ml", "millilitre": "ml", "millilitres": "ml", "ml": "ml",
	"liter": "l", "liters": "l", "litre": "l", "litres": "l", "l": "l",
	"meter": "m", "meters": "m", "metre": "m", "metres": "m", "m": "m",
	"mah": "mah", "watt": "w", "watts": "w", "w": "w",
	"gigabyte": "gb", "gigabytes": "gb", "gb": "gb", "terabyte": "tb", "terabytes": "tb", "tb": "tb",
	"kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg", "kg": "kg",
	"volt": "v", "volts": "v", "v": "v", "millimeter": "mm", "millimeters": "mm", "mm": "mm",
	"centimeter": "cm", "centimeters": "cm", "cm": "cm",
	"inch": " inch", "inches": " inch", "dpi": " dpi", "ounce": "oz", "ounces": "oz", "oz": "oz",
}

// servicePhrases map phrases of a request to service names.
func servicePhrases() [][2]string {
	return [][2]string{
		{"free shipping", "freeShipping"}, {"free delivery", "freeShipping"}, {"ships free", "freeShipping"},
		{"ship free", "freeShipping"}, {"no shipping fee", "freeShipping"}, {"shipping must be free", "freeShipping"},
		{"shipping is free", "freeShipping"}, {"freeshipping", "freeShipping"},
		{"cash on delivery", "COD"}, {"pay for on delivery", "COD"}, {"pay on delivery", "COD"},
		{"payable on delivery", "COD"}, {"pay when it arrives", "COD"}, {"cod", "COD"},
		{"lazmall", "official"}, {"official store", "official"}, {"official seller", "official"}, {"official shop", "official"},
		{"flash sale", "flashsale"}, {"flash deal", "flashsale"}, {"lazflash", "flashsale"}, {"flashsale", "flashsale"},
	}
}

// stopwords are words that say nothing about which product is wanted:
// function words, the language of asking, and the people and occasions
// shoppers mention.
func stopwords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of for to in on with without at by from as is are be been it its it's
		that this these those which whose where what who there here than then so if but not no nor also just only
		i i'm im i'd id i've me my we we're our us you your he she his her they their them ones some any all every each
		please want wants need needs looking look find get buy would like could can help show recommend suggest
		suggestions pick after shopping purchase order ordering should must has have had having make sure
		oh thing more ideally kind type types option variant version section category listed under department
		item items product products list below following everything whole together carries carry sells sell
		selling offering offer offers stocks shop shops store stores seller sellers single same
		price priced cost costs costing budget range between somewhere around roughly give take minus tops
		first second third fourth fifth sixth also
		daughter son mom mother dad father brother sister wife husband friend friends family grandparents
		birthday payday trip week next soon just broke broken replacing cheap didn't last asked
		apartment house moved moving restocking setting up starts start treat myself keeps asking work now
		reunion coming recommended ready getting ever still really very much many`) {
		m[w] = true
	}
	return m
}

var stop = stopwords()

// normalize lower-cases a request and rewrites ₱ as php so that amounts
// read alike.
func normalize(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "₱", " php ")
}

func parseAmount(s string) float64 {
	f, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return f
}

// moneyValue is the amount of a reMoney-style match: one of two groups.
func moneyValue(groups []string) float64 {
	for _, g := range groups {
		if g != "" {
			return parseAmount(g)
		}
	}
	return 0
}

// parse reads one request (or one item of a list).
func (rd reader) parse(text string) Intent {
	var in Intent
	s := normalize(text)
	cut := func(loc []int) { s = s[:loc[0]] + " " + s[loc[1]:] }
	if rd.around {
		if m := reAround.FindStringSubmatchIndex(s); m != nil {
			g := submatches(s, m)
			mid, d := moneyValue(g[1:3]), parseAmount(g[3])
			in.PriceLo, in.PriceHi = mid-d, mid+d
			cut(m)
		}
	}
	if in.PriceHi == 0 {
		if m := reRange.FindStringSubmatchIndex(s); m != nil {
			g := submatches(s, m)
			lo, hi := moneyValue(g[1:3]), moneyValue(g[3:5])
			if lo <= hi {
				in.PriceLo, in.PriceHi = lo, hi
				cut(m)
			}
		}
	}
	if in.PriceHi == 0 {
		for _, re := range []*regexp.Regexp{reUpper, reUpperAt} {
			if m := re.FindStringSubmatchIndex(s); m != nil {
				in.PriceHi = moneyValue(submatches(s, m)[1:3])
				cut(m)
				break
			}
		}
	}
	if in.PriceLo == 0 && in.PriceHi == 0 {
		for _, re := range []*regexp.Regexp{reLower, reLowerAt} {
			if m := re.FindStringSubmatchIndex(s); m != nil {
				in.PriceLo = moneyValue(submatches(s, m)[1:3])
				cut(m)
				break
			}
		}
	}
	// Any other amount of money is not a product word either.
	s = reMoney.ReplaceAllString(s, " ")
	for _, p := range servicePhrases() {
		for {
			i := phraseIndex(s, p[0])
			if i < 0 {
				break
			}
			if !slices.Contains(in.Services, p[1]) {
				in.Services = append(in.Services, p[1])
			}
			s = s[:i] + " " + s[i+len(p[0]):]
		}
	}
	if rd.units {
		s = rewriteUnits(s)
	}
	for _, w := range words(s) {
		if !stop[w] && !slices.Contains(in.Words, w) {
			in.Words = append(in.Words, w)
		}
	}
	return in
}

// submatches returns the text of each group of a match (empty when the
// group did not take part).
func submatches(s string, loc []int) []string {
	out := make([]string, len(loc)/2)
	for i := range out {
		if loc[2*i] >= 0 {
			out[i] = s[loc[2*i]:loc[2*i+1]]
		}
	}
	return out
}

// rewriteUnits writes sizes as listings write them: "20,000 mAh" is
// 20000mah, "1.8 liters" 1.8l, "16-inch" and 16" are 16 inch.
func rewriteUnits(s string) string {
	s = reThousands.ReplaceAllString(s, "$1$2")
	s = reInchMark.ReplaceAllString(s, "$1 inch")
	return reUnit.ReplaceAllStringFunc(s, func(m string) string {
		sub := reUnit.FindStringSubmatch(m)
		return sub[1] + unitCodes[sub[2]]
	})
}

// words splits text into lower-cased runs of letters and digits, the way
// listings' words are compared.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// phraseIndex finds phrase in s as whole words, or -1.
func phraseIndex(s, phrase string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], phrase)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(phrase)
		if (j == 0 || !isWordByte(s[j-1])) && (end == len(s) || !isWordByte(s[end])) {
			return j
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z'
}

// ParseQuery reads a request with every reading ability.
func ParseQuery(q string) Intent { return fullReader.parse(q) }

// PriceArg is find_product's price argument for the intent, or "".
func (in Intent) PriceArg() string { return priceArg(in.PriceLo, in.PriceHi) }

func priceArg(lo, hi float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case hi > 0:
		return f(lo) + "-" + f(hi)
	case lo > 0:
		return f(lo) + "-"
	}
	return ""
}
