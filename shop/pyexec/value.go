package pyexec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

type kind uint8

const (
	kInt kind = iota
	kFloat
	kStr
	kList
	kNone
)

// value is a Python value of the subset: an int (kept within int64), a
// float, a str, a list, or None (what print returns). Lists are shared by reference, as in Python, so
// "b = a; b += [1]" changes a too.
type value struct {
	k kind
	i int64
	f float64
	s string
	l *list
}

type list struct{ items []value }

func intVal(i int64) value     { return value{k: kInt, i: i} }
func floatVal(f float64) value { return value{k: kFloat, f: f} }
func strVal(s string) value    { return value{k: kStr, s: s} }
func listVal(items []value) value {
	return value{k: kList, l: &list{items: items}}
}

// typeName is Python's name for the value's type, for error messages.
func (v value) typeName() string {
	switch v.k {
	case kInt:
		return "int"
	case kFloat:
		return "float"
	case kStr:
		return "str"
	case kNone:
		return "NoneType"
	}
	return "list"
}

func (v value) isNumber() bool { return v.k == kInt || v.k == kFloat }

// float is the value as a float64; only for numbers.
func (v value) float() float64 {
	if v.k == kInt {
		return float64(v.i)
	}
	return v.f
}

// str is Python's str(v), what print writes, and false if it would be
// longer than limit bytes.
func (v value) str(limit int) (string, bool) {
	if v.k == kStr {
		return v.s, len(v.s) <= limit
	}
	return v.repr(limit)
}

// repr is Python's repr(v), as lists show their items, and false if it
// would be longer than limit bytes. Lists are shared, so a list can hold
// itself; like Python, the inner occurrence prints as [...].
func (v value) repr(limit int) (string, bool) {
	var b strings.Builder
	ok := v.writeRepr(&b, limit, nil)
	return b.String(), ok
}

func (v value) writeRepr(b *strings.Builder, limit int, open []*list) bool {
	switch v.k {
	case kInt:
		b.WriteString(strconv.FormatInt(v.i, 10))
	case kFloat:
		b.WriteString(floatRepr(v.f))
	case kStr:
		b.WriteString(strRepr(v.s))
	case kNone:
		b.WriteString("None")
	case kList:
		for _, o := range open {
			if o == v.l {
				b.WriteString("[...]")
				return b.Len() <= limit
			}
		}
		open = append(open, v.l)
		b.WriteByte('[')
		for i, it := range v.l.items {
			if i > 0 {
				b.WriteString(", ")
			}
			if !it.writeRepr(b, limit, open) {
				return false
			}
		}
		b.WriteByte(']')
	}
	return b.Len() <= limit
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
			if r <= 0xffff {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
