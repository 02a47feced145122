package pyexec

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

type method = func(m *machine, self value, args []value, kw []kwv) (value, error)

// builtinMethods are the methods of the built-in types, by type name.
func builtinMethods() map[string]map[string]method {
	return map[string]map[string]method{
		"str":       readingStr(strMethods()),
		"list":      listMethods(),
		"dict":      dictMethods(),
		"set":       setMethods(),
		"frozenset": setMethods(),
		"tuple": {
			"index": seqIndex, "count": seqCount,
		},
		"float": {
			"is_integer": func(m *machine, self value, args []value, kw []kwv) (value, error) {
				f := self.(float64)
				// Not via int64: a float beyond its range is still whole.
				return !math.IsInf(f, 0) && f == math.Trunc(f), nil
			},
		},
		"int": {},
	}
}

// attr is obj.name: a bound method of a built-in type.
func (m *machine) attr(obj value, name string) (value, error) {
	if strings.HasPrefix(name, "_") {
		return nil, &Error{Kind: "Unsupported", Msg: fmt.Sprintf("attribute names starting with '_' (%s) are not accessible", clip(name, 40))}
	}
	if b, ok := obj.(*builtinV); ok && b.typ {
		// An unbound method such as str.lower or dict.fromkeys.
		if b.name == "dict" && name == "fromkeys" {
			return &builtinV{name: "fromkeys", fn: dictFromkeys}, nil
		}
		if fn, ok := m.lib.methods[b.name][name]; ok {
			tn := b.name
			return &builtinV{name: tn + "." + name, fn: func(m *machine, _ value, args []value, kw []kwv) (value, error) {
				if len(args) == 0 || typeName(args[0]) != tn && !(tn == "int" && typeName(args[0]) == "bool") {
					return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("descriptor '%s' for '%s' objects needs an argument of that type", name, tn)}
				}
				return fn(m, args[0], args[1:], kw)
			}}, nil
		}
	}
	if e, ok := obj.(*excV); ok && name == "args" {
		if e.msg == "" {
			return &tupleV{}, nil
		}
		return &tupleV{items: []value{e.msg}}, nil
	}
	tn := typeName(obj)
	if _, ok := obj.(bool); ok {
		tn = "int"
	}
	if _, ok := obj.(*iterV); ok {
		tn = "iterator"
	}
	if fn, ok := m.lib.methods[tn][name]; ok {
		return &builtinV{name: name, self: obj, fn: fn}, nil
	}
	switch name {
	case "real", "imag", "numerator", "denominator":
		if isNumber(obj) {
			return nil, &Error{Kind: "Unsupported", Msg: fmt.Sprintf("the .%s attribute is not supported", name)}
		}
	}
	return nil, &Error{Kind: "AttributeError", Msg: fmt.Sprintf("'%s' object has no attribute '%s'", typeName(obj), clip(name, 40))}
}

func seqItems(self value) []value {
	switch s := self.(type) {
	case *listV:
		return s.items
	case *tupleV:
		return s.items
	}
	return nil
}

func seqIndex(m *machine, self value, args []value, kw []kwv) (value, error) {
	if err := argCount("index", args, 1, 3); err != nil {
		return nil, err
	}
	items := seqItems(self)
	lo, hi := 0, len(items)
	if len(args) > 1 {
		s := &sliceVal{lo: args[1]}
		if len(args) > 2 {
			s.hi = args[2]
		}
		if err := m.checkSlice(s); err != nil {
			return nil, err
		}
		lo, hi, _ = s.indices(len(items))
	}
	for i := lo; i < hi; i++ {
		if err := m.step(1); err != nil {
			return nil, err
		}
		eq, err := m.equal(items[i], args[0])
		if err != nil {
			return nil, err
		}
		if eq {
			return int64(i), nil
		}
	}
	if _, ok := self.(*tupleV); ok {
		return nil, &Error{Kind: "ValueError", Msg: "tuple.index(x): x not in tuple"}
	}
	return nil, &Error{Kind: "ValueError", Msg: clip(reprOf(args[0]), 60) + " is not in list"}
}

func seqCount(m *machine, self value, args []value, kw []kwv) (value, error) {
	if err := argCount("count", args, 1, 1); err != nil {
		return nil, err
	}
	items := seqItems(self)
	if err := m.step(len(items)); err != nil {
		return nil, err
	}
	n := int64(0)
	for _, it := range items {
		eq, err := m.equal(it, args[0])
		if err != nil {
			return nil, err
		}
		if eq {
			n++
		}
	}
	return n, nil
}

func listMethods() map[string]method {
	return map[string]method{
		"append": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("list.append", args, 1, 1); err != nil {
				return nil, err
			}
			l := self.(*listV)
			if err := m.grow(len(l.items)+1, 1, 16, "list"); err != nil {
				return nil, err
			}
			l.items = append(l.items, args[0])
			return nil, nil
		},
		"extend": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("list.extend", args, 1, 1); err != nil {
				return nil, err
			}
			_, err := m.inplace("+", self, args[0])
			return nil, err
		},
		"insert": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("insert", args, 2, 2); err != nil {
				return nil, err
			}
			l := self.(*listV)
			i, err := toIndex(args[0])
			if err != nil {
				return nil, err
			}
			n := int64(len(l.items))
			if i < 0 {
				i = max(i+n, 0)
			}
			i = min(i, n)
			if err := m.grow(len(l.items)+1, 1, 16, "list"); err != nil {
				return nil, err
			}
			if err := m.step(len(l.items)/16 + 1); err != nil {
				return nil, err
			}
			l.items = append(l.items, nil)
			copy(l.items[i+1:], l.items[i:])
			l.items[i] = args[1]
			return nil, nil
		},
		"pop": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("pop", args, 0, 1); err != nil {
				return nil, err
			}
			l := self.(*listV)
			if len(l.items) == 0 {
				return nil, &Error{Kind: "IndexError", Msg: "pop from empty list"}
			}
			i := len(l.items) - 1
			if len(args) == 1 {
				var err error
				if i, err = m.index(args[0], len(l.items), "pop"); err != nil {
					if pe, ok := err.(*Error); ok && pe.Kind == "IndexError" {
						pe.Msg = "pop index out of range"
					}
					return nil, err
				}
			}
			if err := m.step(removeCost(i, len(l.items), 16)); err != nil {
				return nil, err
			}
			v := l.items[i]
			l.items = slices.Delete(l.items, i, i+1)
			return v, nil
		},
		"remove": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("list.remove", args, 1, 1); err != nil {
				return nil, err
			}
			l := self.(*listV)
			for i, it := range l.items {
				if err := m.step(1); err != nil {
					return nil, err
				}
				eq, err := m.equal(it, args[0])
				if err != nil {
					return nil, err
				}
				if eq {
					if err := m.step(removeCost(i, len(l.items), 16)); err != nil {
						return nil, err
					}
					l.items = slices.Delete(l.items, i, i+1)
					return nil, nil
				}
			}
			return nil, &Error{Kind: "ValueError", Msg: "list.remove(x): x not in list"}
		},
		"index": seqIndex,
		"count": seqCount,
		"sort": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if len(args) > 0 {
				return nil, &Error{Kind: "TypeError", Msg: "sort() takes no positional arguments"}
			}
			key, reverse, err := sortArgs("sort", kw)
			if err != nil {
				return nil, err
			}
			return nil, m.sortValues(self.(*listV).items, key, reverse)
		},
		"reverse": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			l := self.(*listV)
			for i, j := 0, len(l.items)-1; i < j; i, j = i+1, j-1 {
				l.items[i], l.items[j] = l.items[j], l.items[i]
			}
			return nil, m.step(len(l.items))
		},
		"copy": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			return m.newList(append([]value(nil), self.(*listV).items...))
		},
		"clear": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			self.(*listV).items = nil
			return nil, nil
		},
	}
}

func dictFromkeys(m *machine, _ value, args []value, kw []kwv) (value, error) {
	if err := argCount("fromkeys", args, 1, 2); err != nil {
		return nil, err
	}
	var v value
	if len(args) == 2 {
		v = args[1]
	}
	d := newDict()
	err := m.iterate(args[0], func(k value) (bool, error) { return true, m.dictSet(d, k, v) })
	return d, err
}

func dictMethods() map[string]method {
	view := func(kind string) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("dict."+kind, args, 0, 0); err != nil {
				return nil, err
			}
			d := self.(*dictV)
			if err := m.step(len(d.keys)); err != nil {
				return nil, err
			}
			var items []value
			switch kind {
			case "keys":
				items = append([]value(nil), d.keys...)
			case "values":
				items = append([]value(nil), d.vals...)
			default:
				items = make([]value, len(d.keys))
				for i := range d.keys {
					items[i] = &tupleV{items: []value{d.keys[i], d.vals[i]}}
				}
			}
			return m.iterResult("dict_"+kind, items)
		}
	}
	return map[string]method{
		"keys": view("keys"), "values": view("values"), "items": view("items"),
		"get": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("get", args, 1, 2); err != nil {
				return nil, err
			}
			d := self.(*dictV)
			i, err := m.dictLookup(d, args[0])
			if err != nil {
				return nil, err
			}
			if i >= 0 {
				return d.vals[i], nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return nil, nil
		},
		"setdefault": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("setdefault", args, 1, 2); err != nil {
				return nil, err
			}
			d := self.(*dictV)
			hk, err := m.hashKey(args[0])
			if err != nil {
				return nil, err
			}
			if i, ok := d.find(hk); ok {
				return d.vals[i], nil
			}
			var v value
			if len(args) == 2 {
				v = args[1]
			}
			return v, m.dictSetKey(d, hk, args[0], v)
		},
		"pop": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("pop", args, 1, 2); err != nil {
				return nil, err
			}
			d := self.(*dictV)
			i, err := m.dictLookup(d, args[0])
			if err != nil {
				return nil, err
			}
			if i >= 0 {
				if err := m.step(removeCost(i, len(d.keys), 1)); err != nil {
					return nil, err
				}
				v := d.vals[i]
				d.remove(i)
				return v, nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return nil, &Error{Kind: "KeyError", Msg: clip(reprOf(args[0]), 80)}
		},
		"popitem": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			d := self.(*dictV)
			if len(d.keys) == 0 {
				return nil, &Error{Kind: "KeyError", Msg: "'popitem(): dictionary is empty'"}
			}
			i := len(d.keys) - 1
			t := &tupleV{items: []value{d.keys[i], d.vals[i]}}
			d.remove(i)
			return t, nil
		},
		"update": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("update", args, 0, 1); err != nil {
				return nil, err
			}
			d := self.(*dictV)
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
			return nil, nil
		},
		"copy": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			d := newDict()
			return d, m.dictUpdate(d, self)
		},
		"clear": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			d := self.(*dictV)
			d.keys, d.vals = nil, nil
			d.reset()
			return nil, nil
		},
	}
}

func setMethods() map[string]method {
	mutating := func(name string, fn method) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if self.(*setV).frozen {
				return nil, &Error{Kind: "AttributeError", Msg: fmt.Sprintf("'frozenset' object has no attribute '%s'", name)}
			}
			return fn(m, self, args, kw)
		}
	}
	combine := func(op string, inPlace bool) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			acc := self.(*setV)
			for _, a := range args {
				other, ok := a.(*setV)
				if !ok {
					s, err := builtinSet(m, nil, []value{a}, nil)
					if err != nil {
						return nil, err
					}
					other = s.(*setV)
				}
				r, err := m.setOp(op, acc, other)
				if err != nil {
					return nil, err
				}
				acc = r.(*setV)
			}
			if inPlace {
				s := self.(*setV)
				s.items, s.keyIndex = acc.items, acc.keyIndex
				return nil, nil
			}
			if acc == self {
				return m.setOp("|", acc, newSet())
			}
			return acc, nil
		}
	}
	rel := func(sub bool) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("issubset", args, 1, 1); err != nil {
				return nil, err
			}
			other, ok := args[0].(*setV)
			if !ok {
				s, err := builtinSet(m, nil, args, nil)
				if err != nil {
					return nil, err
				}
				other = s.(*setV)
			}
			if sub {
				return m.isSubset(self.(*setV), other)
			}
			return m.isSubset(other, self.(*setV))
		}
	}
	return map[string]method{
		"add": mutating("add", func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("set.add", args, 1, 1); err != nil {
				return nil, err
			}
			return nil, m.setAdd(self.(*setV), args[0])
		}),
		"remove": mutating("remove", func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("set.remove", args, 1, 1); err != nil {
				return nil, err
			}
			s := self.(*setV)
			k, err := m.hashKey(args[0])
			if err != nil {
				return nil, err
			}
			i, ok := s.find(k)
			if !ok {
				return nil, &Error{Kind: "KeyError", Msg: clip(reprOf(args[0]), 80)}
			}
			if err := m.step(removeCost(i, len(s.items), 1)); err != nil {
				return nil, err
			}
			s.remove(i)
			return nil, nil
		}),
		"discard": mutating("discard", func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("set.discard", args, 1, 1); err != nil {
				return nil, err
			}
			s := self.(*setV)
			k, err := m.hashKey(args[0])
			if err != nil {
				return nil, err
			}
			if i, ok := s.find(k); ok {
				if err := m.step(removeCost(i, len(s.items), 1)); err != nil {
					return nil, err
				}
				s.remove(i)
			}
			return nil, nil
		}),
		"update":              mutating("update", combine("|", true)),
		"intersection_update": mutating("intersection_update", combine("&", true)),
		"difference_update":   mutating("difference_update", combine("-", true)),
		"union":               combine("|", false),
		"intersection":        combine("&", false),
		"difference":          combine("-", false),
		"symmetric_difference": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("symmetric_difference", args, 1, 1); err != nil {
				return nil, err
			}
			return combine("^", false)(m, self, args, kw)
		},
		"issubset":   rel(true),
		"issuperset": rel(false),
		"isdisjoint": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			r, err := combine("&", false)(m, self, args, kw)
			if err != nil {
				return nil, err
			}
			return len(r.(*setV).items) == 0, nil
		},
		"copy": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			return m.setOp("|", self.(*setV), newSet())
		},
		"clear": mutating("clear", func(m *machine, self value, args []value, kw []kwv) (value, error) {
			s := self.(*setV)
			s.items = nil
			s.reset()
			return nil, nil
		}),
		"pop": mutating("pop", func(m *machine, self value, args []value, kw []kwv) (value, error) {
			s := self.(*setV)
			if len(s.items) == 0 {
				return nil, &Error{Kind: "KeyError", Msg: "'pop from an empty set'"}
			}
			if err := m.step(removeCost(0, len(s.items), 1)); err != nil {
				return nil, err
			}
			v := s.items[0]
			s.remove(0)
			return v, nil
		}),
	}
}

// readingStr counts, before each str method runs, a step per 16 bytes of
// the string and of its string arguments: a method may read them whole.
func readingStr(ms map[string]method) map[string]method {
	for name, fn := range ms {
		ms[name] = func(m *machine, self value, args []value, kw []kwv) (value, error) {
			n := len(self.(string))
			for _, a := range args {
				if s, ok := a.(string); ok {
					n += len(s)
				}
			}
			// Several methods go character by character (strip,
			// isdigit, upper), slower than a byte scan.
			if err := m.step(n / 16); err != nil {
				return nil, err
			}
			return fn(m, self, args, kw)
		}
	}
	return ms
}

func strArg(fname string, v value) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s() argument must be str, not %s", fname, typeName(v))}
	}
	return s, nil
}

func strMethods() map[string]method {
	simple := func(name string, fn func(string) string) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("str."+name, args, 0, 0); err != nil {
				return nil, err
			}
			s := self.(string)
			if err := m.step(len(s)/64 + 1); err != nil {
				return nil, err
			}
			return m.newStr(fn(s))
		}
	}
	pred := func(name string, fn func(rune) bool) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			s := self.(string)
			if s == "" {
				return false, nil
			}
			for _, r := range s {
				if !fn(r) {
					return false, nil
				}
			}
			return true, nil
		}
	}
	strip := func(name string, left, right bool) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount(name, args, 0, 1); err != nil {
				return nil, err
			}
			s := self.(string)
			cut := func(r rune) bool { return unicode.IsSpace(r) }
			if len(args) == 1 && args[0] != nil {
				chars, err := strArg(name, args[0])
				if err != nil {
					return nil, err
				}
				// A set, so that a long chars does not make every
				// character of s cost a scan of it.
				set := make(map[rune]bool, len(chars))
				for _, r := range chars {
					set[r] = true
				}
				cut = func(r rune) bool { return set[r] }
			}
			if left {
				s = strings.TrimLeftFunc(s, cut)
			}
			if right {
				s = strings.TrimRightFunc(s, cut)
			}
			return s, nil
		}
	}
	affix := func(name string, fn func(string, string) bool) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount(name, args, 1, 1); err != nil {
				return nil, err
			}
			s := self.(string)
			switch a := args[0].(type) {
			case string:
				return fn(s, a), nil
			case *tupleV:
				for _, it := range a.items {
					p, ok := it.(string)
					if !ok {
						return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("tuple for %s must only contain str, not %s", name, typeName(it))}
					}
					if fn(s, p) {
						return true, nil
					}
				}
				return false, nil
			}
			return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%s first arg must be str or a tuple of str, not %s", name, typeName(args[0]))}
		}
	}
	split := func(name string, fromRight bool) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			a, err := bind(name, args, kw, []string{"sep", "maxsplit"}, 0)
			if err != nil {
				return nil, err
			}
			s := self.(string)
			if err := m.step(len(s)/16 + 1); err != nil {
				return nil, err
			}
			limit := int64(-1)
			if a[1] != absent {
				if limit, err = toIndex(a[1]); err != nil {
					return nil, err
				}
			}
			var parts []string
			if a[0] == absent || a[0] == nil {
				parts = splitWhitespace(s, int(limit), fromRight)
			} else {
				sep, err := strArg(name, a[0])
				if err != nil {
					return nil, err
				}
				if sep == "" {
					return nil, &Error{Kind: "ValueError", Msg: "empty separator"}
				}
				n := -1
				if limit >= 0 {
					n = int(limit) + 1
				}
				if fromRight && n > 0 {
					parts = rsplitN(s, sep, n)
				} else {
					parts = strings.SplitN(s, sep, n)
				}
			}
			items := make([]value, len(parts))
			for i, p := range parts {
				items[i] = p
			}
			if err := m.alloc(len(s)); err != nil {
				return nil, err
			}
			return m.newList(items)
		}
	}
	just := func(name string) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount(name, args, 1, 2); err != nil {
				return nil, err
			}
			w, err := toIndex(args[0])
			if err != nil {
				return nil, err
			}
			fill := " "
			if len(args) == 2 {
				f, ok := args[1].(string)
				if !ok || utf8.RuneCountInString(f) != 1 {
					return nil, &Error{Kind: "TypeError", Msg: "The fill character must be exactly one character long"}
				}
				fill = f
			}
			s := self.(string)
			n := int64(utf8.RuneCountInString(s))
			if w <= n {
				return s, nil
			}
			if err := m.checkLen(int(min(w, 1<<40))*len(fill), 1, "string"); err != nil {
				return nil, err
			}
			pad := int(w - n)
			switch name {
			case "ljust":
				return s + strings.Repeat(fill, pad), nil
			case "rjust":
				return strings.Repeat(fill, pad) + s, nil
			}
			// CPython's str.center (Objects/unicodeobject.c, pad) rounds
			// the odd space to the left only when the width is odd too.
			left := pad/2 + (pad & int(w) & 1)
			return strings.Repeat(fill, left) + s + strings.Repeat(fill, pad-left), nil
		}
	}
	find := func(name string, fromRight, raise bool) method {
		return func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount(name, args, 1, 3); err != nil {
				return nil, err
			}
			sub, err := strArg(name, args[0])
			if err != nil {
				return nil, err
			}
			s := self.(string)
			runes := []rune(s)
			lo, hi := 0, len(runes)
			if len(args) > 1 {
				sl := &sliceVal{lo: args[1]}
				if len(args) > 2 {
					sl.hi = args[2]
				}
				if err := m.checkSlice(sl); err != nil {
					return nil, err
				}
				lo, hi, _ = sl.indices(len(runes))
			}
			if err := m.step(len(s)/64 + 1); err != nil {
				return nil, err
			}
			i := -1
			if lo <= hi {
				hay := string(runes[lo:hi])
				var bi int
				if fromRight {
					bi = strings.LastIndex(hay, sub)
				} else {
					bi = strings.Index(hay, sub)
				}
				if bi >= 0 {
					i = lo + utf8.RuneCountInString(hay[:bi])
				}
			}
			if i < 0 && raise {
				return nil, &Error{Kind: "ValueError", Msg: "substring not found"}
			}
			return int64(i), nil
		}
	}
	return map[string]method{
		"upper":      simple("upper", strings.ToUpper),
		"lower":      simple("lower", strings.ToLower),
		"casefold":   simple("casefold", strings.ToLower),
		"title":      simple("title", pyTitle),
		"capitalize": simple("capitalize", pyCapitalize),
		"swapcase": simple("swapcase", func(s string) string {
			return strings.Map(func(r rune) rune {
				if unicode.IsUpper(r) {
					return unicode.ToLower(r)
				}
				return unicode.ToUpper(r)
			}, s)
		}),
		"strip":  strip("strip", true, true),
		"lstrip": strip("lstrip", true, false),
		"rstrip": strip("rstrip", false, true),
		"split":  split("split", false),
		"rsplit": split("rsplit", true),
		"splitlines": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			s := self.(string)
			var items []value
			for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
				items = append(items, l)
			}
			if len(items) > 0 && strings.HasSuffix(s, "\n") {
				items = items[:len(items)-1]
			}
			if s == "" {
				items = nil
			}
			return m.newList(items)
		},
		"join": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("str.join", args, 1, 1); err != nil {
				return nil, err
			}
			items, err := m.items(args[0])
			if err != nil {
				return nil, err
			}
			sep := self.(string)
			parts := make([]string, len(items))
			n := 0
			for i, it := range items {
				s, ok := it.(string)
				if !ok {
					return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("sequence item %d: expected str instance, %s found", i, typeName(it))}
				}
				parts[i] = s
				n += len(s) + len(sep)
				if n > m.lim.MaxValueLen {
					return nil, m.checkLen(n, 1, "string")
				}
			}
			if err := m.step(n/64 + len(items)); err != nil {
				return nil, err
			}
			return m.newStr(strings.Join(parts, sep))
		},
		"replace": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("replace", args, 2, 3); err != nil {
				return nil, err
			}
			old, err := strArg("replace", args[0])
			if err != nil {
				return nil, err
			}
			nw, err := strArg("replace", args[1])
			if err != nil {
				return nil, err
			}
			n := -1
			if len(args) == 3 {
				c, err := toIndex(args[2])
				if err != nil {
					return nil, err
				}
				n = int(max(min(c, 1<<40), -1))
			}
			s := self.(string)
			count := strings.Count(s, old)
			if n >= 0 {
				count = min(count, n)
			}
			if err := m.checkLen(len(s)+count*(len(nw)-len(old)), 1, "string"); err != nil {
				return nil, err
			}
			if err := m.step(len(s)/64 + 1); err != nil {
				return nil, err
			}
			return strings.Replace(s, old, nw, n), nil
		},
		"startswith": affix("startswith", strings.HasPrefix),
		"endswith":   affix("endswith", strings.HasSuffix),
		"find":       find("find", false, false),
		"rfind":      find("rfind", true, false),
		"index":      find("index", false, true),
		"rindex":     find("rindex", true, true),
		"count": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("count", args, 1, 1); err != nil {
				return nil, err
			}
			sub, err := strArg("count", args[0])
			if err != nil {
				return nil, err
			}
			s := self.(string)
			if sub == "" {
				return int64(utf8.RuneCountInString(s) + 1), nil
			}
			return int64(strings.Count(s, sub)), nil
		},
		"format": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			s, err := m.strFormat(self.(string), args, kw)
			if err != nil {
				return nil, err
			}
			return m.newStr(s)
		},
		"zfill": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("zfill", args, 1, 1); err != nil {
				return nil, err
			}
			w, err := toIndex(args[0])
			if err != nil {
				return nil, err
			}
			s := self.(string)
			n := int64(utf8.RuneCountInString(s))
			if w <= n {
				return s, nil
			}
			if err := m.checkLen(int(min(w, 1<<40)), 1, "string"); err != nil {
				return nil, err
			}
			sign := ""
			if s != "" && (s[0] == '-' || s[0] == '+') {
				sign, s = s[:1], s[1:]
			}
			return sign + strings.Repeat("0", int(w-n)) + s, nil
		},
		"center": just("center"),
		"ljust":  just("ljust"),
		"rjust":  just("rjust"),
		"partition": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("partition", args, 1, 1); err != nil {
				return nil, err
			}
			sep, err := strArg("partition", args[0])
			if err != nil {
				return nil, err
			}
			if sep == "" {
				return nil, &Error{Kind: "ValueError", Msg: "empty separator"}
			}
			a, b, found := strings.Cut(self.(string), sep)
			if !found {
				return &tupleV{items: []value{a, "", ""}}, nil
			}
			return &tupleV{items: []value{a, sep, b}}, nil
		},
		"removeprefix": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("removeprefix", args, 1, 1); err != nil {
				return nil, err
			}
			p, err := strArg("removeprefix", args[0])
			if err != nil {
				return nil, err
			}
			return strings.TrimPrefix(self.(string), p), nil
		},
		"removesuffix": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			if err := argCount("removesuffix", args, 1, 1); err != nil {
				return nil, err
			}
			p, err := strArg("removesuffix", args[0])
			if err != nil {
				return nil, err
			}
			return strings.TrimSuffix(self.(string), p), nil
		},
		"isdigit":   pred("isdigit", unicode.IsDigit),
		"isdecimal": pred("isdecimal", unicode.IsDigit),
		"isnumeric": pred("isnumeric", unicode.IsNumber),
		"isalpha":   pred("isalpha", unicode.IsLetter),
		"isalnum":   pred("isalnum", func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }),
		"isspace":   pred("isspace", unicode.IsSpace),
		"isupper": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			s := self.(string)
			return strings.ToUpper(s) == s && strings.ToLower(s) != s, nil
		},
		"islower": func(m *machine, self value, args []value, kw []kwv) (value, error) {
			s := self.(string)
			return strings.ToLower(s) == s && strings.ToUpper(s) != s, nil
		},
	}
}

func splitWhitespace(s string, limit int, fromRight bool) []string {
	if !fromRight || limit < 0 {
		if limit < 0 {
			return strings.Fields(s)
		}
		var out []string
		rest := strings.TrimLeftFunc(s, unicode.IsSpace)
		for rest != "" && len(out) < limit {
			i := strings.IndexFunc(rest, unicode.IsSpace)
			if i < 0 {
				break
			}
			out = append(out, rest[:i])
			rest = strings.TrimLeftFunc(rest[i:], unicode.IsSpace)
		}
		if rest != "" {
			out = append(out, rest)
		}
		return out
	}
	var out []string
	rest := strings.TrimRightFunc(s, unicode.IsSpace)
	for rest != "" && len(out) < limit {
		i := strings.LastIndexFunc(rest, unicode.IsSpace)
		if i < 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(rest[i:])
		out = append([]string{rest[i+size:]}, out...)
		rest = strings.TrimRightFunc(rest[:i], unicode.IsSpace)
	}
	if rest != "" {
		out = append([]string{rest}, out...)
	}
	return out
}

func rsplitN(s, sep string, n int) []string {
	var out []string
	for len(out) < n-1 {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			break
		}
		out = append([]string{s[i+len(sep):]}, out...)
		s = s[:i]
	}
	return append([]string{s}, out...)
}

// pyTitle is str.title: a letter after a non-letter is upper-cased, the
// others lower-cased.
func pyTitle(s string) string {
	var b strings.Builder
	prev := false
	for _, r := range s {
		if unicode.IsLetter(r) {
			if prev {
				b.WriteRune(unicode.ToLower(r))
			} else {
				b.WriteRune(unicode.ToUpper(r))
			}
			prev = true
		} else {
			b.WriteRune(r)
			prev = false
		}
	}
	return b.String()
}

func pyCapitalize(s string) string {
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + strings.ToLower(s[size:])
}
