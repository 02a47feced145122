package index

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// Query is one search. Text is analysed like the documents; a document
// matches if it contains any query term (OR semantics, as in Lucene) and
// passes every filter.
type Query struct {
	Text string
	// Limit is how many top hits to return; it must be positive.
	Limit int

	// FilterShop restricts hits to documents whose Doc.Shop equals Shop.
	FilterShop bool
	Shop       uint32
	// HasMin/HasMax enable the inclusive price bounds.
	HasMin, HasMax     bool
	MinPrice, MaxPrice float64
	// Services lists bits every hit must have.
	Services uint8

	// The price bounds as price buckets (see Index.priceBucket), set by
	// search: a document in a bucket strictly between them passes the
	// price filter, one outside them fails it, and only one in an edge
	// bucket has its price read.
	bucketLo, bucketHi uint16
}

// MaxQueryTerms bounds the distinct known terms of one query; later terms
// are ignored. It keeps score sums far from overflow and the per-query work
// bounded whatever a caller sends.
const MaxQueryTerms = 32

// Hit is one search result.
type Hit struct {
	Doc   uint32
	Score float64
}

// cursor walks one term's postings inside the global posting arrays.
type cursor struct {
	pos, end uint32
	max      uint32
}

// entry is a scored candidate in the top-k heap.
type entry struct {
	score uint32
	doc   uint32
}

// worse orders heap entries: lower score first, and on equal scores the
// larger document number first, so the heap root is the hit to evict.
func worse(a, b entry) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.doc > b.doc
}

type searchScratch struct {
	tk      tokenizer
	terms   []uint32
	cursors []cursor
	ub      []uint32
	heap    []entry
	docs    []uint32
	// win is windowed's accumulator and winMax the largest sum in each of
	// its scanBlock-document blocks (both all zero between uses); ends are
	// its per-list window limits.
	win    []uint32
	winMax []uint32
	ends   []uint32
}

// maxPriceCandidates bounds the price-range list a search may copy and
// sort; a range wider than this is not selective enough to drive retrieval.
const maxPriceCandidates = 1 << 16

// topK is a bounded min-heap of the best entries seen.
type topK struct {
	h []entry
	k int
}

// threshold is the score a new document must beat; 0 while not full. Since
// documents arrive in ascending order, a newcomer with an equal score ranks
// below everything in the heap and must not enter.
func (t *topK) threshold() uint32 {
	if len(t.h) < t.k {
		return 0
	}
	return t.h[0].score
}

func (t *topK) full() bool { return len(t.h) >= t.k }

func (t *topK) offer(e entry) {
	if len(t.h) < t.k {
		t.h = append(t.h, e)
		// sift up
		i := len(t.h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !worse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if !worse(t.h[0], e) {
		return
	}
	t.h[0] = e
	// sift down
	i, n := 0, len(t.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && worse(t.h[r], t.h[l]) {
			m = r
		}
		if !worse(t.h[m], t.h[i]) {
			break
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// strategy is one of Search's exact retrieval algorithms.
type strategy uint8

const (
	auto       strategy = iota
	byFilter            // score a filter list's documents one by one
	byMaxScore          // document at a time, MaxScore and block-max pruning
	byWindows           // term at a time, in cache-sized document windows
)

// Search returns up to q.Limit matching documents, best first: higher BM25F
// score, then lower document number.
func (ix *Index) Search(q Query) []Hit { return ix.search(q, auto) }

// search runs q by strategy s, or by the cheapest one for auto. All give
// the same hits; tests force each in turn. A forced byFilter falls back to
// auto when q has no filter list to walk.
func (ix *Index) search(q Query, s strategy) []Hit {
	if q.Limit <= 0 || ix.n == 0 {
		return nil
	}
	if q.HasMin && q.HasMax && q.MinPrice > q.MaxPrice {
		return nil
	}
	if math.IsNaN(q.MinPrice) || math.IsNaN(q.MaxPrice) {
		return nil
	}
	if !ix.setPriceBuckets(&q) {
		return nil
	}
	sc := ix.pool.Get().(*searchScratch)
	defer ix.pool.Put(sc)

	// Unique, known query terms.
	sc.terms = sc.terms[:0]
	sc.tk.each(q.Text, func(t []byte) {
		if len(sc.terms) >= MaxQueryTerms {
			return
		}
		id, ok := ix.termID(t)
		if ok && !slices.Contains(sc.terms, id) {
			sc.terms = append(sc.terms, id)
		}
	})
	if len(sc.terms) == 0 {
		return nil
	}
	if q.FilterShop && int(q.Shop)+1 >= len(ix.shopOff) {
		return nil
	}

	// Cursors sorted by their list's best impact, ascending, as MaxScore
	// needs; ties by term id keep the order deterministic.
	sc.cursors = sc.cursors[:0]
	var work uint64
	for _, t := range sc.terms {
		c := cursor{pos: ix.off[t], end: ix.off[t+1], max: uint32(ix.maxImp[t])}
		work += uint64(c.end - c.pos)
		sc.cursors = append(sc.cursors, c)
	}
	slices.SortFunc(sc.cursors, func(a, b cursor) int {
		if c := cmp.Compare(a.max, b.max); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	sc.ub = sc.ub[:0]
	var sum uint32
	for _, c := range sc.cursors {
		sum += c.max
		sc.ub = append(sc.ub, sum)
	}

	top := topK{h: sc.heap[:0], k: q.Limit}
	// A selective filter is cheaper to walk document by document than the
	// query's posting lists are to merge: pick the smallest filter list.
	if s == auto || s == byFilter {
		if docs, ok := ix.candidates(&q, sc, work, len(sc.cursors), s == byFilter); ok {
			ix.searchDocs(q, sc, &top, docs)
			return ix.finish(sc, &top)
		}
		s = auto
	}
	if s == auto {
		s = byMaxScore
		if ix.preferWindows(work) {
			s = byWindows
		}
	}
	if s == byWindows {
		ix.windowed(q, sc, &top)
	} else {
		ix.maxScore(q, sc, &top)
	}
	return ix.finish(sc, &top)
}

// preferWindows picks windowed accumulation once the query's lists hold
// more than one posting per 16 documents. Its cost is a few steps per
// posting plus a scan of the document space, whatever the list count and
// the filters. MaxScore's cost depends on how soon it can prune: with
// many common words of similar weight nearly every list stays essential
// and each document costs a step per list, and a filter few documents
// pass keeps its heap from filling, so it prunes nothing at all. Measured
// on the generated catalog (docs/benchmarks.md), windows were the faster
// of the two for most queries above this line and MaxScore below it.
func (ix *Index) preferWindows(work uint64) bool {
	return work >= uint64(ix.n)/16
}

// priceSpan is the range of byPrice inside q's price bounds.
func (ix *Index) priceSpan(q *Query) (lo, hi int) {
	lo, hi = 0, len(ix.sortedPrice)
	if q.HasMin {
		lo, _ = slices.BinarySearch(ix.sortedPrice, q.MinPrice)
	}
	if q.HasMax {
		hi = upperBound(ix.sortedPrice, q.MaxPrice)
	}
	return lo, hi
}

// windowSize is how many documents one accumulation window covers: at most
// 2^16, whose 4-byte scores (256 KB) stay in a core's L2 cache while every
// list adds into them, where one accumulator over a catalog of a million
// documents (4 MB) costs a cache miss per posting; and at most an eighth of
// the catalog, so that a small catalog also has windows to skip.
func windowSize(n int) uint32 {
	size := uint32(1) << 16
	for size > 1<<10 && uint64(size)*8 > uint64(n) {
		size >>= 1
	}
	return size
}

// windowed scores the document space one window at a time: every list's
// postings inside the window are added into a dense accumulator, which is
// then scanned in document order into the top k. A window whose upper
// bound (the sum, over lists, of their best block impact inside it) cannot
// beat the current k-th score is skipped without reading its postings.
func (ix *Index) windowed(q Query, sc *searchScratch, top *topK) {
	size := ix.window
	if uint32(len(sc.win)) < size {
		sc.win = make([]uint32, size)
	}
	acc := sc.win[:size] // all zero between windows
	blocks := (size + scanBlock - 1) / scanBlock
	if uint32(len(sc.winMax)) < blocks {
		sc.winMax = make([]uint32, blocks)
	}
	accMax := sc.winMax[:blocks]
	cs := sc.cursors
	sc.ends = slices.Grow(sc.ends[:0], len(cs))[:len(cs)]
	ends := sc.ends
	for base := uint32(0); base < uint32(ix.n); base += size {
		next := base + size
		var bound uint32
		for i := range cs {
			c := &cs[i]
			e := ix.find(c.pos, c.end, next)
			ends[i] = e
			if e > c.pos {
				bound += uint32(slices.Max(ix.blockMax[c.pos/blockSize : (e-1)/blockSize+1]))
			}
		}
		// Documents here come after every document in the heap, so one
		// that only ties the k-th score ranks below it.
		if bound == 0 || (top.full() && bound <= top.threshold()) {
			for i := range cs {
				cs[i].pos = ends[i]
			}
			continue
		}
		for i := range cs {
			c := &cs[i]
			docs, imps := ix.docs[c.pos:ends[i]], ix.imps[c.pos:ends[i]]
			for j, d := range docs {
				o := d - base
				s := acc[o] + uint32(imps[j])
				acc[o] = s
				accMax[o/scanBlock] = max(accMax[o/scanBlock], s)
			}
			c.pos = ends[i]
		}
		// Until the heap is full its threshold is 0, and any matching
		// document (score >= 1) beats it. Blocks whose best sum does not
		// beat it are not scanned: once the heap is full, that is most.
		theta := top.threshold()
		win := acc[:min(size, uint32(ix.n)-base)]
		for b, m := range accMax {
			if m <= theta {
				continue
			}
			lo := uint32(b) * scanBlock
			for j, s := range win[lo:min(lo+scanBlock, uint32(len(win)))] {
				if s > theta {
					if d := base + lo + uint32(j); ix.accept(&q, d) {
						top.offer(entry{score: s, doc: d})
						theta = top.threshold()
					}
				}
			}
		}
		clear(win)
		clear(accMax)
	}
}

// scanBlock is the span of documents whose best accumulated sum windowed
// keeps, so that its scan for the top k skips spans that cannot enter.
const scanBlock = 64

// find returns the first position in [lo, hi) whose document is >= d, or
// hi (galloping from lo, since the answer is usually near).
func (ix *Index) find(lo, hi, d uint32) uint32 {
	c := cursor{pos: lo, end: hi}
	ix.seek(&c, d)
	return c.pos
}

// candidates returns an ascending list of documents that contains every
// document passing the filters, if one is small enough that probing each of
// its documents (about 4 steps per query term) beats merging work postings,
// or if force is set and the query has one at all.
func (ix *Index) candidates(q *Query, sc *searchScratch, work uint64, terms int, force bool) ([]uint32, bool) {
	best := uint64(math.MaxUint64)
	source := ""
	var shopDocs []uint32
	if q.FilterShop {
		shopDocs = ix.shopDocs[ix.shopOff[q.Shop]:ix.shopOff[q.Shop+1]]
		best, source = uint64(len(shopDocs)), "shop"
	}
	if q.Services != 0 && ix.svcHas[q.Services] == 0 {
		return nil, true // no document has every required service
	}
	var svc []uint32
	for b := range 8 {
		if q.Services&(1<<b) != 0 && (svc == nil || len(ix.svcDocs[b]) < len(svc)) {
			svc = ix.svcDocs[b]
		}
	}
	if svc != nil && uint64(len(svc)) < best {
		best, source = uint64(len(svc)), "service"
	}
	lo, hi := ix.priceSpan(q)
	if (q.HasMin || q.HasMax) && hi-lo <= maxPriceCandidates && uint64(max(hi-lo, 0)) < best {
		best, source = uint64(max(hi-lo, 0)), "price"
	}
	// A price range must also be sorted by document: count that in.
	cost := best * uint64(terms) * 4
	if source == "price" {
		cost += best * uint64(bits.Len64(best+1))
	}
	if source == "" || (cost >= work && !force) {
		return nil, false
	}
	switch source {
	case "shop":
		return shopDocs, true
	case "service":
		return svc, true
	}
	if hi <= lo {
		return nil, true
	}
	sc.docs = append(sc.docs[:0], ix.byPrice[lo:hi]...)
	slices.Sort(sc.docs)
	return sc.docs, true
}

// upperBound is the first index whose value is above x.
func upperBound(xs []float64, x float64) int {
	lo, hi := 0, len(xs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if xs[m] <= x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// finish sorts the heap into result order and releases scratch memory.
func (ix *Index) finish(sc *searchScratch, top *topK) []Hit {
	slices.SortFunc(top.h, func(a, b entry) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if a.doc < b.doc {
			return -1
		}
		return 1
	})
	hits := make([]Hit, len(top.h))
	for i, e := range top.h {
		hits[i] = Hit{Doc: e.doc, Score: float64(e.score) / ix.scale}
	}
	sc.heap = top.h[:0]
	return hits
}

// accept applies the filters to document d.
func (ix *Index) accept(q *Query, d uint32) bool {
	if q.FilterShop && ix.shop[d] != q.Shop {
		return false
	}
	if q.Services != 0 && ix.svc[d]&q.Services != q.Services {
		return false
	}
	// The price is read only when a bound asks for it: reading it first
	// cost a cache miss per candidate document of every unfiltered query
	// (the column is 8 bytes a document), which was 40% of find_product's
	// time on the 1M catalog.
	if q.HasMin || q.HasMax {
		// The bucket column is a quarter of the price column's size, so
		// it stays in cache where the prices do not.
		if b := ix.priceBucket[d]; b != q.bucketLo && b != q.bucketHi {
			return b > q.bucketLo && b < q.bucketHi
		}
		p := ix.price[d]
		if q.HasMin && p < q.MinPrice {
			return false
		}
		if q.HasMax && p > q.MaxPrice {
			return false
		}
	}
	return true
}

// priceBuckets fills ix.priceBucket: document d's bucket is its rank in
// price order (its place in byPrice) shifted right so that every bucket
// number fits 16 bits. Documents in one bucket are neighbours in price
// order, so a price range covers whole buckets but for the two at its
// edges.
func (ix *Index) priceBuckets() {
	ix.bucketShift = 0
	for ix.n>>ix.bucketShift > 1<<16 {
		ix.bucketShift++
	}
	ix.priceBucket = make([]uint16, ix.n)
	for r, d := range ix.byPrice {
		ix.priceBucket[d] = uint16(r >> ix.bucketShift)
	}
}

// setPriceBuckets sets q's bucket bounds from its price bounds; it reports
// false when no document's price is inside them.
func (ix *Index) setPriceBuckets(q *Query) bool {
	if !q.HasMin && !q.HasMax {
		return true
	}
	lo, hi := ix.priceSpan(q)
	if lo >= hi {
		return false
	}
	q.bucketLo, q.bucketHi = uint16(lo>>ix.bucketShift), uint16((hi-1)>>ix.bucketShift)
	return true
}

// seek moves c to its first posting with document >= d (galloping, since
// the target is usually near).
func (ix *Index) seek(c *cursor, d uint32) {
	if c.pos >= c.end || ix.docs[c.pos] >= d {
		return
	}
	lo := c.pos // docs[lo] < d
	step := uint32(1)
	hi := lo + step
	for hi < c.end && ix.docs[hi] < d {
		lo = hi
		step *= 2
		hi = lo + step
	}
	if hi > c.end {
		hi = c.end
	}
	// docs[lo] < d, and docs[hi] >= d or hi == end.
	for lo+1 < hi {
		m := lo + (hi-lo)/2
		if ix.docs[m] < d {
			lo = m
		} else {
			hi = m
		}
	}
	c.pos = hi
}

// maxScore is document-at-a-time retrieval with MaxScore pruning: lists
// whose best possible contribution cannot lift a document into the top k
// ("non-essential" lists) are only probed for documents found in the
// others. A single remaining essential list also skips whole blocks whose
// best impact cannot make it.
func (ix *Index) maxScore(q Query, sc *searchScratch, top *topK) {
	cs := sc.cursors
	ub := sc.ub
	ne := 0 // cs[:ne] are non-essential
	nonEss := func() uint32 {
		if ne == 0 {
			return 0
		}
		return ub[ne-1]
	}
	for {
		theta := top.threshold()
		for ne < len(cs) && top.full() && ub[ne] <= theta {
			ne++
		}
		if ne == len(cs) {
			return
		}
		// Candidate: the smallest current document among essential lists.
		d := uint32(math.MaxUint32)
		for i := ne; i < len(cs); i++ {
			if c := &cs[i]; c.pos < c.end && ix.docs[c.pos] < d {
				d = ix.docs[c.pos]
			}
		}
		if d == math.MaxUint32 {
			return
		}
		if top.full() && ne == len(cs)-1 {
			// One essential list: skip its blocks that cannot beat theta.
			c := &cs[ne]
			bound := nonEss()
			if uint32(ix.blockMax[c.pos/blockSize])+bound <= theta {
				next := (c.pos/blockSize + 1) * blockSize
				c.pos = min(next, c.end)
				continue
			}
		}
		// Upper bound for d from the blocks of the lists positioned on it.
		var bound uint32
		if top.full() {
			bound = nonEss()
			for i := ne; i < len(cs); i++ {
				if c := &cs[i]; c.pos < c.end && ix.docs[c.pos] == d {
					bound += uint32(ix.blockMax[c.pos/blockSize])
				}
			}
		}
		if (top.full() && bound <= theta) || !ix.accept(&q, d) {
			for i := ne; i < len(cs); i++ {
				if c := &cs[i]; c.pos < c.end && ix.docs[c.pos] == d {
					c.pos++
				}
			}
			continue
		}
		var s uint32
		for i := ne; i < len(cs); i++ {
			if c := &cs[i]; c.pos < c.end && ix.docs[c.pos] == d {
				s += uint32(ix.imps[c.pos])
				c.pos++
			}
		}
		for i := ne - 1; i >= 0; i-- {
			if top.full() && s+ub[i] <= theta {
				break
			}
			c := &cs[i]
			ix.seek(c, d)
			if c.pos < c.end && ix.docs[c.pos] == d {
				s += uint32(ix.imps[c.pos])
			}
		}
		if !top.full() || s > theta {
			top.offer(entry{score: s, doc: d})
		}
	}
}

// searchDocs scores an explicit ascending document list (a shop's
// products) by probing each query list.
func (ix *Index) searchDocs(q Query, sc *searchScratch, top *topK, docs []uint32) {
	cs := sc.cursors
	total := sc.ub[len(sc.ub)-1]
	for _, d := range docs {
		if top.full() && total <= top.threshold() {
			return
		}
		if !ix.accept(&q, d) {
			continue
		}
		var s uint32
		for i := range cs {
			c := &cs[i]
			ix.seek(c, d)
			if c.pos < c.end && ix.docs[c.pos] == d {
				s += uint32(ix.imps[c.pos])
			}
		}
		if s > 0 && (!top.full() || s > top.threshold()) {
			top.offer(entry{score: s, doc: d})
		}
	}
}
