package pyexec

import (
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
	if i < len(s) && (s[i] == 'z' || s[i] == '#') {
		return spec{}, &Error{Kind: "Unsupported", Msg: "the " + string(s[i]) + " format option is not supported"}
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
		if strings.IndexByte("dfFeEgG%s", s[i]) < 0 {
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

// formatValue is format(v, spec) for the subset's types.
func formatValue(v value, specText string, limit int) (string, error) {
	if specText == "" {
		s, ok := v.str(limit)
		if !ok {
			return "", &Error{Kind: "LimitExceeded", Msg: "a string would be over " + strconv.Itoa(limit) + " bytes long"}
		}
		return s, nil
	}
	sp, err := parseSpec(specText)
	if err != nil {
		return "", err
	}
	unknown := func() (string, error) {
		code := "''"
		if sp.typ != 0 {
			code = strRepr(string(sp.typ))
		}
		return "", &Error{Kind: "ValueError", Msg: "unknown format code " + code + " for object of type " + strRepr(v.typeName())}
	}
	switch v.k {
	case kStr:
		if sp.typ != 0 && sp.typ != 's' {
			return unknown()
		}
		if sp.sign != 0 || sp.group != 0 || sp.align == '=' {
			return "", &Error{Kind: "ValueError", Msg: "sign, grouping and '=' alignment are not allowed in a string format"}
		}
		s := v.s
		if sp.precision >= 0 && utf8.RuneCountInString(s) > sp.precision {
			s = string([]rune(s)[:sp.precision])
		}
		return pad(s, "", sp, '<'), nil
	case kInt:
		switch sp.typ {
		case 0, 'd':
			if sp.precision >= 0 {
				return "", &Error{Kind: "ValueError", Msg: "precision not allowed in integer format specifier"}
			}
			digits := strconv.FormatUint(uint64(v.i), 10)
			if v.i < 0 {
				digits = strconv.FormatUint(uint64(-(v.i+1))+1, 10)
			}
			return pad(group(digits, sp.group), signOf(v.i < 0, sp.sign), sp, '>'), nil
		case 's':
			return unknown()
		}
		return formatFloat(float64(v.i), sp), nil
	case kFloat:
		if sp.typ == 'd' || sp.typ == 's' {
			return unknown()
		}
		return formatFloat(v.f, sp), nil
	}
	return "", &Error{Kind: "TypeError", Msg: "unsupported format string passed to " + v.typeName() + ".__format__"}
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
