package shop

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// LoadOptions configure Load.
type LoadOptions struct {
	// Strict makes the first malformed or invalid line fail the load. By
	// default such lines are skipped, counted and reported.
	Strict bool
	// Envelope is the key under which a line may wrap its product when the
	// line itself has no product_id. The default, "product", reads
	// ShoppingBench's documents.jsonl ({"id", "contents", "product"}); set
	// "reward" to read the products embedded in knowledge task files, or
	// "-" to accept bare products only.
	Envelope string
	// MaxLineBytes bounds one line; longer lines are malformed. Default 16 MiB.
	MaxLineBytes int
	// Workers parse lines in parallel; 0 means GOMAXPROCS.
	Workers int
	// MaxReported bounds LoadReport.Errors; default 20.
	MaxReported int
	// Progress, if set, is called from the loading goroutine after each batch
	// with the input bytes consumed so far (compressed bytes for gzip input).
	Progress func(bytesRead int64)
}

// LineError is one rejected line.
type LineError struct {
	Line int
	// Kind is "malformed" (not a JSON object), "invalid" (a required field
	// is missing or unusable) or "duplicate" (the product_id was seen).
	Kind string
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %s: %v", e.Line, e.Kind, e.Err) }

// LoadReport says what a load read and what it skipped.
type LoadReport struct {
	Lines      int // lines read, including blank ones
	Products   int // products kept
	Malformed  int
	Invalid    int
	Duplicates int
	// UnknownServices counts service names other than the four known ones;
	// they are dropped from the product.
	UnknownServices int
	// Errors holds the first MaxReported rejected lines.
	Errors []LineError
}

// Skipped is the number of lines rejected for any reason.
func (r LoadReport) Skipped() int { return r.Malformed + r.Invalid + r.Duplicates }

// batch is a run of consecutive lines handed to a parse worker.
type batch struct {
	seq       int
	firstLine int
	data      []byte
	ends      []int // line i is data[ends[i-1]:ends[i]]
	tooLong   []int // line numbers that exceeded MaxLineBytes
	bytesRead int64
}

// parsed is a batch's result, in line order.
type parsed struct {
	seq       int
	products  []Product
	lines     []int // line number of each product
	errs      []LineError
	unknown   int
	bytesRead int64
}

// Load reads ShoppingBench product JSONL from r, plain or gzip (detected by
// its magic bytes). It returns the products in file order with duplicates
// removed (the first occurrence wins).
func Load(ctx context.Context, r io.Reader, opts LoadOptions, log zerolog.Logger) ([]Product, LoadReport, error) {
	sink := &sliceSink{seen: make(map[string]struct{})}
	rep, err := load(ctx, r, opts, log, sink)
	if err != nil {
		return nil, rep, err
	}
	out := make([]Product, 0, sink.total)
	for i, c := range sink.chunks {
		out = append(out, c...)
		sink.chunks[i] = nil
	}
	return out, rep, nil
}

// loadSink receives the products a load keeps, in file order.
type loadSink interface {
	// add keeps p unless a product with its id was kept before, and reports
	// whether it kept it. p is valid; add must copy what it keeps of it.
	add(p *Product) bool
	// batch is called once per parsed batch with the products add kept
	// from it, for a sink that keeps the values themselves.
	batch(kept []Product)
}

// sliceSink keeps products as values, in per-batch chunks: they are joined
// once at the end, so the final slice has no spare capacity (a doubling
// append would waste up to half of it for good).
type sliceSink struct {
	seen   map[string]struct{}
	chunks [][]Product
	total  int
}

func (s *sliceSink) add(p *Product) bool {
	if _, dup := s.seen[p.ProductID]; dup {
		return false
	}
	s.seen[p.ProductID] = struct{}{}
	return true
}

func (s *sliceSink) batch(kept []Product) {
	s.chunks = append(s.chunks, kept)
	s.total += len(kept)
}

// load reads products from r into sink; see Load.
func load(ctx context.Context, r io.Reader, opts LoadOptions, log zerolog.Logger, sink loadSink) (LoadReport, error) {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = 16 << 20
	}
	if opts.MaxReported <= 0 {
		opts.MaxReported = 20
	}
	envelope := opts.Envelope
	switch envelope {
	case "":
		envelope = "product"
	case "-":
		envelope = ""
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	counter := &countingReader{r: r}
	br := bufio.NewReaderSize(counter, 1<<20)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return LoadReport{}, fmt.Errorf("gzip: %w", err)
		}
		defer gz.Close()
		in = gz
	}
	start := time.Now()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan *batch, workers*2)
	results := make(chan *parsed, workers*2)
	var readErr error
	var lines int
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(batches)
		lines, readErr = readBatches(ctx, in, opts.MaxLineBytes, counter, batches)
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := &interner{}
			pa := &ProductArena{}
			for b := range batches {
				res := parseBatch(b, envelope, opts.MaxLineBytes, in, pa)
				select {
				case results <- res:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var rep LoadReport
	total := 0
	pending := map[int]*parsed{}
	next := 0
	var failErr error
	report := func(e LineError) {
		if len(rep.Errors) < opts.MaxReported {
			rep.Errors = append(rep.Errors, e)
			if !opts.Strict {
				log.Warn().Int("line", e.Line).Str("kind", e.Kind).Err(e.Err).Msg("skipping catalog line")
			}
		}
	}
	consume := func(p *parsed) {
		// Interleave errors and products by line so a strict load stops at
		// the first bad line and duplicates are judged in file order.
		ei := 0
		kept := p.products[:0] // filtered in place
		defer func() {
			sink.batch(kept)
			total += len(kept)
		}()
		for pi := 0; pi <= len(p.products); pi++ {
			line := int(^uint(0) >> 1)
			if pi < len(p.products) {
				line = p.lines[pi]
			}
			for ; ei < len(p.errs) && p.errs[ei].Line < line; ei++ {
				e := p.errs[ei]
				switch e.Kind {
				case "malformed":
					rep.Malformed++
				case "invalid":
					rep.Invalid++
				}
				report(e)
				if opts.Strict && failErr == nil {
					failErr = e
				}
			}
			if failErr != nil || pi == len(p.products) {
				break
			}
			prod := p.products[pi]
			if !sink.add(&prod) {
				rep.Duplicates++
				report(LineError{Line: line, Kind: "duplicate", Err: fmt.Errorf("product_id %q already loaded", prod.ProductID)})
				continue
			}
			kept = append(kept, prod)
		}
		rep.UnknownServices += p.unknown
		if opts.Progress != nil {
			opts.Progress(p.bytesRead)
		}
	}
	for res := range results {
		pending[res.seq] = res
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if failErr == nil {
				consume(p)
				if failErr != nil {
					cancel()
				}
			}
		}
	}
	// The reader may still be returning after a strict failure canceled it.
	<-readDone
	rep.Lines = lines
	if failErr != nil {
		return rep, failErr
	}
	if readErr != nil {
		return rep, readErr
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	rep.Products = total
	if rep.UnknownServices > 0 {
		log.Warn().Int("count", rep.UnknownServices).Msg("dropped unknown service names")
	}
	log.Info().Int("products", rep.Products).Int("lines", rep.Lines).Int("malformed", rep.Malformed).
		Int("invalid", rep.Invalid).Int("duplicates", rep.Duplicates).Dur("took_ms", time.Since(start)).Msg("catalog loaded")
	return rep, nil
}

// LoadFile is Load on a file.
func LoadFile(ctx context.Context, path string, opts LoadOptions, log zerolog.Logger) ([]Product, LoadReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, LoadReport{}, err
	}
	defer f.Close()
	products, rep, err := Load(ctx, f, opts, log)
	if err != nil {
		return nil, rep, fmt.Errorf("%s: %w", path, err)
	}
	return products, rep, nil
}

// OpenCatalog loads a file and builds its Catalog. It streams: each
// product goes into the catalog's compact form as it is parsed, so the load
// never holds the whole catalog as Go values.
func OpenCatalog(ctx context.Context, path string, opts LoadOptions, log zerolog.Logger) (*Catalog, LoadReport, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, LoadReport{}, err
	}
	defer f.Close()
	c, rep, err := LoadCatalog(ctx, f, opts, log)
	if err != nil {
		return nil, rep, fmt.Errorf("%s: %w", path, err)
	}
	return c, rep, nil
}

// LoadCatalog is Load into a Catalog, streaming like OpenCatalog.
func LoadCatalog(ctx context.Context, r io.Reader, opts LoadOptions, log zerolog.Logger) (*Catalog, LoadReport, error) {
	sink := newBuilderSink()
	rep, err := load(ctx, r, opts, log, sink)
	if err != nil {
		return nil, rep, err
	}
	c, err := sink.b.finish()
	if err != nil {
		return nil, rep, err
	}
	return c, rep, nil
}

// idSet finds repeated product ids by a 64-bit hash of each id, checking a
// hash match against the kept product's id, instead of a set of the ids
// themselves: such a set would pin every parsed batch's text blocks for the
// whole load.
type idSet struct {
	seed  maphash.Seed
	first map[uint64]uint32 // id hash -> number of the first product kept with it
	more  map[string]struct{}
}

func newIDSet() idSet {
	return idSet{seed: maphash.MakeSeed(), first: make(map[uint64]uint32), more: make(map[string]struct{})}
}

// add reports whether id is new, and notes it as product k if so. idAt
// gives the id of an earlier product.
func (s *idSet) add(id string, k int, idAt func(int) string) bool {
	h := maphash.String(s.seed, id)
	if j, ok := s.first[h]; ok {
		if idAt(int(j)) == id {
			return false
		}
		// Another id with the same hash: rare, so kept by value.
		if _, ok := s.more[id]; ok {
			return false
		}
		s.more[strings.Clone(id)] = struct{}{}
		return true
	}
	s.first[h] = uint32(k)
	return true
}

// builderSink feeds a catalogBuilder.
type builderSink struct {
	b   *catalogBuilder
	ids idSet
}

func newBuilderSink() *builderSink {
	return &builderSink{b: newCatalogBuilder(), ids: newIDSet()}
}

func (s *builderSink) add(p *Product) bool {
	if !s.ids.add(p.ProductID, len(s.b.recOff), s.b.idAt) {
		return false
	}
	s.b.add(p)
	return true
}

func (s *builderSink) batch([]Product) {}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// readBatches splits in into lines and sends them in batches of about
// 1 MiB. A line longer than maxLine is recorded by number, not kept. It
// returns the number of lines read.
func readBatches(ctx context.Context, in io.Reader, maxLine int, counter *countingReader, out chan<- *batch) (int, error) {
	const batchBytes = 1 << 20
	br := bufio.NewReaderSize(in, 256<<10)
	line := 0
	// Each batch's buffer is made at its final size: grown from empty by
	// append, it cost a copy of every batch's bytes and then some (measured:
	// 1.8 s of a 1M-product load, on the goroutine that also decompresses).
	newData := func() []byte { return make([]byte, 0, batchBytes+64<<10) }
	b := &batch{seq: 0, firstLine: 1, data: newData()}
	send := func() error {
		b.bytesRead = counter.n.Load()
		select {
		case out <- b:
		case <-ctx.Done():
			return ctx.Err()
		}
		b = &batch{seq: b.seq + 1, firstLine: line + 1, data: newData()}
		return nil
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) == 0 && err == io.EOF {
			break
		}
		line++
		start := len(b.data)
		tooLong := false
		for {
			if !tooLong {
				if len(b.data)-start+len(chunk) > maxLine {
					tooLong = true
					b.data = b.data[:start]
				} else {
					b.data = append(b.data, chunk...)
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
			chunk, err = br.ReadSlice('\n')
		}
		if tooLong {
			b.tooLong = append(b.tooLong, line)
		}
		b.ends = append(b.ends, len(b.data))
		if err != nil && err != io.EOF {
			return line, fmt.Errorf("read line %d: %w", line, err)
		}
		if len(b.data) >= batchBytes || len(b.ends) >= 8192 {
			if serr := send(); serr != nil {
				return line, serr
			}
		}
		if err == io.EOF {
			break
		}
	}
	if len(b.ends) > 0 {
		return line, send()
	}
	return line, nil
}

// parseBatch decodes every line of b.
func parseBatch(b *batch, envelope string, maxLine int, in *interner, pa *ProductArena) *parsed {
	res := &parsed{seq: b.seq, bytesRead: b.bytesRead}
	d := decoder{intern: in, arena: pa}
	tooLong := 0
	prev := 0
	for i, end := range b.ends {
		line := b.firstLine + i
		raw := b.data[prev:end]
		prev = end
		if tooLong < len(b.tooLong) && b.tooLong[tooLong] == line {
			tooLong++
			res.errs = append(res.errs, LineError{Line: line, Kind: "malformed", Err: fmt.Errorf("line longer than %d bytes", maxLine)})
			continue
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		d.data, d.pos, d.depth, d.unknownServices = raw, 0, 0, 0
		pp, err := d.document(envelope)
		if err != nil {
			res.errs = append(res.errs, LineError{Line: line, Kind: "malformed", Err: err})
			continue
		}
		var missing []error
		if !pp.hasID {
			missing = append(missing, errors.New("missing product_id"))
		}
		if !pp.hasTitle {
			missing = append(missing, errors.New("missing title"))
		}
		if !pp.hasPrice {
			missing = append(missing, errors.New("missing price"))
		}
		if errs := append(missing, pp.fieldErrs...); len(errs) > 0 {
			res.errs = append(res.errs, LineError{Line: line, Kind: "invalid", Err: errors.Join(errs...)})
			continue
		}
		if err := pp.p.Validate(); err != nil {
			res.errs = append(res.errs, LineError{Line: line, Kind: "invalid", Err: err})
			continue
		}
		res.unknown += d.unknownServices
		pa.ownLists(&pp.p)
		res.products = append(res.products, pp.p)
		res.lines = append(res.lines, line)
	}
	return res
}
