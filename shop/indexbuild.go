package shop

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"arena/internal/atomicfile"
	"arena/shop/internal/raw"
)

// A first start streams the catalog into its index file: each product's
// record is written to the file as it is parsed, and the index build reads
// the records back from the file, so the catalog's text never sits in the
// Go heap. Only the columns, the string table and the ids do. At 2.5M
// products that is the difference between a 3 GB and a 1 GB peak.

// indexFileWriter writes an index file in one sequential pass: parts in any
// physical order, each on an 8-byte boundary, then the footer with the part
// table. Errors are sticky: after the first, writes do nothing and every
// later call reports it.
type indexFileWriter struct {
	f *atomicfile.File
	// w hands full buffers to a goroutine that checksums and writes them,
	// so the write system calls (most of a first start's kernel time: the
	// file is a few GB) overlap with parsing instead of stalling it.
	w     *asyncWriter
	crc   hash.Hash32
	pos   uint64
	table [numParts][2]uint64
	err   error
}

func createIndexFile(path string) (*indexFileWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	w := &indexFileWriter{f: f, crc: crc32.New(castagnoli)}
	w.w = newAsyncWriter(io.MultiWriter(f, w.crc), 1<<20, 4)
	return w, nil
}

func (w *indexFileWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	if err := w.w.write(b); err != nil {
		w.err = err
		return
	}
	w.pos += uint64(len(b))
}

// begin starts part i at the next 8-byte boundary.
func (w *indexFileWriter) begin(i int) {
	var pad [8]byte
	if k := w.pos % 8; k != 0 {
		w.write(pad[:8-k])
	}
	w.table[i][0] = w.pos
}

// end closes part i, which began with begin.
func (w *indexFileWriter) end(i int) { w.table[i][1] = w.pos - w.table[i][0] }

// part writes part i whole.
func (w *indexFileWriter) part(i int, b []byte) {
	w.begin(i)
	w.write(b)
	w.end(i)
}

// flush waits until everything written so far is in the file.
func (w *indexFileWriter) flush() error {
	if w.err == nil {
		w.err = w.w.flush()
	}
	return w.err
}

// ReadAt reads back what was written. It flushes first, so it must not be
// called concurrently with anything else on w.
func (w *indexFileWriter) ReadAt(b []byte, off int64) (int, error) {
	if err := w.flush(); err != nil {
		return 0, err
	}
	return w.f.ReadAt(b, off)
}

// commit writes the footer and puts the file in place.
func (w *indexFileWriter) commit(id catalogIdentity) error {
	if w.err == nil {
		w.err = w.w.close()
	}
	if w.err != nil {
		return w.err
	}
	table := make([]uint64, 0, 2*numParts)
	for _, p := range w.table {
		table = append(table, p[0], p[1])
	}
	if _, err := w.f.Write(footer(id, table, w.crc.Sum32())); err != nil {
		return err
	}
	return w.f.Commit()
}

// abort discards the file; after a commit it does nothing.
func (w *indexFileWriter) abort() {
	_ = w.w.close()
	_ = w.f.Abort()
}

// asyncWriter buffers writes and passes each full buffer to its own
// goroutine to write. Errors are sticky and reported by a later call.
type asyncWriter struct {
	dst     io.Writer
	buf     []byte
	queue   chan []byte // full buffers, to the goroutine
	free    chan []byte // written buffers, back
	pending sync.WaitGroup
	closed  bool

	mu  sync.Mutex
	err error
}

// newAsyncWriter starts a writer of n buffers of size bytes; close ends
// its goroutine.
func newAsyncWriter(dst io.Writer, size, n int) *asyncWriter {
	a := &asyncWriter{dst: dst, queue: make(chan []byte, n), free: make(chan []byte, n)}
	for range n {
		a.free <- make([]byte, 0, size)
	}
	go func() {
		for b := range a.queue {
			if a.error() == nil {
				if _, err := a.dst.Write(b); err != nil {
					a.mu.Lock()
					a.err = err
					a.mu.Unlock()
				}
			}
			a.free <- b[:0]
			a.pending.Done()
		}
	}()
	return a
}

func (a *asyncWriter) error() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

func (a *asyncWriter) write(p []byte) error {
	if err := a.error(); err != nil {
		return err
	}
	if a.closed {
		return fs.ErrClosed
	}
	for len(p) > 0 {
		if a.buf == nil {
			a.buf = <-a.free
		}
		k := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf, p = a.buf[:len(a.buf)+k], p[k:]
		if len(a.buf) == cap(a.buf) {
			a.send()
		}
	}
	return nil
}

func (a *asyncWriter) send() {
	a.pending.Add(1)
	a.queue <- a.buf
	a.buf = nil
}

// flush waits until everything written so far is written out.
func (a *asyncWriter) flush() error {
	if a.closed {
		return a.error()
	}
	if len(a.buf) > 0 {
		a.send()
	}
	a.pending.Wait()
	return a.error()
}

// close flushes and ends the goroutine; later calls do nothing.
func (a *asyncWriter) close() error {
	err := a.flush()
	if !a.closed {
		a.closed = true
		close(a.queue)
	}
	return err
}

// fileSink is the load sink of a first start: it writes each kept product's
// record to the index file's records part and keeps the columns, the ids
// and the string table (in b) in memory, in file order.
type fileSink struct {
	b       *catalogBuilder
	w       *indexFileWriter
	ids     idSet
	scratch []byte
	recOff  []uint64 // start of each record in the records part, then its end
	idOff   []uint64
	idData  []byte
	// sorted stays true while ids arrive in ascending order.
	sorted bool
	// stop cancels the load when a write fails.
	stop context.CancelFunc
}

func (s *fileSink) idAt(k int) string { return raw.String(s.idData[s.idOff[k]:s.idOff[k+1]]) }

func (s *fileSink) add(p *Product) bool {
	k := len(s.recOff) - 1
	if !s.ids.add(p.ProductID, k, s.idAt) {
		return false
	}
	if k > 0 && s.sorted && compareIDs(s.idAt(k-1), p.ProductID) > 0 {
		s.sorted = false
	}
	s.scratch = s.b.encode(s.scratch[:0], p)
	s.w.write(s.scratch)
	if s.w.err != nil {
		s.stop()
	}
	s.recOff = append(s.recOff, s.recOff[k]+uint64(len(s.scratch)))
	s.idData = append(s.idData, p.ProductID...)
	s.idOff = append(s.idOff, uint64(len(s.idData)))
	s.b.addColumns(p)
	return true
}

func (s *fileSink) batch([]Product) {}

// errWrite marks a failure to write the index file, as opposed to a failure
// to read the catalog: the first is served from memory, the second is the
// operator's to fix.
type errWrite struct{ err error }

func (e errWrite) Error() string { return e.err.Error() }
func (e errWrite) Unwrap() error { return e.err }

// streamIndexFile loads the catalog read from r into a new index file at
// path, builds the index over the records it wrote, writes the index and
// commits the file. A failure to write returns an errWrite, after which
// nothing is left at path that was not there before.
// id is called once everything is built, for the footer: it finishes the
// catalog's digest, and fails if the catalog changed while it was read.
func streamIndexFile(ctx context.Context, r io.Reader, path string, id func() (catalogIdentity, error), opts IndexFileOptions, info *IndexFileInfo, log zerolog.Logger) error {
	start := time.Now()
	w, err := createIndexFile(path)
	if err != nil {
		return errWrite{err}
	}
	defer func() { w.abort() }()
	loadCtx, stop := context.WithCancel(ctx)
	defer stop()
	sink := &fileSink{b: newCatalogBuilder(), w: w, ids: newIDSet(), recOff: []uint64{0}, idOff: []uint64{0}, sorted: true, stop: stop}
	w.begin(cpRecs)
	rep, err := load(loadCtx, r, opts.Load, log, sink)
	info.Report = rep
	if w.err != nil {
		return errWrite{w.err}
	}
	if err != nil {
		return err
	}
	w.end(cpRecs)
	n := len(sink.recOff) - 1
	if n == 0 {
		return errNoProducts
	}
	b := sink.b
	c := &Catalog{n: n, price: b.price, sold: b.sold, svc: b.svc, dictOff: b.dictOff, dictData: b.dictData,
		recOff: sink.recOff, idOff: sink.idOff, idData: sink.idData}
	shopStr := b.shop
	sink.ids, b.dict = idSet{}, nil
	if !sink.sorted {
		// The file's records must be in id order: copy them into a new file
		// in that order, and keep the columns and ids alike.
		w2, err := createIndexFile(path)
		if err != nil {
			return errWrite{err}
		}
		old := w
		w = w2
		c, shopStr, err = reorder(ctx, c, shopStr, old, w)
		old.abort()
		if err != nil {
			return err
		}
	}
	// The index build reads the records back through the file, from
	// several goroutines: nothing may stay buffered.
	if err := w.flush(); err != nil {
		return errWrite{err}
	}
	c.file = &recordFile{f: w.f, path: path, base: int64(w.table[cpRecs][0])}
	c.buildShops(shopStr)
	info.Load = time.Since(start)
	if err := ctx.Err(); err != nil {
		return err
	}

	idx, err := BuildIndex(ctx, c, opts.Index, log)
	if err != nil {
		return err
	}
	info.Build = time.Since(start) - info.Load
	c.writeParts(w)
	for i, p := range idx.ix.Parts() {
		w.part(catalogParts+i, p)
	}
	footerID, err := id()
	if err != nil {
		return err
	}
	if err := w.commit(footerID); err != nil {
		return errWrite{err}
	}
	return nil
}

// reorder copies c's records from src into dst's records part in id order,
// and returns c with its columns and ids in that order. A duplicate id is an
// error (the load drops them, so it is a bug).
func reorder(ctx context.Context, c *Catalog, shopStr []uint32, src, dst *indexFileWriter) (*Catalog, []uint32, error) {
	order := idOrder(c.n, c.idAt)
	out := &Catalog{n: c.n, dictOff: c.dictOff, dictData: c.dictData,
		recOff: make([]uint64, c.n+1), idOff: make([]uint64, c.n+1),
		price: make([]float64, c.n), sold: make([]int64, c.n), svc: make([]uint8, c.n)}
	out.idData = make([]byte, 0, len(c.idData))
	shops := make([]uint32, c.n)
	base := int64(src.table[cpRecs][0])
	var buf []byte
	dst.begin(cpRecs)
	for i, o := range order {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		start, end := c.recOff[o], c.recOff[o+1]
		if uint64(cap(buf)) < end-start {
			buf = make([]byte, end-start)
		}
		buf = buf[:end-start]
		if _, err := src.ReadAt(buf, base+int64(start)); err != nil {
			return nil, nil, errWrite{fmt.Errorf("read back the records: %w", err)}
		}
		dst.write(buf)
		out.recOff[i+1] = out.recOff[i] + (end - start)
		out.idData = append(out.idData, c.idAt(int(o))...)
		out.idOff[i+1] = uint64(len(out.idData))
		out.price[i], out.sold[i], out.svc[i], shops[i] = c.price[o], c.sold[o], c.svc[o], shopStr[o]
	}
	dst.end(cpRecs)
	if dst.err != nil {
		return nil, nil, errWrite{dst.err}
	}
	for i := 1; i < out.n; i++ {
		if a := out.idAt(i); out.idAt(i-1) == a {
			return nil, nil, fmt.Errorf("catalog: duplicate product_id %q", a)
		}
	}
	return out, shops, nil
}

// writeParts writes the catalog's parts other than the records, which the
// load streamed.
func (c *Catalog) writeParts(w *indexFileWriter) {
	meta := make([]byte, 0, 32)
	for _, v := range []uint64{indexFileVersion, uint64(c.n), uint64(len(c.dictOff) - 1), uint64(len(c.shops))} {
		meta = binary.LittleEndian.AppendUint64(meta, v)
	}
	w.part(cpMeta, meta)
	w.part(cpRecOff, raw.Bytes(c.recOff))
	w.part(cpPrice, raw.Bytes(c.price))
	w.part(cpSold, raw.Bytes(c.sold))
	w.part(cpSvc, c.svc)
	w.part(cpDictOff, raw.Bytes(c.dictOff))
	w.part(cpDictData, c.dictData)
	w.part(cpShops, raw.Bytes(c.shops))
	w.part(cpShopOf, raw.Bytes(c.shopOf))
	w.part(cpShopStart, raw.Bytes(c.shopStart))
	w.part(cpShopItems, raw.Bytes(c.shopItems))
	w.part(cpIDOff, raw.Bytes(c.idOff))
	w.part(cpIDData, c.idData)
}
