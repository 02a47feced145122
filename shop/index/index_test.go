package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"lowercase and split", "Heart String Violin-Bow", []string{"heart", "string", "violin", "bow"}},
		{"stop words dropped", "a case for the phone", []string{"case", "phone"}},
		{"plurals folded", "Shoes Batteries Boxes Glasses Watches cymbals", []string{"shoe", "battery", "box", "glass", "watch", "cymbal"}},
		{"short and special words kept", "bus gas jeans series", []string{"bus", "gas", "jean", "sery"}},
		{"digits split on punctuation", "4/4 B20 5.3", []string{"4", "4", "b20", "5", "3"}},
		{"tokens with digits not folded", "5pcs 10s", []string{"5pcs", "10s"}},
		{"unicode lowercased", "ÉCOLE Größe", []string{"école", "größe"}},
		{"empty", "  ,;  ", nil},
		{"invalid utf8 is a separator", "ab\xffcd", []string{"ab", "cd"}},
		{"long term cut", strings.Repeat("x", 100), []string{strings.Repeat("x", maxTermBytes)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Terms(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// testDocs is a small hand-made corpus for ranking and filter tests.
func testDocs() []Doc {
	return []Doc{
		0: {Title: "Wireless Bluetooth Earbuds", Brand: "Sonix", Category: "Electronics > Audio > Earphones", Attrs: []string{"black", "bluetooth 5.3"}, Shop: 0, Price: 500, Services: 0b0101},
		1: {Title: "Wired Earphones with Mic", Brand: "", Category: "Electronics > Audio > Earphones", Attrs: []string{"white"}, Shop: 1, Price: 120, Services: 0b0100},
		2: {Title: "Phone Case Shockproof", Brand: "Armor", Category: "Mobiles > Accessories > Cases", Attrs: []string{"black", "silicone"}, Shop: 0, Price: 99, Services: 0b0010},
		3: {Title: "Bluetooth Speaker Portable", Brand: "Sonix", Category: "Electronics > Audio > Speakers", Attrs: []string{"blue"}, Shop: 2, Price: 1500, Services: 0b1111},
		4: {Title: "Running Shoes Men", Brand: "Stride", Category: "Sports > Footwear > Running", Attrs: []string{"black", "mesh"}, Shop: 1, Price: 2200, Services: 0b0001},
		5: {Title: "Kids Shoes", Brand: "Stride", Category: "Sports > Footwear > Kids", Attrs: []string{"pink"}, Shop: 2, Price: 800, Services: 0},
		6: {Title: "Earbuds case silicone", Brand: "Armor", Category: "Electronics > Audio > Accessories", Attrs: []string{"black"}, Shop: 1, Price: 60, Services: 0b0100},
	}
}

func buildTest(t testing.TB, docs []Doc, workers int) *Index {
	t.Helper()
	ix, err := Build(context.Background(), len(docs), func(i int, d *Doc) { *d = docs[i] }, Options{Workers: workers}, zerolog.Nop())
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return ix
}

func docsOf(hits []Hit) []uint32 {
	out := make([]uint32, len(hits))
	for i, h := range hits {
		out[i] = h.Doc
	}
	return out
}

func TestSearchRankingAndFilters(t *testing.T) {
	ix := buildTest(t, testDocs(), 2)
	tests := []struct {
		name string
		q    Query
		want []uint32
	}{
		{"title beats attributes", Query{Text: "bluetooth", Limit: 10}, []uint32{0, 3}},
		{"or semantics, equal scores by doc number", Query{Text: "bluetooth earbuds", Limit: 10}, []uint32{0, 3, 6}},
		{"plural query finds singular docs", Query{Text: "shoe", Limit: 10}, []uint32{5, 4}},
		{"brand field matches", Query{Text: "stride", Limit: 10}, []uint32{4, 5}},
		{"category field matches", Query{Text: "footwear", Limit: 10}, []uint32{4, 5}},
		{"shorter attribute field ranks first; limit cuts", Query{Text: "black", Limit: 2}, []uint32{6, 2}},
		{"shop filter", Query{Text: "black", Limit: 10, FilterShop: true, Shop: 1}, []uint32{6, 4}},
		{"unknown shop", Query{Text: "black", Limit: 10, FilterShop: true, Shop: 99}, nil},
		{"min price", Query{Text: "black", Limit: 10, HasMin: true, MinPrice: 500}, []uint32{4, 0}},
		{"max price inclusive", Query{Text: "black", Limit: 10, HasMax: true, MaxPrice: 99}, []uint32{6, 2}},
		{"price range", Query{Text: "black", Limit: 10, HasMin: true, MinPrice: 60, HasMax: true, MaxPrice: 500}, []uint32{6, 2, 0}},
		{"inverted range", Query{Text: "black", Limit: 10, HasMin: true, MinPrice: 600, HasMax: true, MaxPrice: 500}, nil},
		{"services all required", Query{Text: "black", Limit: 10, Services: 0b0101}, []uint32{0}},
		{"no known terms", Query{Text: "zzz qqq", Limit: 10}, nil},
		{"only stop words", Query{Text: "the and of", Limit: 10}, nil},
		{"zero limit", Query{Text: "black", Limit: 0}, nil},
	}
	for _, tt := range tests {
		for _, strategy := range Strategies {
			t.Run(tt.name+"/"+strategy, func(t *testing.T) {
				hits := ix.SearchBy(tt.q, strategy)
				got := docsOf(hits)
				if len(got) == 0 && len(tt.want) == 0 {
					return
				}
				// Ranking among equal-scoring docs is by doc number, so check
				// set equality first for a readable failure, then order.
				if !slices.Equal(sorted(got), sorted(tt.want)) {
					t.Fatalf("Search(%+v) docs = %v, want %v", tt.q, got, tt.want)
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("Search(%+v) order = %v, want %v", tt.q, got, tt.want)
				}
				for i := 1; i < len(hits); i++ {
					if hits[i-1].Score < hits[i].Score || (hits[i-1].Score == hits[i].Score && hits[i-1].Doc > hits[i].Doc) {
						t.Fatalf("hits not in (score desc, doc asc) order: %+v", hits)
					}
				}
			})
		}
	}
}

func sorted(s []uint32) []uint32 {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestBuildRejectsBadInput(t *testing.T) {
	tests := []struct {
		name string
		n    int
		fill func(int, *Doc)
		opts Options
		want string
	}{
		{"negative n", -1, func(int, *Doc) {}, Options{}, "negative"},
		{"nil fill", 1, nil, Options{}, "nil fill"},
		{"nan price", 1, func(_ int, d *Doc) { d.Price = math.NaN() }, Options{}, "NaN"},
		{"sparse shop number", 2, func(_ int, d *Doc) { d.Shop = 1 << 30 }, Options{}, "shop number"},
		{"bad k1", 1, func(int, *Doc) {}, Options{Params: Params{K1: -1, Weights: [4]float64{1}}}, "k1"},
		{"zero weights", 1, func(int, *Doc) {}, Options{Params: Params{K1: 1}}, "weights"},
		{"bad b", 1, func(int, *Doc) {}, Options{Params: Params{K1: 1, Weights: [4]float64{1}, B: [4]float64{2}}}, "bm25 b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(context.Background(), tt.n, tt.fill, tt.opts, zerolog.Nop())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Build error = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// TestBuildDescribesEachDocumentOnce checks Build's contract with fill: one
// call per document, each worker walking its own ascending range (a caller
// reading records from a file relies on both).
func TestBuildDescribesEachDocumentOnce(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(1, 7)), 20000)
	calls := make([]atomic.Int32, len(docs))
	var mu sync.Mutex
	last := map[int]int{} // range start -> last document described there
	_, err := Build(context.Background(), len(docs), func(i int, d *Doc) {
		calls[i].Add(1)
		*d = docs[i]
		mu.Lock()
		defer mu.Unlock()
		for lo, prev := range last {
			if prev+1 == i {
				last[lo] = i
				return
			}
		}
		last[i] = i
	}, Options{Workers: 3}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	for i := range calls {
		if c := calls[i].Load(); c != 1 {
			t.Fatalf("document %d described %d times, want once", i, c)
		}
	}
	// Two ranges that meet may look like one run, never more than three.
	if len(last) > 3 {
		t.Fatalf("fill saw %d ascending runs, want at most one per worker (3): %v", len(last), last)
	}
}

// TestBuildLayout pins the index Build makes, array for array, to the digest
// of the index this version of the package has always built for these
// documents: persisted index files hold these arrays, so a change here
// must come with a new partsVersion (and a new digest).
func TestBuildLayout(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(11, 12)), 30000)
	for _, workers := range []int{1, 2, 5} {
		ix := buildTest(t, docs, workers)
		h := sha256.New()
		for _, p := range ix.Parts() {
			h.Write(p)
		}
		if got, want := hex.EncodeToString(h.Sum(nil)), buildLayoutDigest; got != want {
			t.Errorf("%d workers: index digest %s, want %s", workers, got, want)
		}
	}
}

const buildLayoutDigest = "e62d0ddc638a28a05369cee48a92ce2a928e89a7994202000473dc639433f5d8"

func TestBuildCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	docs := randomDocs(rand.New(rand.NewPCG(1, 2)), 10000)
	_, err := Build(ctx, len(docs), func(i int, d *Doc) { *d = docs[i] }, Options{Workers: 2}, zerolog.Nop())
	if err == nil {
		t.Fatal("Build ignored a canceled context")
	}
}

func TestEmptyIndex(t *testing.T) {
	ix := buildTest(t, nil, 0)
	if got := ix.Search(Query{Text: "anything", Limit: 10}); got != nil {
		t.Fatalf("empty index returned %v", got)
	}
}

// randomDocs draws documents from a small Zipf-ish vocabulary so that
// posting lists have very different lengths, as in a real catalog.
func randomDocs(r *rand.Rand, n int) []Doc {
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%d", i)
	}
	word := func() string {
		// Quadratic skew: low word numbers are much more frequent.
		x := r.Float64()
		return vocab[int(x*x*float64(len(vocab)))]
	}
	words := func(k int) string {
		var b strings.Builder
		for j := range k {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(word())
		}
		return b.String()
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{
			Title:    words(3 + r.IntN(8)),
			Brand:    words(r.IntN(2)),
			Category: words(3),
			Attrs:    []string{words(1 + r.IntN(3)), words(r.IntN(2))},
			Shop:     uint32(r.IntN(40)),
			Price:    math.Round(r.ExpFloat64()*300) / 2,
			Services: uint8(r.IntN(16)),
		}
	}
	return docs
}

// randomQuery draws a query over randomDocs' vocabulary: a title's words,
// or one of the hostile shapes (many of the commonest words, or more
// distinct words than MaxQueryTerms), with a random limit and filters.
func randomQuery(r *rand.Rand) Query {
	q := Query{Limit: []int{1, 10, 50, 50}[r.IntN(4)]}
	switch r.IntN(4) {
	case 0: // the commonest words
		var w []string
		for i := range 6 + r.IntN(27) {
			w = append(w, fmt.Sprintf("w%d", i))
		}
		r.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		q.Text = strings.Join(w, " ")
	case 1: // past the term cap, so which terms count matters
		var b strings.Builder
		for range 40 + r.IntN(40) {
			fmt.Fprintf(&b, "w%d ", r.IntN(300))
		}
		q.Text = b.String()
	default:
		q.Text = randomDocs(r, 1)[0].Title
	}
	switch r.IntN(8) {
	case 1: // narrow price range: drives retrieval from the price list
		q.HasMin, q.MinPrice = true, float64(r.IntN(100))
		q.HasMax, q.MaxPrice = true, q.MinPrice+0.5
	case 2: // rare services, and a price bound on one side only
		q.Services = 0b1111
		q.HasMin, q.MinPrice = true, float64(r.IntN(50))
	case 3:
		q.FilterShop, q.Shop = true, uint32(r.IntN(41))
	case 4:
		q.HasMin, q.MinPrice = true, float64(r.IntN(200))
		q.HasMax, q.MaxPrice = true, q.MinPrice+float64(r.IntN(100))
	case 5:
		q.Services = uint8(1 + r.IntN(15))
	case 6:
		q.FilterShop, q.Shop = true, uint32(r.IntN(40))
		q.Services = uint8(r.IntN(4))
		q.HasMax, q.MaxPrice = true, 100
	case 7: // a service bit no document has
		q.Services = 0x40
	}
	return q
}

// TestStrategiesMatchReference runs random queries, hostile shapes
// included, through every strategy and compares each with the reference
// ranking, on an index with several accumulation windows.
func TestStrategiesMatchReference(t *testing.T) {
	seed := RandomSeed(t)
	r := rand.New(rand.NewPCG(seed, 11))
	docs := randomDocs(r, 20000)
	ix := buildTest(t, docs, 2)
	if w := int(ix.window); ix.n/w < 8 {
		t.Fatalf("%d documents in windows of %d: too few windows to test the skipping", ix.n, w)
	}
	for range 2000 {
		CheckStrategies(t, ix, randomQuery(r))
	}
}

// TestPriceBuckets checks price filters on a catalog large enough that a
// price bucket holds several ranks (so most documents are judged by their
// bucket alone), with ranges whose bounds fall on prices many documents
// share, against the reference, built and as persisted parts.
func TestPriceBuckets(t *testing.T) {
	seed := RandomSeed(t)
	r := rand.New(rand.NewPCG(seed, 13))
	docs := randomDocs(r, 300_000)
	for i := range docs {
		// Few distinct prices: long runs of ties across bucket edges.
		docs[i].Price = float64(r.IntN(400)) / 4
	}
	built := buildTest(t, docs, 2)
	if built.bucketShift < 2 {
		t.Fatalf("bucket shift %d: want buckets of several ranks", built.bucketShift)
	}
	mapped, err := FromParts(built.Parts())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(built.priceBucket, mapped.priceBucket) {
		t.Fatal("persisted parts give other price buckets")
	}
	for k := range 300 {
		// A rare word and a limit above its document count: every
		// matching document is a hit, so one let through by a wrong
		// bucket bound shows.
		q := Query{Text: fmt.Sprintf("w%d", 280+r.IntN(20)), Limit: 20000}
		if k%4 == 0 {
			q = Query{Text: fmt.Sprintf("w%d w%d", r.IntN(30), r.IntN(300)), Limit: 1 + r.IntN(50)}
		}
		lo, hi := docs[r.IntN(len(docs))].Price, docs[r.IntN(len(docs))].Price
		if lo > hi {
			lo, hi = hi, lo
		}
		switch k % 3 {
		case 0:
			q.HasMin, q.MinPrice = true, lo
		case 1:
			q.HasMax, q.MaxPrice = true, hi
		default:
			q.HasMin, q.MinPrice, q.HasMax, q.MaxPrice = true, lo, true, hi
		}
		for _, ix := range []*Index{built, mapped} {
			CheckStrategies(t, ix, q)
		}
	}
}

func TestBuildIsIndependentOfWorkers(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(3, 4)), 5000)
	a, b := buildTest(t, docs, 1), buildTest(t, docs, 3)
	if !slices.Equal(a.docs, b.docs) || !slices.Equal(a.imps, b.imps) || !slices.Equal(a.off, b.off) {
		t.Fatal("index differs between 1 and 3 workers")
	}
}

func TestSearchConcurrent(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(5, 6)), 5000)
	ix := buildTest(t, docs, 2)
	queries := []Query{{Text: "w1 w2 w30", Limit: 50}, {Text: "w5", Limit: 10, Services: 1}, {Text: "w7 w200", Limit: 50, FilterShop: true, Shop: 3}}
	want := make([][]Hit, len(queries))
	for i, q := range queries {
		want[i] = ix.Search(q)
	}
	t.Run("parallel", func(t *testing.T) {
		for g := range 8 {
			t.Run(fmt.Sprint(g), func(t *testing.T) {
				t.Parallel()
				for k := range 200 {
					i := (g + k) % len(queries)
					if got := ix.Search(queries[i]); !slices.Equal(got, want[i]) {
						t.Errorf("concurrent search %d differs", i)
						return
					}
				}
			})
		}
	})
}

func TestProgressReportsAllWork(t *testing.T) {
	docs := randomDocs(rand.New(rand.NewPCG(8, 9)), 10001)
	var last, total int
	_, err := Build(context.Background(), len(docs), func(i int, d *Doc) { *d = docs[i] },
		Options{Workers: 2, Progress: func(done, tot int) { last, total = done, tot }}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if last != total || total != 2*len(docs) {
		t.Fatalf("progress ended at %d/%d, want %d/%d", last, total, 2*len(docs), 2*len(docs))
	}
}

// TestCandidatePaths checks that each filter list is chosen when it is the
// cheapest way in, and that the answers still match the reference.
func TestCandidatePaths(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	docs := randomDocs(r, 30000)
	docs[7].Services = 0x80 // the only document with this bit
	ix := buildTest(t, docs, 2)
	common := "w0 w1 w2 w3 w4 w5" // the most frequent words: a lot of postings
	tests := []struct {
		name   string
		q      Query
		source string
	}{
		{"narrow price", Query{Text: common, Limit: 50, HasMin: true, MinPrice: 10, HasMax: true, MaxPrice: 10.5}, "price"},
		{"empty price range", Query{Text: common, Limit: 50, HasMin: true, MinPrice: 1e9}, "price"},
		{"rare service", Query{Text: common, Limit: 50, Services: 0x80}, "service"},
		{"services no document has together", Query{Text: common, Limit: 50, Services: 0x81}, "none pass"},
		{"small shop", Query{Text: common, Limit: 50, FilterShop: true, Shop: 3}, "shop"},
		{"no filter", Query{Text: common, Limit: 50}, ""},
		{"wide price", Query{Text: "w250", Limit: 50, HasMin: true, MinPrice: 0}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ix.pool.Get().(*searchScratch)
			defer ix.pool.Put(sc)
			var work uint64
			terms := 0
			for _, term := range Terms(tt.q.Text) {
				if id, ok := ix.termID([]byte(term)); ok {
					work += uint64(ix.off[id+1] - ix.off[id])
					terms++
				}
			}
			list, ok := ix.candidates(&tt.q, sc, work, terms, false)
			if ok != (tt.source != "") {
				t.Fatalf("candidate path used = %v, want %v (%d docs)", ok, tt.source != "", len(list))
			}
			if tt.source == "none pass" && len(list) != 0 {
				t.Fatalf("%d candidates, want none", len(list))
			}
			if !slices.IsSorted(list) {
				t.Fatal("candidate list not ascending")
			}
			CheckStrategies(t, ix, tt.q)
		})
	}
}

// TestWindowed checks the windowed path (many common words) against the
// reference, with and without filters, and that its pooled accumulator is
// clean for the next query.
func TestWindowed(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	docs := randomDocs(r, 30000)
	ix := buildTest(t, docs, 2)
	words := "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11"
	tests := []Query{
		{Text: words, Limit: 50},
		{Text: words, Limit: 1},
		{Text: words + " w299 w150", Limit: 10},
		{Text: words, Limit: 50, Services: 1},
		{Text: words, Limit: 50, HasMax: true, MaxPrice: 400},
		{Text: words, Limit: 50, FilterShop: true, Shop: 5, Services: 2},
		{Text: "w0 w1", Limit: 50, HasMin: true, MinPrice: 1e9},
	}
	for i, q := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var work uint64
			for _, term := range Terms(q.Text) {
				id, _ := ix.termID([]byte(term))
				work += uint64(ix.off[id+1] - ix.off[id])
			}
			if !ix.preferWindows(work) {
				t.Fatalf("query does not take the windowed path (work %d)", work)
			}
			for range 3 {
				CheckStrategies(t, ix, q)
			}
		})
	}
}
