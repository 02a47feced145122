package miner

import (
	"regexp"
	"strconv"
	"strings"
)

// Intent is what the heuristic agent understands of a query.
type Intent struct {
	// Words are the product words to search for.
	Words []string
	// PriceLo and PriceHi bound the price; 0 means unbounded.
	PriceLo, PriceHi float64
	// Services are required services, with the shop's names.
	Services []string
}

var (
	reBetween = regexp.MustCompile(`(?i)between\s+\$?(\d+(?:\.\d+)?)\s*(?:and|to|-)\s*\$?(\d+(?:\.\d+)?)`)
	reRange   = regexp.MustCompile(`\$?(\d+(?:\.\d+)?)\s*(?:-|to)\s*\$?(\d+(?:\.\d+)?)`)
	reUnder   = regexp.MustCompile(`(?i)(?:under|below|less than|cheaper than|at most|no more than|not more than|max(?:imum)?|within|up to|budget(?: of| is)?)\s+\$?(\d+(?:\.\d+)?)`)
	reOver    = regexp.MustCompile(`(?i)(?:over|above|more than|at least|higher than|min(?:imum)?|from)\s+\$?(\d+(?:\.\d+)?)`)
	reWord    = regexp.MustCompile(`[\pL\pN][\pL\pN'&+.-]*`)
)

// servicePhrases maps phrases in a query to service names.
func servicePhrases() [][2]string {
	return [][2]string{
		{"free shipping", "freeShipping"}, {"free delivery", "freeShipping"}, {"freeshipping", "freeShipping"},
		{"cash on delivery", "COD"}, {"cod", "COD"},
		{"official store", "official"}, {"lazmall", "official"}, {"official", "official"},
		{"flash sale", "flashsale"}, {"flashsale", "flashsale"}, {"lazflash", "flashsale"},
	}
}

func stopwords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i i'm im me my we you a an the and or of for to in on with without
		that this these those is are be it its please want need looking look find search get buy
		would like some any can could help show recommend product products item items one from by
		which whose has have should must also just only price priced cost costs costing budget
		under below less than over above more at least most between cheaper higher no not max
		maximum minimum min within up around about shop store sold sell sells selling seller
		service services offer offers offering delivery shipping free cash on official sale flash
		lazmall lazflash cod peso pesos php dollars usd rm baht`) {
		m[w] = true
	}
	return m
}

// ParseQuery extracts an Intent from a natural-language shopping query.
func ParseQuery(q string) Intent {
	var in Intent
	lower := strings.ToLower(q)
	num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	if m := reBetween.FindStringSubmatch(lower); m != nil {
		in.PriceLo, in.PriceHi = num(m[1]), num(m[2])
	} else if m := reRange.FindStringSubmatch(lower); m != nil && num(m[1]) < num(m[2]) {
		in.PriceLo, in.PriceHi = num(m[1]), num(m[2])
	}
	if m := reUnder.FindStringSubmatch(lower); m != nil && in.PriceHi == 0 {
		in.PriceHi = num(m[1])
	}
	if m := reOver.FindStringSubmatch(lower); m != nil && in.PriceLo == 0 {
		in.PriceLo = num(m[1])
	}
	if in.PriceLo > in.PriceHi && in.PriceHi > 0 {
		in.PriceLo, in.PriceHi = in.PriceHi, in.PriceLo
	}
	seen := map[string]bool{}
	for _, p := range servicePhrases() {
		if containsPhrase(lower, p[0]) && !seen[p[1]] {
			seen[p[1]] = true
			in.Services = append(in.Services, p[1])
		}
	}
	stop := stopwords()
	for _, w := range reWord.FindAllString(lower, -1) {
		w = strings.Trim(w, ".-'")
		if w == "" || stop[w] {
			continue
		}
		if strings.Trim(w, "0123456789.-") == "" {
			continue // a number or a range such as 20-60
		}
		in.Words = append(in.Words, w)
	}
	return in
}

// containsPhrase matches whole words only, so "cod" does not match "code".
func containsPhrase(s, phrase string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], phrase)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(phrase)
		if (j == 0 || !isWordByte(s[j-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b >= 'A' && b <= 'Z'
}

// PriceArg is find_product's price argument for the intent, or "".
func (in Intent) PriceArg() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case in.PriceHi > 0:
		return f(in.PriceLo) + "-" + f(in.PriceHi)
	case in.PriceLo > 0:
		return f(in.PriceLo) + "-"
	}
	return ""
}
