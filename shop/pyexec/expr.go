package pyexec

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// sliceVal is an evaluated lo:hi:step (nil parts absent).
type sliceVal struct{ lo, hi, step value }

// maxEvalNest bounds expressions being evaluated inside each other,
// across calls. The parser bounds brackets, but not a chain such as
// a+b+...+z (a left-deep tree), and such a chain in a function recursing
// 100 deep would grow the Go stack by hundreds of megabytes.
const maxEvalNest = 5000

func (m *machine) eval(x expr, sc *scope) (value, error) {
	if m.nest >= maxEvalNest {
		return nil, &Error{Kind: "RecursionError", Msg: fmt.Sprintf("maximum recursion depth exceeded (expressions nested more than %d deep, counting calls)", maxEvalNest)}
	}
	m.nest++
	v, err := m.evalNode(x, sc)
	m.nest--
	return v, err
}

func (m *machine) evalNode(x expr, sc *scope) (value, error) {
	if err := m.step(1); err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case *constExpr:
		return x.v, nil
	case *nameExpr:
		return m.lookup(x.id, sc, x.ln)
	case *fstrExpr:
		var b strings.Builder
		if err := m.fstring(&b, x.parts, sc); err != nil {
			return nil, err
		}
		return m.newStr(b.String())
	case *seqExpr:
		items, err := m.evalElems(x.elems, sc)
		if err != nil {
			return nil, err
		}
		switch x.kind {
		case '[':
			return m.newList(items)
		case '(':
			return m.newTuple(items)
		}
		s := newSet()
		for _, it := range items {
			if err := m.setAdd(s, it); err != nil {
				return nil, err
			}
		}
		return s, nil
	case *dictExpr:
		d := newDict()
		for i, kx := range x.keys {
			if kx == nil {
				src, err := m.eval(x.vals[i], sc)
				if err != nil {
					return nil, err
				}
				sd, ok := src.(*dictV)
				if !ok {
					return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object is not a mapping", typeName(src))}
				}
				if err := m.dictMerge(d, sd); err != nil {
					return nil, err
				}
				continue
			}
			k, err := m.eval(kx, sc)
			if err != nil {
				return nil, err
			}
			v, err := m.eval(x.vals[i], sc)
			if err != nil {
				return nil, err
			}
			if err := m.dictSet(d, k, v); err != nil {
				return nil, err
			}
		}
		return d, nil
	case *compExpr:
		return m.comprehension(x, sc)
	case *unaryExpr:
		v, err := m.eval(x.x, sc)
		if err != nil {
			return nil, err
		}
		return unary(x.op, v)
	case *binExpr:
		l, err := m.eval(x.l, sc)
		if err != nil {
			return nil, err
		}
		r, err := m.eval(x.r, sc)
		if err != nil {
			return nil, err
		}
		return m.binary(x.op, l, r)
	case *boolExpr:
		l, err := m.eval(x.l, sc)
		if err != nil {
			return nil, err
		}
		if truthy(l) != x.and {
			return l, nil
		}
		return m.eval(x.r, sc)
	case *notExpr:
		v, err := m.eval(x.x, sc)
		if err != nil {
			return nil, err
		}
		return !truthy(v), nil
	case *cmpExpr:
		l, err := m.eval(x.first, sc)
		if err != nil {
			return nil, err
		}
		for i, op := range x.ops {
			r, err := m.eval(x.rest[i], sc)
			if err != nil {
				return nil, err
			}
			ok, err := m.compare(op, l, r)
			if err != nil {
				return nil, err
			}
			if !ok {
				return false, nil
			}
			l = r
		}
		return true, nil
	case *condExpr:
		c, err := m.eval(x.cond, sc)
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return m.eval(x.a, sc)
		}
		return m.eval(x.b, sc)
	case *lambdaExpr:
		f, err := m.makeFunc("<lambda>", x.params, sc)
		if err != nil {
			return nil, err
		}
		f.lambda = x.body
		f.locals = map[string]bool{}
		for _, p := range x.params {
			f.locals[p.name] = true
		}
		return f, nil
	case *callExpr:
		fn, err := m.eval(x.fn, sc)
		if err != nil {
			return nil, err
		}
		var args []value
		var kw []kwv
		for _, a := range x.args {
			v, err := m.eval(a.x, sc)
			if err != nil {
				return nil, err
			}
			switch {
			case a.star == 1:
				items, err := m.items(v)
				if err != nil {
					return nil, err
				}
				args = append(args, items...)
			case a.star == 2:
				d, ok := v.(*dictV)
				if !ok {
					return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("argument after ** must be a mapping, not %s", typeName(v))}
				}
				for i, k := range d.keys {
					ks, ok := k.(string)
					if !ok {
						return nil, &Error{Kind: "TypeError", Msg: "keywords must be strings"}
					}
					kw = append(kw, kwv{ks, d.vals[i]})
				}
			case a.name != "":
				kw = append(kw, kwv{a.name, v})
			default:
				args = append(args, v)
			}
		}
		return m.call(fn, args, kw)
	case *indexExpr:
		obj, err := m.eval(x.x, sc)
		if err != nil {
			return nil, err
		}
		idx, err := m.eval(x.i, sc)
		if err != nil {
			return nil, err
		}
		return m.getItem(obj, idx)
	case *sliceExpr:
		s := &sliceVal{}
		for _, p := range []struct {
			x   expr
			dst *value
		}{{x.lo, &s.lo}, {x.hi, &s.hi}, {x.step, &s.step}} {
			if p.x != nil {
				v, err := m.eval(p.x, sc)
				if err != nil {
					return nil, err
				}
				*p.dst = v
			}
		}
		return s, nil
	case *attrExpr:
		obj, err := m.eval(x.x, sc)
		if err != nil {
			return nil, err
		}
		return m.attr(obj, x.name)
	case *starExpr:
		return nil, &Error{Kind: "SyntaxError", Msg: "can't use starred expression here"}
	case *walrusExpr:
		v, err := m.eval(x.x, sc)
		if err != nil {
			return nil, err
		}
		t := sc
		for t.compTop && t.parent != nil {
			t = t.parent
		}
		return v, m.setName(x.name, v, t)
	}
	return nil, &Error{Kind: "SyntaxError", Msg: "unknown expression"}
}

// evalElems evaluates display items, expanding *iterables.
func (m *machine) evalElems(elems []expr, sc *scope) ([]value, error) {
	items := make([]value, 0, len(elems))
	for _, e := range elems {
		if st, ok := e.(*starExpr); ok {
			v, err := m.eval(st.x, sc)
			if err != nil {
				return nil, err
			}
			more, err := m.items(v)
			if err != nil {
				return nil, err
			}
			items = append(items, more...)
			continue
		}
		v, err := m.eval(e, sc)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
	return items, nil
}

func (m *machine) comprehension(x *compExpr, sc *scope) (value, error) {
	inner := &scope{vars: map[string]value{}, parent: sc, compTop: true}
	var items []value
	var d *dictV
	var set *setV
	switch x.kind {
	case 'd':
		d = newDict()
	case '{':
		set = newSet()
	}
	var loop func(level int) error
	loop = func(level int) error {
		if level == len(x.fors) {
			k, err := m.eval(x.elt, inner)
			if err != nil {
				return err
			}
			switch x.kind {
			case 'd':
				v, err := m.eval(x.val, inner)
				if err != nil {
					return err
				}
				return m.dictSet(d, k, v)
			case '{':
				return m.setAdd(set, k)
			}
			if err := m.grow(len(items)+1, 1, 16, "list"); err != nil {
				return err
			}
			items = append(items, k)
			return nil
		}
		f := x.fors[level]
		// The first iterable is evaluated in the enclosing scope.
		evalIn := inner
		if level == 0 {
			evalIn = sc
		}
		it, err := m.eval(f.iter, evalIn)
		if err != nil {
			return err
		}
		return m.iterate(it, func(v value) (bool, error) {
			if err := m.assign(f.target, v, inner); err != nil {
				return false, err
			}
			for _, c := range f.ifs {
				cv, err := m.eval(c, inner)
				if err != nil {
					return false, err
				}
				if !truthy(cv) {
					return true, nil
				}
			}
			return true, loop(level + 1)
		})
	}
	if err := loop(0); err != nil {
		return nil, err
	}
	switch x.kind {
	case 'd':
		return d, nil
	case '{':
		return set, nil
	case '(':
		return &iterV{typ: "generator", items: items}, nil
	}
	return &listV{items: items}, nil
}

// iterate calls fn on each item of an iterable until fn returns false.
func (m *machine) iterate(v value, fn func(value) (bool, error)) error {
	switch v := v.(type) {
	case *listV:
		// Python walks a list by index, so appending while iterating
		// makes the loop go on (bounded by the step and size limits).
		for i := 0; i < len(v.items); i++ {
			more, err := fn(v.items[i])
			if err != nil || !more {
				return err
			}
		}
		return nil
	case *rangeV:
		n := v.length()
		for i := int64(0); i < n; i++ {
			if err := m.step(1); err != nil {
				return err
			}
			more, err := fn(v.start + i*v.step)
			if err != nil || !more {
				return err
			}
		}
		return nil
	case *iterV:
		for v.pos < len(v.items) {
			it := v.items[v.pos]
			v.pos++
			more, err := fn(it)
			if err != nil || !more {
				return err
			}
		}
		return nil
	case *dictV:
		keys := v.keys
		n := len(keys)
		for i := 0; i < n; i++ {
			if len(v.keys) != n {
				return &Error{Kind: "RuntimeError", Msg: "dictionary changed size during iteration"}
			}
			more, err := fn(v.keys[i])
			if err != nil || !more {
				return err
			}
		}
		return nil
	}
	items, err := m.items(v)
	if err != nil {
		return err
	}
	for _, it := range items {
		more, err := fn(it)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// items returns the items of an iterable as a slice the caller must not
// change (it may be the container's own).
func (m *machine) items(v value) ([]value, error) {
	switch v := v.(type) {
	case *listV:
		return v.items, nil
	case *tupleV:
		return v.items, nil
	case *setV:
		return v.items, nil
	case *dictV:
		return v.keys, nil
	case *iterV:
		rest := v.items[v.pos:]
		v.pos = len(v.items)
		return rest, nil
	case string:
		if err := m.step(len(v)/64 + 1); err != nil {
			return nil, err
		}
		n := utf8.RuneCountInString(v)
		if err := m.checkLen(n, 16, "list"); err != nil {
			return nil, err
		}
		out := make([]value, 0, n)
		for _, r := range v {
			out = append(out, string(r))
		}
		return out, nil
	case *rangeV:
		n := v.length()
		if n > int64(m.lim.MaxValueLen) {
			return nil, &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("memory limit: a list would have %d items; at most %d", n, m.lim.MaxValueLen)}
		}
		if err := m.checkLen(int(n), 16, "list"); err != nil {
			return nil, err
		}
		if err := m.step(int(n)); err != nil {
			return nil, err
		}
		out := make([]value, n)
		for i := range out {
			out[i] = v.start + int64(i)*v.step
		}
		return out, nil
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object is not iterable", typeName(v))}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// index resolves a Python index (negative counts from the end).
func (m *machine) index(idx value, n int, what string) (int, error) {
	i, _, isInt, ok := asNumber(idx)
	if !ok || !isInt {
		return 0, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s indices must be integers or slices, not %s", what, typeName(idx))}
	}
	if i < 0 {
		i += int64(n)
	}
	if i < 0 || i >= int64(n) {
		return 0, &Error{Kind: "IndexError", Msg: what + " index out of range"}
	}
	return int(i), nil
}

// indices is slice.indices(n): clamped start, stop and the step.
func (s *sliceVal) indices(n int) (lo, hi, step int) {
	step = 1
	if s.step != nil {
		st, _, _, _ := asNumber(s.step)
		step = int(max(min(st, 1<<40), -1<<40))
	}
	get := func(v value, def int) int {
		if v == nil {
			return def
		}
		i, _, _, _ := asNumber(v)
		if i < 0 {
			i += int64(n)
			if i < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		}
		if i >= int64(n) {
			if step < 0 {
				return n - 1
			}
			return n
		}
		return int(i)
	}
	if step > 0 {
		return get(s.lo, 0), get(s.hi, n), step
	}
	return get(s.lo, n-1), get(s.hi, -1), step
}

func (m *machine) checkSlice(s *sliceVal) error {
	for _, v := range []value{s.lo, s.hi, s.step} {
		if v == nil {
			continue
		}
		if _, _, isInt, ok := asNumber(v); !ok || !isInt {
			return &Error{Kind: "TypeError", Msg: "slice indices must be integers or None or have an __index__ method"}
		}
	}
	if s.step != nil {
		if st, _, _, _ := asNumber(s.step); st == 0 {
			return &Error{Kind: "ValueError", Msg: "slice step cannot be zero"}
		}
	}
	return nil
}

func sliceItems(items []value, lo, hi, step int) []value {
	var out []value
	if step > 0 {
		for i := lo; i < hi; i += step {
			out = append(out, items[i])
		}
	} else {
		for i := lo; i > hi; i += step {
			out = append(out, items[i])
		}
	}
	return out
}

func (m *machine) getItem(obj, idx value) (value, error) {
	if s, ok := idx.(*sliceVal); ok {
		if err := m.checkSlice(s); err != nil {
			return nil, err
		}
		switch o := obj.(type) {
		case *listV:
			lo, hi, step := s.indices(len(o.items))
			items := sliceItems(o.items, lo, hi, step)
			if err := m.step(len(items)); err != nil {
				return nil, err
			}
			return m.newList(items)
		case *tupleV:
			lo, hi, step := s.indices(len(o.items))
			items := sliceItems(o.items, lo, hi, step)
			if err := m.step(len(items)); err != nil {
				return nil, err
			}
			return m.newTuple(items)
		case string:
			if err := m.step(len(o)/64 + 1); err != nil {
				return nil, err
			}
			if isASCII(o) {
				lo, hi, step := s.indices(len(o))
				if step == 1 {
					if hi <= lo {
						return "", nil
					}
					return m.newStr(o[lo:hi])
				}
				var b strings.Builder
				for _, c := range sliceItems(bytesAsValues(o), lo, hi, step) {
					b.WriteString(c.(string))
				}
				return m.newStr(b.String())
			}
			runes := []rune(o)
			vals := make([]value, len(runes))
			for i, r := range runes {
				vals[i] = string(r)
			}
			lo, hi, step := s.indices(len(runes))
			var b strings.Builder
			for _, c := range sliceItems(vals, lo, hi, step) {
				b.WriteString(c.(string))
			}
			return m.newStr(b.String())
		case *rangeV:
			return nil, &Error{Kind: "Unsupported", Msg: "slicing a range is not supported; use list(range(...))[a:b]"}
		}
		return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object is not subscriptable", typeName(obj))}
	}
	switch o := obj.(type) {
	case *listV:
		i, err := m.index(idx, len(o.items), "list")
		if err != nil {
			return nil, err
		}
		return o.items[i], nil
	case *tupleV:
		i, err := m.index(idx, len(o.items), "tuple")
		if err != nil {
			return nil, err
		}
		return o.items[i], nil
	case string:
		// Finding the character decodes the string up to it.
		if err := m.step(len(o) / 16); err != nil {
			return nil, err
		}
		if isASCII(o) {
			i, err := m.index(idx, len(o), "string")
			if err != nil {
				return nil, err
			}
			return o[i : i+1], nil
		}
		i, err := m.index(idx, utf8.RuneCountInString(o), "string")
		if err != nil {
			return nil, err
		}
		for _, r := range o {
			if i == 0 {
				return string(r), nil
			}
			i--
		}
		return nil, &Error{Kind: "IndexError", Msg: "string index out of range"}
	case *dictV:
		i, err := m.dictLookup(o, idx)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			return nil, &Error{Kind: "KeyError", Msg: clip(reprOf(idx), 80)}
		}
		return o.vals[i], nil
	case *rangeV:
		i, err := m.index(idx, int(min(o.length(), 1<<40)), "range object")
		if err != nil {
			return nil, err
		}
		return o.start + int64(i)*o.step, nil
	case *builtinV:
		if o.typ {
			// list[int] and dict[str, float] in annotations.
			return o, nil
		}
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object is not subscriptable", typeName(obj))}
}

func bytesAsValues(s string) []value {
	out := make([]value, len(s))
	for i := range len(s) {
		out[i] = s[i : i+1]
	}
	return out
}

func (m *machine) setItem(obj, idx, v value, _ expr) error {
	switch o := obj.(type) {
	case *listV:
		if s, ok := idx.(*sliceVal); ok {
			if err := m.checkSlice(s); err != nil {
				return err
			}
			lo, hi, step := s.indices(len(o.items))
			if step != 1 {
				return &Error{Kind: "Unsupported", Msg: "assigning to an extended slice is not supported"}
			}
			items, err := m.items(v)
			if err != nil {
				return err
			}
			hi = max(hi, lo)
			if err := m.grow(len(o.items)-(hi-lo)+len(items), len(items), 16, "list"); err != nil {
				return err
			}
			rest := append(append([]value(nil), items...), o.items[hi:]...)
			o.items = append(o.items[:lo], rest...)
			return nil
		}
		i, err := m.index(idx, len(o.items), "list assignment")
		if err != nil {
			return err
		}
		o.items[i] = v
		return nil
	case *dictV:
		return m.dictSet(o, idx, v)
	case string:
		return &Error{Kind: "TypeError", Msg: "'str' object does not support item assignment"}
	case *tupleV:
		return &Error{Kind: "TypeError", Msg: "'tuple' object does not support item assignment"}
	}
	return &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object does not support item assignment", typeName(obj))}
}

func (m *machine) dictSet(d *dictV, k, v value) error {
	hk, err := m.hashKey(k)
	if err != nil {
		return err
	}
	return m.dictSetKey(d, hk, k, v)
}

// insertCost is the steps a new dict or set entry costs: growing the
// hash table takes several times a plain step.
const insertCost = 4

// dictSetKey is dictSet for a key whose hash key hk is known.
func (m *machine) dictSetKey(d *dictV, hk string, k, v value) error {
	if i, ok := d.find(hk); ok {
		d.vals[i] = v
		return nil
	}
	if err := m.grow(len(d.keys)+1, 1, 48, "dict"); err != nil {
		return err
	}
	if err := m.step(insertCost); err != nil {
		return err
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	d.add(hk)
	return nil
}

// dictMerge sets every entry of src in d, one step each.
func (m *machine) dictMerge(d, src *dictV) error {
	if err := m.step(len(src.keys)); err != nil {
		return err
	}
	if d == src {
		return nil
	}
	for i, k := range src.keys {
		if err := m.dictSetKey(d, src.hks[i], k, src.vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// dictLookup finds k's entry in d: its index, or -1.
func (m *machine) dictLookup(d *dictV, k value) (int, error) {
	hk, err := m.hashKey(k)
	if err != nil {
		return -1, err
	}
	i, _ := d.find(hk)
	return i, nil
}

func (m *machine) setAdd(s *setV, v value) error {
	hk, err := m.hashKey(v)
	if err != nil {
		return err
	}
	return m.setAddKey(s, hk, v)
}

// setAddKey is setAdd for a value whose hash key hk is known.
func (m *machine) setAddKey(s *setV, hk string, v value) error {
	if _, ok := s.find(hk); ok {
		return nil
	}
	if err := m.grow(len(s.items)+1, 1, 48, "set"); err != nil {
		return err
	}
	if err := m.step(insertCost); err != nil {
		return err
	}
	s.items = append(s.items, v)
	s.add(hk)
	return nil
}

func (d *dictV) remove(i int) {
	d.keys = slices.Delete(d.keys, i, i+1)
	d.vals = slices.Delete(d.vals, i, i+1)
	d.keyIndex.remove(i)
}

func (s *setV) remove(i int) {
	s.items = slices.Delete(s.items, i, i+1)
	s.keyIndex.remove(i)
}

// removeCost is the steps for removing item i of n from a list, dict or
// set: the items after it move down, per to a step (for a dict or set
// each is also indexed again, so per is 1).
func removeCost(i, n, per int) int { return (n-i)/per + 1 }

func (m *machine) contains(container, v value) (bool, error) {
	switch c := container.(type) {
	case string:
		s, ok := v.(string)
		if !ok {
			return false, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'in <string>' requires string as left operand, not %s", typeName(v))}
		}
		if err := m.step(len(c)/64 + 1); err != nil {
			return false, err
		}
		return strings.Contains(c, s), nil
	case *dictV:
		k, err := m.hashKey(v)
		if err != nil {
			return false, err
		}
		_, ok := c.find(k)
		return ok, nil
	case *setV:
		k, err := m.hashKey(v)
		if err != nil {
			return false, err
		}
		_, ok := c.find(k)
		return ok, nil
	case *rangeV:
		i, f, isInt, ok := asNumber(v)
		if !ok {
			return false, nil
		}
		if !isInt {
			// Checked before converting: Go's float-to-int64 of a value
			// out of range differs between CPUs.
			if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
				return false, nil
			}
			i = int64(f)
		}
		n := c.length()
		if n == 0 {
			return false, nil
		}
		d := i - c.start
		return d%c.step == 0 && d/c.step >= 0 && d/c.step < n, nil
	}
	found := false
	err := m.iterate(container, func(it value) (bool, error) {
		if err := m.step(1); err != nil {
			return false, err
		}
		eq, err := m.equal(it, v)
		if err != nil {
			return false, err
		}
		if eq {
			found = true
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		if pe, ok := err.(*Error); ok && pe.Kind == "TypeError" && strings.Contains(pe.Msg, "not iterable") {
			return false, &Error{Kind: "TypeError", Msg: fmt.Sprintf("argument of type '%s' is not iterable", typeName(container))}
		}
	}
	return found, err
}

func (m *machine) compare(op string, l, r value) (bool, error) {
	switch op {
	case "==":
		return m.equal(l, r)
	case "!=":
		eq, err := m.equal(l, r)
		return !eq, err
	case "<", ">", "<=", ">=":
		return m.order(op, l, r)
	case "in":
		return m.contains(r, l)
	case "not in":
		ok, err := m.contains(r, l)
		return !ok, err
	case "is":
		return identical(l, r), nil
	case "is not":
		return !identical(l, r), nil
	}
	return false, &Error{Kind: "SyntaxError", Msg: "unknown comparison " + op}
}

// identical is Python's "is" for the values code compares that way:
// None, booleans, and the same container.
func identical(a, b value) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case int64, float64, string:
		return a == b
	}
	return a == b
}

// fstring writes an f-string's parts.
func (m *machine) fstring(b *strings.Builder, parts []fpart, sc *scope) error {
	for _, p := range parts {
		if p.x == nil {
			b.WriteString(p.lit)
			continue
		}
		v, err := m.eval(p.x, sc)
		if err != nil {
			return err
		}
		if p.debug != "" {
			b.WriteString(p.debug)
		}
		switch p.conv {
		case 'r', 'a':
			v, err = m.reprOf(v)
		case 's':
			v, err = m.strOf(v)
		}
		if err != nil {
			return err
		}
		spec := ""
		if p.spec != nil {
			var sb strings.Builder
			if err := m.fstring(&sb, p.spec, sc); err != nil {
				return err
			}
			spec = sb.String()
		}
		s, err := m.format(v, spec)
		if err != nil {
			return err
		}
		b.WriteString(s)
		if b.Len() > m.lim.MaxValueLen {
			return &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("memory limit: a string would be over %d bytes long", m.lim.MaxValueLen)}
		}
	}
	return nil
}

// strOf is str(v) within the value length bound.
func (m *machine) strOf(v value) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	p := printer{limit: m.lim.MaxValueLen}
	p.str(v)
	return m.printed(&p)
}

func (m *machine) reprOf(v value) (string, error) {
	p := printer{limit: m.lim.MaxValueLen}
	p.repr(v)
	return m.printed(&p)
}

// printed counts what a printer did and returns its text as a new string.
func (m *machine) printed(p *printer) (string, error) {
	if err := p.err("memory limit: a string"); err != nil {
		return "", err
	}
	if err := m.step(p.cost()); err != nil {
		return "", err
	}
	return p.b.String(), m.alloc(p.b.Len())
}

// call calls a function value.
func (m *machine) call(fn value, args []value, kw []kwv) (value, error) {
	switch f := fn.(type) {
	case *builtinV:
		return f.fn(m, f.self, args, kw)
	case *funcV:
		return m.callFunc(f, args, kw)
	case *excClass:
		if len(kw) > 0 {
			return nil, &Error{Kind: "TypeError", Msg: f.name + "() takes no keyword arguments"}
		}
		e := &excV{kind: f.name}
		switch len(args) {
		case 0:
		case 1:
			s, err := m.strOf(args[0])
			if err != nil {
				return nil, err
			}
			e.msg = s
		default:
			t, err := m.reprOf(&tupleV{items: args})
			if err != nil {
				return nil, err
			}
			e.msg = t
		}
		return e, nil
	}
	return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object is not callable", typeName(fn))}
}

// callCost is the steps a call of a def or lambda costs beyond its body.
const callCost = 4

func (m *machine) callFunc(f *funcV, args []value, kw []kwv) (value, error) {
	if m.depth >= m.lim.MaxDepth {
		return nil, &Error{Kind: "RecursionError", Msg: fmt.Sprintf("maximum recursion depth exceeded (python_execute allows %d nested calls)", m.lim.MaxDepth)}
	}
	// A call binds its arguments in a new scope: several steps' work.
	if err := m.step(callCost); err != nil {
		return nil, err
	}
	parent := f.scope
	if parent == nil {
		parent = m.global
	}
	sc := &scope{vars: make(map[string]value, len(f.params)), parent: parent, fn: f}
	if f.scope == nil {
		sc.parent = nil
	}
	pi := 0
	di := 0
	var starArgs, starKw *param
	for i := range f.params {
		p := &f.params[i]
		switch p.star {
		case 1:
			starArgs = p
			continue
		case 2:
			starKw = p
			continue
		}
		// Parameters after *args are keyword-only: positionals beyond
		// the named ones go to *args, never to them.
		if pi < len(args) && starArgs == nil {
			sc.vars[p.name] = args[pi]
			pi++
		}
	}
	if pi < len(args) {
		if starArgs == nil || starArgs.name == "" {
			return nil, tooManyPositional(f, len(args))
		}
		t, err := m.newTuple(append([]value(nil), args[pi:]...))
		if err != nil {
			return nil, err
		}
		sc.vars[starArgs.name] = t
	} else if starArgs != nil && starArgs.name != "" {
		sc.vars[starArgs.name] = &tupleV{}
	}
	var extra *dictV
	if starKw != nil {
		extra = newDict()
		sc.vars[starKw.name] = extra
	}
	for _, k := range kw {
		found := false
		for _, p := range f.params {
			if p.star == 0 && p.name == k.name {
				if _, dup := sc.vars[p.name]; dup {
					return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() got multiple values for argument '%s'", f.name, k.name)}
				}
				sc.vars[p.name] = k.v
				found = true
			}
		}
		if !found {
			if extra == nil {
				return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() got an unexpected keyword argument '%s'", f.name, clip(k.name, 40))}
			}
			if err := m.dictSet(extra, k.name, k.v); err != nil {
				return nil, err
			}
		}
	}
	var missing, missingKw []string
	kwOnly := false
	for _, p := range f.params {
		if p.star == 1 {
			kwOnly = true
		}
		if p.star != 0 {
			continue
		}
		if p.hasDef {
			if _, ok := sc.vars[p.name]; !ok {
				sc.vars[p.name] = f.defaults[di]
			}
			di++
		}
		if _, ok := sc.vars[p.name]; !ok {
			if kwOnly {
				missingKw = append(missingKw, "'"+p.name+"'")
			} else {
				missing = append(missing, "'"+p.name+"'")
			}
		}
	}
	// CPython names every missing argument, positional ones first.
	if len(missing) > 0 {
		return nil, missingArgs(f.name, "positional", missing)
	}
	if len(missingKw) > 0 {
		return nil, missingArgs(f.name, "keyword-only", missingKw)
	}
	m.depth++
	m.maxDepth = max(m.maxDepth, m.depth)
	defer func() { m.depth-- }()
	if f.lambda != nil {
		v, err := m.eval(f.lambda, sc)
		return v, m.unwound(err)
	}
	fl, err := m.execBlock(f.body, sc)
	if err != nil {
		return nil, m.unwound(err)
	}
	if fl == flowReturn {
		v := m.retVal
		m.retVal = nil
		return v, nil
	}
	return nil, nil
}

// unwound counts a step for an exception leaving a call: unwinding is
// work too, and without the step an exception raised deep and caught near
// the top would cost nothing however often it was raised.
func (m *machine) unwound(err error) error {
	if pe, ok := err.(*Error); ok && !pe.uncatchable() {
		if serr := m.step(1); serr != nil {
			return serr
		}
	}
	return err
}

// tooManyPositional is CPython's message for a call with n positional
// arguments to f, which takes fewer.
func tooManyPositional(f *funcV, n int) *Error {
	lo, hi := 0, 0
	for _, p := range f.params {
		if p.star != 0 {
			break
		}
		hi++
		if !p.hasDef {
			lo++
		}
	}
	takes := nOf(hi, "positional argument")
	if lo != hi {
		takes = fmt.Sprintf("from %d to %d positional arguments", lo, hi)
	}
	was := "were"
	if n == 1 {
		was = "was"
	}
	return &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() takes %s but %d %s given", f.name, takes, n, was)}
}

// missingArgs is CPython's message for required arguments a call left
// out: "f() missing 2 required positional arguments: 'a' and 'b'".
func missingArgs(fname, kind string, names []string) *Error {
	list := names[len(names)-1]
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ")
		if len(names) > 2 {
			list += ","
		}
		list += " and " + names[len(names)-1]
	}
	return &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() missing %s: %s", fname, nOf(len(names), "required "+kind+" argument"), list)}
}

func nOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// callKey calls a key= function on one item.
func (m *machine) callKey(key value, v value) (value, error) {
	if key == nil {
		return v, nil
	}
	return m.call(key, []value{v}, nil)
}
