package index

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Field numbers. The order is also the order of Params.Weights and Params.B.
const (
	FieldTitle = iota
	FieldBrand
	FieldCategory
	FieldAttrs
	numFields
)

// Doc describes one document to the index. Text fields are analysed with
// Terms; Shop, Price and Services are the filter columns.
type Doc struct {
	Title    string
	Brand    string
	Category string
	// Attrs are attribute and option values; each is analysed separately
	// and all count as one field.
	Attrs []string
	// Shop is a caller-chosen dense shop number (0..shops-1).
	Shop uint32
	// Price is compared inclusively against Query.MinPrice/MaxPrice.
	Price float64
	// Services is an opaque bit set; a query's Services bits must all be set.
	Services uint8
}

// Params are the BM25F parameters. The zero value is not valid; start from
// DefaultParams.
type Params struct {
	// K1 is the term-frequency saturation.
	K1 float64
	// Weights boost each field's term frequency (title, brand, category, attrs).
	Weights [numFields]float64
	// B is each field's length normalisation, 0 (none) to 1 (full).
	B [numFields]float64
}

// DefaultParams boosts the title three times over category and attributes:
// a product's title is what a shopper's query describes, while category
// and attribute words are broad and shared by thousands of listings. Brand
// is short and exact, so it is not length-normalised.
func DefaultParams() Params {
	return Params{
		K1:      1.2,
		Weights: [numFields]float64{3, 2, 1, 1},
		B:       [numFields]float64{0.75, 0, 0.5, 0.6},
	}
}

func (p Params) validate() error {
	if !(p.K1 > 0) || math.IsInf(p.K1, 0) {
		return fmt.Errorf("bm25 k1 %v: want a positive number", p.K1)
	}
	any := false
	for f := range numFields {
		if p.Weights[f] < 0 || math.IsNaN(p.Weights[f]) || math.IsInf(p.Weights[f], 0) {
			return fmt.Errorf("field weight %v: want a finite number >= 0", p.Weights[f])
		}
		if p.Weights[f] > 0 {
			any = true
		}
		if !(p.B[f] >= 0 && p.B[f] <= 1) {
			return fmt.Errorf("bm25 b %v: want 0..1", p.B[f])
		}
	}
	if !any {
		return errors.New("all field weights are zero")
	}
	return nil
}

// Options configure Build.
type Options struct {
	// Params are the ranking parameters; the zero value means DefaultParams.
	Params Params
	// Workers is the build parallelism; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is called now and then with documents processed so
	// far and the total work (two passes over every document: describing
	// and tokenising it, then writing its postings). Calls are
	// serialised.
	Progress func(done, total int)
}

// Index is an immutable inverted index. See the package documentation.
type Index struct {
	n      int
	params Params

	// The vocabulary in byte order: term t is
	// vocabData[vocabOff[t]:vocabOff[t+1]], and its id is its rank, so a
	// lookup is a binary search and the table can be persisted as it is.
	vocabOff  []uint32
	vocabData []byte
	// Postings of term t are docs[off[t]:off[t+1]] (ascending) with the
	// matching impacts in imps.
	off    []uint32
	docs   []uint32
	imps   []uint16
	maxImp []uint16
	// blockMax[b] is the largest impact among postings b*blockSize ...
	// (b+1)*blockSize-1 of the global posting arrays. Blocks never need to
	// align with term boundaries because a cursor only consults blocks
	// inside its own range.
	blockMax []uint16
	// scale converts float BM25F scores to impacts.
	scale float64

	price []float64
	shop  []uint32
	svc   []uint8
	// Documents of shop s are shopDocs[shopOff[s]:shopOff[s+1]] (ascending).
	shopOff  []uint32
	shopDocs []uint32
	// byPrice lists documents in ascending price (ties by document) with
	// their prices in sortedPrice, so a price range maps to a slice.
	byPrice     []uint32
	sortedPrice []float64
	// svcDocs[b] lists, ascending, the documents with service bit b.
	svcDocs [8][]uint32
	// svcHas[m] counts the documents that have every service bit of m.
	svcHas [256]uint32
	// priceBucket[d] is document d's rank in byPrice >> bucketShift (see
	// priceBuckets). It is derived from byPrice, not persisted.
	priceBucket []uint16
	bucketShift uint

	// window is the document span of one windowed accumulation pass.
	window uint32

	pool sync.Pool // *searchScratch
}

// blockSize is the granularity of block-max pruning.
const blockSize = 64

// Len is the number of documents.
func (ix *Index) Len() int { return ix.n }

// Stats describe an index's size.
type Stats struct {
	Docs     int
	Terms    int
	Postings int
	// Bytes is an estimate of the index's heap footprint.
	Bytes int64
}

// Stats reports the index's size.
func (ix *Index) Stats() Stats {
	b := int64(len(ix.vocabData)) + int64(len(ix.vocabOff))*4 +
		int64(len(ix.off))*4 + int64(len(ix.docs))*4 + int64(len(ix.imps))*2 +
		int64(len(ix.maxImp))*2 + int64(len(ix.blockMax))*2 +
		int64(ix.n)*(8+4+1) + int64(len(ix.shopOff))*4 + int64(len(ix.shopDocs))*4 +
		int64(len(ix.byPrice))*(4+8) + int64(len(ix.priceBucket))*2 + int64(len(ix.svcHas))*4
	for _, l := range ix.svcDocs {
		b += int64(len(l)) * 4
	}
	return Stats{Docs: ix.n, Terms: ix.numTerms(), Postings: len(ix.docs), Bytes: b}
}

// termCount is a worker's view of one term during the first pass.
type termCount struct {
	docs    uint32 // documents of this worker's range containing the term
	lastDoc int32  // last document counted, so a document counts once
}

// workerState holds one worker's first-pass results.
type workerState struct {
	id     int
	lo, hi int
	local  map[string]int32 // term -> index into counts (the local term id)
	counts []termCount
	// fwd is the worker's documents as local term ids, in document order:
	// per document, its four field token counts, then its tokens field by
	// field. Pass 2 reads it instead of describing and tokenising every
	// document again. A document never straddles two chunks.
	fwd [][]uint32
	// global maps local term ids to final term ids, for pass 2.
	global []uint32
}

// fwdChunk is the size, in words, of a new forward-stream chunk.
const fwdChunk = 1 << 20

// appendDoc adds one document's forward entry (field counts, then tokens).
func (st *workerState) appendDoc(counts [numFields]uint32, tokens []uint32) {
	need := numFields + len(tokens)
	last := len(st.fwd) - 1
	if last < 0 || cap(st.fwd[last])-len(st.fwd[last]) < need {
		st.fwd = append(st.fwd, make([]uint32, 0, max(fwdChunk, need)))
		last++
	}
	st.fwd[last] = append(append(st.fwd[last], counts[:]...), tokens...)
}

// Build indexes n documents. fill(i, d) must describe document i in d; it is
// called once per document, from several goroutines at once (each with its
// own d), each walking its own ascending range of documents. Document numbers
// are 0..n-1.
func Build(ctx context.Context, n int, fill func(i int, d *Doc), opts Options, log zerolog.Logger) (*Index, error) {
	if n < 0 {
		return nil, fmt.Errorf("index: negative document count %d", n)
	}
	if int64(n) > math.MaxInt32 {
		return nil, fmt.Errorf("index: %d documents exceed the limit of %d", n, math.MaxInt32)
	}
	if fill == nil {
		return nil, errors.New("index: nil fill function")
	}
	params := opts.Params
	if params == (Params{}) {
		params = DefaultParams()
	}
	if err := params.validate(); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > n {
		workers = max(1, n)
	}
	start := time.Now()
	ix := &Index{
		n:      n,
		params: params,
		price:  make([]float64, n),
		shop:   make([]uint32, n),
		svc:    make([]uint8, n),
	}
	lens := make([][numFields]uint16, n)
	prog := newProgress(opts.Progress, 2*n)

	// Pass 1: per-worker document frequencies, field lengths, filter
	// columns and the forward stream of local term ids. Workers own
	// contiguous document ranges so that pass 2 can write postings in
	// document order without coordination.
	ws := make([]*workerState, workers)
	for w := range ws {
		ws[w] = &workerState{id: w, lo: n * w / workers, hi: n * (w + 1) / workers, local: make(map[string]int32)}
	}
	var maxShop uint32
	var shopMu sync.Mutex
	err := runWorkers(ctx, ws, func(ctx context.Context, st *workerState) error {
		var tk tokenizer
		var d Doc
		var localMaxShop uint32
		var tokens []uint32
		for i := st.lo; i < st.hi; i++ {
			if (i-st.lo)%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return err
				}
				prog.add(4096)
			}
			d = Doc{Attrs: d.Attrs[:0]}
			fill(i, &d)
			if math.IsNaN(d.Price) {
				return fmt.Errorf("index: document %d has a NaN price", i)
			}
			if int64(d.Shop) >= int64(n) {
				// Shop numbers are dense (0..shops-1), and there are never
				// more shops than documents; a larger number is a bug that
				// would size the per-shop tables by it.
				return fmt.Errorf("index: document %d has shop number %d, not below the document count %d", i, d.Shop, n)
			}
			ix.price[i], ix.shop[i], ix.svc[i] = d.Price, d.Shop, d.Services
			localMaxShop = max(localMaxShop, d.Shop)
			doc := int32(i)
			var counts [numFields]uint32
			tokens = tokens[:0]
			eachField(&tk, &d, func(f int, term []byte) {
				if lens[i][f] < math.MaxUint16 {
					lens[i][f]++
				}
				j, ok := st.local[string(term)]
				if !ok {
					j = int32(len(st.counts))
					st.local[string(term)] = j
					st.counts = append(st.counts, termCount{lastDoc: -1})
				}
				c := &st.counts[j]
				if c.lastDoc != doc {
					c.lastDoc = doc
					c.docs++
				}
				counts[f]++
				tokens = append(tokens, uint32(j))
			})
			st.appendDoc(counts, tokens)
		}
		prog.add((st.hi - st.lo) % 4096)
		shopMu.Lock()
		maxShop = max(maxShop, localMaxShop)
		shopMu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}

	// Merge vocabularies. Term ids follow sorted term order so the index is
	// identical whatever the worker count.
	vocab := make([]string, 0, len(ws[0].local))
	seen := make(map[string]struct{}, len(ws[0].local))
	for _, st := range ws {
		for t := range st.local {
			if _, ok := seen[t]; !ok {
				seen[t] = struct{}{}
				vocab = append(vocab, t)
			}
		}
	}
	seen = nil
	slices.Sort(vocab)
	// The map serves the build's lookups; searches use the sorted table.
	terms := make(map[string]uint32, len(vocab))
	ix.vocabOff = make([]uint32, 0, len(vocab)+1)
	vocabBytes := 0
	for _, t := range vocab {
		vocabBytes += len(t)
	}
	if vocabBytes > math.MaxUint32 {
		return nil, fmt.Errorf("index: the vocabulary holds %d bytes, more than one index can", vocabBytes)
	}
	ix.vocabData = make([]byte, 0, vocabBytes)
	for id, t := range vocab {
		terms[t] = uint32(id)
		ix.vocabOff = append(ix.vocabOff, uint32(len(ix.vocabData)))
		ix.vocabData = append(ix.vocabData, t...)
	}
	ix.vocabOff = append(ix.vocabOff, uint32(len(ix.vocabData)))
	nt := len(vocab)
	vocab = nil
	// cursor[w][t] is where worker w writes its next posting of term t.
	cursor := make([][]uint32, workers)
	for w := range cursor {
		cursor[w] = make([]uint32, nt)
	}
	df := make([]uint32, nt)
	for w, st := range ws {
		st.global = make([]uint32, len(st.counts))
		for t, j := range st.local {
			id := terms[t]
			st.global[j] = id
			cursor[w][id] = st.counts[j].docs
			df[id] += st.counts[j].docs
		}
		st.local, st.counts = nil, nil
	}
	terms = nil
	ix.off = make([]uint32, nt+1)
	var total uint64
	for t := range nt {
		ix.off[t] = uint32(total)
		// Turn worker counts into worker start positions.
		pos := total
		for w := range workers {
			c := cursor[w][t]
			cursor[w][t] = uint32(pos)
			pos += uint64(c)
		}
		total += uint64(df[t])
		if total > math.MaxUint32 {
			return nil, fmt.Errorf("index: more than %d postings; the catalog is too large for one index", uint32(math.MaxUint32))
		}
	}
	ix.off[nt] = uint32(total)
	starts := make([][]uint32, workers)
	for w := range workers {
		starts[w] = slices.Clone(cursor[w])
	}
	ix.docs = make([]uint32, total)
	ix.imps = make([]uint16, total)

	// Average field lengths for BM25 length normalisation.
	var avg [numFields]float64
	for i := range lens {
		for f := range numFields {
			avg[f] += float64(lens[i][f])
		}
	}
	for f := range numFields {
		avg[f] = max(avg[f]/float64(max(n, 1)), 1)
	}
	// Impacts are quantised against the largest possible score (idf of a
	// term in one document, times a saturation below 1) so they fit 16 bits.
	idf := func(d uint32) float64 {
		return math.Log(1 + (float64(n)-float64(d)+0.5)/(float64(d)+0.5))
	}
	ix.scale = (math.MaxUint16 - 1) / idf(1)
	idfs := make([]float64, nt)
	for t := range nt {
		idfs[t] = idf(df[t])
	}

	// Pass 2: write postings with their impacts, reading each worker's
	// forward stream.
	err = runWorkers(ctx, ws, func(ctx context.Context, st *workerState) error {
		cur := cursor[st.id]
		limit := ix.off[1:]
		if st.id+1 < workers {
			limit = starts[st.id+1]
		}
		type acc struct {
			term uint32
			tf   [numFields]uint16
		}
		var accs []acc
		// slotDoc[j] is the last document that used local term j, and
		// slot[j] its place in accs there.
		slotDoc := make([]int32, len(st.global))
		for j := range slotDoc {
			slotDoc[j] = -1
		}
		slot := make([]int32, len(st.global))
		chunk, ci, p := []uint32(nil), -1, 0
		for i := st.lo; i < st.hi; i++ {
			if (i-st.lo)%4096 == 4095 {
				if err := ctx.Err(); err != nil {
					return err
				}
				prog.add(4096)
			}
			if p >= len(chunk) {
				if ci >= 0 {
					st.fwd[ci] = nil // read: let it go
				}
				ci++
				chunk, p = st.fwd[ci], 0
			}
			counts := chunk[p : p+numFields]
			p += numFields
			accs = accs[:0]
			doc := int32(i)
			for f, c := range counts {
				for _, j := range chunk[p : p+int(c)] {
					if slotDoc[j] != doc {
						slotDoc[j] = doc
						slot[j] = int32(len(accs))
						accs = append(accs, acc{term: st.global[j]})
					}
					a := &accs[slot[j]]
					if a.tf[f] < math.MaxUint16 {
						a.tf[f]++
					}
				}
				p += int(c)
			}
			for _, a := range accs {
				var tf float64
				for f := range numFields {
					if a.tf[f] == 0 || params.Weights[f] == 0 {
						continue
					}
					norm := 1 - params.B[f] + params.B[f]*float64(lens[i][f])/avg[f]
					tf += params.Weights[f] * float64(a.tf[f]) / norm
				}
				imp := uint16(1)
				if tf > 0 {
					s := idfs[a.term] * tf / (params.K1 + tf)
					imp = uint16(min(max(math.Round(s*ix.scale), 1), math.MaxUint16))
				}
				p := cur[a.term]
				if p >= limit[a.term] {
					return fmt.Errorf("index: document %d's postings overrun term %d's list", i, a.term)
				}
				ix.docs[p] = uint32(i)
				ix.imps[p] = imp
				cur[a.term] = p + 1
			}
		}
		st.fwd, st.global = nil, nil
		prog.add((st.hi - st.lo) % 4096)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Each worker must have filled exactly its share of every list: a hole
	// would be a bug in the counting above.
	for w := range workers {
		for t := range nt {
			end := ix.off[t+1]
			if w+1 < workers {
				end = starts[w+1][t]
			}
			if cursor[w][t] != end {
				return nil, errors.New("index: a posting list was not filled exactly")
			}
		}
	}

	ix.maxImp = make([]uint16, nt)
	for t := range nt {
		var m uint16
		for _, v := range ix.imps[ix.off[t]:ix.off[t+1]] {
			m = max(m, v)
		}
		ix.maxImp[t] = m
	}
	ix.blockMax = make([]uint16, (len(ix.imps)+blockSize-1)/blockSize)
	for b := range ix.blockMax {
		var m uint16
		for _, v := range ix.imps[b*blockSize : min((b+1)*blockSize, len(ix.imps))] {
			m = max(m, v)
		}
		ix.blockMax[b] = m
	}

	// Per-shop document lists, by counting sort.
	shops := 0
	if n > 0 {
		shops = int(maxShop) + 1
	}
	ix.shopOff = make([]uint32, shops+1)
	for _, s := range ix.shop {
		ix.shopOff[s+1]++
	}
	for s := range shops {
		ix.shopOff[s+1] += ix.shopOff[s]
	}
	ix.shopDocs = make([]uint32, n)
	fillPos := slices.Clone(ix.shopOff[:shops])
	for i, s := range ix.shop {
		ix.shopDocs[fillPos[s]] = uint32(i)
		fillPos[s]++
	}
	// Filter lists, so a selective filter can drive retrieval.
	ix.byPrice = make([]uint32, n)
	for i := range ix.byPrice {
		ix.byPrice[i] = uint32(i)
	}
	slices.SortFunc(ix.byPrice, func(a, b uint32) int {
		if pa, pb := ix.price[a], ix.price[b]; pa != pb {
			if pa < pb {
				return -1
			}
			return 1
		}
		return cmp.Compare(a, b)
	})
	ix.sortedPrice = make([]float64, n)
	for i, d := range ix.byPrice {
		ix.sortedPrice[i] = ix.price[d]
	}
	var svcCount [256]uint32
	for d, bits := range ix.svc {
		svcCount[bits]++
		for b := range 8 {
			if bits&(1<<b) != 0 {
				ix.svcDocs[b] = append(ix.svcDocs[b], uint32(d))
			}
		}
	}
	for m := range 256 {
		for v, c := range svcCount {
			if v&m == m {
				ix.svcHas[m] += c
			}
		}
	}
	ix.priceBuckets()
	ix.window = windowSize(n)
	ix.pool.New = func() any { return new(searchScratch) }

	st := ix.Stats()
	log.Debug().Int("docs", st.Docs).Int("terms", st.Terms).Int("postings", st.Postings).
		Int64("bytes", st.Bytes).Dur("took_ms", time.Since(start)).Msg("index built")
	return ix, nil
}

// numTerms is the vocabulary's size.
func (ix *Index) numTerms() int { return max(len(ix.vocabOff)-1, 0) }

// term returns term t's bytes.
func (ix *Index) term(t int) []byte { return ix.vocabData[ix.vocabOff[t]:ix.vocabOff[t+1]] }

// termID looks a normalised term up in the vocabulary.
func (ix *Index) termID(t []byte) (uint32, bool) {
	lo, hi := 0, ix.numTerms()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(ix.term(m), t) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < ix.numTerms() && bytes.Equal(ix.term(lo), t) {
		return uint32(lo), true
	}
	return 0, false
}

// eachField runs the tokenizer over every text field of d.
func eachField(tk *tokenizer, d *Doc, fn func(f int, term []byte)) {
	tk.each(d.Title, func(t []byte) { fn(FieldTitle, t) })
	tk.each(d.Brand, func(t []byte) { fn(FieldBrand, t) })
	tk.each(d.Category, func(t []byte) { fn(FieldCategory, t) })
	for _, a := range d.Attrs {
		tk.each(a, func(t []byte) { fn(FieldAttrs, t) })
	}
}

// runWorkers runs fn for every worker state concurrently and returns the
// first error. A worker that fails cancels the others.
func runWorkers(ctx context.Context, ws []*workerState, fn func(context.Context, *workerState) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, st := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx, st); err != nil {
				errs[i] = err
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// progress serialises progress callbacks from several workers.
type progress struct {
	mu    sync.Mutex
	fn    func(done, total int)
	done  int
	total int
}

func newProgress(fn func(done, total int), total int) *progress {
	return &progress{fn: fn, total: total}
}

func (p *progress) add(k int) {
	if p.fn == nil || k == 0 {
		return
	}
	p.mu.Lock()
	p.done += k
	p.fn(p.done, p.total)
	p.mu.Unlock()
}
