package pyexec

import (
	"fmt"
	"math"
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
	// dictV keeps insertion order, as Python's dict does; keys index
	// entries by their hash key (see hashKey).
	dictV struct {
		keys, vals []value
		index      map[string]int
	}
	// setV keeps insertion order, so iteration (and printing) is the
	// same on every validator; CPython's order can differ.
	setV struct {
		items  []value
		index  map[string]int
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
		globals  map[string]bool
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

func newDict() *dictV { return &dictV{index: map[string]int{}} }
func newSet() *setV   { return &setV{index: map[string]int{}} }

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

// hashKey is the key a value has in a dict or set: equal values (1, 1.0
// and True) share one key, as in Python. Mutable values are unhashable.
func hashKey(v value) (string, error) {
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
	case *tupleV:
		var b strings.Builder
		b.WriteString("t")
		for _, it := range v.items {
			k, err := hashKey(it)
			if err != nil {
				return "", err
			}
			b.WriteString(strconv.Itoa(len(k)))
			b.WriteByte(':')
			b.WriteString(k)
		}
		return b.String(), nil
	case *setV:
		if v.frozen {
			return fmt.Sprintf("p%p", v), nil
		}
	case *builtinV, *funcV, *excClass, *excV, *rangeV:
		return fmt.Sprintf("p%p", v), nil
	}
	return "", &Error{Kind: "TypeError", Msg: "unhashable type: '" + typeName(v) + "'"}
}

// equal is Python's ==.
func equal(a, b value) bool {
	if ai, af, aInt, ok := asNumber(a); ok {
		bi, bf, bInt, ok := asNumber(b)
		if !ok {
			return false
		}
		if aInt && bInt {
			return ai == bi
		}
		if aInt {
			return float64(ai) == bf && (bf < 0x1p63 && bf >= -0x1p63 && int64(bf) == ai)
		}
		if bInt {
			return af == float64(bi) && (af < 0x1p63 && af >= -0x1p63 && int64(af) == bi)
		}
		return af == bf
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case *listV:
		bl, ok := b.(*listV)
		return ok && (a == bl || equalItems(a.items, bl.items))
	case *tupleV:
		bt, ok := b.(*tupleV)
		return ok && equalItems(a.items, bt.items)
	case *dictV:
		bd, ok := b.(*dictV)
		if !ok || len(a.keys) != len(bd.keys) {
			return false
		}
		if a == bd {
			return true
		}
		for k, i := range a.index {
			j, ok := bd.index[k]
			if !ok || !equal(a.vals[i], bd.vals[j]) {
				return false
			}
		}
		return true
	case *setV:
		bs, ok := b.(*setV)
		if !ok || len(a.items) != len(bs.items) {
			return false
		}
		for k := range a.index {
			if _, ok := bs.index[k]; !ok {
				return false
			}
		}
		return true
	case *rangeV:
		br, ok := b.(*rangeV)
		return ok && a.length() == br.length() && (a.length() == 0 || a.start == br.start && (a.length() == 1 || a.step == br.step))
	case *excClass:
		bc, ok := b.(*excClass)
		return ok && a.name == bc.name
	}
	return a == b
}

func equalItems(a, b []value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// less is Python's a < b for the orderable types; ok is false when the
// types do not order (a TypeError in Python).
func less(a, b value) (lt bool, err error) {
	if ai, af, aInt, ok := asNumber(a); ok {
		if bi, bf, bInt, ok := asNumber(b); ok {
			if aInt && bInt {
				return ai < bi, nil
			}
			if aInt {
				af = float64(ai)
			}
			if bInt {
				bf = float64(bi)
			}
			return af < bf, nil
		}
	}
	switch a := a.(type) {
	case string:
		if bs, ok := b.(string); ok {
			return a < bs, nil
		}
	case *listV:
		if bl, ok := b.(*listV); ok {
			return lessItems(a.items, bl.items)
		}
	case *tupleV:
		if bt, ok := b.(*tupleV); ok {
			return lessItems(a.items, bt.items)
		}
	case *setV:
		if bs, ok := b.(*setV); ok {
			return len(a.items) < len(bs.items) && isSubset(a, bs), nil
		}
	}
	return false, notOrderable("<", a, b)
}

func notOrderable(op string, a, b value) error {
	return &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' not supported between instances of '%s' and '%s'", op, typeName(a), typeName(b))}
}

func lessItems(a, b []value) (bool, error) {
	for i := 0; i < len(a) && i < len(b); i++ {
		if !equal(a[i], b[i]) {
			return less(a[i], b[i])
		}
	}
	return len(a) < len(b), nil
}

func isSubset(a, b *setV) bool {
	for k := range a.index {
		if _, ok := b.index[k]; !ok {
			return false
		}
	}
	return true
}

// printer writes str() and repr() of values, failing once the text would
// pass limit bytes.
type printer struct {
	b     strings.Builder
	limit int
	open  []any // containers being written, to print a cycle as [...]
	over  bool
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

func (p *printer) enter(c any) bool {
	for _, o := range p.open {
		if o == c {
			return false
		}
	}
	p.open = append(p.open, c)
	return true
}

func (p *printer) leave() { p.open = p.open[:len(p.open)-1] }

func (p *printer) items(open, close string, items []value) {
	p.write(open)
	for i, it := range items {
		if p.over {
			return
		}
		if i > 0 {
			p.write(", ")
		}
		p.repr(it)
	}
	p.write(close)
}

func (p *printer) repr(v value) {
	if p.over {
		return
	}
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
		p.write(strRepr(v))
	case *listV:
		if !p.enter(v) {
			p.write("[...]")
			return
		}
		p.items("[", "]", v.items)
		p.leave()
	case *tupleV:
		if len(v.items) == 1 {
			p.write("(")
			p.repr(v.items[0])
			p.write(",)")
			return
		}
		p.items("(", ")", v.items)
	case *dictV:
		if !p.enter(v) {
			p.write("{...}")
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
		p.leave()
	case *setV:
		name := "set"
		if v.frozen {
			name = "frozenset"
		}
		switch {
		case len(v.items) == 0:
			p.write(name + "()")
		case v.frozen:
			p.items("frozenset({", "})", v.items)
		default:
			p.items("{", "}", v.items)
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
			p.items(v.typ+"([", "])", v.items)
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
