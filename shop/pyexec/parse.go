package pyexec

import (
	"fmt"
	"strings"
)

// The syntax tree of the subset.
type (
	expr interface{ pos() int }

	numExpr struct {
		v  value
		ln int
	}
	strExpr struct {
		s  string
		ln int
	}
	fstrExpr struct {
		parts []fpart
		ln    int
	}
	nameExpr struct {
		id string
		ln int
	}
	listExpr struct {
		elems []expr
		ln    int
	}
	unaryExpr struct {
		op string
		x  expr
		ln int
	}
	binExpr struct {
		op   string
		l, r expr
		ln   int
	}
	callExpr struct {
		fn   string
		args []expr
		kw   []kwArg
		ln   int
	}
	indexExpr struct {
		x, i expr
		ln   int
	}
)

// fpart is a literal piece of an f-string (x nil) or a field.
type fpart struct {
	lit  string
	x    expr
	spec string
}

type kwArg struct {
	name string
	x    expr
}

func (e *numExpr) pos() int   { return e.ln }
func (e *strExpr) pos() int   { return e.ln }
func (e *fstrExpr) pos() int  { return e.ln }
func (e *nameExpr) pos() int  { return e.ln }
func (e *listExpr) pos() int  { return e.ln }
func (e *unaryExpr) pos() int { return e.ln }
func (e *binExpr) pos() int   { return e.ln }
func (e *callExpr) pos() int  { return e.ln }
func (e *indexExpr) pos() int { return e.ln }

// stmt is an expression statement (targets empty), an assignment
// "a = b = x" or an augmented assignment "a += x" (op set).
type stmt struct {
	targets []string
	op      string
	x       expr
	line    int
}

// maxNesting bounds brackets and unary operators inside each other, so a
// hostile program cannot exhaust the stack.
const maxNesting = 100

type parser struct {
	toks  []token
	pos   int
	depth int
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) advance() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

func errAt(line int, kind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Line: line}
}

func parse(src string) ([]stmt, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	var prog []stmt
	for {
		for p.peek().kind == tNewline || p.isOp(";") {
			p.advance()
		}
		if p.peek().kind == tEOF {
			return prog, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		prog = append(prog, s)
		switch t := p.peek(); {
		case t.kind == tNewline, t.kind == tEOF, t.kind == tOp && t.text == ";":
		default:
			return nil, p.unexpected(t)
		}
	}
}

// keywordStatements are Python keywords that begin statements, with what
// to call them in the error.
var keywordStatements = map[string]string{
	"if": "if statements", "elif": "if statements", "else": "if statements", "for": "loops", "while": "loops",
	"break": "loops", "continue": "loops", "def": "function definitions", "class": "classes",
	"lambda": "lambda functions", "return": "return statements", "import": "imports", "from": "imports",
	"try": "exception handling", "except": "exception handling", "finally": "exception handling", "raise": "exception handling",
	"with": "with statements", "assert": "assert statements", "del": "del statements", "global": "global statements",
	"nonlocal": "nonlocal statements", "pass": "pass statements", "yield": "generators", "async": "async code",
	"await": "async code", "match": "match statements", "case": "match statements",
}

// keywordOperators are keywords that appear inside expressions.
var keywordOperators = map[string]string{
	"and": "boolean operators (and, or, not)", "or": "boolean operators (and, or, not)", "not": "boolean operators (and, or, not)",
	"in": "comparisons", "is": "comparisons", "if": "conditional expressions", "else": "conditional expressions",
	"for": "comprehensions", "lambda": "lambda functions", "yield": "generators", "await": "async code",
	"True": "booleans and None", "False": "booleans and None", "None": "booleans and None",
}

func (p *parser) unexpected(t token) error {
	switch t.kind {
	case tEOF:
		return errAt(t.line, "SyntaxError", "unexpected end of code")
	case tNewline:
		return errAt(t.line, "SyntaxError", "unexpected end of line")
	case tIndent:
		return errAt(t.line, "IndentationError", "unexpected indent")
	case tName:
		if what, ok := keywordOperators[t.text]; ok {
			return errAt(t.line, "Unsupported", "%s are not supported", what)
		}
		return errAt(t.line, "SyntaxError", "invalid syntax near %q", clip(t.text, 40))
	case tOp:
		switch t.text {
		case "<", ">", "==", "!=", "<=", ">=":
			return errAt(t.line, "Unsupported", "comparisons (%s) are not supported", t.text)
		case ",":
			return errAt(t.line, "Unsupported", "tuples are not supported; use a list such as [a, b]")
		case ":":
			return errAt(t.line, "Unsupported", "type annotations and blocks (:) are not supported")
		case ":=", "&=", "|=", "^=", "@=", ">>=", "<<=":
			return errAt(t.line, "Unsupported", "the %s operator is not supported", t.text)
		}
		return errAt(t.line, "SyntaxError", "invalid syntax near %q", t.text)
	}
	return errAt(t.line, "SyntaxError", "invalid syntax")
}

var augmented = map[string]string{"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "%=": "%", "**=": "**"}

func (p *parser) statement() (stmt, error) {
	t := p.peek()
	if t.kind == tIndent {
		return stmt{}, errAt(t.line, "IndentationError", "unexpected indent")
	}
	if t.kind == tName {
		if what, ok := keywordStatements[t.text]; ok {
			next := p.toks[min(p.pos+1, len(p.toks)-1)]
			// "match = 3" and "case = 2" are assignments, not statements.
			if !(next.kind == tOp && (next.text == "=" || augmented[next.text] != "")) || t.text != "match" && t.text != "case" {
				return stmt{}, errAt(t.line, "Unsupported", "%s are not supported", what)
			}
		}
	}
	s := stmt{line: t.line}
	x, err := p.expression()
	if err != nil {
		return s, err
	}
	for p.isOp("=") {
		eq := p.advance()
		name, err := assignTarget(x, eq.line)
		if err != nil {
			return s, err
		}
		s.targets = append(s.targets, name)
		if x, err = p.expression(); err != nil {
			return s, err
		}
	}
	if op, ok := augmented[p.peek().text]; ok && p.peek().kind == tOp && len(s.targets) == 0 {
		at := p.advance()
		name, err := assignTarget(x, at.line)
		if err != nil {
			return s, err
		}
		s.targets, s.op = []string{name}, op
		if x, err = p.expression(); err != nil {
			return s, err
		}
	}
	s.x = x
	return s, nil
}

func assignTarget(x expr, line int) (string, error) {
	switch t := x.(type) {
	case *nameExpr:
		return t.id, nil
	case *indexExpr:
		return "", errAt(line, "Unsupported", "assigning to list items is not supported; build a new list")
	}
	return "", errAt(line, "SyntaxError", "cannot assign to an expression")
}

// expression parses an arithmetic expression and refuses what may follow
// one in full Python (comparisons, conditionals, boolean operators).
func (p *parser) expression() (expr, error) {
	x, err := p.arith()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind == tName {
		if _, ok := keywordOperators[t.text]; ok {
			return nil, p.unexpected(t)
		}
	}
	if t.kind == tOp {
		switch t.text {
		case "<", ">", "==", "!=", "<=", ">=", ":=":
			return nil, p.unexpected(t)
		}
	}
	return x, nil
}

func (p *parser) arith() (expr, error) {
	x, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.advance()
		y, err := p.term()
		if err != nil {
			return nil, err
		}
		x = &binExpr{op: op.text, l: x, r: y, ln: op.line}
	}
	return x, nil
}

func (p *parser) term() (expr, error) {
	x, err := p.factor()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp {
			return x, nil
		}
		switch t.text {
		case "*", "/", "//", "%":
		case "@", "&", "|", "^", "<<", ">>":
			return nil, errAt(t.line, "Unsupported", "the %s operator is not supported", t.text)
		default:
			return x, nil
		}
		p.advance()
		y, err := p.factor()
		if err != nil {
			return nil, err
		}
		x = &binExpr{op: t.text, l: x, r: y, ln: t.line}
	}
}

func (p *parser) enter(line int) error {
	p.depth++
	if p.depth > maxNesting {
		return errAt(line, "SyntaxError", "too many nested parentheses or operators (at most %d)", maxNesting)
	}
	return nil
}

func (p *parser) factor() (expr, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "+" || t.text == "-" || t.text == "~") {
		if t.text == "~" {
			return nil, errAt(t.line, "Unsupported", "the ~ operator is not supported")
		}
		p.advance()
		if err := p.enter(t.line); err != nil {
			return nil, err
		}
		x, err := p.factor()
		p.depth--
		if err != nil {
			return nil, err
		}
		return &unaryExpr{op: t.text, x: x, ln: t.line}, nil
	}
	return p.power()
}

func (p *parser) power() (expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.isOp("**") {
		op := p.advance()
		if err := p.enter(op.line); err != nil {
			return nil, err
		}
		y, err := p.factor()
		p.depth--
		if err != nil {
			return nil, err
		}
		x = &binExpr{op: "**", l: x, r: y, ln: op.line}
	}
	return x, nil
}

func (p *parser) primary() (expr, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.kind != tOp {
			return x, nil
		}
		switch t.text {
		case "(":
			name, ok := x.(*nameExpr)
			if !ok {
				return nil, errAt(t.line, "Unsupported", "only the built-in functions can be called")
			}
			if x, err = p.call(name); err != nil {
				return nil, err
			}
		case "[":
			p.advance()
			if err := p.enter(t.line); err != nil {
				return nil, err
			}
			i, err := p.expression()
			p.depth--
			if err != nil {
				return nil, err
			}
			if p.isOp(":") {
				return nil, errAt(t.line, "Unsupported", "slices are not supported")
			}
			if !p.isOp("]") {
				return nil, p.unexpected(p.peek())
			}
			p.advance()
			x = &indexExpr{x: x, i: i, ln: t.line}
		case ".":
			return nil, errAt(t.line, "Unsupported", "attribute and method access (x.y) is not supported; use f-strings to format numbers")
		default:
			return x, nil
		}
	}
}

func (p *parser) call(fn *nameExpr) (expr, error) {
	open := p.advance()
	if err := p.enter(open.line); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	c := &callExpr{fn: fn.id, ln: fn.ln}
	err := p.commaList(")", func() error {
		if p.isOp("*") || p.isOp("**") {
			return errAt(p.peek().line, "Unsupported", "argument unpacking (*args, **kwargs) is not supported")
		}
		t := p.peek()
		next := p.toks[min(p.pos+1, len(p.toks)-1)]
		if t.kind == tName && next.kind == tOp && next.text == "=" {
			p.advance()
			p.advance()
			x, err := p.expression()
			c.kw = append(c.kw, kwArg{name: t.text, x: x})
			return err
		}
		if len(c.kw) > 0 {
			return errAt(t.line, "SyntaxError", "positional argument follows keyword argument")
		}
		x, err := p.expression()
		c.args = append(c.args, x)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// commaList parses comma-separated items up to and including the closing
// bracket; a trailing comma is allowed.
func (p *parser) commaList(closing string, item func() error) error {
	for !p.isOp(closing) {
		if err := item(); err != nil {
			return err
		}
		if p.isOp(",") {
			p.advance()
			continue
		}
		if !p.isOp(closing) {
			return p.unexpected(p.peek())
		}
	}
	p.advance()
	return nil
}

func (p *parser) atom() (expr, error) {
	t := p.advance()
	switch t.kind {
	case tNumber:
		return &numExpr{v: t.num, ln: t.line}, nil
	case tString:
		return p.stringLits(t)
	case tName:
		if what, ok := keywordOperators[t.text]; ok {
			return nil, errAt(t.line, "Unsupported", "%s are not supported", what)
		}
		if what, ok := keywordStatements[t.text]; ok && t.text != "match" && t.text != "case" {
			return nil, errAt(t.line, "Unsupported", "%s are not supported", what)
		}
		return &nameExpr{id: t.text, ln: t.line}, nil
	case tOp:
		switch t.text {
		case "(":
			if err := p.enter(t.line); err != nil {
				return nil, err
			}
			defer func() { p.depth-- }()
			if p.isOp(")") {
				return nil, errAt(t.line, "Unsupported", "tuples are not supported; use a list such as [a, b]")
			}
			x, err := p.expression()
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, p.unexpected(p.peek())
			}
			p.advance()
			return x, nil
		case "[":
			if err := p.enter(t.line); err != nil {
				return nil, err
			}
			defer func() { p.depth-- }()
			l := &listExpr{ln: t.line}
			err := p.commaList("]", func() error {
				x, err := p.expression()
				l.elems = append(l.elems, x)
				return err
			})
			if err != nil {
				return nil, err
			}
			return l, nil
		case "{":
			return nil, errAt(t.line, "Unsupported", "dicts and sets are not supported")
		case "...":
			return nil, errAt(t.line, "Unsupported", "Ellipsis is not supported")
		}
	}
	return nil, p.unexpected(t)
}

// stringLits joins adjacent string literals ("a" "b", "a" f"{x}") into one.
func (p *parser) stringLits(first token) (expr, error) {
	var parts []fpart
	fstr := false
	for t := first; ; t = p.advance() {
		if t.fstring {
			fstr = true
			fp, err := parseFString(t.str, t.line)
			if err != nil {
				return nil, err
			}
			parts = append(parts, fp...)
		} else {
			parts = append(parts, fpart{lit: t.str})
		}
		if p.peek().kind != tString {
			break
		}
	}
	if !fstr {
		var b strings.Builder
		for _, fp := range parts {
			b.WriteString(fp.lit)
		}
		return &strExpr{s: b.String(), ln: first.line}, nil
	}
	return &fstrExpr{parts: parts, ln: first.line}, nil
}

// parseFString splits an f-string body into literal text and {expr:spec}
// fields. Conversions (!r), nested fields in the spec and the "=" form are
// refused.
func parseFString(s string, line int) ([]fpart, error) {
	var parts []fpart
	var lit strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i += 2
		case c == '}':
			return nil, errAt(line, "SyntaxError", "f-string: single '}' is not allowed")
		case c == '{':
			end, colon, err := fieldEnd(s, i+1, line)
			if err != nil {
				return nil, err
			}
			src, spec := s[i+1:end], ""
			if colon >= 0 {
				src, spec = s[i+1:colon], s[colon+1:end]
			}
			if strings.ContainsAny(spec, "{}") {
				return nil, errAt(line, "Unsupported", "nested fields in f-string format specs are not supported")
			}
			if strings.TrimSpace(src) == "" {
				return nil, errAt(line, "SyntaxError", "f-string: empty expression not allowed")
			}
			x, err := parseFieldExpr(src, line)
			if err != nil {
				return nil, err
			}
			if lit.Len() > 0 {
				parts = append(parts, fpart{lit: lit.String()})
				lit.Reset()
			}
			parts = append(parts, fpart{x: x, spec: spec})
			i = end + 1
		default:
			lit.WriteByte(c)
			i++
		}
	}
	if lit.Len() > 0 {
		parts = append(parts, fpart{lit: lit.String()})
	}
	return parts, nil
}

// fieldEnd finds the '}' closing the field that starts at i, and the ':'
// that starts its format spec (-1 if none), skipping brackets and quoted
// strings inside the expression.
func fieldEnd(s string, i, line int) (end, colon int, err error) {
	depth := 0
	colon = -1
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return 0, 0, errAt(line, "SyntaxError", "f-string: unterminated string")
			}
			i += j + 1
		case '(', '[', '{':
			if colon < 0 {
				depth++
			}
		case ')', ']':
			if colon < 0 {
				depth--
			}
		case '!':
			if colon < 0 && depth == 0 && (i+1 >= len(s) || s[i+1] != '=') {
				return 0, 0, errAt(line, "Unsupported", "f-string conversions (!r, !s, !a) are not supported")
			}
		case ':':
			if depth == 0 && colon < 0 {
				colon = i
			}
		case '}':
			if depth == 0 || colon >= 0 {
				return i, colon, nil
			}
			depth--
		}
	}
	return 0, 0, errAt(line, "SyntaxError", "f-string: expecting '}'")
}

func parseFieldExpr(src string, line int) (expr, error) {
	toks, err := lexFrom(src, line, false)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	x, err := p.expression()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		if t.kind == tOp && t.text == "=" {
			return nil, errAt(line, "Unsupported", "the f-string = form is not supported")
		}
		return nil, p.unexpected(t)
	}
	return x, nil
}

// clip shortens program text quoted in an error.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
