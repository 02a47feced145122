// Package workload builds the mixed find_product query sets and the
// latency and memory measurements that the shop benchmarks share, so the
// chosen engine and bleve are measured on exactly the same queries.
package workload

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"arena/shop"
)

// Kind labels a query's shape.
type Kind string

// The query shapes of the mix.
const (
	Plain     Kind = "plain"     // one or two title words
	MultiWord Kind = "multiword" // three to six title words
	Filtered  Kind = "filtered"  // price, service or shop filter
	Sorted    Kind = "sorted"    // priceasc, pricedesc or order
	Paged     Kind = "paged"     // pages 2..5
)

// Query is one find_product call, in the tool's own argument form.
type Query struct {
	Kind    Kind   `json:"-"`
	Q       string `json:"q"`
	Page    int    `json:"page"`
	ShopID  string `json:"shop_id,omitempty"`
	Price   string `json:"price,omitempty"`
	Sort    string `json:"sort,omitempty"`
	Service string `json:"service,omitempty"`
}

// Args are the tool call's JSON arguments.
func (q Query) Args() json.RawMessage {
	b, err := json.Marshal(q)
	if err != nil {
		panic(err) // plain struct of strings and ints
	}
	return b
}

// Queries draws n queries from products: each is built around a random
// product, as an agent looking for that product would phrase it. The mix is
// 20% plain, 20% multi-word, 25% filtered, 20% sorted, 15% paged.
func Queries(products []shop.Product, n int, seed uint64) []Query {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]Query, 0, n)
	for len(out) < n {
		p := &products[r.IntN(len(products))]
		words := titleWords(p.Title)
		if len(words) == 0 {
			continue
		}
		q := Query{Page: 1}
		x := r.Float64()
		switch {
		case x < 0.20:
			q.Kind, q.Q = Plain, pickWords(r, words, 1+r.IntN(2))
		case x < 0.40:
			q.Kind, q.Q = MultiWord, pickWords(r, words, 3+r.IntN(4))
		case x < 0.65:
			q.Kind, q.Q = Filtered, pickWords(r, words, 1+r.IntN(4))
			switch r.IntN(4) {
			case 0:
				q.Price = priceRange(r, p.Price)
			case 1:
				q.Service = pickService(r)
			case 2:
				q.ShopID = p.ShopID
			default:
				q.Price, q.Service = priceRange(r, p.Price), pickService(r)
			}
		case x < 0.85:
			q.Kind, q.Q = Sorted, pickWords(r, words, 1+r.IntN(4))
			q.Sort = []string{"priceasc", "pricedesc", "order"}[r.IntN(3)]
			if r.IntN(2) == 0 {
				q.Price = priceRange(r, p.Price)
			}
		default:
			q.Kind, q.Q = Paged, pickWords(r, words, 1+r.IntN(3))
			q.Page = 2 + r.IntN(4)
		}
		out = append(out, q)
	}
	return out
}

func titleWords(title string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(title)) {
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

func pickWords(r *rand.Rand, words []string, k int) string {
	k = min(k, len(words))
	start := r.IntN(len(words) - k + 1)
	return strings.Join(words[start:start+k], " ")
}

func priceRange(r *rand.Rand, price float64) string {
	lo := math.Floor(price * (0.3 + 0.6*r.Float64()))
	if r.IntN(3) == 0 {
		return strconv.FormatFloat(lo, 'f', 0, 64) + "-"
	}
	hi := math.Ceil(price * (1.1 + 2*r.Float64()))
	return fmt.Sprintf("%.0f-%.0f", lo, hi)
}

func pickService(r *rand.Rand) string {
	return []string{"COD", "freeShipping", "official", "flashsale", "COD,freeShipping"}[r.IntN(5)]
}

// Latencies collects per-call durations.
type Latencies []time.Duration

// Quantile returns the q-quantile (nearest rank).
func (l Latencies) Quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Millis converts a duration to float milliseconds for b.ReportMetric.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// RSS returns the process's current and peak resident set size in bytes
// from /proc/self/status (zero where that is unavailable).
func RSS() (current, peak int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		field, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch field {
		case "VmRSS":
			current = kb << 10
		case "VmHWM":
			peak = kb << 10
		}
	}
	return current, peak
}
