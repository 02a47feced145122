package pyexec

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits bound one Run. Zero fields take the defaults.
type Limits struct {
	// MaxSourceBytes bounds the code (default 16 KiB).
	MaxSourceBytes int
	// MaxOutputBytes bounds what print writes (default 8 KiB); more is an
	// error rather than a silently cut answer.
	MaxOutputBytes int
	// MaxSteps bounds evaluation steps: one per statement and expression
	// evaluated, one per item a builtin walks and one per 64 bytes a
	// string operation reads (default 200,000: thirty times what the
	// realistic corpus needs, about 20 ms of CPU, so 240 calls an episode
	// stay cheap for the validator).
	MaxSteps int
	// MaxValueLen bounds one string (bytes) or container (items)
	// (default 100,000).
	MaxValueLen int
	// MaxMemory bounds the bytes of strings and container items one run
	// creates, counting 16 bytes per list or tuple item and 48 per dict
	// or set entry; memory is never given back, so this also bounds the
	// garbage a loop makes (default 16 MiB).
	MaxMemory int
	// MaxDepth bounds nested function calls (default 100).
	MaxDepth int
	// Timeout bounds the wall-clock time of one run (default 1 s). The
	// step bound is meant to end every run well before it, so that all
	// validators agree; the timeout only guards a slow machine.
	Timeout time.Duration
}

// DefaultLimits are the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{MaxSourceBytes: 16 << 10, MaxOutputBytes: 8 << 10, MaxSteps: 200_000, MaxValueLen: 100_000,
		MaxMemory: 16 << 20, MaxDepth: 100, Timeout: time.Second}
}

// Error is why a run failed: a Python exception name (SyntaxError,
// NameError, TypeError, ValueError, ZeroDivisionError, KeyError, ...),
// Unsupported for code outside what python_execute runs, LimitExceeded or
// Timeout for the bounds, or empty for NoOutput; the message; and the
// 1-based line, or 0 when the error is about the whole program.
type Error struct {
	Kind string
	Msg  string
	Line int
}

// subset is appended to Unsupported errors so an agent learns what it
// may use.
const subset = "python_execute runs plain Python without imports, classes, files or introspection: numbers, strings, " +
	"f-strings, lists, dicts, sets, tuples, if/for/while, def, lambda, comprehensions, try/except and the common built-ins"

func (e *Error) Error() string {
	msg := e.Kind
	switch {
	case e.Kind == "":
		msg = e.Msg
	case e.Msg != "":
		msg = e.Kind + ": " + e.Msg
	}
	if e.Kind == "Unsupported" {
		msg += " (" + subset + ")"
	}
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, msg)
	}
	return msg
}

// uncatchable kinds end the run whatever try/except says.
func (e *Error) uncatchable() bool {
	switch e.Kind {
	case "LimitExceeded", "Timeout", "Unsupported", "SyntaxError", "IndentationError", "":
		return true
	}
	return false
}

// Evaluator runs code within its limits. It holds no state between runs
// and is safe for concurrent use.
type Evaluator struct {
	lim Limits
	lib *library
}

// New builds an evaluator; zero limits take DefaultLimits.
func New(lim Limits) (*Evaluator, error) {
	d := DefaultLimits()
	for _, f := range []struct {
		v   *int
		def int
	}{{&lim.MaxSourceBytes, d.MaxSourceBytes}, {&lim.MaxOutputBytes, d.MaxOutputBytes}, {&lim.MaxSteps, d.MaxSteps},
		{&lim.MaxValueLen, d.MaxValueLen}, {&lim.MaxMemory, d.MaxMemory}, {&lim.MaxDepth, d.MaxDepth}} {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < 0 {
			return nil, fmt.Errorf("pyexec: limits must be positive: %+v", lim)
		}
	}
	if lim.Timeout == 0 {
		lim.Timeout = d.Timeout
	}
	if lim.Timeout < 0 {
		return nil, fmt.Errorf("pyexec: timeout %v must be positive", lim.Timeout)
	}
	return &Evaluator{lim: lim, lib: newLibrary()}, nil
}

// Limits returns the limits in force.
func (e *Evaluator) Limits() Limits { return e.lim }

// Usage is what a run consumed, to check that a bound held.
type Usage struct {
	Steps  int
	Memory int
	Depth  int // the deepest call nesting reached
}

// Run evaluates code and returns what it printed. Every failure is an
// *Error; nothing the code does can panic the caller.
func (e *Evaluator) Run(ctx context.Context, code string) (string, error) {
	out, _, err := e.RunPartial(ctx, code)
	if err != nil {
		return "", err
	}
	return out, nil
}

// RunPartial is Run that also returns what the code printed before an
// error and what it consumed.
func (e *Evaluator) RunPartial(ctx context.Context, code string) (out string, use Usage, err error) {
	if len(code) > e.lim.MaxSourceBytes {
		return "", use, &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("the code is %d bytes long; at most %d are accepted", len(code), e.lim.MaxSourceBytes)}
	}
	if !utf8.ValidString(code) {
		return "", use, &Error{Kind: "SyntaxError", Msg: "the code is not valid UTF-8"}
	}
	prog, err := parse(code)
	if err != nil {
		return "", use, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.lim.Timeout)
	defer cancel()
	m := &machine{ctx: ctx, lim: e.lim, lib: e.lib}
	m.global = &scope{vars: map[string]value{}}
	defer func() {
		if r := recover(); r != nil {
			// A bug, not the code's fault; still one clean error.
			out, use, err = m.out.String(), m.usage(), &Error{Kind: "RuntimeError", Msg: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	_, err = m.execBlock(prog, m.global)
	if err == nil && m.out.Len() == 0 {
		err = &Error{Msg: "No output produced by the code. Please use print() calls to output results."}
	}
	return m.out.String(), m.usage(), oneLine(err)
}

// maxErrorMsg bounds the message of the error a run ends with: code can
// raise an exception with any text, and the caller shows it as one line.
const maxErrorMsg = 300

// oneLine escapes line breaks in err's message and clips it.
func oneLine(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	e.Msg = clip(strings.NewReplacer("\n", "\\n", "\r", "\\r").Replace(e.Msg), maxErrorMsg)
	return e
}

// machine is the state of one run.
type machine struct {
	ctx      context.Context
	lim      Limits
	lib      *library
	global   *scope
	out      strings.Builder
	steps    int
	mem      int
	depth    int
	maxDepth int
	nest     int // expressions being evaluated, see maxEvalNest
	retVal   value
	handling []*Error // exceptions being handled, for a bare raise
}

func (m *machine) usage() Usage { return Usage{Steps: m.steps, Memory: m.mem, Depth: m.maxDepth} }

// scope holds one function call's (or the module's) variables. Lookups
// go up the parents (enclosing functions), then to the module, then to
// the built-ins.
type scope struct {
	vars    map[string]value
	parent  *scope
	fn      *funcV // nil for the module and comprehensions
	compTop bool   // a comprehension's scope: assignments stay here
}

// step counts n steps of work about to be done, refusing work that would
// pass the bound (so Usage never reports more than MaxSteps).
func (m *machine) step(n int) error {
	if n > m.lim.MaxSteps-m.steps {
		return &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("execution limit: more than %d steps", m.lim.MaxSteps)}
	}
	m.steps += n
	if m.steps&1023 < n {
		if err := m.ctx.Err(); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return &Error{Kind: "Timeout", Msg: fmt.Sprintf("the code ran longer than %v", m.lim.Timeout)}
			}
			return &Error{Kind: "Timeout", Msg: fmt.Sprintf("evaluation canceled: %v", err)}
		}
	}
	return nil
}

// alloc accounts for n bytes of new values.
func (m *machine) alloc(n int) error {
	if n > m.lim.MaxMemory-m.mem {
		return &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("memory limit: the code allocates more than %d bytes", m.lim.MaxMemory)}
	}
	m.mem += n
	return nil
}

// checkLen refuses a string of n bytes or a container of n items before
// it is built, and accounts for it.
func (m *machine) checkLen(n, bytesPer int, what string) error {
	if n > m.lim.MaxValueLen {
		return &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("memory limit: a %s would have %d %s; at most %d", what, n, unit(what), m.lim.MaxValueLen)}
	}
	return m.alloc(n * bytesPer)
}

func unit(what string) string {
	if what == "string" {
		return "bytes"
	}
	return "items"
}

func (m *machine) newStr(s string) (value, error) {
	if err := m.checkLen(len(s), 1, "string"); err != nil {
		return nil, err
	}
	return s, nil
}

func (m *machine) newList(items []value) (*listV, error) {
	if err := m.checkLen(len(items), 16, "list"); err != nil {
		return nil, err
	}
	return &listV{items: items}, nil
}

func (m *machine) newTuple(items []value) (*tupleV, error) {
	if err := m.checkLen(len(items), 16, "tuple"); err != nil {
		return nil, err
	}
	return &tupleV{items: items}, nil
}

// grow accounts for n more items in a container that now has total.
func (m *machine) grow(total, n, bytesPer int, what string) error {
	if total > m.lim.MaxValueLen {
		return &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("memory limit: a %s would have %d items; at most %d", what, total, m.lim.MaxValueLen)}
	}
	return m.alloc(n * bytesPer)
}

// withLine puts a line on an error raised without one.
func withLine(err error, line int) error {
	// Every error inside a run is an *Error, never wrapped: a type
	// assertion, not errors.As, since this runs at each frame an
	// exception unwinds.
	if e, ok := err.(*Error); ok && e.Line == 0 && line > 0 {
		e.Line = line
	}
	return err
}

// flow is how a block ended.
type flow uint8

const (
	flowNormal flow = iota
	flowBreak
	flowContinue
	flowReturn
)

func (m *machine) execBlock(body []stmt, sc *scope) (flow, error) {
	for _, s := range body {
		f, err := m.exec(s, sc)
		if err != nil {
			return flowNormal, withLine(err, s.line())
		}
		if f != flowNormal {
			return f, nil
		}
	}
	return flowNormal, nil
}

func (m *machine) exec(s stmt, sc *scope) (flow, error) {
	if err := m.step(1); err != nil {
		return flowNormal, err
	}
	switch s := s.(type) {
	case *exprStmt:
		_, err := m.eval(s.x, sc)
		return flowNormal, err
	case *assignStmt:
		v, err := m.eval(s.x, sc)
		if err != nil {
			return flowNormal, err
		}
		for _, t := range s.targets {
			if err := m.assign(t, v, sc); err != nil {
				return flowNormal, err
			}
		}
		return flowNormal, nil
	case *augStmt:
		return flowNormal, m.augAssign(s, sc)
	case *ifStmt:
		c, err := m.eval(s.cond, sc)
		if err != nil {
			return flowNormal, err
		}
		if truthy(c) {
			return m.execBlock(s.body, sc)
		}
		return m.execBlock(s.els, sc)
	case *whileStmt:
		for {
			c, err := m.eval(s.cond, sc)
			if err != nil {
				return flowNormal, err
			}
			if !truthy(c) {
				return m.execBlock(s.els, sc)
			}
			f, err := m.execBlock(s.body, sc)
			if err != nil {
				return flowNormal, err
			}
			switch f {
			case flowBreak:
				return flowNormal, nil
			case flowReturn:
				return f, nil
			}
			if err := m.step(1); err != nil {
				return flowNormal, err
			}
		}
	case *forStmt:
		it, err := m.eval(s.iter, sc)
		if err != nil {
			return flowNormal, err
		}
		broke, returned := false, false
		err = m.iterate(it, func(v value) (bool, error) {
			if err := m.assign(s.target, v, sc); err != nil {
				return false, err
			}
			f, err := m.execBlock(s.body, sc)
			if err != nil {
				return false, err
			}
			switch f {
			case flowBreak:
				broke = true
				return false, nil
			case flowReturn:
				broke, returned = true, true
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			return flowNormal, err
		}
		if returned {
			return flowReturn, nil
		}
		if !broke {
			return m.execBlock(s.els, sc)
		}
		return flowNormal, nil
	case *simpleStmt:
		switch s.kw {
		case "break":
			return flowBreak, nil
		case "continue":
			return flowContinue, nil
		}
		return flowNormal, nil
	case *returnStmt:
		m.retVal = nil
		if s.x != nil {
			v, err := m.eval(s.x, sc)
			if err != nil {
				return flowNormal, err
			}
			m.retVal = v
		}
		return flowReturn, nil
	case *defStmt:
		f, err := m.makeFunc(s.name, s.params, sc)
		if err != nil {
			return flowNormal, err
		}
		f.body, f.locals, f.globals = s.body, s.locals, s.global
		return flowNormal, m.setName(s.name, f, sc)
	case *globalStmt:
		if sc.fn == nil && s.nonlocal {
			return flowNormal, &Error{Kind: "SyntaxError", Msg: "nonlocal declaration not allowed at module level"}
		}
		return flowNormal, nil
	case *delStmt:
		for _, t := range s.targets {
			if err := m.del(t, sc); err != nil {
				return flowNormal, err
			}
		}
		return flowNormal, nil
	case *raiseStmt:
		return flowNormal, m.raise(s, sc)
	case *assertStmt:
		v, err := m.eval(s.test, sc)
		if err != nil {
			return flowNormal, err
		}
		if !truthy(v) {
			e := &Error{Kind: "AssertionError"}
			if s.msg != nil {
				mv, err := m.eval(s.msg, sc)
				if err != nil {
					return flowNormal, err
				}
				e.Msg, err = m.strOf(mv)
				if err != nil {
					return flowNormal, err
				}
			}
			return flowNormal, e
		}
		return flowNormal, nil
	case *tryStmt:
		return m.try(s, sc)
	}
	return flowNormal, &Error{Kind: "SyntaxError", Msg: "unknown statement"}
}

func (m *machine) raise(s *raiseStmt, sc *scope) error {
	if s.x == nil {
		if len(m.handling) == 0 {
			return &Error{Kind: "RuntimeError", Msg: "No active exception to reraise"}
		}
		e := *m.handling[len(m.handling)-1]
		return &e
	}
	v, err := m.eval(s.x, sc)
	if err != nil {
		return err
	}
	switch v := v.(type) {
	case *excV:
		return &Error{Kind: v.kind, Msg: v.msg}
	case *excClass:
		return &Error{Kind: v.name}
	}
	return &Error{Kind: "TypeError", Msg: "exceptions must derive from BaseException"}
}

func (m *machine) try(s *tryStmt, sc *scope) (f flow, err error) {
	f, err = m.execBlock(s.body, sc)
	pe, _ := err.(*Error)
	if pe != nil && !pe.uncatchable() {
		handled := false
		for _, h := range s.handlers {
			match := h.types == nil
			if !match {
				tv, err2 := m.eval(h.types, sc)
				if err2 != nil {
					return flowNormal, err2
				}
				if match, err2 = excMatches(pe.Kind, tv); err2 != nil {
					return flowNormal, err2
				}
			}
			if !match {
				continue
			}
			handled = true
			if h.name != "" {
				if err := m.setName(h.name, &excV{kind: pe.Kind, msg: pe.Msg}, sc); err != nil {
					return flowNormal, err
				}
			}
			m.handling = append(m.handling, pe)
			f, err = m.execBlock(h.body, sc)
			m.handling = m.handling[:len(m.handling)-1]
			break
		}
		if !handled {
			f = flowNormal
		}
	} else if err == nil && f == flowNormal {
		f, err = m.execBlock(s.els, sc)
	}
	if s.finally != nil {
		if pe, ok := err.(*Error); ok && pe.uncatchable() {
			return f, err
		}
		ret := m.retVal
		f2, err2 := m.execBlock(s.finally, sc)
		if err2 != nil || f2 != flowNormal {
			return f2, err2
		}
		m.retVal = ret
	}
	return f, err
}

// excParents is the built-in exception hierarchy python_execute raises.
var excParents = map[string]string{
	"ZeroDivisionError": "ArithmeticError", "OverflowError": "ArithmeticError", "ArithmeticError": "Exception",
	"IndexError": "LookupError", "KeyError": "LookupError", "LookupError": "Exception", "ValueError": "Exception",
	"TypeError": "Exception", "NameError": "Exception", "UnboundLocalError": "NameError", "AttributeError": "Exception",
	"RecursionError": "RuntimeError", "NotImplementedError": "RuntimeError", "RuntimeError": "Exception",
	"AssertionError": "Exception", "StopIteration": "Exception", "Exception": "BaseException",
}

func excMatches(kind string, t value) (bool, error) {
	switch t := t.(type) {
	case *excClass:
		for k := kind; k != ""; k = excParents[k] {
			if k == t.name {
				return true, nil
			}
		}
		return false, nil
	case *tupleV:
		for _, it := range t.items {
			ok, err := excMatches(kind, it)
			if ok || err != nil {
				return ok, err
			}
		}
		return false, nil
	}
	return false, &Error{Kind: "TypeError", Msg: "catching classes that do not inherit from BaseException is not allowed"}
}

// lookup finds a name: the scope chain, then the built-ins.
func (m *machine) lookup(id string, sc *scope, line int) (value, error) {
	for s := sc; s != nil; s = s.parent {
		if v, ok := s.vars[id]; ok {
			return v, nil
		}
		if s.fn != nil && s.fn.locals[id] {
			return nil, errAt(line, "UnboundLocalError", "cannot access local variable '%s' where it is not associated with a value", clip(id, 40))
		}
	}
	if v, ok := m.global.vars[id]; ok {
		return v, nil
	}
	if b, ok := m.lib.builtins[id]; ok {
		return b, nil
	}
	if c, ok := m.lib.excClasses[id]; ok {
		return c, nil
	}
	if why, ok := refused[id]; ok {
		return nil, errAt(line, "Unsupported", "%s is not available: %s", id, why)
	}
	return nil, errAt(line, "NameError", "name '%s' is not defined", clip(id, 40))
}

// refused are Python built-ins python_execute leaves out, with why.
var refused = map[string]string{
	"open": "python_execute has no files", "input": "python_execute has no input", "print_": "",
	"eval": "python_execute runs no generated code", "exec": "python_execute runs no generated code",
	"compile": "python_execute runs no generated code", "__import__": "python_execute has no modules",
	"globals": "python_execute has no introspection", "locals": "python_execute has no introspection",
	"vars": "python_execute has no introspection", "dir": "python_execute has no introspection",
	"getattr": "python_execute has no introspection", "setattr": "python_execute has no introspection",
	"delattr": "python_execute has no introspection", "hasattr": "python_execute has no introspection",
	"help": "python_execute has no introspection", "id": "python_execute has no introspection",
	"object": "python_execute has no classes", "super": "python_execute has no classes", "classmethod": "python_execute has no classes",
	"staticmethod": "python_execute has no classes", "property": "python_execute has no classes",
	"exit": "the code ends when it ends", "quit": "the code ends when it ends", "breakpoint": "there is no debugger",
	"memoryview": "python_execute has no bytes", "bytes": "python_execute has no bytes", "bytearray": "python_execute has no bytes",
	"complex": "python_execute has no complex numbers", "math": "python_execute has no modules; use round(), int(), abs(), // and **",
	"decimal": "python_execute has no modules", "itertools": "python_execute has no modules", "functools": "python_execute has no modules",
	"statistics": "python_execute has no modules", "os": "python_execute has no modules", "sys": "python_execute has no modules",
}

// setName binds a name in the scope an assignment there writes to: the
// module for a global, the nearest enclosing function that has the name
// for a nonlocal.
func (m *machine) setName(id string, v value, sc *scope) error {
	if sc.fn != nil {
		if nonlocal, ok := sc.fn.globals[id]; ok {
			if !nonlocal {
				m.global.vars[id] = v
				return nil
			}
			for s := sc.parent; s != nil && s.fn != nil; s = s.parent {
				if _, has := s.vars[id]; has || s.fn.locals[id] {
					s.vars[id] = v
					return nil
				}
			}
			return &Error{Kind: "SyntaxError", Msg: fmt.Sprintf("no binding for nonlocal '%s' found", clip(id, 40))}
		}
	}
	sc.vars[id] = v
	return nil
}

func (m *machine) assign(t expr, v value, sc *scope) error {
	switch t := t.(type) {
	case *nameExpr:
		return m.setName(t.id, v, sc)
	case *indexExpr:
		obj, err := m.eval(t.x, sc)
		if err != nil {
			return err
		}
		idx, err := m.eval(t.i, sc)
		if err != nil {
			return err
		}
		return m.setItem(obj, idx, v, t.i)
	case *seqExpr:
		return m.unpack(t.elems, v, sc)
	case *starExpr:
		return &Error{Kind: "SyntaxError", Msg: "starred assignment target must be in a list or tuple"}
	}
	return &Error{Kind: "SyntaxError", Msg: "cannot assign to expression"}
}

func (m *machine) unpack(targets []expr, v value, sc *scope) error {
	items, err := m.items(v)
	if err != nil {
		if pe, ok := err.(*Error); ok && pe.Kind == "TypeError" {
			return &Error{Kind: "TypeError", Msg: fmt.Sprintf("cannot unpack non-iterable %s object", typeName(v))}
		}
		return err
	}
	star := -1
	for i, t := range targets {
		if _, ok := t.(*starExpr); ok {
			star = i
		}
	}
	if star < 0 {
		if len(items) != len(targets) {
			if len(items) > len(targets) {
				return &Error{Kind: "ValueError", Msg: fmt.Sprintf("too many values to unpack (expected %d)", len(targets))}
			}
			return &Error{Kind: "ValueError", Msg: fmt.Sprintf("not enough values to unpack (expected %d, got %d)", len(targets), len(items))}
		}
		for i, t := range targets {
			if err := m.assign(t, items[i], sc); err != nil {
				return err
			}
		}
		return nil
	}
	if len(items) < len(targets)-1 {
		return &Error{Kind: "ValueError", Msg: fmt.Sprintf("not enough values to unpack (expected at least %d, got %d)", len(targets)-1, len(items))}
	}
	after := len(targets) - star - 1
	for i := 0; i < star; i++ {
		if err := m.assign(targets[i], items[i], sc); err != nil {
			return err
		}
	}
	mid, err := m.newList(append([]value(nil), items[star:len(items)-after]...))
	if err != nil {
		return err
	}
	if err := m.assign(targets[star].(*starExpr).x, mid, sc); err != nil {
		return err
	}
	for i := 0; i < after; i++ {
		if err := m.assign(targets[star+1+i], items[len(items)-after+i], sc); err != nil {
			return err
		}
	}
	return nil
}

func (m *machine) augAssign(s *augStmt, sc *scope) error {
	v, err := m.eval(s.x, sc)
	if err != nil {
		return err
	}
	switch t := s.target.(type) {
	case *nameExpr:
		cur, err := m.lookup(t.id, sc, t.ln)
		if err != nil {
			return err
		}
		nv, err := m.inplace(s.op, cur, v)
		if err != nil {
			return err
		}
		return m.setName(t.id, nv, sc)
	case *indexExpr:
		obj, err := m.eval(t.x, sc)
		if err != nil {
			return err
		}
		idx, err := m.eval(t.i, sc)
		if err != nil {
			return err
		}
		cur, err := m.getItem(obj, idx)
		if err != nil {
			return err
		}
		nv, err := m.inplace(s.op, cur, v)
		if err != nil {
			return err
		}
		return m.setItem(obj, idx, nv, t.i)
	}
	return &Error{Kind: "SyntaxError", Msg: "illegal expression for augmented assignment"}
}

// inplace is "cur op= v": lists and sets change in place, as in Python.
func (m *machine) inplace(op string, cur, v value) (value, error) {
	switch c := cur.(type) {
	case *listV:
		if op == "+" {
			items, err := m.items(v)
			if err != nil {
				return nil, err
			}
			if err := m.grow(len(c.items)+len(items), len(items), 16, "list"); err != nil {
				return nil, err
			}
			c.items = append(c.items, items...)
			return c, nil
		}
	case *setV:
		if vs, ok := v.(*setV); ok && !c.frozen {
			switch op {
			case "|":
				for _, it := range vs.items {
					if err := m.setAdd(c, it); err != nil {
						return nil, err
					}
				}
				return c, nil
			}
		}
	case *dictV:
		if vd, ok := v.(*dictV); ok && op == "|" {
			for i, k := range vd.keys {
				if err := m.dictSet(c, k, vd.vals[i]); err != nil {
					return nil, err
				}
			}
			return c, nil
		}
	}
	return m.binary(op, cur, v)
}

func (m *machine) del(t expr, sc *scope) error {
	switch t := t.(type) {
	case *nameExpr:
		if _, ok := sc.vars[t.id]; !ok {
			return errAt(t.ln, "NameError", "name '%s' is not defined", clip(t.id, 40))
		}
		delete(sc.vars, t.id)
		return nil
	case *indexExpr:
		obj, err := m.eval(t.x, sc)
		if err != nil {
			return err
		}
		idx, err := m.eval(t.i, sc)
		if err != nil {
			return err
		}
		switch o := obj.(type) {
		case *listV:
			if sl, ok := idx.(*sliceVal); ok {
				if err := m.checkSlice(sl); err != nil {
					return err
				}
				lo, hi, step := sl.indices(len(o.items))
				if step != 1 {
					return &Error{Kind: "Unsupported", Msg: "deleting an extended slice is not supported"}
				}
				if err := m.step(removeCost(lo, len(o.items), 16)); err != nil {
					return err
				}
				if hi > lo {
					o.items = slices.Delete(o.items, lo, hi)
				}
				return nil
			}
			i, err := m.index(idx, len(o.items), "list assignment")
			if err != nil {
				return err
			}
			if err := m.step(removeCost(i, len(o.items), 16)); err != nil {
				return err
			}
			o.items = slices.Delete(o.items, i, i+1)
			return nil
		case *dictV:
			i, err := m.dictLookup(o, idx)
			if err != nil {
				return err
			}
			if i < 0 {
				return &Error{Kind: "KeyError", Msg: clip(reprOf(idx), 80)}
			}
			if err := m.step(removeCost(i, len(o.keys), 1)); err != nil {
				return err
			}
			o.remove(i)
			return nil
		}
		return &Error{Kind: "TypeError", Msg: fmt.Sprintf("'%s' object doesn't support item deletion", typeName(obj))}
	}
	return &Error{Kind: "SyntaxError", Msg: "cannot delete expression"}
}

func (m *machine) makeFunc(name string, params []param, sc *scope) (*funcV, error) {
	f := &funcV{name: name, params: params, scope: sc}
	if sc == m.global {
		f.scope = nil
	}
	for _, p := range params {
		if p.hasDef {
			v, err := m.eval(p.def, sc)
			if err != nil {
				return nil, err
			}
			f.defaults = append(f.defaults, v)
		}
	}
	return f, nil
}
