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
	"arena/shop/index"
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

// The hostile shapes: not part of the mix, each aimed at a path whose cost
// grows with the catalog.
const (
	// AdvWords is 20 to 32 of the catalog's commonest words and no filter:
	// every list is long and no list can be pruned.
	AdvWords Kind = "adversarial-words"
	// AdvLong is a query near the 1,000-byte cap: common and rare words,
	// repeats and junk tokens, so the 32-term cap decides what is searched.
	AdvLong Kind = "adversarial-long"
	// AdvFilters is 2 to 14 common words with filters that almost nothing
	// passes, so the top k fills slowly and pruning never starts.
	AdvFilters Kind = "adversarial-filters"
)

// AdversarialKinds lists the hostile shapes in a fixed order.
var AdversarialKinds = []Kind{AdvWords, AdvLong, AdvFilters}

// Products is a catalog to draw queries from: a *shop.Catalog, or a slice
// of products through Slice.
type Products interface {
	Len() int
	At(i int) *shop.Product
}

// Slice adapts products held as values to Products.
type Slice []shop.Product

// Len is the number of products.
func (s Slice) Len() int { return len(s) }

// At returns product i.
func (s Slice) At(i int) *shop.Product { return &s[i] }

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
func Queries(products Products, n int, seed uint64) []Query {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]Query, 0, n)
	for len(out) < n {
		p := products.At(r.IntN(products.Len()))
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

// Adversarial draws n hostile queries of one kind against products. The
// common words are the catalog's most frequent indexed terms, counted on a
// sample of at most 50,000 products.
func Adversarial(products Products, kind Kind, n int, seed uint64) []Query {
	r := rand.New(rand.NewPCG(seed, 0xbad))
	common := commonTerms(products, 64)
	sorts := []string{"", "priceasc", "pricedesc", "order"}
	out := make([]Query, 0, n)
	for len(out) < n {
		p := products.At(r.IntN(products.Len()))
		q := Query{Kind: kind, Page: 1 + r.IntN(5), Sort: sorts[r.IntN(len(sorts))]}
		switch kind {
		case AdvWords:
			q.Q = strings.Join(sample(r, common, 20+r.IntN(13)), " ")
		case AdvLong:
			q.Q = longQuery(r, common, titleWords(p.Title))
		case AdvFilters:
			q.Q = strings.Join(sample(r, common, 2+r.IntN(13)), " ")
			hostileFilter(r, &q, p)
		default:
			panic(fmt.Sprintf("workload: %q is not an adversarial kind", kind))
		}
		out = append(out, q)
	}
	return out
}

// commonTerms returns the k indexed terms found in the most products.
func commonTerms(products Products, k int) []string {
	step := max(1, products.Len()/50_000)
	df := map[string]int{}
	seen := map[string]bool{}
	for i := 0; i < products.Len(); i += step {
		p := products.At(i)
		clear(seen)
		count := func(text string) {
			for _, t := range index.Terms(text) {
				if !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
		count(p.Title)
		count(p.Category)
		for _, a := range p.Attributes {
			for _, v := range a.Values {
				count(v)
			}
		}
	}
	terms := make([]string, 0, len(df))
	for t := range df {
		terms = append(terms, t)
	}
	slices.SortFunc(terms, func(a, b string) int {
		if df[a] != df[b] {
			return df[b] - df[a]
		}
		return strings.Compare(a, b)
	})
	return terms[:min(k, len(terms))]
}

// sample returns k distinct words of words in random order.
func sample(r *rand.Rand, words []string, k int) []string {
	s := slices.Clone(words)
	r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s[:min(k, len(s))]
}

// longQuery fills about 1,000 bytes with common words, the target's own
// title words, repeats, and tokens no product has, joined by assorted
// punctuation. Half of the queries lead with common words, so that the
// 32-term cap is taken by long lists.
func longQuery(r *rand.Rand, common, title []string) string {
	var b strings.Builder
	seps := []string{" ", " ", ", ", "/", " - ", "|"}
	leadCommon := r.IntN(2) == 0
	for b.Len() < 960 {
		var w string
		switch x := r.IntN(10); {
		case leadCommon && b.Len() < 300, x < 4:
			w = common[r.IntN(len(common))]
		case x < 7 && len(title) > 0:
			w = title[r.IntN(len(title))]
		default:
			w = fmt.Sprintf("zq%x", r.Uint32())
		}
		if b.Len() > 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		b.WriteString(w)
	}
	return b.String()
}

// hostileFilter sets a filter combination that few or no products pass,
// each a different way of defeating filter-driven retrieval.
func hostileFilter(r *rand.Rand, q *Query, p *shop.Product) {
	switch r.IntN(5) {
	case 0: // every service at once
		q.Service = "official,freeShipping,COD,flashsale"
	case 1: // a price band of a cent
		lo := math.Floor(p.Price*100) / 100
		q.Price = fmt.Sprintf("%.2f-%.2f", lo+0.001, lo+0.009)
	case 2: // a wide price band and three services
		q.Price = priceRange(r, p.Price)
		q.Service = []string{"official,COD,flashsale", "freeShipping,COD,flashsale", "official,freeShipping,flashsale"}[r.IntN(3)]
	case 3: // a shop with a price band its products are not in
		q.ShopID = p.ShopID
		q.Price = fmt.Sprintf("%.0f-", p.Price*50+1e5)
	default: // only the dearest products, and a service
		q.Price = fmt.Sprintf("%.0f-", 2000+r.Float64()*8000)
		q.Service = pickService(r)
	}
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

// Recorder times calls twice: by the wall clock, and by the CPU time of
// the calling thread, which other processes on a shared machine disturb
// much less. The goroutine that calls Time must hold its thread
// (runtime.LockOSThread) for the CPU times to mean anything.
type Recorder struct {
	Wall, CPU Latencies
	// NoCPU is set once the thread clock failed; CPU is then empty.
	NoCPU bool
}

// Time runs fn once and records its wall and CPU time.
func (r *Recorder) Time(fn func()) {
	c0, ok0 := ThreadCPU()
	t0 := time.Now()
	fn()
	wall := time.Since(t0)
	c1, ok1 := ThreadCPU()
	r.Wall = append(r.Wall, wall)
	if !ok0 || !ok1 {
		r.NoCPU, r.CPU = true, nil
	} else if !r.NoCPU {
		r.CPU = append(r.CPU, c1-c0)
	}
}

// Report adds the recorded percentiles to b's results: p50-ms and p99-ms
// (wall) and cpu-p50-ms and cpu-p99-ms (thread CPU, when measured).
func (r *Recorder) Report(b interface{ ReportMetric(float64, string) }) {
	b.ReportMetric(Millis(r.Wall.Quantile(0.50)), "p50-ms")
	b.ReportMetric(Millis(r.Wall.Quantile(0.99)), "p99-ms")
	if !r.NoCPU && len(r.CPU) > 0 {
		b.ReportMetric(Millis(r.CPU.Quantile(0.50)), "cpu-p50-ms")
		b.ReportMetric(Millis(r.CPU.Quantile(0.99)), "cpu-p99-ms")
	}
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
