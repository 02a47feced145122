package shop

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"arena/shop/index"
	"arena/shop/internal/raw"
)

// A catalog file's compact catalog and search index are persisted together
// in one index file, written once and memory-mapped at every later start, so
// a restart neither parses the catalog nor rebuilds the index, and the
// catalog's text stays in the page cache instead of the Go heap.
//
// Layout: the parts (the catalog's arrays, then the index's, see
// index.Index.Parts), each starting on an 8-byte boundary, then a footer:
//
//	magic "ARNSHOPX", format version u32, part count u32,
//	catalog size u64, catalog modification time (ns) i64, catalog SHA-256,
//	SHA-256 of the settings that shape the result (see settingsDigest),
//	per part: offset u64, length u64,
//	CRC-32C of everything before the footer u32, CRC-32C of the footer so far u32,
//	magic again.
//
// All numbers are little-endian. The footer is at the end so the file can
// be written in one sequential pass; a truncated file has lost its trailing
// magic. The SHA-256 ties the file to one catalog's content; the size and
// time only spare hashing the catalog at every start when they match.

// indexFileVersion changes whenever the catalog parts' layout or meaning
// does; the index's parts carry their own version.
const indexFileVersion = 1

const indexFileMagic = "ARNSHOPX"

// IndexFileSuffix is appended to the catalog file's name to name its index
// file.
const IndexFileSuffix = ".arena-index"

// The catalog's parts, before the index's.
const (
	cpMeta = iota
	cpRecs
	cpRecOff
	cpPrice
	cpSold
	cpSvc
	cpDictOff
	cpDictData
	cpShops
	cpShopOf
	cpShopStart
	cpShopItems
	cpIDOff
	cpIDData
	catalogParts
)

const numParts = catalogParts + index.NumParts

// footerSize is the footer's length in bytes.
const footerSize = 8 + 4 + 4 + 8 + 8 + 2*sha256.Size + 16*numParts + 4 + 4 + 8

// castagnoli is CRC-32C, which amd64 and arm64 compute in hardware: checking
// a few GB at start costs well under a second.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// catalogIdentity is what an index file records of its catalog.
type catalogIdentity struct {
	size     int64
	mtime    int64
	digest   [sha256.Size]byte
	settings [sha256.Size]byte
}

// settingsDigest hashes what, besides the catalog's bytes, decides the
// catalog and index a load builds: the envelope and line limit (which lines
// are products) and the ranking parameters. An index file made with other
// settings is rebuilt.
func settingsDigest(load LoadOptions, params index.Params) [sha256.Size]byte {
	envelope := load.Envelope
	if envelope == "" {
		envelope = "product"
	}
	maxLine := load.MaxLineBytes
	if maxLine <= 0 {
		maxLine = 16 << 20
	}
	if params == (index.Params{}) {
		params = index.DefaultParams()
	}
	return sha256.Sum256(fmt.Appendf(nil, "envelope=%q max_line=%d params=%+v", envelope, maxLine, params))
}

// catalogFromParts views a catalog in parts written by parts, without
// copying; the parts must stay mapped for the catalog's whole life.
func catalogFromParts(p [][]byte, f *os.File, recBase int64) (*Catalog, error) {
	if len(p[cpMeta]) != 32 {
		return nil, errors.New("catalog header has the wrong size")
	}
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(p[cpMeta][8*i:]) }
	if v := word(0); v != indexFileVersion {
		return nil, fmt.Errorf("catalog parts version %d, want %d", v, indexFileVersion)
	}
	n, nd, ns := word(1), word(2), word(3)
	if n > 1<<31-1 || nd > 1<<32 || ns > n {
		return nil, fmt.Errorf("implausible catalog sizes (%d products, %d strings, %d shops)", n, nd, ns)
	}
	c := &Catalog{n: int(n), file: &recordFile{f: f, path: f.Name(), base: recBase}, svc: p[cpSvc], dictData: p[cpDictData], idData: p[cpIDData]}
	var errs []error
	u64 := func(b []byte) []uint64 { v, e := raw.Slice[uint64](b); errs = append(errs, e); return v }
	u32 := func(b []byte) []uint32 { v, e := raw.Slice[uint32](b); errs = append(errs, e); return v }
	c.recOff = u64(p[cpRecOff])
	var e1, e2 error
	c.price, e1 = raw.Slice[float64](p[cpPrice])
	c.sold, e2 = raw.Slice[int64](p[cpSold])
	errs = append(errs, e1, e2)
	c.dictOff = u64(p[cpDictOff])
	c.shops = u32(p[cpShops])
	c.shopOf = u32(p[cpShopOf])
	c.shopStart = u32(p[cpShopStart])
	c.shopItems = u32(p[cpShopItems])
	c.idOff = u64(p[cpIDOff])
	err := errors.Join(errs...)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	switch {
	case len(c.recOff) != int(n)+1 || c.recOff[n] != uint64(len(p[cpRecs])) ||
		len(c.idOff) != int(n)+1 || c.idOff[n] != uint64(len(c.idData)):
		return nil, errors.New("catalog record or id table does not match its size")
	case len(c.price) != int(n) || len(c.sold) != int(n) || len(c.svc) != int(n) ||
		len(c.shopOf) != int(n) || len(c.shopItems) != int(n):
		return nil, errors.New("catalog columns do not match the product count")
	case len(c.dictOff) != int(nd)+1 || c.dictOff[nd] != uint64(len(c.dictData)):
		return nil, errors.New("catalog string table does not match its size")
	case len(c.shops) != int(ns) || len(c.shopStart) != int(ns)+1 || c.shopStart[ns] != uint32(n):
		return nil, errors.New("catalog shop table does not match its size")
	}
	for i := range c.recOff[:n] {
		if c.recOff[i] > c.recOff[i+1] || c.idOff[i] > c.idOff[i+1] {
			return nil, fmt.Errorf("catalog record %d's offsets decrease", i)
		}
	}
	for s := range c.dictOff[:nd] {
		if c.dictOff[s] > c.dictOff[s+1] {
			return nil, fmt.Errorf("catalog string %d's offsets decrease", s)
		}
	}
	for s := range c.shopStart[:ns] {
		if c.shopStart[s] > c.shopStart[s+1] {
			return nil, fmt.Errorf("catalog shop %d's offsets decrease", s)
		}
	}
	return c, nil
}

// IndexFileOptions configure OpenIndexFile.
type IndexFileOptions struct {
	// Dir is where the index file goes; "" means the catalog file's own
	// directory. It is created if missing.
	Dir string
	// Load configures reading the catalog when the index is built.
	Load LoadOptions
	// Index configures the build.
	Index IndexOptions
}

// IndexFileInfo says how OpenIndexFile got its index.
type IndexFileInfo struct {
	// Path is the index file's path.
	Path string
	// Built is true when the catalog was loaded and indexed, false when the
	// index file was mapped.
	Built bool
	// Persisted is true when the index is served from the index file; false
	// when it was built but could not be written (then it is served from
	// memory, and a warning said why).
	Persisted bool
	// Why says why the index was built ("" when it was mapped).
	Why string
	// Report is the catalog load's report when it was built.
	Report LoadReport
	// Load and Build time the catalog load and the index build (zero when
	// mapped); Map times finding, checking and mapping the index file.
	Load, Build, Map time.Duration
	// Identity is the SHA-256 of the catalog's content and the load and
	// ranking settings: the same catalog served the same way. Files derived
	// from the catalog (the knowledge corpus) are keyed by it.
	Identity [sha256.Size]byte
}

func (id catalogIdentity) identity() [sha256.Size]byte {
	return sha256.Sum256(append(id.digest[:], id.settings[:]...))
}

// IndexFilePath is the index file of catalogPath in dir ("" for the
// catalog's own directory).
func IndexFilePath(catalogPath, dir string) string {
	if dir == "" {
		dir = filepath.Dir(catalogPath)
	}
	return filepath.Join(dir, filepath.Base(catalogPath)+IndexFileSuffix)
}

// errStale marks an index file written for another catalog, or with other
// settings.
var errStale = errors.New("the catalog changed since the index file was written")

// OpenIndexFile returns the search index of the catalog file at
// catalogPath. When its index file holds the index of this very catalog
// (same SHA-256) and passes its checksum, the file is mapped and used in
// place. Otherwise the catalog is loaded and indexed, and the index file
// written (atomically) for the next start: a missing or stale file is
// replaced quietly, a damaged one with one warning line. If the file cannot
// be written (a full disk, a read-only directory) the index is served from
// memory after one warning line; a bad file is never served.
func OpenIndexFile(ctx context.Context, catalogPath string, opts IndexFileOptions, log zerolog.Logger) (*Index, IndexFileInfo, error) {
	log = log.With().Str("component", "shop.index").Logger()
	info := IndexFileInfo{Path: IndexFilePath(catalogPath, opts.Dir)}
	st, err := os.Stat(catalogPath)
	if err != nil {
		return nil, info, err
	}
	start := time.Now()
	settings := settingsDigest(opts.Load, opts.Index.Params)
	idx, mappedID, err := mapIndexFile(info.Path, catalogPath, st, settings)
	info.Map = time.Since(start)
	switch {
	case err == nil:
		info.Persisted, info.Identity = true, mappedID.identity()
		log.Info().Str("path", info.Path).Int("products", idx.cat.Len()).Dur("took_ms", info.Map).Msg("search index mapped")
		return idx, info, nil
	case errors.Is(err, fs.ErrNotExist):
		info.Why = "no index file"
	case errors.Is(err, errStale):
		info.Why = "catalog changed"
		log.Info().Str("path", info.Path).Msg("the catalog (or the load or ranking settings) changed since its index file was written; rebuilding the index")
	default:
		info.Why = "index file unusable"
		log.Warn().Str("path", info.Path).Err(err).Msg("index file is damaged or unreadable; rebuilding it")
	}
	if err := ctx.Err(); err != nil {
		return nil, info, err
	}

	// Build: stream the catalog into a new index file, with the catalog's
	// digest taken on the way, then serve from the file once it is written.
	info.Built = true
	src, err := openDigested(catalogPath, st, settings)
	if err != nil {
		return nil, info, err
	}
	defer src.Close()
	finishID := func() (catalogIdentity, error) {
		id, err := src.identity()
		if err != nil {
			return id, err
		}
		info.Identity = id.identity()
		if after, err := os.Stat(catalogPath); err != nil || after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
			return id, errChangedWhileLoading
		}
		return id, nil
	}
	err = streamIndexFile(ctx, src.reader(), info.Path, finishID, opts, &info, log)
	var werr errWrite
	switch {
	case err == nil:
		mapped, _, err := mapIndexFile(info.Path, catalogPath, st, settings)
		if err != nil {
			log.Warn().Str("path", info.Path).Err(err).Msg("the index file just written does not read back; serving the index from memory")
			break
		}
		info.Persisted = true
		// The build's arrays are garbage now: give their memory back
		// before serving.
		runtime.GC()
		debug.FreeOSMemory()
		return mapped, info, nil
	case errors.As(err, &werr):
		log.Warn().Str("path", info.Path).Err(werr.err).Msg("cannot write the index file; serving the index from memory, and the next start builds it again")
	case errors.Is(err, errChangedWhileLoading):
		log.Warn().Str("path", info.Path).Msg("the catalog changed while it was loaded; not writing its index file, serving the catalog as it is now from memory")
	case errors.Is(err, errNoProducts):
		return nil, info, fmt.Errorf("%s %w", catalogPath, err)
	default:
		return nil, info, fmt.Errorf("%s: %w", catalogPath, err)
	}
	return buildInMemory(ctx, catalogPath, settings, opts, info, log)
}

// errNoProducts is a catalog in which every line was skipped.
var errNoProducts = errors.New("has no valid products (every line was skipped; see the warnings above)")

// errChangedWhileLoading marks a catalog file whose size or modification
// time moved while it was read for an index file.
var errChangedWhileLoading = errors.New("the catalog changed while it was loaded")

// buildInMemory loads and indexes the catalog in the heap, for when its
// index file cannot be written; info says what was tried before.
func buildInMemory(ctx context.Context, catalogPath string, settings [sha256.Size]byte, opts IndexFileOptions, info IndexFileInfo, log zerolog.Logger) (*Index, IndexFileInfo, error) {
	info.Persisted = false
	st, err := os.Stat(catalogPath)
	if err != nil {
		return nil, info, err
	}
	src, err := openDigested(catalogPath, st, settings)
	if err != nil {
		return nil, info, err
	}
	defer src.Close()
	start := time.Now()
	// The first attempt reported the catalog's bad lines already.
	cat, rep, err := LoadCatalog(ctx, src.reader(), opts.Load, log.Level(zerolog.ErrorLevel))
	info.Report, info.Load = rep, time.Since(start)
	if err != nil {
		return nil, info, fmt.Errorf("%s: %w", catalogPath, err)
	}
	if cat.Len() == 0 {
		return nil, info, fmt.Errorf("%s %w", catalogPath, errNoProducts)
	}
	id, err := src.identity()
	if err != nil {
		return nil, info, err
	}
	info.Identity = id.identity()
	start = time.Now()
	idx, err := BuildIndex(ctx, cat, opts.Index, log)
	info.Build = time.Since(start)
	if err != nil {
		return nil, info, err
	}
	return idx, info, nil
}

// digestedFile is a catalog file read once, for the load, with its SHA-256
// taken on the way.
type digestedFile struct {
	*os.File
	sum      hash.Hash
	st       fs.FileInfo
	settings [sha256.Size]byte
}

func openDigested(path string, st fs.FileInfo, settings [sha256.Size]byte) (*digestedFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &digestedFile{File: f, sum: sha256.New(), st: st, settings: settings}, nil
}

// reader is the file's content, hashed as it is read.
func (d *digestedFile) reader() io.Reader { return io.TeeReader(d.File, d.sum) }

// identity hashes whatever the load did not read and returns the catalog's
// identity as an index file records it.
func (d *digestedFile) identity() (catalogIdentity, error) {
	id := catalogIdentity{size: d.st.Size(), mtime: d.st.ModTime().UnixNano(), settings: d.settings}
	// Every byte must go through the hash, even after the last line.
	if _, err := io.Copy(d.sum, d.File); err != nil {
		return id, fmt.Errorf("%s: %w", d.Name(), err)
	}
	d.sum.Sum(id.digest[:0])
	return id, nil
}

// footer encodes an index file's footer.
func footer(id catalogIdentity, table []uint64, bodyCRC uint32) []byte {
	b := make([]byte, 0, footerSize)
	b = append(b, indexFileMagic...)
	b = binary.LittleEndian.AppendUint32(b, indexFileVersion)
	b = binary.LittleEndian.AppendUint32(b, numParts)
	b = binary.LittleEndian.AppendUint64(b, uint64(id.size))
	b = binary.LittleEndian.AppendUint64(b, uint64(id.mtime))
	b = append(b, id.digest[:]...)
	b = append(b, id.settings[:]...)
	for _, v := range table {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = binary.LittleEndian.AppendUint32(b, bodyCRC)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return append(b, indexFileMagic...)
}

// mapIndexFile checks the index file at path against the catalog file
// (whose stat is st) and its own checksums, maps it and views the index in
// it. It returns an error wrapping fs.ErrNotExist when there is no file and
// errStale when the file belongs to another catalog.
func mapIndexFile(path, catalogPath string, st fs.FileInfo, settings [sha256.Size]byte) (*Index, catalogIdentity, error) {
	var id catalogIdentity
	f, err := os.Open(path)
	if err != nil {
		return nil, id, err
	}
	keep := false
	defer func() {
		// A catalog served from the file reads its records through f.
		if !keep {
			f.Close()
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, id, err
	}
	size := fi.Size()
	if size < footerSize {
		return nil, id, fmt.Errorf("%d bytes: truncated, or not an index file", size)
	}
	ft := make([]byte, footerSize)
	if _, err := f.ReadAt(ft, size-footerSize); err != nil {
		return nil, id, err
	}
	if string(ft[:8]) != indexFileMagic || string(ft[footerSize-8:]) != indexFileMagic {
		return nil, id, errors.New("no footer: truncated, or not an index file")
	}
	le := binary.LittleEndian
	crcAt := footerSize - 8 - 4
	if le.Uint32(ft[crcAt:]) != crc32.Checksum(ft[:crcAt], castagnoli) {
		return nil, id, errors.New("footer checksum mismatch")
	}
	if v, np := le.Uint32(ft[8:]), le.Uint32(ft[12:]); v != indexFileVersion || np != numParts {
		return nil, id, fmt.Errorf("written by another version (format %d, %d parts)", v, np)
	}
	id.size, id.mtime = int64(le.Uint64(ft[16:])), int64(le.Uint64(ft[24:]))
	copy(id.digest[:], ft[32:32+sha256.Size])
	copy(id.settings[:], ft[32+sha256.Size:32+2*sha256.Size])
	if id.settings != settings {
		return nil, id, errStale
	}
	if id.size != st.Size() || id.mtime != st.ModTime().UnixNano() {
		// Touched or copied, perhaps unchanged: the content decides.
		digest, err := fileDigest(catalogPath)
		if err != nil {
			return nil, id, err
		}
		if digest != id.digest {
			return nil, id, errStale
		}
	}
	body := size - footerSize
	table := ft[32+2*sha256.Size:]
	parts := make([][2]uint64, numParts)
	for i := range parts {
		off, n := le.Uint64(table[16*i:]), le.Uint64(table[16*i+8:])
		if off%8 != 0 || off > uint64(body) || n > uint64(body)-off {
			return nil, id, fmt.Errorf("part %d lies outside the file", i)
		}
		parts[i] = [2]uint64{off, n}
	}
	// The body's checksum is read through the file, not the mapping, so
	// checking it does not make every page resident in this process.
	crc := crc32.New(castagnoli)
	if _, err := io.Copy(crc, io.NewSectionReader(f, 0, body)); err != nil {
		return nil, id, err
	}
	if crc.Sum32() != le.Uint32(ft[crcAt-4:]) {
		return nil, id, errors.New("checksum mismatch: the file is damaged")
	}
	if body == 0 {
		return nil, id, errors.New("empty index file")
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(body), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, id, fmt.Errorf("map: %w", err)
	}
	// The mapping is never unmapped: the catalog's products alias it, and a
	// product may be kept by a caller after the index is dropped.
	views := make([][]byte, numParts)
	for i, p := range parts {
		views[i] = data[p[0] : p[0]+p[1] : p[0]+p[1]]
	}
	cat, err := catalogFromParts(views[:catalogParts], f, int64(parts[cpRecs][0]))
	if err != nil {
		return nil, id, err
	}
	ix, err := index.FromParts(views[catalogParts:])
	if err != nil {
		return nil, id, err
	}
	if ix.Len() != cat.Len() {
		return nil, id, fmt.Errorf("index of %d documents for %d products", ix.Len(), cat.Len())
	}
	keep = true
	return &Index{cat: cat, ix: ix}, id, nil
}

// fileDigest is the SHA-256 of a file's content.
func fileDigest(path string) ([sha256.Size]byte, error) {
	var d [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return d, err
	}
	defer f.Close()
	var h hash.Hash = sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return d, err
	}
	h.Sum(d[:0])
	return d, nil
}
