package pyexec

import (
	"math"
	"math/big"
	"strings"
)

// binary applies a binary operator with Python's rules for the subset's
// types: int op int stays an int (except /), a float operand makes a
// float, str and list support + and repetition by an int.
func (m *machine) binary(op string, l, r value, line int) (value, error) {
	if l.isNumber() && r.isNumber() {
		if l.k == kInt && r.k == kInt {
			return intOp(op, l.i, r.i, line)
		}
		return floatOp(op, l.float(), r.float(), line)
	}
	switch {
	case op == "+" && l.k == kStr && r.k == kStr:
		return m.newStr(line, l.s+r.s)
	case op == "+" && l.k == kList && r.k == kList:
		return m.newList(line, append(append(make([]value, 0, len(l.l.items)+len(r.l.items)), l.l.items...), r.l.items...))
	case op == "*" && (l.k == kStr || l.k == kList) && r.k == kInt:
		return m.repeat(l, r.i, line)
	case op == "*" && l.k == kInt && (r.k == kStr || r.k == kList):
		return m.repeat(r, l.i, line)
	case op == "%" && l.k == kStr:
		return value{}, errAt(line, "Unsupported", "printf-style string formatting (%%) is not supported; use an f-string such as f\"{x:.2f}\"")
	}
	return value{}, errAt(line, "TypeError", "unsupported operand type(s) for %s: '%s' and '%s'", op, l.typeName(), r.typeName())
}

// repeat is s * n for a str or list, checking the size before building.
func (m *machine) repeat(v value, n int64, line int) (value, error) {
	if n <= 0 || v.k == kStr && v.s == "" || v.k == kList && len(v.l.items) == 0 {
		if v.k == kStr {
			return strVal(""), nil
		}
		return m.newList(line, nil)
	}
	size := int64(len(v.s))
	if v.k == kList {
		size = int64(len(v.l.items))
	}
	if size > 0 && n > int64(m.lim.MaxValueLen)/size {
		return value{}, errAt(line, "LimitExceeded", "the repetition would build more than %d bytes or items", m.lim.MaxValueLen)
	}
	if v.k == kStr {
		return m.newStr(line, strings.Repeat(v.s, int(n)))
	}
	items := make([]value, 0, size*n)
	for range n {
		items = append(items, v.l.items...)
	}
	return m.newList(line, items)
}

func intOp(op string, a, b int64, line int) (value, error) {
	switch op {
	case "+":
		s := a + b
		if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
			return value{}, overflow(line)
		}
		return intVal(s), nil
	case "-":
		d := a - b
		if (a >= 0 && b < 0 && d < 0) || (a < 0 && b > 0 && d >= 0) {
			return value{}, overflow(line)
		}
		return intVal(d), nil
	case "*":
		p, ok := mulInt(a, b)
		if !ok {
			return value{}, overflow(line)
		}
		return intVal(p), nil
	case "/":
		if b == 0 {
			return value{}, errAt(line, "ZeroDivisionError", "division by zero")
		}
		return floatVal(trueDiv(a, b)), nil
	case "//":
		if b == 0 {
			return value{}, errAt(line, "ZeroDivisionError", "integer division or modulo by zero")
		}
		if a == math.MinInt64 && b == -1 {
			return value{}, overflow(line)
		}
		q := a / b
		if a%b != 0 && (a < 0) != (b < 0) {
			q--
		}
		return intVal(q), nil
	case "%":
		if b == 0 {
			return value{}, errAt(line, "ZeroDivisionError", "integer modulo by zero")
		}
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return intVal(r), nil
	case "**":
		if b < 0 {
			if a == 0 {
				return value{}, errAt(line, "ZeroDivisionError", "0.0 cannot be raised to a negative power")
			}
			return floatOp("**", float64(a), float64(b), line)
		}
		result, base := int64(1), a
		for e := b; e > 0; e >>= 1 {
			var ok bool
			if e&1 == 1 {
				if result, ok = mulInt(result, base); !ok {
					return value{}, overflow(line)
				}
			}
			if e > 1 {
				if base, ok = mulInt(base, base); !ok {
					return value{}, overflow(line)
				}
			}
		}
		return intVal(result), nil
	}
	return value{}, errAt(line, "SyntaxError", "unknown operator %s", op)
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

func floatOp(op string, a, b float64, line int) (value, error) {
	switch op {
	case "+":
		return floatVal(a + b), nil
	case "-":
		return floatVal(a - b), nil
	case "*":
		return floatVal(a * b), nil
	case "/":
		if b == 0 {
			return value{}, errAt(line, "ZeroDivisionError", "float division by zero")
		}
		return floatVal(a / b), nil
	case "//", "%":
		if b == 0 {
			if op == "%" {
				return value{}, errAt(line, "ZeroDivisionError", "float modulo by zero")
			}
			return value{}, errAt(line, "ZeroDivisionError", "float floor division by zero")
		}
		q, r := floatDivmod(a, b)
		if op == "%" {
			return floatVal(r), nil
		}
		return floatVal(q), nil
	case "**":
		return floatPow(a, b, line)
	}
	return value{}, errAt(line, "SyntaxError", "unknown operator %s", op)
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
func floatPow(a, b float64, line int) (value, error) {
	switch {
	case b == 0:
		return floatVal(1), nil
	case math.IsNaN(a) || math.IsNaN(b):
		if a == 1 {
			return floatVal(1), nil
		}
		return floatVal(math.NaN()), nil
	case a == 0 && b < 0 && !math.IsInf(b, 0):
		return value{}, errAt(line, "ZeroDivisionError", "0.0 cannot be raised to a negative power")
	case a < 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) && b != math.Trunc(b):
		return value{}, errAt(line, "Unsupported", "the result would be a complex number")
	}
	p := math.Pow(a, b)
	if math.IsInf(p, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return value{}, errAt(line, "OverflowError", "(34, 'Numerical result out of range')")
	}
	return floatVal(p), nil
}

// compare orders two numbers; ok is false when either is NaN (every
// comparison with NaN is false in Python).
func compare(a, b value) (c int, ok bool) {
	if a.k == kInt && b.k == kInt {
		switch {
		case a.i < b.i:
			return -1, true
		case a.i > b.i:
			return 1, true
		}
		return 0, true
	}
	x, y := a.float(), b.float()
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return 0, false
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}
