package pyexec

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tNewline
	tNumber
	tString
	tName
	tOp
	tIndent // the block opened by the line's deeper indentation
	tDedent // a block closed by the line's shallower indentation
)

// token is one lexeme. Numbers are decoded into num; strings into str
// (escapes applied) with fstring set for f-strings, whose fields are
// parsed later.
type token struct {
	kind    tokKind
	text    string // source text of a name or operator
	num     value
	str     string
	fstring bool
	line    int
}

// operators, longest first so that "**=" wins over "**" and "*".
var operators = []string{
	"**=", "//=", ">>=", "<<=", "...",
	"**", "//", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@=", "==", "!=", "<=", ">=", "->", ":=", "<<", ">>",
	"+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}", ",", ":", ";", "=", ".", "<", ">", "&", "|", "^", "~", "@", "!",
}

// lexer turns source into tokens. Newlines inside brackets and after a
// backslash continue the logical line, as in Python.
type lexer struct {
	src     string
	pos     int
	line    int
	depth   int  // open brackets
	bol     bool // at the beginning of a logical line
	indents []int
	tokens  []token
}

// lex tokenizes a program. Its first line starts a logical line, so
// leading whitespace there is an IndentationError.
func lex(src string) ([]token, error) { return lexFrom(src, 1, true) }

// lexFrom tokenizes src starting at line; an f-string field is lexed with
// bol false, so "{ x }" is not an indented statement.
func lexFrom(src string, line int, bol bool) ([]token, error) {
	// At most about one token per 2 bytes of code: one allocation, where
	// a slice doubled many times would be most of a short run's garbage.
	lx := &lexer{src: src, line: line, bol: bol, indents: []int{0}, tokens: make([]token, 0, len(src)/2+8)}
	indent := bol
	for {
		if lx.bol && indent {
			if err := lx.indentation(); err != nil {
				return nil, err
			}
		}
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		if t.kind == tEOF {
			if indent {
				if n := len(lx.tokens); n > 0 && lx.tokens[n-1].kind != tNewline && lx.tokens[n-1].kind != tDedent {
					lx.tokens = append(lx.tokens, token{kind: tNewline, line: lx.line})
				}
				for len(lx.indents) > 1 {
					lx.indents = lx.indents[:len(lx.indents)-1]
					lx.tokens = append(lx.tokens, token{kind: tDedent, line: lx.line})
				}
			}
			lx.tokens = append(lx.tokens, t)
			return lx.tokens, nil
		}
		lx.tokens = append(lx.tokens, t)
	}
}

// maxIndentLevels bounds nested blocks, so a hostile program cannot
// exhaust the parser's stack.
const maxIndentLevels = 50

// indentation reads the leading whitespace of a logical line (skipping
// blank and comment-only lines) and emits the INDENT or DEDENT tokens that
// open or close blocks, as Python's tokenizer does (a tab advances to the
// next multiple of 8).
func (lx *lexer) indentation() error {
	for {
		col, p := 0, lx.pos
		for p < len(lx.src) {
			switch lx.src[p] {
			case ' ':
				col++
			case '\t':
				col = (col/8 + 1) * 8
			case '\f':
				col = 0
			default:
				goto measured
			}
			p++
		}
	measured:
		if p >= len(lx.src) {
			lx.pos = p
			return nil
		}
		if c := lx.src[p]; c == '\n' || c == '#' || c == '\r' && p+1 < len(lx.src) && lx.src[p+1] == '\n' {
			// A blank or comment-only line: no tokens.
			for p < len(lx.src) && lx.src[p] != '\n' {
				p++
			}
			if p < len(lx.src) {
				p++
				lx.line++
			}
			lx.pos = p
			continue
		}
		lx.pos = p
		top := lx.indents[len(lx.indents)-1]
		switch {
		case col > top:
			if len(lx.indents) > maxIndentLevels {
				return lx.errorf("SyntaxError", "too many nested blocks (at most %d)", maxIndentLevels)
			}
			lx.indents = append(lx.indents, col)
			lx.tokens = append(lx.tokens, token{kind: tIndent, line: lx.line})
		case col < top:
			for col < lx.indents[len(lx.indents)-1] {
				lx.indents = lx.indents[:len(lx.indents)-1]
				lx.tokens = append(lx.tokens, token{kind: tDedent, line: lx.line})
			}
			if col != lx.indents[len(lx.indents)-1] {
				return lx.errorf("IndentationError", "unindent does not match any outer indentation level")
			}
		}
		return nil
	}
}

func (lx *lexer) errorf(kind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Line: lx.line}
}

func (lx *lexer) next() (token, error) {
	for {
		if lx.pos >= len(lx.src) {
			if lx.depth > 0 {
				return token{}, lx.errorf("SyntaxError", "unexpected end of code: a bracket is not closed")
			}
			return token{kind: tEOF, line: lx.line}, nil
		}
		c := lx.src[lx.pos]
		switch {
		case c == '\n':
			lx.pos++
			lx.line++
			if lx.depth > 0 || lx.bol {
				continue
			}
			lx.bol = true
			return token{kind: tNewline, line: lx.line - 1}, nil
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			for lx.pos < len(lx.src) && strings.IndexByte(" \t\r\f", lx.src[lx.pos]) >= 0 {
				lx.pos++
			}
			continue
		case c == '#':
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
			continue
		case c == '\\':
			if lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == '\n' {
				lx.pos += 2
				lx.line++
				continue
			}
			if lx.pos+2 < len(lx.src) && lx.src[lx.pos+1] == '\r' && lx.src[lx.pos+2] == '\n' {
				lx.pos += 3
				lx.line++
				continue
			}
			return token{}, lx.errorf("SyntaxError", "unexpected character after line continuation character")
		}
		lx.bol = false
		switch {
		case c >= '0' && c <= '9' || c == '.' && lx.pos+1 < len(lx.src) && isDigit(lx.src[lx.pos+1]):
			return lx.number()
		case c == '"' || c == '\'':
			return lx.stringLit("")
		case isNameStart(lx.src[lx.pos:]):
			start := lx.pos
			for lx.pos < len(lx.src) {
				r, size := utf8.DecodeRuneInString(lx.src[lx.pos:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				lx.pos += size
			}
			name := lx.src[start:lx.pos]
			if lx.pos < len(lx.src) && (lx.src[lx.pos] == '"' || lx.src[lx.pos] == '\'') && len(name) <= 2 {
				return lx.stringLit(name)
			}
			return token{kind: tName, text: name, line: lx.line}, nil
		}
		for _, op := range operators {
			if strings.HasPrefix(lx.src[lx.pos:], op) {
				lx.pos += len(op)
				switch op {
				case "(", "[", "{":
					lx.depth++
				case ")", "]", "}":
					if lx.depth == 0 {
						return token{}, lx.errorf("SyntaxError", "unmatched %q", op)
					}
					lx.depth--
				}
				return token{kind: tOp, text: op, line: lx.line}, nil
			}
		}
		r, _ := utf8.DecodeRuneInString(lx.src[lx.pos:])
		return token{}, lx.errorf("SyntaxError", "invalid character %q", r)
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNameStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || unicode.IsLetter(r)
}

// number reads an int or float literal with Python's spelling: optional
// underscores between digits, 0x/0o/0b prefixes for ints, no leading zeros
// on decimal ints.
func (lx *lexer) number() (token, error) {
	start := lx.pos
	src := lx.src
	isFloat := false
	if src[lx.pos] == '0' && lx.pos+1 < len(src) && strings.IndexByte("xXoObB", src[lx.pos+1]) >= 0 {
		lx.pos += 2
		for lx.pos < len(src) && (isHexDigit(src[lx.pos]) || src[lx.pos] == '_') {
			lx.pos++
		}
	} else {
		for lx.pos < len(src) && (isDigit(src[lx.pos]) || src[lx.pos] == '_') {
			lx.pos++
		}
		if lx.pos < len(src) && src[lx.pos] == '.' {
			isFloat = true
			lx.pos++
			for lx.pos < len(src) && (isDigit(src[lx.pos]) || src[lx.pos] == '_') {
				lx.pos++
			}
		}
		if lx.pos < len(src) && (src[lx.pos] == 'e' || src[lx.pos] == 'E') {
			j := lx.pos + 1
			if j < len(src) && (src[j] == '+' || src[j] == '-') {
				j++
			}
			if j < len(src) && isDigit(src[j]) {
				isFloat = true
				lx.pos = j
				for lx.pos < len(src) && (isDigit(src[lx.pos]) || src[lx.pos] == '_') {
					lx.pos++
				}
			}
		}
	}
	text := src[start:lx.pos]
	if lx.pos < len(src) && (src[lx.pos] == 'j' || src[lx.pos] == 'J') {
		return token{}, lx.errorf("Unsupported", "complex numbers (%sj) are not supported", clip(text, 40))
	}
	if lx.pos < len(src) && isNameStart(src[lx.pos:]) {
		return token{}, lx.errorf("SyntaxError", "invalid number literal %q", clip(text, 40))
	}
	if strings.Contains(text, "__") || strings.HasSuffix(text, "_") || strings.Contains(text, "_.") || strings.Contains(text, "._") {
		return token{}, lx.errorf("SyntaxError", "invalid number literal %q", clip(text, 40))
	}
	if isFloat {
		f, err := strconv.ParseFloat(strings.ReplaceAll(text, "_", ""), 64)
		if err != nil && !isRangeError(err) {
			return token{}, lx.errorf("SyntaxError", "invalid number literal %q", clip(text, 40))
		}
		return token{kind: tNumber, num: floatVal(f), line: lx.line}, nil
	}
	digits := strings.ReplaceAll(text, "_", "")
	if len(digits) > 1 && digits[0] == '0' && isDigit(digits[1]) && strings.Trim(digits, "0") != "" {
		return token{}, lx.errorf("SyntaxError", "leading zeros in decimal integer literals are not permitted: %q", clip(text, 40))
	}
	base := 10
	if len(digits) > 1 && digits[0] == '0' && !isDigit(digits[1]) {
		switch digits[1] | 0x20 {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		digits = digits[2:]
	}
	n, err := strconv.ParseInt(digits, base, 64)
	if err != nil {
		if isRangeError(err) {
			return token{}, lx.errorf("OverflowError", "integer literal %q is too large (python_execute keeps integers within 64 bits)", clip(text, 40))
		}
		return token{}, lx.errorf("SyntaxError", "invalid number literal %q", clip(text, 40))
	}
	return token{kind: tNumber, num: intVal(n), line: lx.line}, nil
}

func isHexDigit(c byte) bool { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// stringLit reads a string literal with an optional prefix (f, r or both;
// bytes literals are refused), single or triple quoted.
func (lx *lexer) stringLit(prefix string) (token, error) {
	p := strings.ToLower(prefix)
	var fstr, raw bool
	for _, c := range p {
		switch c {
		case 'f':
			fstr = true
		case 'r':
			raw = true
		case 'b':
			return token{}, lx.errorf("Unsupported", "bytes literals are not supported")
		default:
			return token{}, lx.errorf("SyntaxError", "invalid string prefix %q", prefix)
		}
	}
	line := lx.line
	q := lx.src[lx.pos]
	triple := strings.HasPrefix(lx.src[lx.pos:], strings.Repeat(string(q), 3))
	closing := string(q)
	if triple {
		closing = strings.Repeat(string(q), 3)
	}
	lx.pos += len(closing)
	var b strings.Builder
	for {
		if lx.pos >= len(lx.src) {
			return token{}, &Error{Kind: "SyntaxError", Msg: "unterminated string literal", Line: line}
		}
		if strings.HasPrefix(lx.src[lx.pos:], closing) {
			lx.pos += len(closing)
			break
		}
		c := lx.src[lx.pos]
		switch {
		case c == '\n' && !triple:
			return token{}, &Error{Kind: "SyntaxError", Msg: "unterminated string literal", Line: line}
		case c == '\n':
			lx.line++
			b.WriteByte(c)
			lx.pos++
		case c == '\\' && lx.pos+1 < len(lx.src):
			if raw {
				b.WriteString(lx.src[lx.pos : lx.pos+2])
				lx.pos += 2
				continue
			}
			if err := lx.escape(&b); err != nil {
				return token{}, err
			}
		default:
			b.WriteByte(c)
			lx.pos++
		}
	}
	s := b.String()
	if !utf8.ValidString(s) {
		return token{}, &Error{Kind: "SyntaxError", Msg: "string literal is not valid UTF-8", Line: line}
	}
	return token{kind: tString, str: s, fstring: fstr, line: line}, nil
}

// escape decodes the backslash escape at lx.pos into b. Unknown escapes
// keep their backslash, as Python does.
func (lx *lexer) escape(b *strings.Builder) error {
	c := lx.src[lx.pos+1]
	lx.pos += 2
	switch c {
	case '\n':
		lx.line++
	case '\\', '\'', '"':
		b.WriteByte(c)
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '0':
		b.WriteByte(0)
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		if lx.pos+n > len(lx.src) {
			return lx.errorf("SyntaxError", "truncated \\%c escape", c)
		}
		v, err := strconv.ParseUint(lx.src[lx.pos:lx.pos+n], 16, 32)
		if err != nil || v > unicode.MaxRune {
			return lx.errorf("SyntaxError", "invalid \\%c escape", c)
		}
		b.WriteRune(rune(v))
		lx.pos += n
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return nil
}
