package pyexec

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// absentT marks an argument the caller did not pass.
type absentT struct{}

var absent value = &absentT{}

// bind matches positional and keyword arguments to names; the first
// required are required, the rest default to absent.
func bind(fname string, args []value, kw []kwv, names []string, required int) ([]value, error) {
	if len(args) > len(names) {
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() takes at most %d arguments (%d given)", fname, len(names), len(args))}
	}
	out := make([]value, len(names))
	for i := range out {
		out[i] = absent
	}
	copy(out, args)
	for _, k := range kw {
		found := false
		for i, n := range names {
			if n == k.name {
				if out[i] != absent {
					return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() got multiple values for argument '%s'", fname, n)}
				}
				out[i], found = k.v, true
			}
		}
		if !found {
			return nil, &Error{Kind: "TypeError", Msg: invalidKeyword(fname, k.name)}
		}
	}
	for i := 0; i < required; i++ {
		if out[i] == absent {
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() missing required argument '%s' (pos %d)", fname, names[i], i+1)}
		}
	}
	return out, nil
}

func noKw(fname string, kw []kwv) error {
	if len(kw) > 0 {
		return &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() takes no keyword arguments", fname)}
	}
	return nil
}

func argCount(fname string, args []value, lo, hi int) error {
	if len(args) >= lo && len(args) <= hi {
		return nil
	}
	switch {
	case lo == hi && lo == 1:
		return &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() takes exactly one argument (%d given)", fname, len(args))}
	case len(args) < lo:
		return &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s expected at least %d argument%s, got %d", fname, lo, plural(lo), len(args))}
	}
	return &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s expected at most %d argument%s, got %d", fname, hi, plural(hi), len(args))}
}

// invalidKeyword is CPython's message for a built-in called with a
// keyword it does not take (a def'd function says "got an unexpected
// keyword argument" instead).
func invalidKeyword(fname, kw string) string {
	return fmt.Sprintf("'%s' is an invalid keyword argument for %s()", clip(kw, 40), fname)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

type builtinFn = func(m *machine, self value, args []value, kw []kwv) (value, error)

// typeBuiltins are the built-ins that are also types, for isinstance and
// type().
var typeBuiltins = map[string]bool{"int": true, "float": true, "str": true, "bool": true, "list": true, "dict": true,
	"set": true, "frozenset": true, "tuple": true, "range": true, "type": true}

// library is the built-in functions, exception classes and methods one
// Evaluator offers. It is built per Evaluator rather than held in
// package variables, and never changes after New.
type library struct {
	builtins   map[string]*builtinV
	excClasses map[string]*excClass
	methods    map[string]map[string]method
}

func newLibrary() *library {
	fns := map[string]builtinFn{
		"print": builtinPrint, "len": builtinLen, "range": builtinRange, "enumerate": builtinEnumerate, "zip": builtinZip,
		"min": func(m *machine, _ value, args []value, kw []kwv) (value, error) { return m.extreme("min", args, kw) },
		"max": func(m *machine, _ value, args []value, kw []kwv) (value, error) { return m.extreme("max", args, kw) },
		"sum": builtinSum, "sorted": builtinSorted, "reversed": builtinReversed, "round": builtinRound, "abs": builtinAbs,
		"int": builtinInt, "float": builtinFloat, "str": builtinStr, "bool": builtinBool, "list": builtinList,
		"tuple": builtinTuple, "dict": builtinDict, "set": builtinSet, "frozenset": builtinFrozenset, "any": builtinAny,
		"all": builtinAll, "map": builtinMap, "filter": builtinFilter, "isinstance": builtinIsinstance, "type": builtinType,
		"divmod": builtinDivmod, "pow": builtinPow, "repr": builtinRepr, "chr": builtinChr, "ord": builtinOrd,
		"format": builtinFormat, "iter": builtinIter, "next": builtinNext, "callable": builtinCallable,
		"hex": builtinBase(16, "0x"), "bin": builtinBase(2, "0b"), "oct": builtinBase(8, "0o"), "hash": builtinHash,
	}
	lib := &library{builtins: make(map[string]*builtinV, len(fns)), excClasses: map[string]*excClass{}, methods: builtinMethods()}
	for name, fn := range fns {
		lib.builtins[name] = &builtinV{name: name, fn: fn, typ: typeBuiltins[name]}
	}
	for k := range excParents {
		lib.excClasses[k] = &excClass{name: k}
	}
	lib.excClasses["BaseException"] = &excClass{name: "BaseException"}
	return lib
}

func builtinPrint(m *machine, _ value, args []value, kw []kwv) (value, error) {
	sep, end := " ", "\n"
	for _, k := range kw {
		switch k.name {
		case "sep", "end":
			dst := &sep
			if k.name == "end" {
				dst = &end
			}
			switch v := k.v.(type) {
			case nil:
			case string:
				*dst = v
			default:
				return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s must be None or a string, not %s", k.name, typeName(v))}
			}
		case "flush":
		case "file":
			return nil, &Error{Kind: "Unsupported", Msg: "print(file=...) is not supported: python_execute has no files"}
		default:
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' is an invalid keyword argument for print()", clip(k.name, 40))}
		}
	}
	tooMuch := func() error {
		return &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("output limit: the code printed more than %d bytes", m.lim.MaxOutputBytes)}
	}
	for i, a := range args {
		if i > 0 {
			if m.out.Len()+len(sep) > m.lim.MaxOutputBytes {
				return nil, tooMuch()
			}
			m.out.WriteString(sep)
		}
		p := printer{limit: m.lim.MaxOutputBytes - m.out.Len()}
		p.str(a)
		if p.deep {
			return nil, p.err("")
		}
		if p.over {
			return nil, tooMuch()
		}
		if err := m.step(p.cost()); err != nil {
			return nil, err
		}
		m.out.WriteString(p.b.String())
	}
	if m.out.Len()+len(end) > m.lim.MaxOutputBytes {
		return nil, tooMuch()
	}
	m.out.WriteString(end)
	return nil, nil
}

func builtinLen(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("len", kw); err != nil {
		return nil, err
	}
	if err := argCount("len", args, 1, 1); err != nil {
		return nil, err
	}
	switch v := args[0].(type) {
	case string:
		if err := m.step(len(v) / 16); err != nil {
			return nil, err
		}
		return int64(utf8.RuneCountInString(v)), nil
	case *listV:
		return int64(len(v.items)), nil
	case *tupleV:
		return int64(len(v.items)), nil
	case *dictV:
		return int64(len(v.keys)), nil
	case *setV:
		return int64(len(v.items)), nil
	case *rangeV:
		return v.length(), nil
	case *iterV:
		if strings.HasPrefix(v.typ, "dict_") {
			return int64(len(v.items)), nil
		}
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("object of type '%s' has no len()", typeName(args[0]))}
}

func toIndex(v value) (int64, error) {
	i, _, isInt, ok := asNumber(v)
	if !ok || !isInt {
		return 0, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object cannot be interpreted as an integer", typeName(v))}
	}
	return i, nil
}

func builtinRange(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("range", kw); err != nil {
		return nil, err
	}
	if err := argCount("range", args, 1, 3); err != nil {
		return nil, err
	}
	nums := make([]int64, len(args))
	for i, a := range args {
		n, err := toIndex(a)
		if err != nil {
			return nil, err
		}
		nums[i] = n
	}
	r := &rangeV{step: 1}
	switch len(nums) {
	case 1:
		r.stop = nums[0]
	case 2:
		r.start, r.stop = nums[0], nums[1]
	case 3:
		r.start, r.stop, r.step = nums[0], nums[1], nums[2]
		if r.step == 0 {
			return nil, &Error{Kind: "ValueError", Msg: "range() arg 3 must not be zero"}
		}
	}
	// Keep lengths computable without overflow.
	const bound = 1 << 60
	if r.start > bound || r.start < -bound || r.stop > bound || r.stop < -bound || r.step > bound || r.step < -bound {
		return nil, overflow()
	}
	return r, nil
}

func (m *machine) iterResult(typ string, items []value) (value, error) {
	if err := m.checkLen(len(items), 16, typ); err != nil {
		return nil, err
	}
	return &iterV{typ: typ, items: items}, nil
}

func builtinEnumerate(m *machine, _ value, args []value, kw []kwv) (value, error) {
	a, err := bind("enumerate", args, kw, []string{"iterable", "start"}, 1)
	if err != nil {
		return nil, err
	}
	start := int64(0)
	if a[1] != absent {
		if start, err = toIndex(a[1]); err != nil {
			return nil, err
		}
	}
	var out []value
	err = m.iterate(a[0], func(v value) (bool, error) {
		if err := m.grow(len(out)+1, 1, 48, "list"); err != nil {
			return false, err
		}
		out = append(out, &tupleV{items: []value{start + int64(len(out)), v}})
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &iterV{typ: "enumerate", items: out}, nil
}

func builtinZip(m *machine, _ value, args []value, kw []kwv) (value, error) {
	strict := false
	for _, k := range kw {
		if k.name != "strict" {
			return nil, &Error{Kind: "TypeError", Msg: invalidKeyword("zip", k.name)}
		}
		strict = truthy(k.v)
	}
	lists := make([][]value, len(args))
	n := -1
	for i, a := range args {
		items, err := m.items(a)
		if err != nil {
			return nil, err
		}
		lists[i] = items
		if n < 0 || len(items) < n {
			if strict && n >= 0 {
				return nil, &Error{Kind: "ValueError", Msg: fmt.Sprintf("zip() argument %d is shorter than argument 1", i+1)}
			}
			n = len(items)
		} else if strict && len(items) > n {
			return nil, &Error{Kind: "ValueError", Msg: fmt.Sprintf("zip() argument %d is longer than argument 1", i+1)}
		}
	}
	n = max(n, 0)
	if err := m.checkLen(n, 16*(len(args)+1), "list"); err != nil {
		return nil, err
	}
	if err := m.step(n); err != nil {
		return nil, err
	}
	out := make([]value, n)
	for i := range out {
		t := make([]value, len(args))
		for j := range lists {
			t[j] = lists[j][i]
		}
		out[i] = &tupleV{items: t}
	}
	return &iterV{typ: "zip", items: out}, nil
}

// extreme is min or max: over one iterable or several arguments, with
// key= and default=.
func (m *machine) extreme(name string, args []value, kw []kwv) (value, error) {
	var key, def value = nil, absent
	for _, k := range kw {
		switch k.name {
		case "key":
			key = k.v
		case "default":
			def = k.v
		default:
			return nil, &Error{Kind: "TypeError", Msg: invalidKeyword(name, k.name)}
		}
	}
	var items []value
	switch len(args) {
	case 0:
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s expected at least 1 argument, got 0", name)}
	case 1:
		var err error
		if items, err = m.items(args[0]); err != nil {
			return nil, err
		}
		if len(items) == 0 {
			if def != absent {
				return def, nil
			}
			return nil, &Error{Kind: "ValueError", Msg: name + "() arg is an empty sequence"}
		}
	default:
		if def != absent {
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("Cannot specify a default for %s() with multiple positional arguments", name)}
		}
		items = args
	}
	if err := m.step(len(items)); err != nil {
		return nil, err
	}
	best := items[0]
	bestKey, err := m.callKey(key, best)
	if err != nil {
		return nil, err
	}
	for _, it := range items[1:] {
		k, err := m.callKey(key, it)
		if err != nil {
			return nil, err
		}
		var better bool
		if name == "min" {
			better, err = m.order("<", k, bestKey)
		} else {
			better, err = m.order(">", k, bestKey)
		}
		if err != nil {
			return nil, err
		}
		if better {
			best, bestKey = it, k
		}
	}
	return best, nil
}

func builtinSum(m *machine, _ value, args []value, kw []kwv) (value, error) {
	a, err := bind("sum", args, kw, []string{"iterable", "start"}, 1)
	if err != nil {
		return nil, err
	}
	var total value = int64(0)
	if a[1] != absent {
		total = a[1]
		if _, ok := total.(string); ok {
			return nil, &Error{Kind: "TypeError", Msg: "sum() can't sum strings [use ''.join(seq) instead]"}
		}
	}
	// CPython adds floats with plain double addition, left to right.
	err = m.iterate(a[0], func(v value) (bool, error) {
		if err := m.step(1); err != nil {
			return false, err
		}
		t, err := m.binary("+", total, v)
		if err != nil {
			return false, err
		}
		total = t
		return true, nil
	})
	return total, err
}

// sortValues sorts stably by key with Python's <, failing on the first
// pair that does not order.
func (m *machine) sortValues(items []value, key value, reverse bool) error {
	keys := make([]value, len(items))
	for i, it := range items {
		k, err := m.callKey(key, it)
		if err != nil {
			return err
		}
		keys[i] = k
	}
	if err := m.step(len(items) * (bitsLen(len(items)) + 1)); err != nil {
		return err
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	var sortErr error
	sort.SliceStable(idx, func(a, b int) bool {
		if sortErr != nil {
			return false
		}
		ka, kb := keys[idx[a]], keys[idx[b]]
		if reverse {
			ka, kb = kb, ka
		}
		lt, err := m.order("<", ka, kb)
		if err != nil {
			sortErr = err
		}
		return lt
	})
	if sortErr != nil {
		return sortErr
	}
	sorted := make([]value, len(items))
	for i, j := range idx {
		sorted[i] = items[j]
	}
	copy(items, sorted)
	return nil
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

func sortArgs(fname string, kw []kwv) (key value, reverse bool, err error) {
	for _, k := range kw {
		switch k.name {
		case "key":
			key = k.v
		case "reverse":
			reverse = truthy(k.v)
		default:
			return nil, false, &Error{Kind: "TypeError", Msg: invalidKeyword(fname, k.name)}
		}
	}
	return key, reverse, nil
}

func builtinSorted(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if len(args) != 1 {
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("sorted expected 1 argument, got %d", len(args))}
	}
	key, reverse, err := sortArgs("sort", kw)
	if err != nil {
		return nil, err
	}
	items, err := m.items(args[0])
	if err != nil {
		return nil, err
	}
	l, err := m.newList(append([]value(nil), items...))
	if err != nil {
		return nil, err
	}
	if reverse {
		// Python's reverse sort keeps equal items in their order.
		return l, m.sortValues(l.items, key, true)
	}
	return l, m.sortValues(l.items, key, false)
}

func builtinReversed(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("reversed", kw); err != nil {
		return nil, err
	}
	if err := argCount("reversed", args, 1, 1); err != nil {
		return nil, err
	}
	switch args[0].(type) {
	case *setV, *iterV:
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object is not reversible", typeName(args[0]))}
	}
	items, err := m.items(args[0])
	if err != nil {
		return nil, err
	}
	if err := m.step(len(items)); err != nil {
		return nil, err
	}
	out := make([]value, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return m.iterResult("list_reverseiterator", out)
}

// builtinRound is Python's round: half to even, on the float's exact
// binary value (round(2.675, 2) is 2.67).
func builtinRound(m *machine, _ value, args []value, kw []kwv) (value, error) {
	a, err := bind("round", args, kw, []string{"number", "ndigits"}, 1)
	if err != nil {
		return nil, err
	}
	i, f, isInt, ok := asNumber(a[0])
	if !ok {
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("type %s doesn't define __round__ method", typeName(a[0]))}
	}
	if a[1] == absent || a[1] == nil {
		if isInt {
			return i, nil
		}
		return floatToInt(math.RoundToEven(f))
	}
	nd, err := toIndex(a[1])
	if err != nil {
		return nil, err
	}
	if isInt {
		return roundInt(i, nd)
	}
	return roundFloat(f, nd)
}

// roundInt rounds to a multiple of 10^-n for negative n, half to even.
func roundInt(x, n int64) (value, error) {
	if n >= 0 {
		return x, nil
	}
	if n < -18 {
		return int64(0), nil
	}
	p := int64(math.Pow10(int(-n)))
	r := x % p
	if r < 0 {
		r += p
	}
	base := x - r
	if 2*r > p || 2*r == p && (base/p)%2 != 0 {
		return intOp("+", base, p)
	}
	return base, nil
}

func roundFloat(x float64, n int64) (value, error) {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || n > 330:
		return x, nil
	case n < -330:
		return math.Copysign(0, x), nil
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
		return nil, &Error{Kind: "OverflowError", Msg: "rounded value too large to represent"}
	}
	return math.Copysign(f, x), nil
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

// floatToInt truncates a float into an int, as int() does.
func floatToInt(f float64) (value, error) {
	switch {
	case math.IsNaN(f):
		return nil, &Error{Kind: "ValueError", Msg: "cannot convert float NaN to integer"}
	case math.IsInf(f, 0):
		return nil, &Error{Kind: "OverflowError", Msg: "cannot convert float infinity to integer"}
	}
	t := math.Trunc(f)
	if t < -(1<<63) || t >= 1<<63 {
		return nil, overflow()
	}
	return int64(t), nil
}

func builtinAbs(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("abs", kw); err != nil {
		return nil, err
	}
	if err := argCount("abs", args, 1, 1); err != nil {
		return nil, err
	}
	i, f, isInt, ok := asNumber(args[0])
	switch {
	case !ok:
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("bad operand type for abs(): '%s'", typeName(args[0]))}
	case isInt && i == math.MinInt64:
		return nil, overflow()
	case isInt:
		return absInt(i), nil
	}
	return math.Abs(f), nil
}

func builtinInt(m *machine, _ value, args []value, kw []kwv) (value, error) {
	a, err := bind("int", args, kw, []string{"x", "base"}, 0)
	if err != nil {
		return nil, err
	}
	if a[0] == absent {
		return int64(0), nil
	}
	base := int64(10)
	if a[1] != absent {
		if base, err = toIndex(a[1]); err != nil {
			return nil, err
		}
		if _, ok := a[0].(string); !ok {
			return nil, &Error{Kind: "TypeError", Msg: "int() can't convert non-string with explicit base"}
		}
		if base != 0 && (base < 2 || base > 36) {
			return nil, &Error{Kind: "ValueError", Msg: "int() base must be >= 2 and <= 36, or 0"}
		}
	}
	switch v := a[0].(type) {
	case bool, int64:
		i, _, _, _ := asNumber(v)
		return i, nil
	case float64:
		return floatToInt(v)
	case string:
		s := strings.TrimSpace(v)
		digits := strings.TrimLeft(s, "+-")
		b := int(base)
		if b == 0 || b == 16 || b == 8 || b == 2 {
			low := strings.ToLower(digits)
			for _, pre := range []struct {
				p string
				b int
			}{{"0x", 16}, {"0o", 8}, {"0b", 2}} {
				if strings.HasPrefix(low, pre.p) && (b == 0 || b == pre.b) {
					digits, b = digits[2:], pre.b
				}
			}
			if b == 0 {
				b = 10
			}
		}
		if len(s)-len(strings.TrimLeft(s, "+-")) <= 1 && digits != "" && !strings.HasPrefix(digits, "_") && !strings.HasSuffix(digits, "_") &&
			!strings.Contains(digits, "__") {
			n, err := strconv.ParseInt(strings.ReplaceAll(digits, "_", ""), b, 64)
			if err == nil {
				if strings.HasPrefix(s, "-") {
					n = -n
				}
				return n, nil
			}
			if isRangeError(err) {
				return nil, overflow()
			}
		}
		return nil, &Error{Kind: "ValueError", Msg: fmt.Sprintf("invalid literal for int() with base %d: %s", base, strRepr(clip(v, 40)))}
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("int() argument must be a string, a bytes-like object or a real number, not '%s'", typeName(a[0]))}
}

// parseFloat reads a float the way Python's float() does.
func parseFloat(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case "inf", "infinity":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	// Go also reads hex floats and bare underscores, which Python's
	// float() refuses.
	if s == "" || strings.ContainsAny(s, "xXpP") || strings.HasPrefix(s, "_") || strings.Contains(s, "__") || strings.HasSuffix(s, "_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err == nil || isRangeError(err) {
		return f, true
	}
	return 0, false
}

func builtinFloat(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("float", kw); err != nil {
		return nil, err
	}
	if err := argCount("float", args, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return 0.0, nil
	}
	switch v := args[0].(type) {
	case bool, int64, float64:
		return toFloat(v), nil
	case string:
		if f, ok := parseFloat(v); ok {
			return f, nil
		}
		return nil, &Error{Kind: "ValueError", Msg: fmt.Sprintf("could not convert string to float: %s", strRepr(clip(v, 40)))}
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("float() argument must be a string or a real number, not '%s'", typeName(args[0]))}
}

func builtinStr(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("str", kw); err != nil {
		return nil, err
	}
	if err := argCount("str", args, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return "", nil
	}
	return m.strOf(args[0])
}

func builtinRepr(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("repr", kw); err != nil {
		return nil, err
	}
	if err := argCount("repr", args, 1, 1); err != nil {
		return nil, err
	}
	return m.reprOf(args[0])
}

func builtinBool(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("bool", kw); err != nil {
		return nil, err
	}
	if err := argCount("bool", args, 0, 1); err != nil {
		return nil, err
	}
	return len(args) == 1 && truthy(args[0]), nil
}

// copyItems materializes an iterable into a fresh slice, accounted for.
func (m *machine) copyItems(v value) ([]value, error) {
	items, err := m.items(v)
	if err != nil {
		return nil, err
	}
	if err := m.step(len(items)); err != nil {
		return nil, err
	}
	return append([]value(nil), items...), nil
}

func builtinList(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("list", kw); err != nil {
		return nil, err
	}
	if err := argCount("list", args, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return &listV{}, nil
	}
	items, err := m.copyItems(args[0])
	if err != nil {
		return nil, err
	}
	return m.newList(items)
}

func builtinTuple(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("tuple", kw); err != nil {
		return nil, err
	}
	if err := argCount("tuple", args, 0, 1); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		return &tupleV{}, nil
	}
	if t, ok := args[0].(*tupleV); ok {
		return t, nil
	}
	items, err := m.copyItems(args[0])
	if err != nil {
		return nil, err
	}
	return m.newTuple(items)
}

func builtinSet(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("set", kw); err != nil {
		return nil, err
	}
	if err := argCount("set", args, 0, 1); err != nil {
		return nil, err
	}
	s := newSet()
	if len(args) == 1 {
		err := m.iterate(args[0], func(v value) (bool, error) {
			return true, m.setAdd(s, v)
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func builtinFrozenset(m *machine, self value, args []value, kw []kwv) (value, error) {
	v, err := builtinSet(m, self, args, kw)
	if err != nil {
		return nil, err
	}
	v.(*setV).frozen = true
	return v, nil
}

func builtinDict(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := argCount("dict", args, 0, 1); err != nil {
		return nil, err
	}
	d := newDict()
	if len(args) == 1 {
		if err := m.dictUpdate(d, args[0]); err != nil {
			return nil, err
		}
	}
	for _, k := range kw {
		if err := m.dictSet(d, k.name, k.v); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// dictUpdate adds a mapping's items or an iterable's key-value pairs.
func (m *machine) dictUpdate(d *dictV, src value) error {
	if sd, ok := src.(*dictV); ok {
		return m.dictMerge(d, sd)
	}
	n := 0
	return m.iterate(src, func(v value) (bool, error) {
		pair, err := m.items(v)
		if err != nil {
			return false, &Error{Kind: "TypeError", Msg: fmt.Sprintf("cannot convert dictionary update sequence element #%d to a sequence", n)}
		}
		if len(pair) != 2 {
			return false, &Error{Kind: "ValueError", Msg: fmt.Sprintf("dictionary update sequence element #%d has length %d; 2 is required", n, len(pair))}
		}
		n++
		return true, m.dictSet(d, pair[0], pair[1])
	})
}

func builtinAny(m *machine, _ value, args []value, kw []kwv) (value, error) {
	return anyAll(m, "any", args, kw, true)
}

func builtinAll(m *machine, _ value, args []value, kw []kwv) (value, error) {
	return anyAll(m, "all", args, kw, false)
}

func anyAll(m *machine, name string, args []value, kw []kwv, want bool) (value, error) {
	if err := noKw(name, kw); err != nil {
		return nil, err
	}
	if err := argCount(name, args, 1, 1); err != nil {
		return nil, err
	}
	found := false
	err := m.iterate(args[0], func(v value) (bool, error) {
		if err := m.step(1); err != nil {
			return false, err
		}
		if truthy(v) == want {
			found = true
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return found == want, nil
}

func builtinMap(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("map", kw); err != nil {
		return nil, err
	}
	if len(args) < 2 {
		return nil, &Error{Kind: "TypeError", Msg: "map() must have at least two arguments."}
	}
	z, err := builtinZip(m, nil, args[1:], nil)
	if err != nil {
		return nil, err
	}
	tuples := z.(*iterV).items
	out := make([]value, len(tuples))
	for i, t := range tuples {
		v, err := m.call(args[0], t.(*tupleV).items, nil)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return &iterV{typ: "map", items: out}, nil
}

func builtinFilter(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("filter", kw); err != nil {
		return nil, err
	}
	if err := argCount("filter", args, 2, 2); err != nil {
		return nil, err
	}
	var out []value
	err := m.iterate(args[1], func(v value) (bool, error) {
		keep := v
		if args[0] != nil {
			k, err := m.call(args[0], []value{v}, nil)
			if err != nil {
				return false, err
			}
			keep = k
		}
		if truthy(keep) {
			out = append(out, v)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &iterV{typ: "filter", items: out}, nil
}

// isInstance is isinstance(v, t) for one type t.
func isInstance(v, t value) (bool, error) {
	switch t := t.(type) {
	case *builtinV:
		if !t.typ {
			break
		}
		name := typeName(v)
		if t.name == "int" && name == "bool" {
			return true, nil
		}
		return name == t.name, nil
	case *excClass:
		e, ok := v.(*excV)
		if !ok {
			return false, nil
		}
		return excMatches(e.kind, t)
	case *tupleV:
		for _, it := range t.items {
			ok, err := isInstance(v, it)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	return false, &Error{Kind: "TypeError", Msg: "isinstance() arg 2 must be a type, a tuple of types, or a union"}
}

func builtinIsinstance(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("isinstance", kw); err != nil {
		return nil, err
	}
	if err := argCount("isinstance", args, 2, 2); err != nil {
		return nil, err
	}
	return isInstance(args[0], args[1])
}

func builtinType(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("type", kw); err != nil {
		return nil, err
	}
	if len(args) != 1 {
		return nil, &Error{Kind: "Unsupported", Msg: "type() with three arguments (making a class) is not supported"}
	}
	name := typeName(args[0])
	if b, ok := m.lib.builtins[name]; ok && b.typ {
		return b, nil
	}
	if c, ok := m.lib.excClasses[name]; ok {
		return c, nil
	}
	return &builtinV{name: name, typ: true, fn: func(*machine, value, []value, []kwv) (value, error) {
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("cannot create '%s' instances", name)}
	}}, nil
}

func builtinDivmod(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("divmod", kw); err != nil {
		return nil, err
	}
	if err := argCount("divmod", args, 2, 2); err != nil {
		return nil, err
	}
	q, err := m.binary("//", args[0], args[1])
	if err != nil {
		return nil, err
	}
	r, err := m.binary("%", args[0], args[1])
	if err != nil {
		return nil, err
	}
	return &tupleV{items: []value{q, r}}, nil
}

func builtinPow(m *machine, _ value, args []value, kw []kwv) (value, error) {
	a, err := bind("pow", args, kw, []string{"base", "exp", "mod"}, 2)
	if err != nil {
		return nil, err
	}
	if a[2] == absent || a[2] == nil {
		return m.binary("**", a[0], a[1])
	}
	b, e, mod := [3]int64{}, int64(0), int64(0)
	for i, dst := range []*int64{&b[0], &e, &mod} {
		if *dst, err = toIndex(a[i]); err != nil {
			return nil, &Error{Kind: "TypeError", Msg: "pow() 3rd argument not allowed unless all arguments are integers"}
		}
	}
	if mod == 0 {
		return nil, &Error{Kind: "ValueError", Msg: "pow() 3rd argument cannot be 0"}
	}
	if e < 0 {
		return nil, &Error{Kind: "Unsupported", Msg: "pow() with a negative exponent and a modulus is not supported"}
	}
	r := new(big.Int).Exp(big.NewInt(b[0]), big.NewInt(e), big.NewInt(mod))
	if r.Sign() != 0 && (r.Sign() < 0) != (mod < 0) {
		r.Add(r, big.NewInt(mod))
	}
	return r.Int64(), nil
}

func builtinChr(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("chr", kw); err != nil {
		return nil, err
	}
	if err := argCount("chr", args, 1, 1); err != nil {
		return nil, err
	}
	i, err := toIndex(args[0])
	if err != nil {
		return nil, err
	}
	if i < 0 || i > 0x10ffff || i >= 0xd800 && i <= 0xdfff {
		return nil, &Error{Kind: "ValueError", Msg: "chr() arg not in range(0x110000)"}
	}
	return string(rune(i)), nil
}

func builtinOrd(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("ord", kw); err != nil {
		return nil, err
	}
	if err := argCount("ord", args, 1, 1); err != nil {
		return nil, err
	}
	s, ok := args[0].(string)
	if !ok {
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("ord() expected string of length 1, but %s found", typeName(args[0]))}
	}
	if utf8.RuneCountInString(s) != 1 {
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("ord() expected a character, but string of length %d found", utf8.RuneCountInString(s))}
	}
	r, _ := utf8.DecodeRuneInString(s)
	return int64(r), nil
}

func builtinFormat(m *machine, _ value, args []value, kw []kwv) (value, error) {
	a, err := bind("format", args, kw, []string{"value", "format_spec"}, 1)
	if err != nil {
		return nil, err
	}
	spec := ""
	if a[1] != absent {
		s, ok := a[1].(string)
		if !ok {
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("format() argument 2 must be str, not %s", typeName(a[1]))}
		}
		spec = s
	}
	s, err := m.format(a[0], spec)
	if err != nil {
		return nil, err
	}
	return m.newStr(s)
}

func builtinIter(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("iter", kw); err != nil {
		return nil, err
	}
	if err := argCount("iter", args, 1, 1); err != nil {
		return nil, err
	}
	if it, ok := args[0].(*iterV); ok {
		return it, nil
	}
	items, err := m.copyItems(args[0])
	if err != nil {
		return nil, err
	}
	return m.iterResult(typeName(args[0])+"_iterator", items)
}

func builtinNext(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := noKw("next", kw); err != nil {
		return nil, err
	}
	if err := argCount("next", args, 1, 2); err != nil {
		return nil, err
	}
	it, ok := args[0].(*iterV)
	if !ok || strings.HasPrefix(it.typ, "dict_") {
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object is not an iterator", typeName(args[0]))}
	}
	if it.pos >= len(it.items) {
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, &Error{Kind: "StopIteration"}
	}
	it.pos++
	return it.items[it.pos-1], nil
}

func builtinCallable(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := argCount("callable", args, 1, 1); err != nil {
		return nil, err
	}
	switch args[0].(type) {
	case *builtinV, *funcV, *excClass:
		return true, nil
	}
	return false, nil
}

func builtinHash(m *machine, _ value, args []value, kw []kwv) (value, error) {
	return nil, &Error{Kind: "Unsupported", Msg: "hash() is not supported: it differs between Python runs"}
}

func builtinBase(base int, prefix string) builtinFn {
	return func(m *machine, _ value, args []value, kw []kwv) (value, error) {
		if err := argCount(prefix, args, 1, 1); err != nil {
			return nil, err
		}
		i, err := toIndex(args[0])
		if err != nil {
			return nil, err
		}
		if i < 0 {
			return "-" + prefix + strconv.FormatUint(uint64(-(i+1))+1, base), nil
		}
		return prefix + strconv.FormatInt(i, base), nil
	}
}
