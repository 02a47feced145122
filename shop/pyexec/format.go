package pyexec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxWidth and maxPrecision bound a format spec, so "{x:999999999}" cannot
// allocate a huge string.
const (
	maxWidth     = 1000
	maxPrecision = 100
)

// spec is a parsed format spec: [[fill]align][sign][0][width][,|_][.precision][type].
type spec struct {
	fill      rune
	align     byte // 0, '<', '>', '^' or '='
	sign      byte // 0, '+', '-' or ' '
	width     int
	group     byte // 0, ',' or '_'
	precision int  // -1 when absent
	typ       byte // 0 or one of d f F e E g G % s
	alt       bool // '#': 0x, 0o or 0b before an integer's digits
}

func parseSpec(s string) (spec, error) {
	sp := spec{fill: ' ', precision: -1}
	bad := func() (spec, error) {
		return spec{}, &Error{Kind: "ValueError", Msg: "invalid format specifier " + strRepr(clip(s, 40))}
	}
	i := 0
	if r, size := utf8.DecodeRuneInString(s); size > 0 && size < len(s) && strings.IndexByte("<>^=", s[size]) >= 0 {
		sp.fill, sp.align, i = r, s[size], size+1
	} else if len(s) > 0 && strings.IndexByte("<>^=", s[0]) >= 0 {
		sp.align, i = s[0], 1
	}
	if i < len(s) && strings.IndexByte("+- ", s[i]) >= 0 {
		sp.sign = s[i]
		i++
	}
	if i < len(s) && s[i] == 'z' {
		i++
	}
	if i < len(s) && s[i] == '#' {
		sp.alt = true
		i++
	}
	if i < len(s) && s[i] == '0' {
		if sp.align == 0 {
			sp.fill, sp.align = '0', '='
		}
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i > start {
		w, err := strconv.Atoi(s[start:i])
		if err != nil || w > maxWidth {
			return spec{}, &Error{Kind: "LimitExceeded", Msg: "format width above " + strconv.Itoa(maxWidth)}
		}
		sp.width = w
	}
	if i < len(s) && (s[i] == ',' || s[i] == '_') {
		sp.group = s[i]
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return spec{}, &Error{Kind: "ValueError", Msg: "format specifier missing precision"}
		}
		p, err := strconv.Atoi(s[start:i])
		if err != nil || p > maxPrecision {
			return spec{}, &Error{Kind: "LimitExceeded", Msg: "format precision above " + strconv.Itoa(maxPrecision)}
		}
		sp.precision = p
	}
	if i < len(s) {
		if strings.IndexByte("dfFeEgG%sxXobcn", s[i]) < 0 {
			if s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' {
				return spec{}, &Error{Kind: "Unsupported", Msg: "format code " + strRepr(s[i:i+1]) + " is not supported"}
			}
			return bad()
		}
		sp.typ = s[i]
		i++
	}
	if i != len(s) {
		return bad()
	}
	return sp, nil
}

// format is format(v, spec): Python's format-spec mini-language for
// str, int, bool and float; other types only take an empty spec.
func (m *machine) format(v value, specText string) (string, error) {
	if specText == "" {
		return m.strOf(v)
	}
	sp, err := parseSpec(specText)
	if err != nil {
		return "", err
	}
	if err := m.step(sp.width/64 + 1); err != nil {
		return "", err
	}
	unknown := func() (string, error) {
		code := "''"
		if sp.typ != 0 {
			code = strRepr(string(sp.typ))
		}
		return "", &Error{Kind: "ValueError", Msg: "Unknown format code " + code + " for object of type " + strRepr(typeName(v))}
	}
	switch x := v.(type) {
	case string:
		if sp.typ != 0 && sp.typ != 's' {
			return unknown()
		}
		if sp.sign != 0 {
			return "", &Error{Kind: "ValueError", Msg: "Sign not allowed in string format specifier"}
		}
		if sp.group != 0 {
			return "", &Error{Kind: "ValueError", Msg: "Cannot specify ',' with 's'."}
		}
		if sp.align == '=' {
			return "", &Error{Kind: "ValueError", Msg: "'=' alignment not allowed in string format specifier"}
		}
		if sp.alt {
			return "", &Error{Kind: "ValueError", Msg: "Alternate form (#) not allowed in string format specifier"}
		}
		s := x
		if sp.precision >= 0 && utf8.RuneCountInString(s) > sp.precision {
			s = string([]rune(s)[:sp.precision])
		}
		return pad(s, "", sp, '<'), nil
	case bool, int64:
		i, _, _, _ := asNumber(x)
		switch sp.typ {
		case 0, 'd', 'n':
			if sp.precision >= 0 {
				return "", &Error{Kind: "ValueError", Msg: "Precision not allowed in integer format specifier"}
			}
			return pad(group(absDigits(i, 10), sp.group), signOf(i < 0, sp.sign), sp, '>'), nil
		case 'x', 'X', 'o', 'b':
			base := map[byte]int{'x': 16, 'X': 16, 'o': 8, 'b': 2}[sp.typ]
			d := absDigits(i, base)
			if sp.typ == 'X' {
				d = strings.ToUpper(d)
			}
			if sp.group == ',' {
				return "", &Error{Kind: "ValueError", Msg: "Cannot specify ',' with '" + string(sp.typ) + "'."}
			}
			prefix := signOf(i < 0, sp.sign)
			if sp.alt {
				prefix += "0" + string(sp.typ)
			}
			return pad(d, prefix, sp, '>'), nil
		case 'c':
			return pad(string(rune(i)), "", sp, '<'), nil
		case 's':
			return unknown()
		}
		if sp.alt {
			return "", &Error{Kind: "Unsupported", Msg: "the # format option is supported for x, X, o and b only"}
		}
		return formatFloat(float64(i), sp), nil
	case float64:
		switch sp.typ {
		case 'd', 's', 'x', 'X', 'o', 'b', 'c':
			return unknown()
		}
		if sp.alt {
			return "", &Error{Kind: "Unsupported", Msg: "the # format option is supported for x, X, o and b only"}
		}
		return formatFloat(x, sp), nil
	}
	return "", &Error{Kind: "TypeError", Msg: "unsupported format string passed to " + typeName(v) + ".__format__"}
}

func absDigits(i int64, base int) string {
	if i < 0 {
		return strconv.FormatUint(uint64(-(i+1))+1, base)
	}
	return strconv.FormatInt(i, base)
}

func formatFloat(f float64, sp spec) string {
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	prec := sp.precision
	var body string
	switch {
	case math.IsInf(a, 0) || math.IsNaN(a):
		body = "inf"
		if math.IsNaN(a) {
			body = "nan"
		}
		if sp.typ == '%' {
			body += "%"
		}
		if sp.typ == 'F' || sp.typ == 'E' || sp.typ == 'G' {
			body = strings.ToUpper(body)
		}
		return pad(body, signOf(neg, sp.sign), sp, '>')
	}
	if prec < 0 {
		prec = 6
	}
	switch sp.typ {
	case 'f', 'F':
		body = strconv.FormatFloat(a, 'f', prec, 64)
	case '%':
		body = strconv.FormatFloat(a*100, 'f', prec, 64) + "%"
	case 'e', 'E':
		body = strconv.FormatFloat(a, 'e', prec, 64)
	case 'g', 'G':
		body = strconv.FormatFloat(a, 'g', max(prec, 1), 64)
	default:
		if sp.precision < 0 {
			body = floatRepr(a)
		} else {
			body = strconv.FormatFloat(a, 'g', max(prec, 1), 64)
		}
	}
	if sp.typ == 'E' || sp.typ == 'G' {
		body = strings.ToUpper(body)
	}
	if sp.group != 0 {
		intPart, rest := body, ""
		if i := strings.IndexAny(body, ".e%"); i >= 0 {
			intPart, rest = body[:i], body[i:]
		}
		body = group(intPart, sp.group) + rest
	}
	return pad(body, signOf(neg, sp.sign), sp, '>')
}

func signOf(neg bool, sign byte) string {
	switch {
	case neg:
		return "-"
	case sign == '+':
		return "+"
	case sign == ' ':
		return " "
	}
	return ""
}

// group inserts sep every three digits from the right.
func group(digits string, sep byte) string {
	if sep == 0 || len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	first := len(digits) % 3
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// pad lays sign+body out in the spec's width; def is the default alignment
// ('<' for strings, '>' for numbers).
func pad(body, sign string, sp spec, def byte) string {
	n := utf8.RuneCountInString(sign) + utf8.RuneCountInString(body)
	if n >= sp.width {
		return sign + body
	}
	fill := strings.Repeat(string(sp.fill), sp.width-n)
	align := sp.align
	if align == 0 {
		align = def
	}
	switch align {
	case '<':
		return sign + body + fill
	case '^':
		half := (sp.width - n) / 2
		left := strings.Repeat(string(sp.fill), half)
		return left + sign + body + strings.Repeat(string(sp.fill), sp.width-n-half)
	case '=':
		return sign + fill + body
	}
	return fill + sign + body
}

// percentFormat is s % args, printf-style formatting.
func (m *machine) percentFormat(s string, args value) (value, error) {
	var items []value
	mapping, _ := args.(*dictV)
	if t, ok := args.(*tupleV); ok {
		items = t.items
	} else {
		items = []value{args}
	}
	used := 0
	next := func() (value, error) {
		if used >= len(items) {
			return nil, &Error{Kind: "TypeError", Msg: "not enough arguments for format string"}
		}
		used++
		return items[used-1], nil
	}
	var b strings.Builder
	usedMapping := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return nil, &Error{Kind: "ValueError", Msg: "incomplete format"}
		}
		var arg value = absent
		if s[i] == '(' {
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				return nil, &Error{Kind: "ValueError", Msg: "incomplete format key"}
			}
			if mapping == nil {
				return nil, &Error{Kind: "TypeError", Msg: "format requires a mapping"}
			}
			key := s[i+1 : i+end]
			j, err := m.dictLookup(mapping, key)
			if err != nil {
				return nil, err
			}
			if j < 0 {
				return nil, &Error{Kind: "KeyError", Msg: strRepr(clip(key, 40))}
			}
			arg = mapping.vals[j]
			usedMapping = true
			i += end + 1
		}
		sp := spec{fill: ' ', precision: -1}
		for ; i < len(s) && strings.IndexByte("-+ 0#", s[i]) >= 0; i++ {
			switch s[i] {
			case '-':
				sp.align = '<'
			case '+':
				sp.sign = '+'
			case ' ':
				if sp.sign == 0 {
					sp.sign = ' '
				}
			case '0':
				if sp.align == 0 {
					sp.fill, sp.align = '0', '='
				}
			}
		}
		if sp.align == '<' {
			sp.fill = ' '
		}
		// readNum reads a width or precision, digits or * for the next
		// argument; a negative * width left-aligns, as in CPython.
		readNum := func(what string, limit int) (int, error) {
			n := int64(0)
			if i < len(s) && s[i] == '*' {
				i++
				v, err := next()
				if err != nil {
					return 0, err
				}
				if n, err = toIndex(v); err != nil {
					return 0, &Error{Kind: "TypeError", Msg: "* wants int"}
				}
				if n < 0 && what == "width" {
					n, sp.align, sp.fill = -n, '<', ' '
				}
				n = max(n, 0)
			} else {
				start := i
				for i < len(s) && isDigit(s[i]) {
					i++
				}
				if i == start {
					return 0, nil
				}
				var err error
				if n, err = strconv.ParseInt(s[start:i], 10, 64); err != nil {
					n = math.MaxInt64
				}
			}
			if n > int64(limit) {
				return 0, &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("format %s above %d", what, limit)}
			}
			return int(n), nil
		}
		w, err := readNum("width", maxWidth)
		if err != nil {
			return nil, err
		}
		sp.width = w
		if i < len(s) && s[i] == '.' {
			i++
			p, err := readNum("precision", maxPrecision)
			if err != nil {
				return nil, err
			}
			sp.precision = p
		}
		if i >= len(s) {
			return nil, &Error{Kind: "ValueError", Msg: "incomplete format"}
		}
		typ := s[i]
		if typ == '%' {
			b.WriteByte('%')
			continue
		}
		if arg == absent {
			if arg, err = next(); err != nil {
				return nil, err
			}
		}
		var out string
		switch typ {
		case 's', 'r', 'a':
			var str string
			if typ == 's' {
				str, err = m.strOf(arg)
			} else {
				str, err = m.reprOf(arg)
			}
			if err != nil {
				return nil, err
			}
			if sp.precision >= 0 && utf8.RuneCountInString(str) > sp.precision {
				str = string([]rune(str)[:sp.precision])
			}
			sp.fill = ' '
			if sp.align == '=' {
				sp.align = 0
			}
			out = pad(str, "", sp, '>')
		case 'd', 'i', 'u', 'x', 'X', 'o':
			iv, fv, isInt, ok := asNumber(arg)
			if !ok {
				return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("%%%c format: a real number is required, not %s", typ, typeName(arg))}
			}
			if !isInt {
				t, err := floatToInt(fv)
				if err != nil {
					return nil, err
				}
				iv = t.(int64)
			}
			t := map[byte]byte{'d': 'd', 'i': 'd', 'u': 'd', 'x': 'x', 'X': 'X', 'o': 'o'}[typ]
			digits := absDigits(iv, map[byte]int{'d': 10, 'x': 16, 'X': 16, 'o': 8}[t])
			if t == 'X' {
				digits = strings.ToUpper(digits)
			}
			if sp.precision > len(digits) {
				digits = strings.Repeat("0", sp.precision-len(digits)) + digits
			}
			out = pad(digits, signOf(iv < 0, sp.sign), sp, '>')
		case 'f', 'F', 'e', 'E', 'g', 'G':
			if !isNumber(arg) {
				return nil, &Error{Kind: "TypeError", Msg: fmt.Sprintf("must be real number, not %s", typeName(arg))}
			}
			sp.typ = typ
			out = formatFloat(toFloat(arg), sp)
		case 'c':
			switch a := arg.(type) {
			case string:
				out = pad(a, "", sp, '>')
			default:
				iv, err := toIndex(a)
				if err != nil {
					return nil, err
				}
				out = pad(string(rune(iv)), "", sp, '>')
			}
		default:
			return nil, &Error{Kind: "ValueError", Msg: fmt.Sprintf("unsupported format character '%c' (0x%x) at index %d", typ, typ, i)}
		}
		b.WriteString(out)
		if b.Len() > m.lim.MaxValueLen {
			return nil, m.checkLen(b.Len(), 1, "string")
		}
	}
	if used < len(items) && !usedMapping && mapping == nil {
		return nil, &Error{Kind: "TypeError", Msg: "not all arguments converted during string formatting"}
	}
	if err := m.step(b.Len()/64 + 1); err != nil {
		return nil, err
	}
	return m.newStr(b.String())
}

// strFormat is str.format: {} {0} {name} fields with [key] and .attr
// lookups, !r/!s conversions and format specs (which may hold fields).
func (m *machine) strFormat(s string, args []value, kw []kwv) (string, error) {
	auto := 0
	var b strings.Builder
	var field func(body string, depth int) (string, error)
	field = func(body string, depth int) (string, error) {
		name, spec := body, ""
		conv := byte(0)
		// The spec starts at the first ':' outside brackets.
		bracket := 0
		for i := 0; i < len(body); i++ {
			switch body[i] {
			case '[':
				bracket++
			case ']':
				bracket--
			case ':', '!':
				if bracket == 0 {
					name = body[:i]
					rest := body[i:]
					if rest[0] == '!' {
						if len(rest) < 2 {
							return "", &Error{Kind: "ValueError", Msg: "end of string while looking for conversion specifier"}
						}
						conv = rest[1]
						rest = rest[2:]
						if rest != "" && rest[0] != ':' {
							return "", &Error{Kind: "ValueError", Msg: "expected ':' after conversion specifier"}
						}
					}
					if rest != "" {
						spec = rest[1:]
					}
					i = len(body)
				}
			}
		}
		first, rest := name, ""
		if j := strings.IndexAny(name, ".["); j >= 0 {
			first, rest = name[:j], name[j:]
		}
		var v value
		switch {
		case first == "":
			if auto < 0 {
				return "", &Error{Kind: "ValueError", Msg: "cannot switch from manual field specification to automatic field numbering"}
			}
			if auto >= len(args) {
				return "", &Error{Kind: "IndexError", Msg: fmt.Sprintf("Replacement index %d out of range for positional args tuple", auto)}
			}
			v = args[auto]
			auto++
		case isDigit(first[0]):
			n, err := strconv.Atoi(first)
			if err != nil || n >= len(args) {
				return "", &Error{Kind: "IndexError", Msg: fmt.Sprintf("Replacement index %s out of range for positional args tuple", clip(first, 20))}
			}
			if auto > 0 {
				return "", &Error{Kind: "ValueError", Msg: "cannot switch from automatic field numbering to manual field specification"}
			}
			auto = -1
			v = args[n]
		default:
			found := false
			for _, k := range kw {
				if k.name == first {
					v, found = k.v, true
				}
			}
			if !found {
				return "", &Error{Kind: "KeyError", Msg: strRepr(clip(first, 40))}
			}
		}
		for rest != "" {
			if rest[0] == '.' {
				j := strings.IndexAny(rest[1:], ".[")
				attr := rest[1:]
				if j >= 0 {
					attr, rest = rest[1:j+1], rest[j+1:]
				} else {
					rest = ""
				}
				a, err := m.attr(v, attr)
				if err != nil {
					return "", err
				}
				v = a
				continue
			}
			j := strings.IndexByte(rest, ']')
			if j < 0 {
				return "", &Error{Kind: "ValueError", Msg: "Missing ']' in format string"}
			}
			key := rest[1:j]
			rest = rest[j+1:]
			var kv value = key
			if n, err := strconv.Atoi(key); err == nil {
				kv = int64(n)
			}
			item, err := m.getItem(v, kv)
			if err != nil {
				return "", err
			}
			v = item
		}
		var err error
		switch conv {
		case 0:
		case 'r', 'a':
			v, err = m.reprOf(v)
		case 's':
			v, err = m.strOf(v)
		default:
			return "", &Error{Kind: "ValueError", Msg: fmt.Sprintf("Unknown conversion specifier %c", conv)}
		}
		if err != nil {
			return "", err
		}
		if strings.Contains(spec, "{") {
			if depth > 0 {
				return "", &Error{Kind: "ValueError", Msg: "Max string recursion exceeded"}
			}
			var sb strings.Builder
			for i := 0; i < len(spec); i++ {
				if spec[i] != '{' {
					sb.WriteByte(spec[i])
					continue
				}
				j := strings.IndexByte(spec[i:], '}')
				if j < 0 {
					return "", &Error{Kind: "ValueError", Msg: "unmatched '{' in format spec"}
				}
				inner, err := field(spec[i+1:i+j], depth+1)
				if err != nil {
					return "", err
				}
				sb.WriteString(inner)
				i += j
			}
			spec = sb.String()
		}
		return m.format(v, spec)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			b.WriteByte(c)
			i++
		case c == '}':
			return "", &Error{Kind: "ValueError", Msg: "Single '}' encountered in format string"}
		case c == '{':
			depth, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == '{' {
					depth++
				} else if s[j] == '}' {
					if depth == 0 {
						break
					}
					depth--
				}
			}
			if j >= len(s) {
				return "", &Error{Kind: "ValueError", Msg: "Single '{' encountered in format string"}
			}
			out, err := field(s[i+1:j], 0)
			if err != nil {
				return "", err
			}
			b.WriteString(out)
			if b.Len() > m.lim.MaxValueLen {
				return "", m.checkLen(b.Len(), 1, "string")
			}
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
