package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"arena/shop/internal/raw"
)

// An index is persisted as a list of parts: byte views of its arrays, in a
// fixed order, preceded by a small header of sizes and parameters. FromParts
// uses the parts in place, so an index in a memory-mapped file is ready as
// soon as it is mapped: nothing is decoded or copied.

// partsVersion changes whenever the parts' layout or meaning does, so a
// file written by another version is rebuilt rather than misread.
const partsVersion = 1

// The parts, in order.
const (
	partMeta = iota
	partVocabOff
	partVocabData
	partOff
	partDocs
	partImps
	partMaxImp
	partBlockMax
	partPrice
	partShop
	partSvc
	partShopOff
	partShopDocs
	partByPrice
	partSortedPrice
	partSvcDocs
	partSvcHas
	// NumParts is how many parts Parts returns.
	NumParts
)

// metaWords is the header's length in 8-byte words: version, n, terms,
// window, k1, weights, b, scale, the 8 service list lengths.
const metaWords = 4 + 1 + 2*numFields + 1 + 8

// Parts returns the index's arrays as byte views, in the order FromParts
// takes them. They alias the index; the caller writes them out and must not
// change them.
func (ix *Index) Parts() [][]byte {
	meta := make([]uint64, 0, metaWords)
	meta = append(meta, partsVersion, uint64(ix.n), uint64(ix.numTerms()), uint64(ix.window), math.Float64bits(ix.params.K1))
	for f := range numFields {
		meta = append(meta, math.Float64bits(ix.params.Weights[f]))
	}
	for f := range numFields {
		meta = append(meta, math.Float64bits(ix.params.B[f]))
	}
	meta = append(meta, math.Float64bits(ix.scale))
	var svc []uint32
	for _, l := range ix.svcDocs {
		meta = append(meta, uint64(len(l)))
		svc = append(svc, l...)
	}
	metaBytes := make([]byte, 0, 8*len(meta))
	for _, w := range meta {
		metaBytes = binary.LittleEndian.AppendUint64(metaBytes, w)
	}
	parts := make([][]byte, NumParts)
	parts[partMeta] = metaBytes
	parts[partVocabOff] = raw.Bytes(ix.vocabOff)
	parts[partVocabData] = ix.vocabData
	parts[partOff] = raw.Bytes(ix.off)
	parts[partDocs] = raw.Bytes(ix.docs)
	parts[partImps] = raw.Bytes(ix.imps)
	parts[partMaxImp] = raw.Bytes(ix.maxImp)
	parts[partBlockMax] = raw.Bytes(ix.blockMax)
	parts[partPrice] = raw.Bytes(ix.price)
	parts[partShop] = raw.Bytes(ix.shop)
	parts[partSvc] = raw.Bytes(ix.svc)
	parts[partShopOff] = raw.Bytes(ix.shopOff)
	parts[partShopDocs] = raw.Bytes(ix.shopDocs)
	parts[partByPrice] = raw.Bytes(ix.byPrice)
	parts[partSortedPrice] = raw.Bytes(ix.sortedPrice)
	parts[partSvcDocs] = raw.Bytes(svc)
	parts[partSvcHas] = raw.Bytes(ix.svcHas[:])
	return parts
}

// FromParts rebuilds an index on parts written by Parts, without copying:
// the index aliases them, so they must stay mapped and unchanged for as long
// as it is used. Each part must be aligned to 8 bytes. It checks the parts'
// sizes and the structure searches rely on to stay inside their arrays; the
// caller checks the content itself (a checksum) before.
func FromParts(parts [][]byte) (*Index, error) {
	if len(parts) != NumParts {
		return nil, fmt.Errorf("index: %d parts, want %d", len(parts), NumParts)
	}
	if !raw.LittleEndian() {
		return nil, errors.New("index: persisted indexes need a little-endian machine")
	}
	m := parts[partMeta]
	if len(m) != 8*metaWords {
		return nil, fmt.Errorf("index: header of %d bytes, want %d", len(m), 8*metaWords)
	}
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(m[8*i:]) }
	if v := word(0); v != partsVersion {
		return nil, fmt.Errorf("index: parts version %d, want %d", v, partsVersion)
	}
	n, nt, window := word(1), word(2), word(3)
	if n > math.MaxInt32 || nt > math.MaxUint32-1 || window == 0 || window > 1<<16 {
		return nil, fmt.Errorf("index: implausible sizes (%d documents, %d terms, window %d)", n, nt, window)
	}
	ix := &Index{n: int(n), window: uint32(window)}
	ix.params.K1 = math.Float64frombits(word(4))
	for f := range numFields {
		ix.params.Weights[f] = math.Float64frombits(word(5 + f))
		ix.params.B[f] = math.Float64frombits(word(5 + numFields + f))
	}
	ix.scale = math.Float64frombits(word(5 + 2*numFields))
	if err := ix.params.validate(); err != nil || !(ix.scale > 0) {
		return nil, fmt.Errorf("index: bad parameters in header (%v, scale %v)", err, ix.scale)
	}
	var err error
	errs := func(e error) {
		if err == nil && e != nil {
			err = e
		}
	}
	view32 := func(p int) []uint32 { s, e := raw.Slice[uint32](parts[p]); errs(e); return s }
	view16 := func(p int) []uint16 { s, e := raw.Slice[uint16](parts[p]); errs(e); return s }
	viewF := func(p int) []float64 { s, e := raw.Slice[float64](parts[p]); errs(e); return s }
	ix.vocabOff = view32(partVocabOff)
	ix.vocabData = parts[partVocabData]
	ix.off = view32(partOff)
	ix.docs = view32(partDocs)
	ix.imps = view16(partImps)
	ix.maxImp = view16(partMaxImp)
	ix.blockMax = view16(partBlockMax)
	ix.price = viewF(partPrice)
	ix.shop = view32(partShop)
	ix.svc = parts[partSvc]
	ix.shopOff = view32(partShopOff)
	ix.shopDocs = view32(partShopDocs)
	ix.byPrice = view32(partByPrice)
	ix.sortedPrice = viewF(partSortedPrice)
	svc := view32(partSvcDocs)
	has := view32(partSvcHas)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	// Sizes every search indexes by.
	postings := len(ix.docs)
	switch {
	case len(ix.vocabOff) != int(nt)+1 || int(ix.vocabOff[nt]) != len(ix.vocabData):
		return nil, errors.New("index: vocabulary table does not match its size")
	case len(ix.off) != int(nt)+1 || int(ix.off[nt]) != postings || len(ix.imps) != postings:
		return nil, errors.New("index: posting offsets do not match the postings")
	case len(ix.maxImp) != int(nt) || len(ix.blockMax) != (postings+blockSize-1)/blockSize:
		return nil, errors.New("index: impact tables do not match the postings")
	case len(ix.price) != int(n) || len(ix.shop) != int(n) || len(ix.svc) != int(n) ||
		len(ix.shopDocs) != int(n) || len(ix.byPrice) != int(n) || len(ix.sortedPrice) != int(n):
		return nil, errors.New("index: filter columns do not match the document count")
	case len(ix.shopOff) == 0 || int(ix.shopOff[len(ix.shopOff)-1]) != int(n):
		return nil, errors.New("index: shop table does not match the document count")
	case len(has) != len(ix.svcHas):
		return nil, errors.New("index: service counts have the wrong size")
	}
	// Offsets must not decrease, or a slice expression in a search would
	// panic; the checksum makes this a check for bugs, not for disk errors.
	for t := range int(nt) {
		if ix.vocabOff[t] > ix.vocabOff[t+1] || ix.off[t] > ix.off[t+1] {
			return nil, fmt.Errorf("index: term %d's offsets decrease", t)
		}
	}
	for s := 0; s+1 < len(ix.shopOff); s++ {
		if ix.shopOff[s] > ix.shopOff[s+1] {
			return nil, fmt.Errorf("index: shop %d's offsets decrease", s)
		}
	}
	copy(ix.svcHas[:], has)
	for _, d := range ix.byPrice {
		if d >= uint32(n) {
			return nil, errors.New("index: price order names a document beyond the count")
		}
	}
	ix.priceBuckets()
	total := uint64(0)
	for b := range ix.svcDocs {
		l := word(6 + 2*numFields + b)
		if total+l > uint64(len(svc)) {
			return nil, errors.New("index: service lists overrun their part")
		}
		ix.svcDocs[b] = svc[total : total+l : total+l]
		total += l
	}
	if total != uint64(len(svc)) {
		return nil, errors.New("index: service lists do not fill their part")
	}
	ix.pool.New = func() any { return new(searchScratch) }
	return ix, nil
}
