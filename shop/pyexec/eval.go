package pyexec

import (
	"context"
	"errors"
	"fmt"
	"math"
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
	// MaxSteps bounds evaluation steps: one per expression evaluated and
	// one per list item a builtin walks (default 100,000).
	MaxSteps int
	// MaxValueLen bounds one string (bytes) or list (items) (default
	// 10,000).
	MaxValueLen int
	// MaxMemory bounds the bytes of strings and list items one run
	// creates, counting 16 bytes per list item (default 4 MiB).
	MaxMemory int
	// Timeout bounds the wall-clock time of one run (default 250 ms).
	Timeout time.Duration
}

// DefaultLimits are the limits a zero Limits stands for.
func DefaultLimits() Limits {
	return Limits{MaxSourceBytes: 16 << 10, MaxOutputBytes: 8 << 10, MaxSteps: 100_000, MaxValueLen: 10_000,
		MaxMemory: 4 << 20, Timeout: 250 * time.Millisecond}
}

// Error is why a run failed: a Python-style kind (SyntaxError, NameError,
// TypeError, ValueError, ZeroDivisionError, OverflowError, IndexError,
// IndentationError), Unsupported for code outside the subset,
// LimitExceeded or Timeout for the bounds, or NoOutput; the message; and
// the 1-based line, or 0 when the error is about the whole program.
type Error struct {
	Kind string
	Msg  string
	Line int
}

// subset is appended to Unsupported errors so an agent learns what it
// may use.
const subset = "python_execute evaluates arithmetic only: numbers, strings and f-strings, + - * / // % **, parentheses, " +
	"variables, lists, and min, max, sum, round, abs, len, int, float, str, print"

func (e *Error) Error() string {
	msg := e.Msg
	if e.Kind != "" {
		msg = e.Kind + ": " + msg
	}
	if e.Kind == "Unsupported" {
		msg += " (" + subset + ")"
	}
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, msg)
	}
	return msg
}

// Evaluator runs code within its limits. It holds no state between runs
// and is safe for concurrent use.
type Evaluator struct {
	lim Limits
}

// New builds an evaluator; zero limits take DefaultLimits.
func New(lim Limits) (*Evaluator, error) {
	d := DefaultLimits()
	for _, f := range []struct {
		v   *int
		def int
	}{{&lim.MaxSourceBytes, d.MaxSourceBytes}, {&lim.MaxOutputBytes, d.MaxOutputBytes}, {&lim.MaxSteps, d.MaxSteps},
		{&lim.MaxValueLen, d.MaxValueLen}, {&lim.MaxMemory, d.MaxMemory}} {
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
	return &Evaluator{lim: lim}, nil
}

// Limits returns the limits in force.
func (e *Evaluator) Limits() Limits { return e.lim }

// Run evaluates code and returns what it printed. Every failure is an
// *Error; nothing the code does can panic the caller.
func (e *Evaluator) Run(ctx context.Context, code string) (string, error) {
	if len(code) > e.lim.MaxSourceBytes {
		return "", &Error{Kind: "LimitExceeded", Msg: fmt.Sprintf("the code is %d bytes long; at most %d are accepted", len(code), e.lim.MaxSourceBytes)}
	}
	if !utf8.ValidString(code) {
		return "", &Error{Kind: "SyntaxError", Msg: "the code is not valid UTF-8"}
	}
	prog, err := parse(code)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, e.lim.Timeout)
	defer cancel()
	m := &machine{ctx: ctx, lim: e.lim, vars: map[string]value{}}
	for _, s := range prog {
		if err := m.exec(s); err != nil {
			return "", err
		}
	}
	if m.out.Len() == 0 {
		return "", &Error{Msg: "No output produced by the code. Please use print() calls to output results."}
	}
	return m.out.String(), nil
}

// machine is the state of one run.
type machine struct {
	ctx   context.Context
	lim   Limits
	vars  map[string]value
	out   strings.Builder
	steps int
	mem   int
}

func (m *machine) step(line int) error {
	m.steps++
	if m.steps > m.lim.MaxSteps {
		return errAt(line, "LimitExceeded", "the code takes more than %d evaluation steps", m.lim.MaxSteps)
	}
	if m.steps%256 == 0 {
		if err := m.ctx.Err(); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return errAt(line, "Timeout", "the code ran longer than %v", m.lim.Timeout)
			}
			return errAt(line, "Timeout", "evaluation canceled: %v", err)
		}
	}
	return nil
}

// alloc accounts for n bytes of new strings or list items.
func (m *machine) alloc(line, n int) error {
	m.mem += n
	if m.mem > m.lim.MaxMemory {
		return errAt(line, "LimitExceeded", "the code uses more than %d bytes of memory", m.lim.MaxMemory)
	}
	return nil
}

// newStr checks and accounts for a string the code builds.
func (m *machine) newStr(line int, s string) (value, error) {
	if len(s) > m.lim.MaxValueLen {
		return value{}, errAt(line, "LimitExceeded", "a string would be %d bytes long; at most %d", len(s), m.lim.MaxValueLen)
	}
	return strVal(s), m.alloc(line, len(s))
}

// newList checks and accounts for a list the code builds.
func (m *machine) newList(line int, items []value) (value, error) {
	if len(items) > m.lim.MaxValueLen {
		return value{}, errAt(line, "LimitExceeded", "a list would have %d items; at most %d", len(items), m.lim.MaxValueLen)
	}
	return listVal(items), m.alloc(line, 16*len(items))
}

func (m *machine) exec(s stmt) error {
	v, err := m.eval(s.x)
	if err != nil {
		return err
	}
	if s.op != "" {
		name := s.targets[0]
		cur, ok := m.vars[name]
		if !ok {
			return errAt(s.line, "NameError", "name '%s' is not defined", clip(name, 40))
		}
		if s.op == "+" && cur.k == kList && v.k == kList {
			// += extends a list in place, so other names for it see the
			// change, as in Python.
			n := len(cur.l.items) + len(v.l.items)
			if n > m.lim.MaxValueLen {
				return errAt(s.line, "LimitExceeded", "a list would have %d items; at most %d", n, m.lim.MaxValueLen)
			}
			if err := m.alloc(s.line, 16*len(v.l.items)); err != nil {
				return err
			}
			cur.l.items = append(cur.l.items, v.l.items...)
			return nil
		}
		if v, err = m.binary(s.op, cur, v, s.line); err != nil {
			return err
		}
	}
	for _, t := range s.targets {
		m.vars[t] = v
	}
	return nil
}

// pythonBuiltins are Python built-in names outside the subset, so that
// calling one says "not supported" rather than "not defined".
var pythonBuiltins = map[string]bool{
	"range": true, "sorted": true, "list": true, "tuple": true, "dict": true, "set": true, "frozenset": true, "pow": true,
	"divmod": true, "open": true, "eval": true, "exec": true, "compile": true, "input": true, "__import__": true,
	"map": true, "filter": true, "zip": true, "enumerate": true, "reversed": true, "isinstance": true, "type": true,
	"getattr": true, "setattr": true, "hasattr": true, "delattr": true, "format": true, "any": true, "all": true,
	"bool": true, "ord": true, "chr": true, "hex": true, "bin": true, "oct": true, "globals": true, "locals": true,
	"vars": true, "dir": true, "help": true, "iter": true, "next": true, "hash": true, "id": true, "repr": true,
	"object": true, "bytes": true, "bytearray": true, "complex": true, "callable": true, "exit": true, "quit": true,
	"breakpoint": true, "memoryview": true, "super": true, "math": true, "decimal": true,
}

func (m *machine) eval(x expr) (value, error) {
	if err := m.step(x.pos()); err != nil {
		return value{}, err
	}
	switch x := x.(type) {
	case *numExpr:
		return x.v, nil
	case *strExpr:
		return m.newStr(x.ln, x.s)
	case *fstrExpr:
		var b strings.Builder
		for _, p := range x.parts {
			if p.x == nil {
				b.WriteString(p.lit)
			} else {
				v, err := m.eval(p.x)
				if err != nil {
					return value{}, err
				}
				s, err := formatValue(v, p.spec, m.lim.MaxValueLen)
				if err != nil {
					return value{}, withLine(err, x.ln)
				}
				b.WriteString(s)
			}
			if b.Len() > m.lim.MaxValueLen {
				return value{}, errAt(x.ln, "LimitExceeded", "a string would be over %d bytes long", m.lim.MaxValueLen)
			}
		}
		return m.newStr(x.ln, b.String())
	case *nameExpr:
		if v, ok := m.vars[x.id]; ok {
			return v, nil
		}
		if builtins[x.id] != nil {
			return value{}, errAt(x.ln, "Unsupported", "functions such as %s can only be called, not used as values", x.id)
		}
		if pythonBuiltins[x.id] {
			return value{}, errAt(x.ln, "Unsupported", "%s is not supported", x.id)
		}
		return value{}, errAt(x.ln, "NameError", "name '%s' is not defined", clip(x.id, 40))
	case *listExpr:
		items := make([]value, 0, len(x.elems))
		for _, e := range x.elems {
			v, err := m.eval(e)
			if err != nil {
				return value{}, err
			}
			items = append(items, v)
		}
		return m.newList(x.ln, items)
	case *unaryExpr:
		v, err := m.eval(x.x)
		if err != nil {
			return value{}, err
		}
		return unary(x.op, v, x.ln)
	case *binExpr:
		l, err := m.eval(x.l)
		if err != nil {
			return value{}, err
		}
		r, err := m.eval(x.r)
		if err != nil {
			return value{}, err
		}
		return m.binary(x.op, l, r, x.ln)
	case *indexExpr:
		return m.index(x)
	case *callExpr:
		return m.call(x)
	}
	return value{}, errAt(x.pos(), "SyntaxError", "unknown expression")
}

// withLine puts a line on an error raised without one.
func withLine(err error, line int) error {
	var e *Error
	if errors.As(err, &e) && e.Line == 0 {
		c := *e
		c.Line = line
		return &c
	}
	return err
}

func (m *machine) index(x *indexExpr) (value, error) {
	v, err := m.eval(x.x)
	if err != nil {
		return value{}, err
	}
	iv, err := m.eval(x.i)
	if err != nil {
		return value{}, err
	}
	if v.k != kList && v.k != kStr {
		return value{}, errAt(x.ln, "TypeError", "'%s' object is not subscriptable", v.typeName())
	}
	if iv.k != kInt {
		return value{}, errAt(x.ln, "TypeError", "%s indices must be integers, not %s", v.typeName(), iv.typeName())
	}
	if v.k == kList {
		n := int64(len(v.l.items))
		i := iv.i
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return value{}, errAt(x.ln, "IndexError", "list index out of range")
		}
		return v.l.items[i], nil
	}
	runes := []rune(v.s)
	n := int64(len(runes))
	i := iv.i
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return value{}, errAt(x.ln, "IndexError", "string index out of range")
	}
	return strVal(string(runes[i])), nil
}

func unary(op string, v value, line int) (value, error) {
	switch v.k {
	case kInt:
		if op == "-" {
			if v.i == math.MinInt64 {
				return value{}, overflow(line)
			}
			return intVal(-v.i), nil
		}
		return v, nil
	case kFloat:
		if op == "-" {
			return floatVal(-v.f), nil
		}
		return v, nil
	}
	return value{}, errAt(line, "TypeError", "bad operand type for unary %s: '%s'", op, v.typeName())
}

func overflow(line int) error {
	return errAt(line, "OverflowError", "integer result too large (integers are kept within 64 bits)")
}
