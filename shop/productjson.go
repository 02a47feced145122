package shop

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the product JSON codec. Writing is hand-rolled so the
// generator's output is byte-for-byte stable (field order, number format, no
// HTML escaping) and so a million products encode quickly. Reading is a
// small purpose-built parser: it is several times faster than reflection
// over a million lines, tolerates the type variations found in scraped data
// (ids as numbers, prices as strings), and separates broken JSON
// (malformed) from well-formed records that lack required fields (invalid).

// AppendJSON appends p as one JSON object in ShoppingBench's field order.
func (p *Product) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"product_id":`...)
	dst = appendString(dst, p.ProductID)
	dst = append(dst, `,"shop_id":`...)
	dst = appendString(dst, p.ShopID)
	dst = append(dst, `,"brand":`...)
	dst = appendString(dst, p.Brand)
	dst = append(dst, `,"category":`...)
	dst = appendString(dst, p.Category)
	dst = append(dst, `,"title":`...)
	dst = appendString(dst, p.Title)
	dst = append(dst, `,"short_description":`...)
	dst = appendString(dst, p.ShortDescription)
	dst = append(dst, `,"description":`...)
	dst = appendString(dst, p.Description)
	dst = append(dst, `,"specification":`...)
	dst = appendString(dst, p.Specification)
	dst = append(dst, `,"price":`...)
	dst = appendPrice(dst, p.Price)
	dst = append(dst, `,"sold_count":`...)
	dst = strconv.AppendInt(dst, p.SoldCount, 10)
	dst = append(dst, `,"sku_options":`...)
	dst = appendSKUs(dst, p.SKUOptions)
	dst = append(dst, `,"attributes":`...)
	dst = appendAttributes(dst, p.Attributes)
	dst = append(dst, `,"service":`...)
	dst = appendServices(dst, p.Service)
	return append(dst, '}')
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (p Product) MarshalJSON() ([]byte, error) {
	if err := checkFinite(p.Price); err != nil {
		return nil, err
	}
	return p.AppendJSON(nil), nil
}

// UnmarshalJSON implements json.Unmarshaler with the lenient product parser.
// It does not validate required fields; call Validate for that.
func (p *Product) UnmarshalJSON(data []byte) error {
	d := decoder{data: data}
	got, err := d.document("")
	if err != nil {
		return err
	}
	if len(got.fieldErrs) > 0 {
		return errors.Join(got.fieldErrs...)
	}
	*p = got.p
	return nil
}

func checkFinite(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("price %v cannot be written as JSON", f)
	}
	return nil
}

// appendPrice writes prices the way Python's json module does, so an
// integral price stays a float ("256.0") as in ShoppingBench's files.
func appendPrice(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendFloat(dst, f, 'f', 1, 64)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64)
}

func appendSKUs(dst []byte, skus []SKU) []byte {
	dst = append(dst, '{')
	for i, sku := range skus {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, int64(i+1), 10)
		dst = append(dst, `":{`...)
		for j, o := range sku {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, o.Key)
			dst = append(dst, ':')
			dst = appendString(dst, o.Value)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendAttributes(dst []byte, attrs []Attribute) []byte {
	dst = append(dst, '{')
	for i, a := range attrs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, a.Key)
		dst = append(dst, ":["...)
		for j, v := range a.Values {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, v)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendServices(dst []byte, s Services) []byte {
	dst = append(dst, '[')
	first := true
	for i, n := range serviceNames() {
		if s&(1<<i) == 0 {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, n)
	}
	return append(dst, ']')
}

// appendString writes s as a JSON string. Unlike encoding/json it does not
// escape <, > and &: tool results are read by language models, and
// "\u0026" in "Media, Music & Books" is noise to them. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript consumers.
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// maxDepth bounds nesting in skipped values so hostile input cannot exhaust
// the stack.
const maxDepth = 256

// decoder parses one JSON document from data.
type decoder struct {
	data    []byte
	pos     int
	depth   int
	scratch []byte
	// intern, if set, deduplicates short repeated strings (brands, option
	// keys and values) to save memory on large catalogs.
	intern *interner
	// arena, if set, stores the other strings in shared blocks.
	arena *ProductArena
	// unknownServices counts service names that are not one of the four.
	unknownServices int
}

// syntaxError is broken JSON: the line is malformed, not merely invalid.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.offset, e.msg)
}

func (d *decoder) fail(format string, args ...any) error {
	return &syntaxError{offset: d.pos, msg: fmt.Sprintf(format, args...)}
}

func (d *decoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) peek() byte {
	d.ws()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

func (d *decoder) expect(c byte) error {
	if d.peek() != c {
		if d.pos >= len(d.data) {
			return d.fail("unexpected end of input, want %q", c)
		}
		return d.fail("unexpected %q, want %q", d.data[d.pos], c)
	}
	d.pos++
	return nil
}

// rawString parses a string and returns its bytes, which alias data when
// there are no escapes and the scratch buffer otherwise. Valid only until
// the next call.
func (d *decoder) rawString() ([]byte, error) {
	if err := d.expect('"'); err != nil {
		return nil, err
	}
	start := d.pos
	ascii := true
	// Skip eight plain bytes at a time: the bulk of a catalog is long
	// descriptions without quotes, escapes or control characters.
	for d.pos+8 <= len(d.data) {
		x := binary.LittleEndian.Uint64(d.data[d.pos:])
		if special(x) {
			break
		}
		if x&hiBits != 0 {
			ascii = false
		}
		d.pos += 8
	}
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			s := d.data[start:d.pos]
			d.pos++
			if !ascii && !utf8.Valid(s) {
				d.scratch = append(d.scratch[:0], strings.ToValidUTF8(string(s), "\ufffd")...)
				return d.scratch, nil
			}
			return s, nil
		case c == '\\':
			d.scratch = append(d.scratch[:0], d.data[start:d.pos]...)
			return d.escapedString()
		case c < 0x20:
			return nil, d.fail("control character in string")
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.pos++
	}
	return nil, d.fail("unterminated string")
}

const (
	loBits = 0x0101010101010101
	hiBits = 0x8080808080808080
)

// special reports whether any of the eight bytes in x is a quote, a
// backslash or a control character (the classic SWAR zero-byte test).
func special(x uint64) bool {
	hasZero := func(v uint64) uint64 { return (v - loBits) &^ v & hiBits }
	quote := hasZero(x ^ (loBits * '"'))
	backslash := hasZero(x ^ (loBits * '\\'))
	control := (x - loBits*0x20) &^ x & hiBits
	return quote|backslash|control != 0
}

// escapedString continues a string whose first escape is at d.pos, with
// the preceding bytes already in scratch.
func (d *decoder) escapedString() ([]byte, error) {
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			if !utf8.Valid(d.scratch) {
				d.scratch = []byte(strings.ToValidUTF8(string(d.scratch), "\ufffd"))
			}
			return d.scratch, nil
		case c < 0x20:
			return nil, d.fail("control character in string")
		case c != '\\':
			d.scratch = append(d.scratch, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.data) {
			return nil, d.fail("unterminated escape")
		}
		e := d.data[d.pos+1]
		d.pos += 2
		switch e {
		case '"', '\\', '/':
			d.scratch = append(d.scratch, e)
		case 'b':
			d.scratch = append(d.scratch, '\b')
		case 'f':
			d.scratch = append(d.scratch, '\f')
		case 'n':
			d.scratch = append(d.scratch, '\n')
		case 'r':
			d.scratch = append(d.scratch, '\r')
		case 't':
			d.scratch = append(d.scratch, '\t')
		case 'u':
			r, err := d.hex4()
			if err != nil {
				return nil, err
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					if r2, err = d.hex4(); err != nil {
						return nil, err
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						d.scratch = utf8.AppendRune(d.scratch, dec)
						continue
					}
					d.pos = save
				}
				r = utf8.RuneError
			}
			d.scratch = utf8.AppendRune(d.scratch, r)
		default:
			return nil, d.fail("invalid escape \\%c", e)
		}
	}
	return nil, d.fail("unterminated string")
}

func (d *decoder) hex4() (rune, error) {
	if d.pos+4 > len(d.data) {
		return 0, d.fail("short \\u escape")
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, d.fail("bad \\u escape")
		}
	}
	d.pos += 4
	return r, nil
}

// string parses a string into a new Go string.
func (d *decoder) string(intern bool) (string, error) {
	b, err := d.rawString()
	if err != nil {
		return "", err
	}
	if intern && d.intern != nil {
		return d.intern.get(b), nil
	}
	if d.arena != nil {
		return d.arena.text(b), nil
	}
	return string(b), nil
}

// number parses a JSON number and returns its literal text.
func (d *decoder) number() ([]byte, error) {
	d.ws()
	start := d.pos
	p := d.pos
	if p < len(d.data) && d.data[p] == '-' {
		p++
	}
	digits := func() int {
		k := 0
		for p < len(d.data) && d.data[p] >= '0' && d.data[p] <= '9' {
			p++
			k++
		}
		return k
	}
	if p < len(d.data) && d.data[p] == '0' {
		p++
	} else if digits() == 0 {
		d.pos = p
		return nil, d.fail("invalid number")
	}
	if p < len(d.data) && d.data[p] == '.' {
		p++
		if digits() == 0 {
			d.pos = p
			return nil, d.fail("invalid number")
		}
	}
	if p < len(d.data) && (d.data[p] == 'e' || d.data[p] == 'E') {
		p++
		if p < len(d.data) && (d.data[p] == '+' || d.data[p] == '-') {
			p++
		}
		if digits() == 0 {
			d.pos = p
			return nil, d.fail("invalid number")
		}
	}
	d.pos = p
	return d.data[start:p], nil
}

func (d *decoder) literal(word string) error {
	d.ws()
	if !strings.HasPrefix(string(d.data[d.pos:min(len(d.data), d.pos+len(word))]), word) {
		return d.fail("invalid literal")
	}
	d.pos += len(word)
	return nil
}

// skip parses and discards any value, validating it.
func (d *decoder) skip() error {
	switch c := d.peek(); {
	case c == '"':
		_, err := d.rawString()
		return err
	case c == '{':
		return d.object(func(key []byte) error { return d.skip() })
	case c == '[':
		return d.array(d.skip)
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := d.number()
		return err
	case c == 0 && d.pos >= len(d.data):
		return d.fail("unexpected end of input")
	default:
		return d.fail("unexpected %q", c)
	}
}

// object parses an object, calling fn with each key (valid only during the
// call) positioned at the value, which fn must consume.
func (d *decoder) object(fn func(key []byte) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		return d.fail("nesting deeper than %d", maxDepth)
	}
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		kb, err := d.rawString()
		if err != nil {
			return err
		}
		// The key may live in scratch, which the value can overwrite.
		key := kb
		if len(kb) > 0 && &kb[0] == firstOf(d.scratch) {
			key = append([]byte(nil), kb...)
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			if d.pos >= len(d.data) {
				return d.fail("unexpected end of input in object")
			}
			return d.fail("unexpected %q in object", d.data[d.pos])
		}
	}
}

func firstOf(b []byte) *byte {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// array parses an array, calling fn positioned at each element.
func (d *decoder) array(fn func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > maxDepth {
		return d.fail("nesting deeper than %d", maxDepth)
	}
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for {
		if err := fn(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			if d.pos >= len(d.data) {
				return d.fail("unexpected end of input in array")
			}
			return d.fail("unexpected %q in array", d.data[d.pos])
		}
	}
}

// fieldError is a well-formed value of the wrong kind; the record is
// invalid but the line is still valid JSON.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

// scalarText reads a string, number, boolean or null as text; null is
// reported by ok=false. Objects and arrays are skipped and reported as a
// field error.
func (d *decoder) scalarText(field string, intern bool, errs *[]error) (text string, ok bool, err error) {
	switch c := d.peek(); {
	case c == '"':
		s, err := d.string(intern)
		return s, err == nil, err
	case c == 'n':
		return "", false, d.literal("null")
	case c == 't':
		return "true", true, d.literal("true")
	case c == 'f':
		return "false", true, d.literal("false")
	case c == '-' || (c >= '0' && c <= '9'):
		b, err := d.number()
		return string(b), err == nil, err
	default:
		if err := d.skip(); err != nil {
			return "", false, err
		}
		*errs = append(*errs, &fieldError{field, "want a string or number"})
		return "", false, nil
	}
}

// parsedProduct is a product plus what the parser noticed about it.
type parsedProduct struct {
	p         Product
	hasID     bool
	hasTitle  bool
	hasPrice  bool
	fieldErrs []error
}

// document parses data as exactly one product object (see product).
func (d *decoder) document(envelope string) (parsedProduct, error) {
	pp, err := d.product(envelope)
	if err != nil {
		return parsedProduct{}, err
	}
	if d.peek() != 0 || d.pos < len(d.data) {
		return parsedProduct{}, d.fail("trailing data after object")
	}
	return pp, nil
}

// product parses one product object. If envelope is not empty and the
// object has no product_id but an object under that key, the inner object
// is the product (ShoppingBench's documents.jsonl wraps products in
// {"id", "contents", "product"}).
func (d *decoder) product(envelope string) (parsedProduct, error) {
	var out, inner parsedProduct
	hasInner := false
	err := d.object(func(key []byte) error {
		if envelope != "" && string(key) == envelope && d.peek() == '{' {
			var err error
			inner, err = d.product("")
			hasInner = true
			return err
		}
		return d.productField(&out, string(key))
	})
	if err != nil {
		return parsedProduct{}, err
	}
	if !out.hasID && hasInner {
		return inner, nil
	}
	return out, nil
}

// productField parses the value of one top-level key into pp.
func (d *decoder) productField(pp *parsedProduct, key string) error {
	p := &pp.p
	errs := &pp.fieldErrs
	text := func(dst *string, intern bool) (bool, error) {
		s, ok, err := d.scalarText(key, intern, errs)
		if ok {
			*dst = s
		}
		return ok, err
	}
	var err error
	switch key {
	case "product_id":
		pp.hasID, err = text(&p.ProductID, false)
		p.ProductID = strings.TrimSpace(p.ProductID)
		pp.hasID = pp.hasID && p.ProductID != ""
	case "shop_id":
		_, err = text(&p.ShopID, true)
	case "brand":
		_, err = text(&p.Brand, true)
	case "category":
		_, err = text(&p.Category, true)
	case "title":
		pp.hasTitle, err = text(&p.Title, false)
		pp.hasTitle = pp.hasTitle && strings.TrimSpace(p.Title) != ""
	case "short_description":
		_, err = text(&p.ShortDescription, false)
	case "description":
		_, err = text(&p.Description, false)
	case "specification":
		_, err = text(&p.Specification, false)
	case "price":
		var s string
		var ok bool
		if s, ok, err = d.scalarText(key, false, errs); err == nil && ok {
			f, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
			switch {
			case perr != nil:
				*errs = append(*errs, &fieldError{key, fmt.Sprintf("%q is not a number", s)})
			case math.IsNaN(f) || math.IsInf(f, 0) || f < 0:
				*errs = append(*errs, &fieldError{key, fmt.Sprintf("%v is not a non-negative number", f)})
			default:
				p.Price, pp.hasPrice = f, true
			}
		}
	case "sold_count":
		var s string
		var ok bool
		if s, ok, err = d.scalarText(key, false, errs); err == nil && ok {
			f, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
			switch {
			case perr != nil:
				*errs = append(*errs, &fieldError{key, fmt.Sprintf("%q is not a number", s)})
			case !(f >= 0 && f < 1<<62):
				*errs = append(*errs, &fieldError{key, fmt.Sprintf("%v is out of range", f)})
			default:
				p.SoldCount = int64(f)
			}
		}
	case "sku_options":
		p.SKUOptions, err = d.skus(errs)
	case "attributes":
		p.Attributes, err = d.attributes(errs)
	case "service":
		p.Service, err = d.services(errs)
	default:
		err = d.skip()
	}
	return err
}

// skus reads {"1": {k: v}, ...}. An empty list is accepted as no variants
// (Python tools sometimes write [] for an empty dict), and so is a list of
// variant objects. Variants are ordered by their numeric key, options by
// option key.
func (d *decoder) skus(errs *[]error) ([]SKU, error) {
	type numbered struct {
		n   float64
		key string
		sku SKU
	}
	var list []numbered
	variant := func(key string, n float64) error {
		if d.peek() != '{' {
			if err := d.skip(); err != nil {
				return err
			}
			*errs = append(*errs, &fieldError{"sku_options", "each variant must be an object"})
			return nil
		}
		var sku SKU
		err := d.object(func(k []byte) error {
			ks := d.internBytes(k)
			v, ok, err := d.scalarText("sku_options", true, errs)
			if ok {
				sku = append(sku, Option{Key: ks, Value: v})
			}
			return err
		})
		slices.SortStableFunc(sku, func(a, b Option) int { return strings.Compare(a.Key, b.Key) })
		list = append(list, numbered{n, key, sku})
		return err
	}
	switch d.peek() {
	case 'n':
		return nil, d.literal("null")
	case '[':
		i := 0
		err := d.array(func() error { i++; return variant("", float64(i)) })
		return flattenSKUs(list, func(a, b numbered) int { return 0 }, func(x numbered) SKU { return x.sku }), err
	case '{':
		err := d.object(func(k []byte) error {
			key := string(k)
			n, perr := strconv.ParseFloat(key, 64)
			if perr != nil {
				n = math.Inf(1) // non-numeric keys after numeric ones
			}
			return variant(key, n)
		})
		cmp := func(a, b numbered) int {
			if a.n != b.n {
				if a.n < b.n {
					return -1
				}
				return 1
			}
			return strings.Compare(a.key, b.key)
		}
		return flattenSKUs(list, cmp, func(x numbered) SKU { return x.sku }), err
	default:
		if err := d.skip(); err != nil {
			return nil, err
		}
		*errs = append(*errs, &fieldError{"sku_options", "want an object"})
		return nil, nil
	}
}

func flattenSKUs[T any](list []T, cmp func(a, b T) int, get func(T) SKU) []SKU {
	if len(list) == 0 {
		return nil
	}
	slices.SortStableFunc(list, cmp)
	out := make([]SKU, len(list))
	for i, x := range list {
		out[i] = get(x)
	}
	return out
}

// attributes reads {k: [v, ...]}; a bare value is taken as a one-element
// list. Attributes are ordered by key.
func (d *decoder) attributes(errs *[]error) ([]Attribute, error) {
	switch d.peek() {
	case 'n':
		return nil, d.literal("null")
	case '[':
		// An empty list stands for an empty dict; anything else is wrong.
		n := 0
		err := d.array(func() error { n++; return d.skip() })
		if err == nil && n > 0 {
			*errs = append(*errs, &fieldError{"attributes", "want an object"})
		}
		return nil, err
	case '{':
	default:
		if err := d.skip(); err != nil {
			return nil, err
		}
		*errs = append(*errs, &fieldError{"attributes", "want an object"})
		return nil, nil
	}
	var attrs []Attribute
	err := d.object(func(k []byte) error {
		a := Attribute{Key: d.internBytes(k)}
		var err error
		if d.peek() == '[' {
			err = d.array(func() error {
				v, ok, err := d.scalarText("attributes", true, errs)
				if ok {
					a.Values = append(a.Values, v)
				}
				return err
			})
		} else {
			var v string
			var ok bool
			v, ok, err = d.scalarText("attributes", true, errs)
			if ok {
				a.Values = []string{v}
			}
		}
		attrs = append(attrs, a)
		return err
	})
	slices.SortStableFunc(attrs, func(a, b Attribute) int { return strings.Compare(a.Key, b.Key) })
	return attrs, err
}

// services reads ["COD", ...] or a comma-separated string. Unknown names
// are dropped and counted.
func (d *decoder) services(errs *[]error) (Services, error) {
	var s Services
	add := func(name string) {
		name = strings.TrimSpace(name)
		if name == "" {
			return
		}
		if b, ok := ParseService(name); ok {
			s |= b
		} else {
			d.unknownServices++
		}
	}
	switch d.peek() {
	case '[':
		err := d.array(func() error {
			v, ok, err := d.scalarText("service", false, errs)
			if ok {
				add(v)
			}
			return err
		})
		return s, err
	case '"':
		v, err := d.string(false)
		for _, part := range strings.Split(v, ",") {
			add(part)
		}
		return s, err
	case 'n':
		return 0, d.literal("null")
	default:
		if err := d.skip(); err != nil {
			return 0, err
		}
		*errs = append(*errs, &fieldError{"service", "want a list of names"})
		return 0, nil
	}
}

func (d *decoder) internBytes(b []byte) string {
	if d.intern != nil {
		return d.intern.get(b)
	}
	return string(b)
}

// interner deduplicates short strings. Catalogs repeat the same brands,
// shop ids, categories and option values hundreds of thousands of times.
type interner struct {
	m map[string]string
}

// maxInterned bounds what is worth interning; long text is rarely repeated.
const maxInterned = 96

func (in *interner) get(b []byte) string {
	if len(b) > maxInterned {
		return string(b)
	}
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	if in.m == nil {
		in.m = make(map[string]string)
	}
	// A runaway vocabulary (unique values everywhere) would make the map a
	// second copy of the catalog; stop growing it.
	if len(in.m) >= 1<<20 {
		return string(b)
	}
	s := string(b)
	in.m[s] = s
	return s
}
