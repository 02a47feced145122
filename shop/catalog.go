package shop

import (
	"encoding/binary"
	"fmt"
	"iter"
	"slices"
	"strings"

	"arena/shop/internal/raw"
)

// Catalog is an immutable set of products with lookups by product id and by
// shop. Products are kept in product-id order (numeric ids by value), which
// is also the tie-break order of search. A Catalog is safe for concurrent
// use; the products it hands out are shared and must not be modified.
//
// Products are not held as Go values. Each is one compact record (its id
// and text fields inline; shop, brand, category, option and attribute
// strings as numbers into one table of distinct strings) in a few large
// byte blocks, with price, sales and services in columns. A catalog made
// from a persisted file (OpenIndexFile) uses the mapped file in place. The
// Product a lookup returns is decoded from its record: its strings alias the
// record, so decoding copies no text.
type Catalog struct {
	n int
	// recs are the record blocks; recOff[i] locates position i's record:
	// block recOff[i]>>recBlockShift, byte recOff[i]&recOffsetMask. A
	// catalog read from an index file has no blocks: see file.
	recs   [][]byte
	recOff []uint64
	// file, when set, holds the records in position order, position i's at
	// recOff[i]..recOff[i+1] of the index file's records part.
	file  *recordFile
	price []float64
	sold  []int64
	svc   []uint8
	// The distinct strings: string s is dictData[dictOff[s]:dictOff[s+1]].
	dictOff  []uint64
	dictData []byte
	// ids, for a catalog read from a file, are the product ids in position
	// order (idData[idOff[i]:idOff[i+1]]), so a lookup by id reads no record.
	idOff  []uint64
	idData []byte
	// shops are the distinct shop ids (as string numbers) in id order;
	// shopOf[i] is product i's shop number and
	// shopItems[shopStart[s]:shopStart[s+1]] are shop s's positions.
	shops     []uint32
	shopOf    []uint32
	shopStart []uint32
	shopItems []uint32
}

// A record's block number sits above recBlockShift in its offset word.
const (
	recBlockShift = 40
	recOffsetMask = 1<<recBlockShift - 1
)

// NewCatalog takes ownership of products (the slice must not be used
// afterwards) and builds a catalog. Every product must pass Validate and ids
// must be unique; Load already drops duplicates.
func NewCatalog(products []Product) (*Catalog, error) {
	if len(products) > 1<<31-1 {
		return nil, fmt.Errorf("catalog: %d products exceed the limit", len(products))
	}
	b := newCatalogBuilder()
	for i := range products {
		if err := products[i].Validate(); err != nil {
			return nil, fmt.Errorf("catalog: product %d (%q): %w", i, products[i].ProductID, err)
		}
		b.add(&products[i])
	}
	return b.finish()
}

// With returns a new catalog holding c's products and more (a restock).
// c is left as it is, so searches that hold it keep their results; more
// is validated as NewCatalog does, and an id c already has is an error.
// Products keep their records and order, so a product reads the same in
// both catalogs.
func (c *Catalog) With(more []Product) (*Catalog, error) {
	if c.n+len(more) > 1<<31-1 {
		return nil, fmt.Errorf("catalog: %d products exceed the limit", c.n+len(more))
	}
	b := newCatalogBuilder()
	var p Product
	for i := range c.n {
		c.decode(i, &p)
		b.add(&p)
	}
	for i := range more {
		if err := more[i].Validate(); err != nil {
			return nil, fmt.Errorf("catalog: product %d (%q): %w", i, more[i].ProductID, err)
		}
		b.add(&more[i])
	}
	return b.finish()
}

// Len is the number of products.
func (c *Catalog) Len() int { return c.n }

// record returns the bytes from the start of position i's record.
func (c *Catalog) record(i int) []byte {
	if c.file != nil {
		return c.file.record(c, i)
	}
	o := c.recOff[i]
	return c.recs[o>>recBlockShift][o&recOffsetMask:]
}

// str returns distinct string s.
func (c *Catalog) str(s uint64) string {
	return raw.String(c.dictData[c.dictOff[s]:c.dictOff[s+1]])
}

// idAt is position i's product id, read without decoding the rest.
func (c *Catalog) idAt(i int) string {
	if c.idOff != nil {
		return raw.String(c.idData[c.idOff[i]:c.idOff[i+1]])
	}
	r := recordReader{b: c.record(i)}
	return r.text()
}

// At returns the product at position i (0..Len-1), in id order. Each call
// decodes a new Product.
func (c *Catalog) At(i int) *Product {
	p := new(Product)
	c.decode(i, p)
	return p
}

// decode fills p with position i's product.
func (c *Catalog) decode(i int, p *Product) {
	r := recordReader{b: c.record(i)}
	p.ProductID = r.text()
	p.Title = r.text()
	p.ShortDescription = r.text()
	p.Description = r.text()
	p.Specification = r.text()
	p.ShopID = c.str(r.uvarint())
	p.Brand = c.str(r.uvarint())
	p.Category = c.str(r.uvarint())
	p.SKUOptions, p.Attributes = nil, nil
	if attrs := r.uvarint(); attrs > 0 {
		vals := make([]string, r.uvarint())
		p.Attributes = make([]Attribute, attrs)
		for k := range p.Attributes {
			key := c.str(r.uvarint())
			m := r.uvarint()
			vs := vals[:m:m]
			vals = vals[m:]
			for j := range vs {
				vs[j] = c.str(r.uvarint())
			}
			if m == 0 {
				vs = nil
			}
			p.Attributes[k] = Attribute{Key: key, Values: vs}
		}
	}
	if skus := r.uvarint(); skus > 0 {
		// One allocation for all of the product's options.
		opts := make([]Option, r.uvarint())
		p.SKUOptions = make([]SKU, skus)
		for k := range p.SKUOptions {
			m := r.uvarint()
			sku := opts[:m:m]
			opts = opts[m:]
			for j := range sku {
				sku[j] = Option{Key: c.str(r.uvarint()), Value: c.str(r.uvarint())}
			}
			p.SKUOptions[k] = sku
		}
	}
	p.Price = c.price[i]
	p.SoldCount = c.sold[i]
	p.Service = Services(c.svc[i])
}

// searchText describes position i to the index builder: the ranked text
// fields, with attribute and option values appended to attrs.
func (c *Catalog) searchText(i int, attrs []string) (title, brand, category string, _ []string) {
	r := recordReader{b: c.record(i)}
	r.text() // id
	title = r.text()
	r.text() // short description
	r.text() // description
	r.text() // specification
	r.uvarint()
	brand = c.str(r.uvarint())
	category = c.str(r.uvarint())
	// Attribute values first, then option values, as the index has always
	// received them (and as the record stores them).
	if n := r.uvarint(); n > 0 {
		r.uvarint()
		for range n {
			r.uvarint()
			for range r.uvarint() {
				attrs = append(attrs, c.str(r.uvarint()))
			}
		}
	}
	if skus := r.uvarint(); skus > 0 {
		r.uvarint()
		for range skus {
			for range r.uvarint() {
				r.uvarint()
				attrs = append(attrs, c.str(r.uvarint()))
			}
		}
	}
	return title, brand, category, attrs
}

// Product looks a product up by id.
func (c *Catalog) Product(id string) (*Product, bool) {
	i, ok := c.Position(id)
	if !ok {
		return nil, false
	}
	return c.At(i), true
}

// Position returns the product's position (see At): a binary search over
// the id order.
func (c *Catalog) Position(id string) (int, bool) {
	lo, hi := 0, c.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareIDs(c.idAt(m), id) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < c.n && c.idAt(lo) == id {
		return lo, true
	}
	return 0, false
}

// All yields every product in id order.
func (c *Catalog) All() iter.Seq[*Product] {
	return func(yield func(*Product) bool) {
		for i := range c.n {
			if !yield(c.At(i)) {
				return
			}
		}
	}
}

// Shops returns the distinct shop ids in id order.
func (c *Catalog) Shops() []string {
	out := make([]string, len(c.shops))
	for s, d := range c.shops {
		out[s] = c.str(uint64(d))
	}
	return out
}

// ShopProducts returns a shop's products in id order; nil for an unknown
// shop.
func (c *Catalog) ShopProducts(shopID string) []*Product {
	s, ok := c.shopNumber(shopID)
	if !ok {
		return nil
	}
	items := c.shopItems[c.shopStart[s]:c.shopStart[s+1]]
	out := make([]*Product, len(items))
	for i, p := range items {
		out[i] = c.At(int(p))
	}
	return out
}

// shopNumber returns the dense number of a shop id.
func (c *Catalog) shopNumber(shopID string) (uint32, bool) {
	s, ok := slices.BinarySearchFunc(c.shops, shopID, func(d uint32, id string) int {
		return compareIDs(c.str(uint64(d)), id)
	})
	return uint32(s), ok
}

// recordReader reads a record's varint fields. Records are written by this
// package and covered by a checksum when persisted, so a short record is a
// bug; it panics, and Tools.Execute turns a panic into an error result.
type recordReader struct {
	b []byte
}

func (r *recordReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		panic("shop: corrupt catalog record")
	}
	r.b = r.b[n:]
	return v
}

func (r *recordReader) text() string {
	n := r.uvarint()
	s := raw.String(r.b[:n])
	r.b = r.b[n:]
	return s
}

// catalogBuilder turns products into a Catalog's compact form.
type catalogBuilder struct {
	recs     [][]byte
	recOff   []uint64
	price    []float64
	sold     []int64
	svc      []uint8
	shop     []uint32 // string number of each product's shop id
	dict     map[string]uint32
	dictOff  []uint64
	dictData []byte
}

// recBlockSize is the size of a new record block: large enough that a
// million products make a few dozen, small enough that the last one's unused
// tail does not matter.
const recBlockSize = 32 << 20

func newCatalogBuilder() *catalogBuilder {
	return &catalogBuilder{dict: make(map[string]uint32), dictOff: []uint64{0}}
}

// intern returns s's string number, adding it to the table when new. The
// table keeps its own copy, so s may live in a block that is freed later.
func (b *catalogBuilder) intern(s string) uint64 {
	if d, ok := b.dict[s]; ok {
		return uint64(d)
	}
	d := uint32(len(b.dictOff) - 1)
	b.dictData = append(b.dictData, s...)
	b.dictOff = append(b.dictOff, uint64(len(b.dictData)))
	b.dict[strings.Clone(s)] = d
	return uint64(d)
}

// idAt is the id of the k-th product added.
func (b *catalogBuilder) idAt(k int) string {
	o := b.recOff[k]
	r := recordReader{b: b.recs[o>>recBlockShift][o&recOffsetMask:]}
	return r.text()
}

// add appends p's record. p must be valid; add keeps nothing of it.
func (b *catalogBuilder) add(p *Product) {
	// The record is encoded straight into the current block when it fits
	// there, which is nearly always; otherwise into scratch first, then
	// into a new block sized for it.
	last := len(b.recs) - 1
	if last < 0 || cap(b.recs[last])-len(b.recs[last]) < recBlockSize/64 {
		b.recs = append(b.recs, make([]byte, 0, recBlockSize))
		last++
	}
	blk := b.recs[last]
	r := b.encode(blk[len(blk):len(blk):cap(blk)], p)
	if cap(r) == cap(blk)-len(blk) {
		b.recOff = append(b.recOff, uint64(last)<<recBlockShift|uint64(len(blk)))
		b.recs[last] = blk[:len(blk)+len(r)]
	} else {
		// It outgrew the block's room, and append moved it: give it its
		// own block.
		b.recs = append(b.recs, r)
		b.recOff = append(b.recOff, uint64(last+1)<<recBlockShift)
		// Later records go to a fresh block too.
		b.recs = append(b.recs, make([]byte, 0, recBlockSize))
	}
	b.addColumns(p)
}

// addColumns appends p's price, sales, services and shop to the columns.
func (b *catalogBuilder) addColumns(p *Product) {
	b.price = append(b.price, p.Price)
	b.sold = append(b.sold, p.SoldCount)
	b.svc = append(b.svc, uint8(p.Service))
	b.shop = append(b.shop, uint32(b.intern(p.ShopID)))
}

// encode appends p's record to r.
func (b *catalogBuilder) encode(r []byte, p *Product) []byte {
	for _, s := range [...]string{p.ProductID, p.Title, p.ShortDescription, p.Description, p.Specification} {
		r = binary.AppendUvarint(r, uint64(len(s)))
		r = append(r, s...)
	}
	r = binary.AppendUvarint(r, b.intern(p.ShopID))
	r = binary.AppendUvarint(r, b.intern(p.Brand))
	r = binary.AppendUvarint(r, b.intern(p.Category))
	r = binary.AppendUvarint(r, uint64(len(p.Attributes)))
	if len(p.Attributes) > 0 {
		total := 0
		for _, a := range p.Attributes {
			total += len(a.Values)
		}
		r = binary.AppendUvarint(r, uint64(total))
		for _, a := range p.Attributes {
			r = binary.AppendUvarint(r, b.intern(a.Key))
			r = binary.AppendUvarint(r, uint64(len(a.Values)))
			for _, v := range a.Values {
				r = binary.AppendUvarint(r, b.intern(v))
			}
		}
	}
	r = binary.AppendUvarint(r, uint64(len(p.SKUOptions)))
	if len(p.SKUOptions) > 0 {
		total := 0
		for _, sku := range p.SKUOptions {
			total += len(sku)
		}
		r = binary.AppendUvarint(r, uint64(total))
		for _, sku := range p.SKUOptions {
			r = binary.AppendUvarint(r, uint64(len(sku)))
			for _, o := range sku {
				r = binary.AppendUvarint(r, b.intern(o.Key))
				r = binary.AppendUvarint(r, b.intern(o.Value))
			}
		}
	}
	return r
}

// finish orders the records by product id and builds the shop tables. Two
// products with one id are an error.
func (b *catalogBuilder) finish() (*Catalog, error) {
	n := len(b.recOff)
	c := &Catalog{n: n, recs: b.recs, dictOff: b.dictOff, dictData: b.dictData}
	unsorted := &Catalog{n: n, recs: b.recs, recOff: b.recOff}
	order := idOrder(n, unsorted.idAt)
	c.recOff = make([]uint64, n)
	c.price = make([]float64, n)
	c.sold = make([]int64, n)
	c.svc = make([]uint8, n)
	shopStr := make([]uint32, n)
	for i, o := range order {
		c.recOff[i], c.price[i], c.sold[i], c.svc[i], shopStr[i] = b.recOff[o], b.price[o], b.sold[o], b.svc[o], b.shop[o]
	}
	order = nil
	*b = catalogBuilder{}
	for i := 1; i < n; i++ {
		if id := c.idAt(i); c.idAt(i-1) == id {
			return nil, fmt.Errorf("catalog: duplicate product_id %q", id)
		}
	}
	c.buildShops(shopStr)
	return c, nil
}

// idOrder returns the positions 0..n-1 ordered by the ids idAt gives them
// (compareIDs order), or nil when they are in that order already.
func idOrder(n int, idAt func(int) string) []int32 {
	// Numeric ids up to 18 digits compare as integers, others fall back to
	// compareIDs.
	type key struct {
		num  uint64
		ok   bool
		orig int32
	}
	sorted := true
	for i := 1; i < n && sorted; i++ {
		sorted = compareIDs(idAt(i-1), idAt(i)) <= 0
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	if sorted {
		return order
	}
	keys := make([]key, n)
	for i := range n {
		id := idAt(i)
		k := key{orig: int32(i)}
		if isDigits(id) && len(strings.TrimLeft(id, "0")) <= 18 {
			k.ok = true
			for j := 0; j < len(id); j++ {
				k.num = k.num*10 + uint64(id[j]-'0')
			}
		}
		keys[i] = k
	}
	slices.SortFunc(keys, func(x, y key) int {
		if x.ok && y.ok && x.num != y.num {
			if x.num < y.num {
				return -1
			}
			return 1
		}
		return compareIDs(idAt(int(x.orig)), idAt(int(y.orig)))
	})
	for i, k := range keys {
		order[i] = k.orig
	}
	return order
}

// buildShops numbers the shops in shop-id order and fills the shop tables
// from each position's shop string number, reusing shopStr in place.
func (c *Catalog) buildShops(shopStr []uint32) {
	num := make(map[uint32]uint32)
	c.shops = nil
	for _, d := range shopStr {
		if _, ok := num[d]; !ok {
			num[d] = 0
			c.shops = append(c.shops, d)
		}
	}
	slices.SortFunc(c.shops, func(x, y uint32) int { return compareIDs(c.str(uint64(x)), c.str(uint64(y))) })
	for s, d := range c.shops {
		num[d] = uint32(s)
	}
	c.shopOf = shopStr // string numbers become shop numbers
	c.shopStart = make([]uint32, len(c.shops)+1)
	for i, d := range shopStr {
		s := num[d]
		c.shopOf[i] = s
		c.shopStart[s+1]++
	}
	for s := range c.shops {
		c.shopStart[s+1] += c.shopStart[s]
	}
	c.shopItems = make([]uint32, c.n)
	next := slices.Clone(c.shopStart[:len(c.shops)])
	for i, s := range c.shopOf {
		c.shopItems[next[s]] = uint32(i)
		next[s]++
	}
}
