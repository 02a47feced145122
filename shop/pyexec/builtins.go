package pyexec

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// builtin is one callable function: positional arguments and the keyword
// arguments it accepts (others are refused before the call).
type builtin struct {
	keywords []string
	fn       func(m *machine, line int, args []value, kw map[string]value) (value, error)
}

var builtins map[string]*builtin

func init() {
	builtins = map[string]*builtin{
		"print": {keywords: []string{"sep", "end"}, fn: builtinPrint},
		"min": {fn: func(m *machine, line int, args []value, _ map[string]value) (value, error) {
			return m.extreme("min", -1, line, args)
		}},
		"max": {fn: func(m *machine, line int, args []value, _ map[string]value) (value, error) {
			return m.extreme("max", 1, line, args)
		}},
		"sum":   {keywords: []string{"start"}, fn: builtinSum},
		"round": {keywords: []string{"ndigits"}, fn: builtinRound},
		"abs":   {fn: builtinAbs},
		"len":   {fn: builtinLen},
		"int":   {fn: builtinInt},
		"float": {fn: builtinFloat},
		"str":   {fn: builtinStr},
	}
}

func (m *machine) call(c *callExpr) (value, error) {
	if v, ok := m.vars[c.fn]; ok {
		return value{}, errAt(c.ln, "TypeError", "'%s' object is not callable", v.typeName())
	}
	b := builtins[c.fn]
	if b == nil {
		if pythonBuiltins[c.fn] {
			return value{}, errAt(c.ln, "Unsupported", "%s() is not supported", c.fn)
		}
		return value{}, errAt(c.ln, "NameError", "name '%s' is not defined", clip(c.fn, 40))
	}
	args := make([]value, len(c.args))
	for i, a := range c.args {
		v, err := m.eval(a)
		if err != nil {
			return value{}, err
		}
		args[i] = v
	}
	var kw map[string]value
	for _, k := range c.kw {
		known := false
		for _, name := range b.keywords {
			known = known || name == k.name
		}
		if !known {
			return value{}, errAt(c.ln, "TypeError", "%s() got an unexpected keyword argument '%s'", c.fn, clip(k.name, 40))
		}
		if _, dup := kw[k.name]; dup {
			return value{}, errAt(c.ln, "SyntaxError", "keyword argument repeated: %s", k.name)
		}
		v, err := m.eval(k.x)
		if err != nil {
			return value{}, err
		}
		if kw == nil {
			kw = map[string]value{}
		}
		kw[k.name] = v
	}
	return b.fn(m, c.ln, args, kw)
}

func argCount(name string, line int, args []value, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		want := strconv.Itoa(lo)
		if hi > lo {
			want = strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
		}
		return errAt(line, "TypeError", "%s() takes %s arguments (%d given)", name, want, len(args))
	}
	return nil
}

func builtinPrint(m *machine, line int, args []value, kw map[string]value) (value, error) {
	sep, end := " ", "\n"
	for name, dst := range map[string]*string{"sep": &sep, "end": &end} {
		if v, ok := kw[name]; ok {
			if v.k != kStr {
				return value{}, errAt(line, "TypeError", "%s must be a string, not %s", name, v.typeName())
			}
			*dst = v.s
		}
	}
	tooMuch := func() error {
		return errAt(line, "LimitExceeded", "the code printed more than %d bytes", m.lim.MaxOutputBytes)
	}
	for i, a := range args {
		if i > 0 {
			m.out.WriteString(sep)
		}
		s, ok := a.str(m.lim.MaxOutputBytes - m.out.Len())
		if !ok {
			return value{}, tooMuch()
		}
		m.out.WriteString(s)
	}
	m.out.WriteString(end)
	if m.out.Len() > m.lim.MaxOutputBytes {
		return value{}, tooMuch()
	}
	return value{k: kNone}, nil
}

// iterable returns the numbers a min, max or sum call works over: the
// items of a single list argument, or the arguments themselves.
func (m *machine) numbers(name string, line int, args []value, single bool) ([]value, error) {
	items := args
	if single || len(args) == 1 {
		if args[0].k != kList {
			return nil, errAt(line, "TypeError", "%s() needs a list or several numbers, not a single %s", name, args[0].typeName())
		}
		items = args[0].l.items
	}
	for _, v := range items {
		if err := m.step(line); err != nil {
			return nil, err
		}
		if !v.isNumber() {
			return nil, errAt(line, "TypeError", "%s() works on numbers only, got a %s", name, v.typeName())
		}
	}
	return items, nil
}

// extreme is min (dir -1) or max (dir 1): the first item no other beats,
// as Python picks it.
func (m *machine) extreme(name string, dir int, line int, args []value) (value, error) {
	if len(args) == 0 {
		return value{}, errAt(line, "TypeError", "%s expected at least 1 argument, got 0", name)
	}
	items, err := m.numbers(name, line, args, false)
	if err != nil {
		return value{}, err
	}
	if len(items) == 0 {
		return value{}, errAt(line, "ValueError", "%s() arg is an empty sequence", name)
	}
	best := items[0]
	for _, v := range items[1:] {
		if c, ok := compare(v, best); ok && c == dir {
			best = v
		}
	}
	return best, nil
}

// builtinSum adds left to right (Python before 3.12; 3.12 compensates
// float rounding, which can differ in the last digit).
func builtinSum(m *machine, line int, args []value, kw map[string]value) (value, error) {
	if err := argCount("sum", line, args, 1, 2); err != nil {
		return value{}, err
	}
	total := intVal(0)
	if len(args) == 2 {
		total = args[1]
	}
	if v, ok := kw["start"]; ok {
		if len(args) == 2 {
			return value{}, errAt(line, "TypeError", "sum() got multiple values for argument 'start'")
		}
		total = v
	}
	if !total.isNumber() {
		return value{}, errAt(line, "TypeError", "sum() start must be a number, not %s", total.typeName())
	}
	items, err := m.numbers("sum", line, args[:1], true)
	if err != nil {
		return value{}, err
	}
	for _, v := range items {
		if total, err = m.binary("+", total, v, line); err != nil {
			return value{}, err
		}
	}
	return total, nil
}

func builtinAbs(m *machine, line int, args []value, _ map[string]value) (value, error) {
	if err := argCount("abs", line, args, 1, 1); err != nil {
		return value{}, err
	}
	v := args[0]
	switch v.k {
	case kInt:
		if v.i < 0 {
			return unary("-", v, line)
		}
		return v, nil
	case kFloat:
		return floatVal(math.Abs(v.f)), nil
	}
	return value{}, errAt(line, "TypeError", "bad operand type for abs(): '%s'", v.typeName())
}

func builtinLen(m *machine, line int, args []value, _ map[string]value) (value, error) {
	if err := argCount("len", line, args, 1, 1); err != nil {
		return value{}, err
	}
	switch v := args[0]; v.k {
	case kList:
		return intVal(int64(len(v.l.items))), nil
	case kStr:
		return intVal(int64(utf8.RuneCountInString(v.s))), nil
	default:
		return value{}, errAt(line, "TypeError", "object of type '%s' has no len()", v.typeName())
	}
}

// builtinRound is Python's round: half to even, on the float's exact
// binary value (round(2.675, 2) is 2.67).
func builtinRound(m *machine, line int, args []value, kw map[string]value) (value, error) {
	if err := argCount("round", line, args, 1, 2); err != nil {
		return value{}, err
	}
	nd, hasND := kw["ndigits"]
	if len(args) == 2 {
		if hasND {
			return value{}, errAt(line, "TypeError", "round() got multiple values for argument 'ndigits'")
		}
		nd, hasND = args[1], true
	}
	x := args[0]
	if !x.isNumber() {
		return value{}, errAt(line, "TypeError", "type %s doesn't define __round__ method", x.typeName())
	}
	if !hasND {
		if x.k == kInt {
			return x, nil
		}
		return floatToInt(math.RoundToEven(x.f), line)
	}
	if nd.k != kInt {
		return value{}, errAt(line, "TypeError", "'%s' object cannot be interpreted as an integer", nd.typeName())
	}
	if x.k == kInt {
		return roundInt(x.i, nd.i, line)
	}
	return roundFloat(x.f, nd.i, line)
}

// roundInt rounds to a multiple of 10^-n for negative n, half to even.
func roundInt(x, n int64, line int) (value, error) {
	if n >= 0 {
		return intVal(x), nil
	}
	if n < -18 {
		return intVal(0), nil
	}
	p := int64(math.Pow10(int(-n)))
	r := x % p
	if r < 0 {
		r += p
	}
	base := x - r
	if 2*r > p || 2*r == p && (base/p)%2 != 0 {
		sum, err := intOp("+", base, p, line)
		if err != nil {
			return value{}, err
		}
		return sum, nil
	}
	return intVal(base), nil
}

func roundFloat(x float64, n int64, line int) (value, error) {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || n > 330:
		return floatVal(x), nil
	case n < -330:
		return floatVal(math.Copysign(0, x)), nil
	}
	r := new(big.Rat).SetFloat64(x)
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(absInt(n)), nil))
	if n >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	r.SetInt(roundHalfEven(r))
	if n >= 0 {
		r.Quo(r, scale)
	} else {
		r.Mul(r, scale)
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return value{}, errAt(line, "OverflowError", "rounded value too large to represent")
	}
	return floatVal(math.Copysign(f, x)), nil
}

func absInt(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// roundHalfEven rounds a rational to the nearest integer, ties to even.
func roundHalfEven(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	twice := new(big.Int).Abs(m)
	twice.Lsh(twice, 1)
	c := twice.Cmp(r.Denom())
	if c > 0 || c == 0 && q.Bit(0) == 1 {
		if r.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// floatToInt truncates an integral float into an int, as int() does.
func floatToInt(f float64, line int) (value, error) {
	switch {
	case math.IsNaN(f):
		return value{}, errAt(line, "ValueError", "cannot convert float NaN to integer")
	case math.IsInf(f, 0):
		return value{}, errAt(line, "OverflowError", "cannot convert float infinity to integer")
	}
	t := math.Trunc(f)
	if t < -(1<<63) || t >= 1<<63 {
		return value{}, overflow(line)
	}
	return intVal(int64(t)), nil
}

func builtinInt(m *machine, line int, args []value, _ map[string]value) (value, error) {
	if err := argCount("int", line, args, 0, 1); err != nil {
		return value{}, err
	}
	if len(args) == 0 {
		return intVal(0), nil
	}
	switch v := args[0]; v.k {
	case kInt:
		return v, nil
	case kFloat:
		return floatToInt(v.f, line)
	case kStr:
		s := strings.TrimSpace(v.s)
		digits := strings.TrimLeft(s, "+-")
		if len(s)-len(digits) <= 1 && digits != "" && !strings.HasPrefix(digits, "_") && !strings.HasSuffix(digits, "_") &&
			!strings.Contains(digits, "__") && strings.Trim(digits, "0123456789_") == "" {
			n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
			if err == nil {
				return intVal(n), nil
			}
			if isRangeError(err) {
				return value{}, overflow(line)
			}
		}
		return value{}, errAt(line, "ValueError", "invalid literal for int() with base 10: %s", strRepr(clip(v.s, 40)))
	default:
		return value{}, errAt(line, "TypeError", "int() argument must be a string or a real number, not '%s'", v.typeName())
	}
}

func builtinFloat(m *machine, line int, args []value, _ map[string]value) (value, error) {
	if err := argCount("float", line, args, 0, 1); err != nil {
		return value{}, err
	}
	if len(args) == 0 {
		return floatVal(0), nil
	}
	switch v := args[0]; v.k {
	case kInt, kFloat:
		return floatVal(v.float()), nil
	case kStr:
		s := strings.TrimSpace(v.s)
		// Go also reads hex floats and bare underscores, which
		// Python's float() refuses.
		if !strings.ContainsAny(s, "xXpP") && !strings.HasPrefix(s, "_") && !strings.Contains(s, "__") && !strings.HasSuffix(s, "_") {
			f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
			if err == nil || isRangeError(err) {
				return floatVal(f), nil
			}
		}
		return value{}, errAt(line, "ValueError", "could not convert string to float: %s", strRepr(clip(v.s, 40)))
	default:
		return value{}, errAt(line, "TypeError", "float() argument must be a string or a real number, not '%s'", v.typeName())
	}
}

func builtinStr(m *machine, line int, args []value, _ map[string]value) (value, error) {
	if err := argCount("str", line, args, 0, 1); err != nil {
		return value{}, err
	}
	if len(args) == 0 {
		return strVal(""), nil
	}
	s, ok := args[0].str(m.lim.MaxValueLen)
	if !ok {
		return value{}, errAt(line, "LimitExceeded", "a string would be over %d bytes long", m.lim.MaxValueLen)
	}
	return m.newStr(line, s)
}
