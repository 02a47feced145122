package pyexec

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// value is a Python value: nil (None), bool, int64 (int, kept within 64
// bits), float64, string (str), or one of the pointer types below.
// Containers are shared by reference, as in Python.
type value = any

type (
	listV  struct{ items []value }
	tupleV struct{ items []value }
	// dictV keeps insertion order, as Python's dict does; hks[i] is
	// keys[i]'s hash key (see hashKey).
	dictV struct {
		keys, vals []value
		keyIndex
	}
	// setV keeps insertion order, so iteration (and printing) is the
	// same on every validator; CPython's order can differ.
	setV struct {
		items []value
		keyIndex
		frozen bool
	}
	rangeV struct{ start, stop, step int64 }
	// iterV is what zip, map, filter, enumerate, reversed, iter, a
	// generator expression and dict views return: computed eagerly,
	// consumed from pos by next().
	iterV struct {
		typ   string
		items []value
		pos   int
	}
	funcV struct {
		name     string
		params   []param
		defaults []value // one per param with a default, in order
		body     []stmt  // nil for a lambda
		lambda   expr
		locals   map[string]bool
		globals  map[string]bool // declared global (false) or nonlocal (true)
		scope    *scope
	}
	// builtinV is a built-in function, a type (int, str, ...) when typ is
	// set, or a method bound to self.
	builtinV struct {
		name string
		typ  bool
		self value
		fn   func(m *machine, self value, args []value, kw []kwv) (value, error)
	}
	// excV is an exception instance; excClass an exception type.
	excV struct {
		kind string
		msg  string
	}
	excClass struct{ name string }
)

// kwv is one keyword argument of a call.
type kwv struct {
	name string
	v    value
}

func newDict() *dictV { return &dictV{} }
func newSet() *setV   { return &setV{} }

// smallIndex is the number of entries up to which a keyIndex scans its
// keys: most dicts and sets code builds are that small, and a Go map
// costs several hundred bytes.
const smallIndex = 8

// keyIndex finds the entries of a dict or set by hash key, in order.
type keyIndex struct {
	hks []string
	at  map[string]int // hks[at[k]] == k; nil while there are few keys
}

func (x *keyIndex) find(hk string) (int, bool) {
	if x.at == nil {
		for i, k := range x.hks {
			if k == hk {
				return i, true
			}
		}
		return -1, false
	}
	i, ok := x.at[hk]
	return i, ok
}

// add appends a key the index does not hold.
func (x *keyIndex) add(hk string) {
	x.hks = append(x.hks, hk)
	switch {
	case x.at != nil:
		x.at[hk] = len(x.hks) - 1
	case len(x.hks) > smallIndex:
		x.at = make(map[string]int, len(x.hks))
		for i, k := range x.hks {
			x.at[k] = i
		}
	}
}

// remove deletes entry i; the entries after it move down, which the
// caller counts (see removeCost).
func (x *keyIndex) remove(i int) {
	if x.at != nil {
		delete(x.at, x.hks[i])
	}
	x.hks = slices.Delete(x.hks, i, i+1)
	if x.at != nil {
		for j := i; j < len(x.hks); j++ {
			x.at[x.hks[j]] = j
		}
	}
}

func (x *keyIndex) reset() { x.hks, x.at = nil, nil }

func intVal(i int64) value     { return i }
func floatVal(f float64) value { return f }

// typeName is Python's name for the value's type, for error messages.
func typeName(v value) string {
	switch v := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case *listV:
		return "list"
	case *tupleV:
		return "tuple"
	case *dictV:
		return "dict"
	case *setV:
		if v.frozen {
			return "frozenset"
		}
		return "set"
	case *rangeV:
		return "range"
	case *iterV:
		return v.typ
	case *funcV:
		return "function"
	case *builtinV:
		if v.typ {
			return "type"
		}
		if v.self != nil {
			return "builtin_function_or_method"
		}
		return "builtin_function_or_method"
	case *excV:
		return v.kind
	case *excClass:
		return "type"
	}
	return "object"
}

// asNumber reads an int, bool or float: isInt says which of i and f holds it.
func asNumber(v value) (i int64, f float64, isInt, ok bool) {
	switch v := v.(type) {
	case int64:
		return v, 0, true, true
	case bool:
		if v {
			return 1, 0, true, true
		}
		return 0, 0, true, true
	case float64:
		return 0, v, false, true
	}
	return 0, 0, false, false
}

func isNumber(v value) bool {
	_, _, _, ok := asNumber(v)
	return ok
}

func toFloat(v value) float64 {
	i, f, isInt, _ := asNumber(v)
	if isInt {
		return float64(i)
	}
	return f
}

// truthy is Python's bool(v).
func truthy(v value) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case int64:
		return v != 0
	case float64:
		return v != 0
	case string:
		return v != ""
	case *listV:
		return len(v.items) > 0
	case *tupleV:
		return len(v.items) > 0
	case *dictV:
		return len(v.keys) > 0
	case *setV:
		return len(v.items) > 0
	case *rangeV:
		return v.length() > 0
	case *iterV:
		return true
	}
	return true
}

func (r *rangeV) length() int64 {
	if r.step > 0 && r.start < r.stop {
		return (r.stop - r.start + r.step - 1) / r.step
	}
	if r.step < 0 && r.start > r.stop {
		return (r.start - r.stop - r.step - 1) / -r.step
	}
	return 0
}

// maxNest bounds how deep ==, <, hashing and printing go into containers
// held by containers. CPython stops that recursion at its recursion limit
// with a RecursionError; here the bound also keeps a list that holds
// itself, compared with another such list, from exhausting the Go stack.
const maxNest = 200

func nestError(while string) error {
	return &Error{Kind: "RecursionError", Msg: "maximum recursion depth exceeded " + while}
}

// hashKey is the key a value has in a dict or set: equal values (1, 1.0
// and True) share one key, as in Python. Mutable values are unhashable.
// A long string or a big tuple is read whole, so the reading is counted.
func (m *machine) hashKey(v value) (string, error) { return m.hashKeyAt(v, 0) }

func (m *machine) hashKeyAt(v value, depth int) (string, error) {
	switch v := v.(type) {
	case string:
		if err := m.step(len(v) / 64); err != nil {
			return "", err
		}
		return "s" + v, nil
	case *tupleV:
		if depth >= maxNest {
			return "", nestError("while hashing")
		}
		if err := m.step(len(v.items)); err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("t")
		for _, it := range v.items {
			k, err := m.hashKeyAt(it, depth+1)
			if err != nil {
				return "", err
			}
			b.WriteString(strconv.Itoa(len(k)))
			b.WriteByte(':')
			b.WriteString(k)
		}
		return b.String(), nil
	}
	return scalarKey(v)
}

// scalarKey is hashKey for the values that hold no others.
func scalarKey(v value) (string, error) {
	switch v := v.(type) {
	case nil:
		return "n", nil
	case bool:
		if v {
			return "i1", nil
		}
		return "i0", nil
	case int64:
		return "i" + strconv.FormatInt(v, 10), nil
	case float64:
		if v == math.Trunc(v) && v >= -(1<<63) && v < 1<<63 {
			return "i" + strconv.FormatInt(int64(v), 10), nil
		}
		return "f" + strconv.FormatUint(math.Float64bits(v), 16), nil
	case string:
		return "s" + v, nil
	case *setV:
		if v.frozen {
			return fmt.Sprintf("p%p", v), nil
		}
	case *builtinV, *funcV, *excClass, *excV, *rangeV:
		return fmt.Sprintf("p%p", v), nil
	}
	return "", &Error{Kind: "TypeError", Msg: "unhashable type: '" + typeName(v) + "'"}
}

// numEqual is == for two numbers (ints, bools, floats), exact across
// int and float as in Python.
func numEqual(a, b value) bool {
	ai, af, aInt, _ := asNumber(a)
	bi, bf, bInt, _ := asNumber(b)
	switch {
	case aInt && bInt:
		return ai == bi
	case aInt:
		return cmpIntFloat(ai, bf) == 0
	case bInt:
		return cmpIntFloat(bi, af) == 0
	}
	return af == bf
}

// cmpIntFloat compares an int with a float exactly (converting the int
// to a float would round it): -1, 0 or 1, or 2 when f is NaN.
func cmpIntFloat(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return 2
	case f >= 0x1p63:
		return -1
	case f < -0x1p63:
		return 1
	}
	t := math.Trunc(f)
	ti := int64(t)
	switch {
	case i < ti:
		return -1
	case i > ti:
		return 1
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}

// equal is Python's ==. Comparing containers counts a step per item.
func (m *machine) equal(a, b value) (bool, error) { return m.eq(a, b, 0) }

func (m *machine) eq(a, b value, depth int) (bool, error) {
	if isNumber(a) {
		return isNumber(b) && numEqual(a, b), nil
	}
	switch a := a.(type) {
	case nil:
		return b == nil, nil
	case string:
		bs, ok := b.(string)
		if !ok || len(a) != len(bs) {
			return false, nil
		}
		return a == bs, m.step(len(a) / 64)
	case *listV:
		bl, ok := b.(*listV)
		if !ok {
			return false, nil
		}
		if a == bl {
			return true, nil
		}
		return m.eqItems(a.items, bl.items, depth)
	case *tupleV:
		bt, ok := b.(*tupleV)
		if !ok {
			return false, nil
		}
		if a == bt {
			return true, nil
		}
		return m.eqItems(a.items, bt.items, depth)
	case *dictV:
		bd, ok := b.(*dictV)
		if !ok || len(a.keys) != len(bd.keys) {
			return false, nil
		}
		if a == bd || len(a.keys) == 0 {
			return true, nil
		}
		if depth >= maxNest {
			return false, nestError("in comparison")
		}
		// In insertion order, so that which of several differences is
		// met first (an error or a False) never depends on map order.
		for i, hk := range a.hks {
			if err := m.step(2); err != nil {
				return false, err
			}
			j, ok := bd.find(hk)
			if !ok {
				return false, nil
			}
			if eq, err := m.eq(a.vals[i], bd.vals[j], depth+1); err != nil || !eq {
				return false, err
			}
		}
		return true, nil
	case *setV:
		bs, ok := b.(*setV)
		if !ok || len(a.items) != len(bs.items) {
			return false, nil
		}
		return m.isSubset(a, bs)
	case *rangeV:
		br, ok := b.(*rangeV)
		return ok && a.length() == br.length() && (a.length() == 0 || a.start == br.start && (a.length() == 1 || a.step == br.step)), nil
	case *excClass:
		bc, ok := b.(*excClass)
		return ok && a.name == bc.name, nil
	}
	return a == b, nil
}

func (m *machine) eqItems(a, b []value, depth int) (bool, error) {
	if len(a) != len(b) {
		return false, nil
	}
	if len(a) > 0 && depth >= maxNest {
		return false, nestError("in comparison")
	}
	for i := range a {
		if err := m.step(1); err != nil {
			return false, err
		}
		if eq, err := m.eq(a[i], b[i], depth+1); err != nil || !eq {
			return false, err
		}
	}
	return true, nil
}

// order is Python's a op b for op one of < <= > >=. Sequences compare
// item by item: the first pair that differs decides, with op itself, so
// that a TypeError names that pair's types, as CPython's does.
func (m *machine) order(op string, a, b value) (bool, error) { return m.orderAt(op, a, b, 0) }

func (m *machine) orderAt(op string, a, b value, depth int) (bool, error) {
	if ai, af, aInt, ok := asNumber(a); ok {
		if bi, bf, bInt, ok := asNumber(b); ok {
			c := 0
			switch {
			case aInt && bInt:
				c = cmp.Compare(ai, bi)
			case aInt:
				c = cmpIntFloat(ai, bf)
			case bInt:
				if c = cmpIntFloat(bi, af); c != 2 {
					c = -c
				}
			case math.IsNaN(af) || math.IsNaN(bf):
				c = 2
			default:
				c = cmp.Compare(af, bf)
			}
			return c != 2 && holds(op, c), nil
		}
	}
	switch a := a.(type) {
	case string:
		if bs, ok := b.(string); ok {
			if err := m.step(min(len(a), len(bs)) / 64); err != nil {
				return false, err
			}
			return holds(op, strings.Compare(a, bs)), nil
		}
	case *listV:
		if bl, ok := b.(*listV); ok {
			return m.orderItems(op, a.items, bl.items, depth)
		}
	case *tupleV:
		if bt, ok := b.(*tupleV); ok {
			return m.orderItems(op, a.items, bt.items, depth)
		}
	case *setV:
		if bs, ok := b.(*setV); ok {
			switch op {
			case "<":
				if len(a.items) >= len(bs.items) {
					return false, nil
				}
				return m.isSubset(a, bs)
			case "<=":
				return m.isSubset(a, bs)
			case ">":
				if len(a.items) <= len(bs.items) {
					return false, nil
				}
				return m.isSubset(bs, a)
			}
			return m.isSubset(bs, a)
		}
	}
	return false, notOrderable(op, a, b)
}

func (m *machine) orderItems(op string, a, b []value, depth int) (bool, error) {
	n := min(len(a), len(b))
	if n > 0 && depth >= maxNest {
		return false, nestError("in comparison")
	}
	for i := range n {
		if err := m.step(1); err != nil {
			return false, err
		}
		eq, err := m.eq(a[i], b[i], depth+1)
		if err != nil {
			return false, err
		}
		if !eq {
			return m.orderAt(op, a[i], b[i], depth+1)
		}
	}
	return holds(op, cmp.Compare(len(a), len(b))), nil
}

// holds says whether op is true of a comparison result c (-1, 0 or 1).
func holds(op string, c int) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func notOrderable(op string, a, b value) error {
	return &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' not supported between instances of '%s' and '%s'", op, typeName(a), typeName(b))}
}

// isSubset reads a's stored keys, one step each.
func (m *machine) isSubset(a, b *setV) (bool, error) {
	if err := m.step(len(a.items)); err != nil {
		return false, err
	}
	for _, hk := range a.hks {
		if _, ok := b.find(hk); !ok {
			return false, nil
		}
	}
	return true, nil
}

// printer writes str() and repr() of values, failing once the text would
// pass limit bytes or the containers nest deeper than maxNest.
type printer struct {
	b     strings.Builder
	limit int
	open  map[any]bool // containers being written, to print a cycle as [...]
	depth int
	nodes int // values visited, for the step count
	over  bool
	deep  bool
}

// cost is the steps the printing took: one per value and one per 64
// bytes written.
func (p *printer) cost() int { return p.nodes + p.b.Len()/64 + 1 }

// err is the error that stopped the printer, or nil.
func (p *printer) err(what string) error {
	switch {
	case p.deep:
		return nestError("while getting the repr of an object")
	case p.over:
		return &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("%s would be over %d bytes long", what, p.limit)}
	}
	return nil
}

func (p *printer) str(v value) {
	switch v := v.(type) {
	case string:
		p.write(v)
	case *excV:
		p.write(v.msg)
	default:
		p.repr(v)
	}
}

func (p *printer) write(s string) {
	if p.over {
		return
	}
	if p.b.Len()+len(s) > p.limit {
		p.over = true
		return
	}
	p.b.WriteString(s)
}

// enter starts writing a container (c, when it can hold itself, is
// remembered so that a cycle prints as [...]); false means it is nested
// too deep and the printer has stopped.
func (p *printer) enter(c any) bool {
	if p.depth >= maxNest {
		p.deep, p.over = true, true
		return false
	}
	if c != nil {
		if p.open == nil {
			p.open = map[any]bool{}
		}
		p.open[c] = true
	}
	p.depth++
	return true
}

func (p *printer) leave(c any) {
	p.depth--
	if c != nil {
		delete(p.open, c)
	}
}

// items writes a sequence; c is the container when it can hold itself.
func (p *printer) items(c any, open, close string, items []value) {
	if !p.enter(c) {
		return
	}
	p.write(open)
	for i, it := range items {
		if p.over {
			break
		}
		if i > 0 {
			p.write(", ")
		}
		p.repr(it)
	}
	p.write(close)
	p.leave(c)
}

func (p *printer) repr(v value) {
	if p.over {
		return
	}
	p.nodes++
	switch v := v.(type) {
	case nil:
		p.write("None")
	case bool:
		if v {
			p.write("True")
		} else {
			p.write("False")
		}
	case int64:
		p.write(strconv.FormatInt(v, 10))
	case float64:
		p.write(floatRepr(v))
	case string:
		// The quoted text is never shorter than the string: do not
		// quote what cannot fit.
		if len(v)+2 > p.limit-p.b.Len() {
			p.over = true
			return
		}
		p.write(strRepr(v))
	case *listV:
		if p.open[v] {
			p.write("[...]")
			return
		}
		p.items(v, "[", "]", v.items)
	case *tupleV:
		if len(v.items) == 1 {
			if p.enter(nil) {
				p.write("(")
				p.repr(v.items[0])
				p.write(",)")
				p.leave(nil)
			}
			return
		}
		p.items(nil, "(", ")", v.items)
	case *dictV:
		if p.open[v] {
			p.write("{...}")
			return
		}
		if !p.enter(v) {
			return
		}
		p.write("{")
		for i := range v.keys {
			if p.over {
				break
			}
			if i > 0 {
				p.write(", ")
			}
			p.repr(v.keys[i])
			p.write(": ")
			p.repr(v.vals[i])
		}
		p.write("}")
		p.leave(v)
	case *setV:
		name := "set"
		if v.frozen {
			name = "frozenset"
		}
		switch {
		case len(v.items) == 0:
			p.write(name + "()")
		case v.frozen:
			p.items(nil, "frozenset({", "})", v.items)
		default:
			p.items(nil, "{", "}", v.items)
		}
	case *rangeV:
		if v.step == 1 {
			p.write(fmt.Sprintf("range(%d, %d)", v.start, v.stop))
		} else {
			p.write(fmt.Sprintf("range(%d, %d, %d)", v.start, v.stop, v.step))
		}
	case *iterV:
		switch v.typ {
		case "dict_keys", "dict_values", "dict_items":
			p.items(nil, v.typ+"([", "])", v.items)
		default:
			p.write("<" + v.typ + " object>")
		}
	case *funcV:
		p.write("<function " + v.name + ">")
	case *builtinV:
		switch {
		case v.typ:
			p.write("<class '" + v.name + "'>")
		case v.self != nil:
			p.write("<built-in method " + v.name + " of " + typeName(v.self) + " object>")
		default:
			p.write("<built-in function " + v.name + ">")
		}
	case *excV:
		p.write(v.kind + "(")
		if v.msg != "" {
			p.write(strRepr(v.msg))
		}
		p.write(")")
	case *excClass:
		p.write("<class '" + v.name + "'>")
	default:
		p.write("<object>")
	}
}

// floatRepr writes f as Python's repr does: the shortest digits that read
// back as f, in positional notation for decimal exponents -4..15 (with a
// ".0" when there is no fraction) and otherwise as d.ddde±XX.
func floatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // "-1.2345e+03"
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	sign := ""
	if mant[0] == '-' {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := fmt.Sprintf("%+03d", exp)
		return sign + m + "e" + es
	}
	var s string
	switch {
	case exp < 0:
		s = "0." + strings.Repeat("0", -exp-1) + digits
	case exp+1 >= len(digits):
		s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	default:
		s = digits[:exp+1] + "." + digits[exp+1:]
	}
	return sign + s
}

// strRepr quotes s as Python's repr does: single quotes unless s holds a
// single quote and no double quote.
func strRepr(s string) string {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !unicode.IsPrint(r) && r > 0x7f:
			switch {
			case r <= 0xff:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
