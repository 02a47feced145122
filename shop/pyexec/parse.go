package pyexec

import (
	"fmt"
	"slices"
	"strings"
)

// The syntax tree.
type (
	expr interface{ pos() int }

	constExpr struct {
		v  value
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
	// seqExpr is a list, tuple or set display; kind is '[', '(' or '{'.
	seqExpr struct {
		kind  byte
		elems []expr
		ln    int
	}
	// dictExpr is a dict display; a nil key is a **mapping spread.
	dictExpr struct {
		keys, vals []expr
		ln         int
	}
	// compExpr is a comprehension: kind '[' list, '{' set, 'd' dict,
	// '(' generator.
	compExpr struct {
		kind     byte
		elt, val expr
		fors     []compFor
		ln       int
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
	boolExpr struct {
		and  bool
		l, r expr
		ln   int
	}
	notExpr struct {
		x  expr
		ln int
	}
	cmpExpr struct {
		first expr
		ops   []string
		rest  []expr
		ln    int
	}
	condExpr struct {
		cond, a, b expr
		ln         int
	}
	lambdaExpr struct {
		params []param
		body   expr
		ln     int
	}
	callExpr struct {
		fn   expr
		args []arg
		ln   int
	}
	indexExpr struct {
		x, i expr
		ln   int
	}
	sliceExpr struct {
		lo, hi, step expr
		ln           int
	}
	attrExpr struct {
		x    expr
		name string
		ln   int
	}
	starExpr struct {
		x  expr
		ln int
	}
	walrusExpr struct {
		name string
		x    expr
		ln   int
	}
)

type compFor struct {
	target expr
	iter   expr
	ifs    []expr
}

// fpart is a literal piece of an f-string (x nil) or a field with its
// conversion ('r', 's', 'a' or 0) and format spec (itself f-string parts).
type fpart struct {
	lit   string
	x     expr
	conv  byte
	spec  []fpart
	debug string // the "x=" text of an f"{x=}" field
}

// arg is a call argument: positional, name=x, *x (star 1) or **x (star 2).
type arg struct {
	name string
	star int
	x    expr
}

// param is a function parameter; star 1 is *args, 2 is **kwargs.
type param struct {
	name   string
	star   int
	hasDef bool
	def    expr
}

func (e *constExpr) pos() int  { return e.ln }
func (e *fstrExpr) pos() int   { return e.ln }
func (e *nameExpr) pos() int   { return e.ln }
func (e *seqExpr) pos() int    { return e.ln }
func (e *dictExpr) pos() int   { return e.ln }
func (e *compExpr) pos() int   { return e.ln }
func (e *unaryExpr) pos() int  { return e.ln }
func (e *binExpr) pos() int    { return e.ln }
func (e *boolExpr) pos() int   { return e.ln }
func (e *notExpr) pos() int    { return e.ln }
func (e *cmpExpr) pos() int    { return e.ln }
func (e *condExpr) pos() int   { return e.ln }
func (e *lambdaExpr) pos() int { return e.ln }
func (e *callExpr) pos() int   { return e.ln }
func (e *indexExpr) pos() int  { return e.ln }
func (e *sliceExpr) pos() int  { return e.ln }
func (e *attrExpr) pos() int   { return e.ln }
func (e *starExpr) pos() int   { return e.ln }
func (e *walrusExpr) pos() int { return e.ln }

// Statements.
type (
	stmt interface{ line() int }

	exprStmt struct {
		x  expr
		ln int
	}
	assignStmt struct {
		targets []expr
		x       expr
		ln      int
	}
	augStmt struct {
		target expr
		op     string
		x      expr
		ln     int
	}
	ifStmt struct {
		cond      expr
		body, els []stmt
		ln        int
	}
	whileStmt struct {
		cond      expr
		body, els []stmt
		ln        int
	}
	forStmt struct {
		target    expr
		iter      expr
		body, els []stmt
		ln        int
	}
	defStmt struct {
		name   string
		params []param
		body   []stmt
		locals map[string]bool
		global map[string]bool
		ln     int
	}
	returnStmt struct {
		x  expr
		ln int
	}
	// simpleStmt is pass, break or continue.
	simpleStmt struct {
		kw string
		ln int
	}
	globalStmt struct {
		names    []string
		nonlocal bool
		ln       int
	}
	delStmt struct {
		targets []expr
		ln      int
	}
	raiseStmt struct {
		x  expr
		ln int
	}
	assertStmt struct {
		test, msg expr
		ln        int
	}
	tryStmt struct {
		body     []stmt
		handlers []handler
		els      []stmt
		finally  []stmt
		ln       int
	}
)

type handler struct {
	types expr // nil: a bare except
	name  string
	body  []stmt
}

func (s *exprStmt) line() int   { return s.ln }
func (s *assignStmt) line() int { return s.ln }
func (s *augStmt) line() int    { return s.ln }
func (s *ifStmt) line() int     { return s.ln }
func (s *whileStmt) line() int  { return s.ln }
func (s *forStmt) line() int    { return s.ln }
func (s *defStmt) line() int    { return s.ln }
func (s *returnStmt) line() int { return s.ln }
func (s *simpleStmt) line() int { return s.ln }
func (s *globalStmt) line() int { return s.ln }
func (s *delStmt) line() int    { return s.ln }
func (s *raiseStmt) line() int  { return s.ln }
func (s *assertStmt) line() int { return s.ln }
func (s *tryStmt) line() int    { return s.ln }

// maxNesting bounds brackets, operators and blocks inside each other, so
// a hostile program cannot exhaust the stack.
const maxNesting = 100

type parser struct {
	toks  []token
	pos   int
	depth int
	loops int // enclosing loops in the current function, for break/continue
	funcs int // enclosing functions, for return
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

func (p *parser) isKw(s string) bool {
	t := p.peek()
	return t.kind == tName && t.text == s
}

func (p *parser) expectOp(s string) error {
	if !p.isOp(s) {
		return p.expected(fmt.Sprintf("'%s'", s))
	}
	p.advance()
	return nil
}

func (p *parser) expected(what string) error {
	t := p.peek()
	if t.kind == tIndent {
		return errAt(t.line, "IndentationError", "unexpected indent")
	}
	return errAt(t.line, "SyntaxError", "expected %s, got %s", what, describe(t))
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "the end of the code"
	case tNewline:
		return "the end of the line"
	case tIndent:
		return "an indent"
	case tDedent:
		return "a dedent"
	case tNumber:
		return "a number"
	case tString:
		return "a string"
	}
	return fmt.Sprintf("'%s'", clip(t.text, 40))
}

func errAt(line int, kind, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Line: line}
}

func (p *parser) enter(line int) error {
	p.depth++
	if p.depth > maxNesting {
		return errAt(line, "SyntaxError", "too many nested parentheses, operators or blocks (at most %d)", maxNesting)
	}
	return nil
}

func parse(src string) ([]stmt, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	var prog []stmt
	for {
		for p.peek().kind == tNewline {
			p.advance()
		}
		if p.peek().kind == tEOF {
			return prog, nil
		}
		ss, err := p.statement()
		if err != nil {
			return nil, err
		}
		prog = append(prog, ss...)
	}
}

// keywords are Python's reserved words: none can name a variable.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true, "await": true,
	"break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true,
	"lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true,
	"while": true, "with": true, "yield": true,
}

// statement parses one line's statements or one compound statement.
func (p *parser) statement() ([]stmt, error) {
	t := p.peek()
	if t.kind == tIndent {
		return nil, errAt(t.line, "IndentationError", "unexpected indent")
	}
	if t.kind == tName {
		switch t.text {
		case "if", "while", "for", "def", "try":
			if err := p.enter(t.line); err != nil {
				return nil, err
			}
			defer func() { p.depth-- }()
			s, err := p.compound()
			if err != nil {
				return nil, err
			}
			return []stmt{s}, nil
		case "class":
			return nil, errAt(t.line, "Unsupported", "class definitions are not supported; use dicts and functions")
		case "with":
			return nil, errAt(t.line, "Unsupported", "with statements are not supported (there are no files or resources)")
		case "async", "await", "yield":
			return nil, errAt(t.line, "Unsupported", "%s is not supported", t.text)
		case "match":
			if next := p.toks[min(p.pos+1, len(p.toks)-1)]; next.kind == tName || next.kind == tNumber || next.kind == tString {
				return nil, errAt(t.line, "Unsupported", "match statements are not supported; use if/elif")
			}
		}
	}
	return p.simpleLine()
}

// simpleLine parses small statements separated by ';' up to the newline.
func (p *parser) simpleLine() ([]stmt, error) {
	var out []stmt
	for {
		s, err := p.small()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		if !p.isOp(";") {
			break
		}
		p.advance()
		if k := p.peek().kind; k == tNewline || k == tEOF {
			break
		}
	}
	switch t := p.peek(); t.kind {
	case tNewline:
		p.advance()
	case tEOF, tDedent:
	default:
		return nil, p.unexpectedAfterStatement(t)
	}
	return out, nil
}

func (p *parser) unexpectedAfterStatement(t token) error {
	if t.kind == tIndent {
		return errAt(t.line, "IndentationError", "unexpected indent")
	}
	if t.kind == tOp && (t.text == ":=" || t.text == "&=" || t.text == "|=" || t.text == "^=" || t.text == "@=" || t.text == "<<=" || t.text == ">>=") {
		return errAt(t.line, "Unsupported", "the %s operator is not supported", t.text)
	}
	return errAt(t.line, "SyntaxError", "invalid syntax near %s", describe(t))
}

var augmented = map[string]string{"+=": "+", "-=": "-", "*=": "*", "/=": "/", "//=": "//", "%=": "%", "**=": "**",
	"&=": "&", "|=": "|", "^=": "^", "<<=": "<<", ">>=": ">>"}

func (p *parser) small() (stmt, error) {
	t := p.peek()
	if t.kind == tName {
		switch t.text {
		case "pass", "break", "continue":
			p.advance()
			if t.text != "pass" && p.loops == 0 {
				return nil, errAt(t.line, "SyntaxError", "'%s' outside loop", t.text)
			}
			return &simpleStmt{kw: t.text, ln: t.line}, nil
		case "return":
			p.advance()
			if p.funcs == 0 {
				return nil, errAt(t.line, "SyntaxError", "'return' outside function")
			}
			s := &returnStmt{ln: t.line}
			if !p.atStatementEnd() {
				x, err := p.exprList()
				if err != nil {
					return nil, err
				}
				s.x = x
			}
			return s, nil
		case "import", "from":
			return nil, errAt(t.line, "Unsupported", "imports are not supported: python_execute has no modules (no math, no decimal); "+
				"use round(), int(), abs(), min(), max(), // and %% instead")
		case "global", "nonlocal":
			p.advance()
			s := &globalStmt{nonlocal: t.text == "nonlocal", ln: t.line}
			for {
				n := p.advance()
				if n.kind != tName || keywords[n.text] {
					return nil, errAt(n.line, "SyntaxError", "expected a name after %s", t.text)
				}
				s.names = append(s.names, n.text)
				if !p.isOp(",") {
					break
				}
				p.advance()
			}
			return s, nil
		case "del":
			p.advance()
			x, err := p.exprList()
			if err != nil {
				return nil, err
			}
			s := &delStmt{ln: t.line}
			if tu, ok := x.(*seqExpr); ok && tu.kind == '(' {
				s.targets = tu.elems
			} else {
				s.targets = []expr{x}
			}
			for _, x := range s.targets {
				switch x.(type) {
				case *nameExpr, *indexExpr:
				default:
					return nil, errAt(t.line, "SyntaxError", "cannot delete this expression")
				}
			}
			return s, nil
		case "raise":
			p.advance()
			s := &raiseStmt{ln: t.line}
			if !p.atStatementEnd() {
				x, err := p.test()
				if err != nil {
					return nil, err
				}
				s.x = x
				if p.isKw("from") {
					p.advance()
					if _, err := p.test(); err != nil {
						return nil, err
					}
				}
			}
			return s, nil
		case "assert":
			p.advance()
			x, err := p.test()
			if err != nil {
				return nil, err
			}
			s := &assertStmt{test: x, ln: t.line}
			if p.isOp(",") {
				p.advance()
				if s.msg, err = p.test(); err != nil {
					return nil, err
				}
			}
			return s, nil
		}
	}
	x, err := p.exprList()
	if err != nil {
		return nil, err
	}
	if p.isOp(":") {
		// An annotation: "x: float = 1.5" or just "x: float".
		if _, ok := x.(*nameExpr); !ok {
			return nil, errAt(t.line, "SyntaxError", "only single names can be annotated")
		}
		p.advance()
		if _, err := p.test(); err != nil {
			return nil, err
		}
		if !p.isOp("=") {
			return &simpleStmt{kw: "pass", ln: t.line}, nil
		}
	}
	if p.isOp("=") {
		s := &assignStmt{ln: t.line}
		for p.isOp("=") {
			eq := p.advance()
			if err := checkTarget(x, eq.line); err != nil {
				return nil, err
			}
			s.targets = append(s.targets, x)
			if x, err = p.exprList(); err != nil {
				return nil, err
			}
		}
		s.x = x
		return s, nil
	}
	if tk := p.peek(); tk.kind == tOp && augmented[tk.text] != "" {
		p.advance()
		switch x.(type) {
		case *nameExpr, *indexExpr, *attrExpr:
		default:
			return nil, errAt(tk.line, "SyntaxError", "'%s' is an illegal expression for augmented assignment", exprKind(x))
		}
		if a, ok := x.(*attrExpr); ok {
			return nil, errAt(tk.line, "Unsupported", "assigning to attributes (.%s) is not supported", clip(a.name, 40))
		}
		v, err := p.exprList()
		if err != nil {
			return nil, err
		}
		return &augStmt{target: x, op: augmented[tk.text], x: v, ln: t.line}, nil
	}
	return &exprStmt{x: x, ln: t.line}, nil
}

func exprKind(x expr) string {
	switch x := x.(type) {
	case *callExpr:
		return "function call"
	case *constExpr:
		return "literal"
	case *seqExpr:
		switch x.kind {
		case '[':
			return "list"
		case '(':
			return "tuple"
		}
		return "set display"
	case *binExpr, *unaryExpr:
		return "expression"
	}
	return "expression"
}

// checkTarget accepts what Python can assign to: names, items, and
// tuples or lists of those (with at most one starred name).
func checkTarget(x expr, line int) error {
	switch t := x.(type) {
	case *nameExpr:
		if keywords[t.id] {
			return errAt(line, "SyntaxError", "cannot assign to %s", t.id)
		}
		return nil
	case *indexExpr:
		return nil
	case *attrExpr:
		return errAt(line, "Unsupported", "assigning to attributes (.%s) is not supported", clip(t.name, 40))
	case *starExpr:
		return checkTarget(t.x, line)
	case *seqExpr:
		if t.kind == '{' {
			break
		}
		stars := 0
		for _, e := range t.elems {
			if _, ok := e.(*starExpr); ok {
				stars++
			}
			if err := checkTarget(e, line); err != nil {
				return err
			}
		}
		if stars > 1 {
			return errAt(line, "SyntaxError", "multiple starred expressions in assignment")
		}
		return nil
	case *constExpr:
		if t.v == nil || t.v == true || t.v == false {
			return errAt(line, "SyntaxError", "cannot assign to %s", strings.TrimSpace(fmt.Sprint(reprOf(t.v))))
		}
		return errAt(line, "SyntaxError", "cannot assign to literal")
	}
	return errAt(line, "SyntaxError", "cannot assign to %s", exprKind(x))
}

func reprOf(v value) string {
	p := printer{limit: 200}
	p.repr(v)
	return p.b.String()
}

func (p *parser) atStatementEnd() bool {
	t := p.peek()
	return t.kind == tNewline || t.kind == tEOF || t.kind == tDedent || t.kind == tOp && t.text == ";"
}

// block parses ':' then either the rest of the line or an indented block.
func (p *parser) block() ([]stmt, error) {
	if err := p.expectOp(":"); err != nil {
		return nil, err
	}
	if p.peek().kind != tNewline {
		return p.simpleLine()
	}
	p.advance()
	for p.peek().kind == tNewline {
		p.advance()
	}
	if p.peek().kind != tIndent {
		return nil, errAt(p.peek().line, "IndentationError", "expected an indented block")
	}
	p.advance()
	var body []stmt
	for {
		t := p.peek()
		if t.kind == tDedent {
			p.advance()
			return body, nil
		}
		if t.kind == tEOF {
			return body, nil
		}
		if t.kind == tNewline {
			p.advance()
			continue
		}
		ss, err := p.statement()
		if err != nil {
			return nil, err
		}
		body = append(body, ss...)
	}
}

func (p *parser) compound() (stmt, error) {
	t := p.advance()
	switch t.text {
	case "if":
		cond, err := p.namedTest()
		if err != nil {
			return nil, err
		}
		body, err := p.block()
		if err != nil {
			return nil, err
		}
		s := &ifStmt{cond: cond, body: body, ln: t.line}
		switch {
		case p.isKw("elif"):
			el, err := p.compound()
			if err != nil {
				return nil, err
			}
			s.els = []stmt{el}
		case p.isKw("else"):
			p.advance()
			if s.els, err = p.block(); err != nil {
				return nil, err
			}
		}
		return s, nil
	case "elif":
		t.text = "if"
		p.pos--
		p.toks[p.pos] = t
		return p.compound()
	case "while":
		cond, err := p.namedTest()
		if err != nil {
			return nil, err
		}
		p.loops++
		body, err := p.block()
		p.loops--
		if err != nil {
			return nil, err
		}
		s := &whileStmt{cond: cond, body: body, ln: t.line}
		if p.isKw("else") {
			p.advance()
			if s.els, err = p.block(); err != nil {
				return nil, err
			}
		}
		return s, nil
	case "for":
		target, err := p.targetList()
		if err != nil {
			return nil, err
		}
		if !p.isKw("in") {
			return nil, p.expected("'in'")
		}
		p.advance()
		iter, err := p.exprList()
		if err != nil {
			return nil, err
		}
		p.loops++
		body, err := p.block()
		p.loops--
		if err != nil {
			return nil, err
		}
		s := &forStmt{target: target, iter: iter, body: body, ln: t.line}
		if p.isKw("else") {
			p.advance()
			if s.els, err = p.block(); err != nil {
				return nil, err
			}
		}
		return s, nil
	case "def":
		n := p.advance()
		if n.kind != tName || keywords[n.text] {
			return nil, errAt(n.line, "SyntaxError", "expected a function name after def")
		}
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		params, err := p.params(")")
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		if p.isOp("->") {
			p.advance()
			if _, err := p.test(); err != nil {
				return nil, err
			}
		}
		loops := p.loops
		p.loops = 0
		p.funcs++
		body, err := p.block()
		p.funcs--
		p.loops = loops
		if err != nil {
			return nil, err
		}
		d := &defStmt{name: n.text, params: params, body: body, ln: t.line}
		d.locals, d.global = localNames(params, body)
		return d, nil
	case "try":
		body, err := p.block()
		if err != nil {
			return nil, err
		}
		s := &tryStmt{body: body, ln: t.line}
		for p.isKw("except") {
			et := p.advance()
			var h handler
			if !p.isOp(":") {
				if h.types, err = p.test(); err != nil {
					return nil, err
				}
				if p.isOp(",") {
					return nil, errAt(et.line, "SyntaxError", "multiple exception types must be parenthesized")
				}
				if p.isKw("as") {
					p.advance()
					n := p.advance()
					if n.kind != tName || keywords[n.text] {
						return nil, errAt(n.line, "SyntaxError", "expected a name after 'as'")
					}
					h.name = n.text
				}
			}
			if h.body, err = p.block(); err != nil {
				return nil, err
			}
			s.handlers = append(s.handlers, h)
		}
		if p.isKw("else") && len(s.handlers) > 0 {
			p.advance()
			if s.els, err = p.block(); err != nil {
				return nil, err
			}
		}
		if p.isKw("finally") {
			p.advance()
			if s.finally, err = p.block(); err != nil {
				return nil, err
			}
		}
		if len(s.handlers) == 0 && s.finally == nil {
			return nil, errAt(t.line, "SyntaxError", "expected 'except' or 'finally' block")
		}
		return s, nil
	}
	return nil, errAt(t.line, "SyntaxError", "invalid syntax near %s", describe(t))
}

// localNames is what a function assigns (its locals) and what it
// declares global or nonlocal (true for nonlocal), as Python decides
// scope at compile time.
func localNames(params []param, body []stmt) (locals map[string]bool, global map[string]bool) {
	locals, global = map[string]bool{}, map[string]bool{}
	for _, pr := range params {
		locals[pr.name] = true
	}
	var target func(x expr)
	target = func(x expr) {
		switch t := x.(type) {
		case *nameExpr:
			locals[t.id] = true
		case *starExpr:
			target(t.x)
		case *seqExpr:
			for _, e := range t.elems {
				target(e)
			}
		}
	}
	var walk func([]stmt)
	walk = func(ss []stmt) {
		for _, s := range ss {
			switch s := s.(type) {
			case *assignStmt:
				for _, t := range s.targets {
					target(t)
				}
			case *augStmt:
				target(s.target)
			case *forStmt:
				target(s.target)
				walk(s.body)
				walk(s.els)
			case *whileStmt:
				walk(s.body)
				walk(s.els)
			case *ifStmt:
				walk(s.body)
				walk(s.els)
			case *defStmt:
				locals[s.name] = true
			case *delStmt:
				for _, t := range s.targets {
					target(t)
				}
			case *tryStmt:
				walk(s.body)
				for _, h := range s.handlers {
					if h.name != "" {
						locals[h.name] = true
					}
					walk(h.body)
				}
				walk(s.els)
				walk(s.finally)
			case *globalStmt:
				for _, n := range s.names {
					global[n] = s.nonlocal
				}
			}
		}
	}
	walk(body)
	for n := range global {
		delete(locals, n)
	}
	return locals, global
}

// params parses a def's or lambda's parameters up to closing.
func (p *parser) params(closing string) ([]param, error) {
	var out []param
	seen := map[string]bool{}
	for !p.isOp(closing) {
		var pr param
		switch {
		case p.isOp("*"):
			p.advance()
			pr.star = 1
		case p.isOp("**"):
			p.advance()
			pr.star = 2
		case p.isOp("/"):
			p.advance()
			if !p.isOp(closing) {
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
			continue
		}
		if pr.star == 1 && p.isOp(",") {
			// A bare * (name "") only marks the parameters after it
			// keyword-only.
			p.advance()
			if p.isOp(closing) {
				return nil, errAt(p.peek().line, "SyntaxError", "named arguments must follow bare *")
			}
			out = append(out, pr)
			continue
		}
		n := p.advance()
		if n.kind != tName || keywords[n.text] {
			return nil, errAt(n.line, "SyntaxError", "expected a parameter name, got %s", describe(n))
		}
		if seen[n.text] {
			return nil, errAt(n.line, "SyntaxError", "duplicate argument '%s' in function definition", n.text)
		}
		seen[n.text] = true
		pr.name = n.text
		if closing == ")" && p.isOp(":") {
			p.advance()
			if _, err := p.test(); err != nil {
				return nil, err
			}
		}
		if p.isOp("=") && pr.star == 0 {
			p.advance()
			d, err := p.test()
			if err != nil {
				return nil, err
			}
			pr.hasDef, pr.def = true, d
		} else if pr.star == 0 && len(out) > 0 && out[len(out)-1].hasDef && !slices.ContainsFunc(out, isStar) {
			// Keyword-only parameters (after * or *args) may go without
			// a default even after one that has one.
			return nil, errAt(n.line, "SyntaxError", "non-default argument follows default argument")
		}
		out = append(out, pr)
		if !p.isOp(",") {
			break
		}
		p.advance()
	}
	return out, nil
}

func isStar(p param) bool { return p.star != 0 }

// exprList parses "a" or "a, b, *c" (a tuple without parentheses).
func (p *parser) exprList() (expr, error) {
	t := p.peek()
	first, err := p.starOrTest()
	if err != nil {
		return nil, err
	}
	if !p.isOp(",") {
		if _, ok := first.(*starExpr); ok {
			return nil, errAt(t.line, "SyntaxError", "can't use starred expression here")
		}
		return first, nil
	}
	elems := []expr{first}
	for p.isOp(",") {
		p.advance()
		if p.atExprEnd() {
			break
		}
		x, err := p.starOrTest()
		if err != nil {
			return nil, err
		}
		elems = append(elems, x)
	}
	return &seqExpr{kind: '(', elems: elems, ln: t.line}, nil
}

// atExprEnd reports whether no expression follows (after a trailing comma).
func (p *parser) atExprEnd() bool {
	t := p.peek()
	if t.kind == tNewline || t.kind == tEOF || t.kind == tDedent {
		return true
	}
	if t.kind == tOp {
		switch t.text {
		case "=", ")", "]", "}", ":", ";":
			return true
		}
		return augmented[t.text] != ""
	}
	return t.kind == tName && t.text == "in"
}

// targetList parses a for loop's or comprehension's target (no 'in').
func (p *parser) targetList() (expr, error) {
	t := p.peek()
	var elems []expr
	for {
		x, err := p.starOr(p.bitOr)
		if err != nil {
			return nil, err
		}
		elems = append(elems, x)
		if !p.isOp(",") {
			break
		}
		p.advance()
		if p.isKw("in") {
			break
		}
	}
	var x expr = &seqExpr{kind: '(', elems: elems, ln: t.line}
	if len(elems) == 1 && p.toks[p.pos-1].text != "," {
		x = elems[0]
	}
	if err := checkTarget(x, t.line); err != nil {
		return nil, err
	}
	return x, nil
}

func (p *parser) starOrTest() (expr, error) { return p.starOr(p.test) }

func (p *parser) starOr(next func() (expr, error)) (expr, error) {
	if p.isOp("*") {
		t := p.advance()
		x, err := p.bitOr()
		if err != nil {
			return nil, err
		}
		return &starExpr{x: x, ln: t.line}, nil
	}
	return next()
}

// namedTest is a test or "name := test".
func (p *parser) namedTest() (expr, error) {
	t := p.peek()
	if t.kind == tName && p.toks[min(p.pos+1, len(p.toks)-1)].text == ":=" {
		p.advance()
		p.advance()
		x, err := p.test()
		if err != nil {
			return nil, err
		}
		return &walrusExpr{name: t.text, x: x, ln: t.line}, nil
	}
	return p.test()
}

// test is a conditional expression or lambda.
func (p *parser) test() (expr, error) {
	t := p.peek()
	if err := p.enter(t.line); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if p.isKw("lambda") {
		p.advance()
		params, err := p.params(":")
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		p.funcs++
		loops := p.loops
		p.loops = 0
		body, err := p.test()
		p.loops = loops
		p.funcs--
		if err != nil {
			return nil, err
		}
		return &lambdaExpr{params: params, body: body, ln: t.line}, nil
	}
	x, err := p.orTest()
	if err != nil {
		return nil, err
	}
	if p.isKw("if") {
		p.advance()
		cond, err := p.orTest()
		if err != nil {
			return nil, err
		}
		if !p.isKw("else") {
			return nil, p.expected("'else' after the condition of a conditional expression")
		}
		p.advance()
		b, err := p.test()
		if err != nil {
			return nil, err
		}
		return &condExpr{cond: cond, a: x, b: b, ln: t.line}, nil
	}
	return x, nil
}

func (p *parser) orTest() (expr, error) {
	x, err := p.andTest()
	if err != nil {
		return nil, err
	}
	for p.isKw("or") {
		t := p.advance()
		r, err := p.andTest()
		if err != nil {
			return nil, err
		}
		x = &boolExpr{l: x, r: r, ln: t.line}
	}
	return x, nil
}

func (p *parser) andTest() (expr, error) {
	x, err := p.notTest()
	if err != nil {
		return nil, err
	}
	for p.isKw("and") {
		t := p.advance()
		r, err := p.notTest()
		if err != nil {
			return nil, err
		}
		x = &boolExpr{and: true, l: x, r: r, ln: t.line}
	}
	return x, nil
}

func (p *parser) notTest() (expr, error) {
	if p.isKw("not") {
		t := p.advance()
		if err := p.enter(t.line); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.notTest()
		if err != nil {
			return nil, err
		}
		return &notExpr{x: x, ln: t.line}, nil
	}
	return p.comparison()
}

func (p *parser) compOp() string {
	t := p.peek()
	switch {
	case t.kind == tOp:
		switch t.text {
		case "<", ">", "==", ">=", "<=", "!=":
			return t.text
		}
	case t.kind == tName && t.text == "in":
		return "in"
	case t.kind == tName && t.text == "not" && p.toks[min(p.pos+1, len(p.toks)-1)].text == "in":
		return "not in"
	case t.kind == tName && t.text == "is":
		if n := p.toks[min(p.pos+1, len(p.toks)-1)]; n.kind == tName && n.text == "not" {
			return "is not"
		}
		return "is"
	}
	return ""
}

func (p *parser) comparison() (expr, error) {
	t := p.peek()
	x, err := p.bitOr()
	if err != nil {
		return nil, err
	}
	op := p.compOp()
	if op == "" {
		return x, nil
	}
	c := &cmpExpr{first: x, ln: t.line}
	for ; op != ""; op = p.compOp() {
		p.advance()
		if op == "not in" || op == "is not" {
			p.advance()
		}
		r, err := p.bitOr()
		if err != nil {
			return nil, err
		}
		c.ops = append(c.ops, op)
		c.rest = append(c.rest, r)
	}
	return c, nil
}

// binLevels are the binary operator precedence levels, loosest first.
var binLevels = [][]string{{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}}

func (p *parser) bitOr() (expr, error) { return p.binLevel(0) }

func (p *parser) binLevel(level int) (expr, error) {
	if level == len(binLevels) {
		return p.factor()
	}
	x, err := p.binLevel(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		found := false
		if t.kind == tOp {
			for _, op := range binLevels[level] {
				found = found || t.text == op
			}
		}
		if !found {
			return x, nil
		}
		p.advance()
		if t.text == "@" {
			return nil, errAt(t.line, "Unsupported", "the @ operator is not supported")
		}
		r, err := p.binLevel(level + 1)
		if err != nil {
			return nil, err
		}
		x = &binExpr{op: t.text, l: x, r: r, ln: t.line}
	}
}

func (p *parser) factor() (expr, error) {
	t := p.peek()
	if t.kind == tOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.advance()
		if err := p.enter(t.line); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.factor()
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
		t := p.advance()
		if err := p.enter(t.line); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		r, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &binExpr{op: "**", l: x, r: r, ln: t.line}, nil
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
			p.advance()
			args, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{fn: x, args: args, ln: t.line}
		case "[":
			p.advance()
			i, err := p.subscript()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			x = &indexExpr{x: x, i: i, ln: t.line}
		case ".":
			p.advance()
			n := p.advance()
			if n.kind != tName {
				return nil, errAt(n.line, "SyntaxError", "expected an attribute name after '.'")
			}
			if strings.HasPrefix(n.text, "_") {
				return nil, errAt(n.line, "Unsupported", "attribute names starting with '_' (%s) are not accessible", clip(n.text, 40))
			}
			x = &attrExpr{x: x, name: n.text, ln: n.line}
		default:
			return x, nil
		}
		if err := p.enter(t.line); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
	}
}

// subscript is an index, a slice lo:hi:step, or a tuple of them.
func (p *parser) subscript() (expr, error) {
	t := p.peek()
	one := func() (expr, error) {
		var lo expr
		var err error
		if !p.isOp(":") {
			if lo, err = p.namedTest(); err != nil {
				return nil, err
			}
			if !p.isOp(":") {
				return lo, nil
			}
		}
		s := &sliceExpr{lo: lo, ln: t.line}
		p.advance()
		if !p.isOp("]") && !p.isOp(":") && !p.isOp(",") {
			if s.hi, err = p.test(); err != nil {
				return nil, err
			}
		}
		if p.isOp(":") {
			p.advance()
			if !p.isOp("]") && !p.isOp(",") {
				if s.step, err = p.test(); err != nil {
					return nil, err
				}
			}
		}
		return s, nil
	}
	x, err := one()
	if err != nil || !p.isOp(",") {
		return x, err
	}
	elems := []expr{x}
	for p.isOp(",") {
		p.advance()
		if p.isOp("]") {
			break
		}
		if x, err = one(); err != nil {
			return nil, err
		}
		elems = append(elems, x)
	}
	return &seqExpr{kind: '(', elems: elems, ln: t.line}, nil
}

func (p *parser) callArgs() ([]arg, error) {
	var args []arg
	for !p.isOp(")") {
		t := p.peek()
		var a arg
		switch {
		case p.isOp("*"):
			p.advance()
			a.star = 1
		case p.isOp("**"):
			p.advance()
			a.star = 2
		case t.kind == tName && p.toks[min(p.pos+1, len(p.toks)-1)].text == "=" && p.toks[min(p.pos+1, len(p.toks)-1)].kind == tOp:
			if keywords[t.text] {
				return nil, errAt(t.line, "SyntaxError", "invalid keyword argument %s", t.text)
			}
			p.advance()
			p.advance()
			a.name = t.text
		}
		x, err := p.namedTest()
		if err != nil {
			return nil, err
		}
		if p.isKw("for") && a.star == 0 && a.name == "" {
			c, err := p.comprehension('(', x, nil, t.line)
			if err != nil {
				return nil, err
			}
			x = c
		}
		a.x = x
		if a.name == "" && a.star == 0 {
			for _, prev := range args {
				if prev.name != "" || prev.star == 2 {
					return nil, errAt(t.line, "SyntaxError", "positional argument follows keyword argument")
				}
			}
		}
		args = append(args, a)
		if !p.isOp(",") {
			break
		}
		p.advance()
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	return args, nil
}

// comprehension parses the "for ... in ... if ..." clauses after elt.
func (p *parser) comprehension(kind byte, elt, val expr, line int) (expr, error) {
	c := &compExpr{kind: kind, elt: elt, val: val, ln: line}
	for p.isKw("for") {
		p.advance()
		target, err := p.targetList()
		if err != nil {
			return nil, err
		}
		if !p.isKw("in") {
			return nil, p.expected("'in'")
		}
		p.advance()
		iter, err := p.orTest()
		if err != nil {
			return nil, err
		}
		f := compFor{target: target, iter: iter}
		for p.isKw("if") {
			p.advance()
			cond, err := p.orTestNoCond()
			if err != nil {
				return nil, err
			}
			f.ifs = append(f.ifs, cond)
		}
		c.fors = append(c.fors, f)
	}
	return c, nil
}

func (p *parser) orTestNoCond() (expr, error) { return p.orTest() }

func (p *parser) atom() (expr, error) {
	t := p.advance()
	switch t.kind {
	case tNumber:
		return &constExpr{v: t.num, ln: t.line}, nil
	case tString:
		return p.stringLits(t)
	case tName:
		switch t.text {
		case "True":
			return &constExpr{v: true, ln: t.line}, nil
		case "False":
			return &constExpr{v: false, ln: t.line}, nil
		case "None":
			return &constExpr{v: nil, ln: t.line}, nil
		case "lambda", "not":
			p.pos--
			return p.test()
		case "yield", "await":
			return nil, errAt(t.line, "Unsupported", "%s is not supported", t.text)
		}
		if keywords[t.text] {
			return nil, errAt(t.line, "SyntaxError", "invalid syntax near '%s'", t.text)
		}
		return &nameExpr{id: t.text, ln: t.line}, nil
	case tOp:
		if err := p.enter(t.line); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		switch t.text {
		case "(":
			if p.isOp(")") {
				p.advance()
				return &seqExpr{kind: '(', ln: t.line}, nil
			}
			x, err := p.starOr(p.namedTest)
			if err != nil {
				return nil, err
			}
			if p.isKw("for") {
				c, err := p.comprehension('(', x, nil, t.line)
				if err != nil {
					return nil, err
				}
				return c, p.expectOp(")")
			}
			if p.isOp(")") {
				p.advance()
				if _, ok := x.(*starExpr); ok {
					return nil, errAt(t.line, "SyntaxError", "can't use starred expression here")
				}
				return x, nil
			}
			elems := []expr{x}
			for p.isOp(",") {
				p.advance()
				if p.isOp(")") {
					break
				}
				x, err := p.starOrTest()
				if err != nil {
					return nil, err
				}
				elems = append(elems, x)
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return &seqExpr{kind: '(', elems: elems, ln: t.line}, nil
		case "[":
			if p.isOp("]") {
				p.advance()
				return &seqExpr{kind: '[', ln: t.line}, nil
			}
			x, err := p.starOr(p.namedTest)
			if err != nil {
				return nil, err
			}
			if p.isKw("for") {
				c, err := p.comprehension('[', x, nil, t.line)
				if err != nil {
					return nil, err
				}
				return c, p.expectOp("]")
			}
			elems := []expr{x}
			for p.isOp(",") {
				p.advance()
				if p.isOp("]") {
					break
				}
				x, err := p.starOrTest()
				if err != nil {
					return nil, err
				}
				elems = append(elems, x)
			}
			if err := p.expectOp("]"); err != nil {
				return nil, err
			}
			return &seqExpr{kind: '[', elems: elems, ln: t.line}, nil
		case "{":
			return p.braces(t)
		case "...":
			return nil, errAt(t.line, "Unsupported", "Ellipsis is not supported")
		}
	case tIndent:
		return nil, errAt(t.line, "IndentationError", "unexpected indent")
	}
	return nil, errAt(t.line, "SyntaxError", "invalid syntax near %s", describe(t))
}

// braces parses a dict or set display or comprehension after '{'.
func (p *parser) braces(t token) (expr, error) {
	if p.isOp("}") {
		p.advance()
		return &dictExpr{ln: t.line}, nil
	}
	d := &dictExpr{ln: t.line}
	item := func() (isDict bool, err error) {
		if p.isOp("**") {
			p.advance()
			v, err := p.bitOr()
			if err != nil {
				return false, err
			}
			d.keys, d.vals = append(d.keys, nil), append(d.vals, v)
			return true, nil
		}
		k, err := p.starOrTest()
		if err != nil {
			return false, err
		}
		if !p.isOp(":") {
			d.keys = append(d.keys, k)
			return false, nil
		}
		p.advance()
		v, err := p.test()
		if err != nil {
			return false, err
		}
		d.keys, d.vals = append(d.keys, k), append(d.vals, v)
		return true, nil
	}
	isDict, err := item()
	if err != nil {
		return nil, err
	}
	if p.isKw("for") {
		var c expr
		if isDict {
			if d.keys[0] == nil {
				return nil, errAt(t.line, "SyntaxError", "dict unpacking cannot be used in dict comprehension")
			}
			c, err = p.comprehension('d', d.keys[0], d.vals[0], t.line)
		} else {
			c, err = p.comprehension('{', d.keys[0], nil, t.line)
		}
		if err != nil {
			return nil, err
		}
		return c, p.expectOp("}")
	}
	for p.isOp(",") {
		p.advance()
		if p.isOp("}") {
			break
		}
		again, err := item()
		if err != nil {
			return nil, err
		}
		if again != isDict {
			return nil, errAt(t.line, "SyntaxError", "invalid syntax: a display mixes dict items and set items")
		}
	}
	if err := p.expectOp("}"); err != nil {
		return nil, err
	}
	if isDict {
		return d, nil
	}
	return &seqExpr{kind: '{', elems: d.keys, ln: t.line}, nil
}

// stringLits joins adjacent string literals ("a" "b", "a" f"{x}") into one.
func (p *parser) stringLits(first token) (expr, error) {
	var parts []fpart
	fstr := false
	for t := first; ; t = p.advance() {
		if t.fstring {
			fstr = true
			fp, err := parseFString(t.str, t.line, 0)
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
		return &constExpr{v: b.String(), ln: first.line}, nil
	}
	return &fstrExpr{parts: parts, ln: first.line}, nil
}

// parseFString splits an f-string body into literal text and
// {expr!conv:spec} fields; a spec may hold fields itself (one level).
func parseFString(s string, line, level int) ([]fpart, error) {
	var parts []fpart
	var lit strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{' && level == 0, c == '}' && i+1 < len(s) && s[i+1] == '}' && level == 0:
			lit.WriteByte(c)
			i += 2
		case c == '}':
			return nil, errAt(line, "SyntaxError", "f-string: single '}' is not allowed")
		case c == '{':
			if level > 1 {
				return nil, errAt(line, "SyntaxError", "f-string: expressions nested too deeply")
			}
			end, conv, colon, err := fieldEnd(s, i+1, line)
			if err != nil {
				return nil, err
			}
			exprEnd := end
			if colon >= 0 {
				exprEnd = colon
			}
			if conv >= 0 {
				exprEnd = conv
			}
			src := s[i+1 : exprEnd]
			fp := fpart{}
			if conv >= 0 {
				cs := s[conv+1 : end]
				if colon >= 0 {
					cs = s[conv+1 : colon]
				}
				if cs != "r" && cs != "s" && cs != "a" {
					return nil, errAt(line, "SyntaxError", "f-string: invalid conversion character %s: expected 's', 'r', or 'a'", strRepr(clip(cs, 10)))
				}
				fp.conv = cs[0]
			}
			if t := strings.TrimRight(src, " "); strings.HasSuffix(t, "=") && !strings.HasSuffix(t, "==") && !strings.HasSuffix(t, "!=") &&
				!strings.HasSuffix(t, "<=") && !strings.HasSuffix(t, ">=") {
				fp.debug = src
				src = t[:len(t)-1]
				if fp.conv == 0 && colon < 0 {
					fp.conv = 'r'
				}
			}
			if strings.TrimSpace(src) == "" {
				return nil, errAt(line, "SyntaxError", "f-string: empty expression not allowed")
			}
			x, err := parseFieldExpr(src, line)
			if err != nil {
				return nil, err
			}
			fp.x = x
			if colon >= 0 {
				spec, err := parseFString(s[colon+1:end], line, level+1)
				if err != nil {
					return nil, err
				}
				fp.spec = spec
				if fp.spec == nil {
					fp.spec = []fpart{}
				}
			}
			if lit.Len() > 0 {
				parts = append(parts, fpart{lit: lit.String()})
				lit.Reset()
			}
			parts = append(parts, fp)
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

// fieldEnd finds the '}' closing the field that starts at i, the '!' of
// its conversion and the ':' that starts its format spec (-1 if none),
// skipping brackets and quoted strings inside the expression.
func fieldEnd(s string, i, line int) (end, conv, colon int, err error) {
	depth := 0
	conv, colon = -1, -1
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			if colon >= 0 {
				continue
			}
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return 0, 0, 0, errAt(line, "SyntaxError", "f-string: unterminated string")
			}
			i += j + 1
		case '(', '[', '{':
			depth++
		case ')', ']':
			depth--
		case '!':
			if colon < 0 && depth == 0 && (i+1 >= len(s) || s[i+1] != '=') {
				conv = i
			}
		case ':':
			if depth == 0 && colon < 0 {
				colon = i
			}
		case '}':
			if depth == 0 {
				return i, conv, colon, nil
			}
			depth--
		}
	}
	return 0, 0, 0, errAt(line, "SyntaxError", "f-string: expecting '}'")
}

func parseFieldExpr(src string, line int) (expr, error) {
	toks, err := lexFrom(src, line, false)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	x, err := p.exprList()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, errAt(line, "SyntaxError", "f-string: invalid syntax near %s", describe(t))
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
