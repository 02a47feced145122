package pyexec

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

func overflow() error {
	return &Error{Kind: "OverflowError", Msg: "integer result too large (python_execute keeps integers within 64 bits)"}
}

func unary(op string, v value) (value, error) {
	i, f, isInt, ok := asNumber(v)
	if ok {
		switch op {
		case "-":
			if isInt {
				if i == math.MinInt64 {
					return nil, overflow()
				}
				return -i, nil
			}
			return -f, nil
		case "+":
			if isInt {
				return i, nil
			}
			return f, nil
		case "~":
			if isInt {
				return ^i, nil
			}
		}
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("bad operand type for unary %s: '%s'", op, typeName(v))}
}

func unsupportedOperands(op string, l, r value) error {
	return &Error{Kind: "TypeError", Msg: fmt.Sprintf("unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(l), typeName(r))}
}

// binary applies a binary operator with Python's rules: int op int stays
// an int (except /), a float operand makes a float, str, list and tuple
// concatenate and repeat, sets combine, and str % args formats.
func (m *machine) binary(op string, l, r value) (value, error) {
	if li, lf, lInt, ok := asNumber(l); ok {
		if ri, rf, rInt, ok := asNumber(r); ok {
			if lInt && rInt {
				return intOp(op, li, ri)
			}
			if lInt {
				lf = float64(li)
			}
			if rInt {
				rf = float64(ri)
			}
			switch op {
			case "&", "|", "^", "<<", ">>":
				return nil, unsupportedOperands(op, l, r)
			}
			return floatOp(op, lf, rf)
		}
	}
	switch op {
	case "+":
		switch a := l.(type) {
		case string:
			if b, ok := r.(string); ok {
				if err := m.step(len(a)/64 + len(b)/64); err != nil {
					return nil, err
				}
				return m.newStr(a + b)
			}
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("can only concatenate str (not \"%s\") to str", typeName(r))}
		case *listV:
			if b, ok := r.(*listV); ok {
				if err := m.step(len(a.items) + len(b.items)); err != nil {
					return nil, err
				}
				return m.newList(append(append(make([]value, 0, len(a.items)+len(b.items)), a.items...), b.items...))
			}
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("can only concatenate list (not \"%s\") to list", typeName(r))}
		case *tupleV:
			if b, ok := r.(*tupleV); ok {
				if err := m.step(len(a.items) + len(b.items)); err != nil {
					return nil, err
				}
				return m.newTuple(append(append(make([]value, 0, len(a.items)+len(b.items)), a.items...), b.items...))
			}
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("can only concatenate tuple (not \"%s\") to tuple", typeName(r))}
		}
	case "*":
		if n, _, isInt, ok := asNumber(r); ok && isInt {
			switch l.(type) {
			case string, *listV, *tupleV:
				return m.repeat(l, n)
			}
		}
		if n, _, isInt, ok := asNumber(l); ok && isInt {
			switch r.(type) {
			case string, *listV, *tupleV:
				return m.repeat(r, n)
			}
		}
		switch r.(type) {
		case string, *listV, *tupleV:
			if _, _, _, ok := asNumber(l); ok {
				return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("can't multiply sequence by non-int of type '%s'", typeName(l))}
			}
		}
		switch l.(type) {
		case string, *listV, *tupleV:
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("can't multiply sequence by non-int of type '%s'", typeName(r))}
		}
	case "%":
		if s, ok := l.(string); ok {
			return m.percentFormat(s, r)
		}
	case "|", "&", "-", "^":
		if a, ok := l.(*setV); ok {
			if b, ok := r.(*setV); ok {
				return m.setOp(op, a, b)
			}
		}
		if a, ok := l.(*dictV); ok && op == "|" {
			if b, ok := r.(*dictV); ok {
				d := newDict()
				for _, src := range []*dictV{a, b} {
					if err := m.dictMerge(d, src); err != nil {
						return nil, err
					}
				}
				return d, nil
			}
		}
	}
	return nil, unsupportedOperands(op, l, r)
}

func (m *machine) setOp(op string, a, b *setV) (value, error) {
	out := newSet()
	out.frozen = a.frozen
	if err := m.step(len(a.items) + len(b.items)); err != nil {
		return nil, err
	}
	add := func(hk string, v value) error { return m.setAddKey(out, hk, v) }
	switch op {
	case "|":
		for _, s := range []*setV{a, b} {
			for i, v := range s.items {
				if err := add(s.hks[i], v); err != nil {
					return nil, err
				}
			}
		}
	case "&", "-":
		for i, v := range a.items {
			_, inB := b.find(a.hks[i])
			if inB == (op == "&") {
				if err := add(a.hks[i], v); err != nil {
					return nil, err
				}
			}
		}
	case "^":
		for _, pair := range [][2]*setV{{a, b}, {b, a}} {
			for i, v := range pair[0].items {
				if _, in := pair[1].find(pair[0].hks[i]); !in {
					if err := add(pair[0].hks[i], v); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return out, nil
}

// repeat is s * n for a str, list or tuple, checking the size before
// building.
func (m *machine) repeat(v value, n int64) (value, error) {
	n = max(n, 0)
	var size int
	switch v := v.(type) {
	case string:
		size = len(v)
	case *listV:
		size = len(v.items)
	case *tupleV:
		size = len(v.items)
	}
	if size > 0 && n > int64(m.lim.MaxValueLen)/int64(size) {
		return nil, &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("memory limit: the repetition would build %s items or bytes; at most %d", mulText(size, n), m.lim.MaxValueLen)}
	}
	if size == 0 {
		// Nothing to repeat: () * 10**17 must not loop 10**17 times.
		n = 0
	}
	total := size * int(n)
	if err := m.step(total/16 + 1); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case string:
		return m.newStr(strings.Repeat(v, int(n)))
	case *listV:
		items := make([]value, 0, total)
		for range n {
			items = append(items, v.items...)
		}
		return m.newList(items)
	case *tupleV:
		items := make([]value, 0, total)
		for range n {
			items = append(items, v.items...)
		}
		return m.newTuple(items)
	}
	return nil, unsupportedOperands("*", v, n)
}

func mulText(size int, n int64) string {
	return new(big.Int).Mul(big.NewInt(int64(size)), big.NewInt(n)).String()
}

func intOp(op string, a, b int64) (value, error) {
	switch op {
	case "+":
		s := a + b
		if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
			return nil, overflow()
		}
		return s, nil
	case "-":
		d := a - b
		if (a >= 0 && b < 0 && d < 0) || (a < 0 && b > 0 && d >= 0) {
			return nil, overflow()
		}
		return d, nil
	case "*":
		p, ok := mulInt(a, b)
		if !ok {
			return nil, overflow()
		}
		return p, nil
	case "/":
		if b == 0 {
			return nil, &Error{Kind: "ZeroDivisionError", Msg: "division by zero"}
		}
		return trueDiv(a, b), nil
	case "//":
		if b == 0 {
			return nil, &Error{Kind: "ZeroDivisionError", Msg: "integer division or modulo by zero"}
		}
		if a == math.MinInt64 && b == -1 {
			return nil, overflow()
		}
		q := a / b
		if a%b != 0 && (a < 0) != (b < 0) {
			q--
		}
		return q, nil
	case "%":
		if b == 0 {
			return nil, &Error{Kind: "ZeroDivisionError", Msg: "integer modulo by zero"}
		}
		if b == -1 {
			return int64(0), nil
		}
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r, nil
	case "**":
		if b < 0 {
			if a == 0 {
				return nil, &Error{Kind: "ZeroDivisionError", Msg: "0.0 cannot be raised to a negative power"}
			}
			return floatOp("**", float64(a), float64(b))
		}
		result, base := int64(1), a
		for e := b; e > 0; e >>= 1 {
			var ok bool
			if e&1 == 1 {
				if result, ok = mulInt(result, base); !ok {
					return nil, overflow()
				}
			}
			if e > 1 {
				if base, ok = mulInt(base, base); !ok {
					return nil, overflow()
				}
			}
		}
		return result, nil
	case "&":
		return a & b, nil
	case "|":
		return a | b, nil
	case "^":
		return a ^ b, nil
	case "<<":
		if b < 0 {
			return nil, &Error{Kind: "ValueError", Msg: "negative shift count"}
		}
		if b >= 63 || a != 0 && (a<<b)>>b != a {
			if a == 0 {
				return int64(0), nil
			}
			return nil, overflow()
		}
		return a << b, nil
	case ">>":
		if b < 0 {
			return nil, &Error{Kind: "ValueError", Msg: "negative shift count"}
		}
		return a >> min(b, 63), nil
	}
	return nil, &Error{Kind: "SyntaxError", Msg: "unknown operator " + op}
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	return p, true
}

// trueDiv is a / b correctly rounded, as Python divides ints: exact
// operands below 2^53 divide exactly in float64, larger ones go through
// a rational.
func trueDiv(a, b int64) float64 {
	const exact = 1 << 53
	if a > -exact && a < exact && b > -exact && b < exact {
		return float64(a) / float64(b)
	}
	f, _ := new(big.Rat).SetFrac(big.NewInt(a), big.NewInt(b)).Float64()
	return f
}

func floatOp(op string, a, b float64) (value, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		if b == 0 {
			return nil, &Error{Kind: "ZeroDivisionError", Msg: "float division by zero"}
		}
		return a / b, nil
	case "//", "%":
		if b == 0 {
			if op == "%" {
				return nil, &Error{Kind: "ZeroDivisionError", Msg: "float modulo"}
			}
			return nil, &Error{Kind: "ZeroDivisionError", Msg: "float floor division by zero"}
		}
		q, r := floatDivmod(a, b)
		if op == "%" {
			return r, nil
		}
		return q, nil
	case "**":
		return floatPow(a, b)
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("unsupported operand type(s) for %s: 'float' and 'float'", op)}
}

// floatDivmod is Python's float divmod: the remainder takes the divisor's
// sign and the quotient is floored.
func floatDivmod(a, b float64) (q, r float64) {
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 {
		if (b < 0) != (mod < 0) {
			mod += b
			div--
		}
	} else {
		mod = math.Copysign(0, b)
	}
	var floordiv float64
	if div != 0 {
		floordiv = math.Floor(div)
		if div-floordiv > 0.5 {
			floordiv++
		}
	} else {
		floordiv = math.Copysign(0, a/b)
	}
	return floordiv, mod
}

// floatPow is Python's float power: a negative base with a fractional
// exponent would be complex, and a finite result too large to represent
// is an OverflowError rather than inf.
func floatPow(a, b float64) (value, error) {
	switch {
	case b == 0:
		return 1.0, nil
	case math.IsNaN(a) || math.IsNaN(b):
		if a == 1 {
			return 1.0, nil
		}
		return math.NaN(), nil
	case a == 0 && b < 0 && !math.IsInf(b, 0):
		return nil, &Error{Kind: "ZeroDivisionError", Msg: "0.0 cannot be raised to a negative power"}
	case a < 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) && b != math.Trunc(b):
		return nil, &Error{Kind: "Unsupported", Msg: "the result would be a complex number"}
	}
	p := math.Pow(a, b)
	if math.IsInf(p, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return nil, &Error{Kind: "OverflowError", Msg: "(34, 'Numerical result out of range')"}
	}
	return p, nil
}
