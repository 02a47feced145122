package pyexec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func newEvaluator(t *testing.T, lim Limits) *Evaluator {
	t.Helper()
	e, err := New(lim)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestRunMatchesPython checks outputs against CPython 3: every want below
// is what python3 printed for the same code (exec with print captured).
func TestRunMatchesPython(t *testing.T) {
	e := newEvaluator(t, Limits{})
	for _, tc := range []struct{ name, code, want string }{
		{"sum of prices", "print(120.5 + 330 - 50)", "400.5\n"},
		{"float repr", "x = 0.1 + 0.2\nprint(x)", "0.30000000000000004\n"},
		{"int ops", "print(7 // 2, -7 // 2, 7 % -3, -7 % 3, 2 ** 10, 2 ** -1, 1 / 3, 10 / 2)", "3 -4 -2 2 1024 0.5 0.3333333333333333 5.0\n"},
		{"float floor", "print(7.5 // 2, -7.5 // 2, 7.5 % -2, -0.0 % 5, 5.0 % 2.5)", "3.0 -4.0 -0.5 0.0 0.0\n"},
		{"round", "print(round(2.675, 2), round(0.5), round(1.5), round(2.5), round(-0.5), round(1234.5, -2), round(15, -1), round(25, -1), round(0.125, 2), round(7, 2))", "2.67 0 2 2 0 1200.0 20 20 0.12 7\n"},
		{"round neg zero", "print(round(-0.4), round(-0.04, 1))", "0 -0.0\n"},
		{"voucher2", "total = 459 + 1299.5\ncap = 200\nafter = max(total * (1 - 0.15), total - cap)\nprint(f\"total {total:.2f}, after {after:.2f}\")", "total 1758.50, after 1558.50\n"},
		{"fstring specs", "print(f'{1234567.891:,.2f}|{0.256:.1%}|{42:>5}|{\"ab\":^6}|{-3:05d}|{3.14159:+.3f}|{7:<4}|{1e6:g}|{12345.678:e}|{1234567:_}')", "1,234,567.89|25.6%|   42|  ab  |-0003|+3.142|7   |1e+06|1.234568e+04|1_234_567\n"},
		{"fstring repr", "x = 2.5\nprint(f'{x} {[1, 2]} {\"s\"} {x*2}')", "2.5 [1, 2] s 5.0\n"},
		{"lists", "xs = [1, 2.5, 'a', [3]]\nprint(xs, xs[0], xs[-1], len(xs))", "[1, 2.5, 'a', [3]] 1 [3] 4\n"},
		{"aliasing", "a = [1]\nb = a\nb += [2]\nprint(a, b)", "[1, 2] [1, 2]\n"},
		{"self reference", "a = [1]\na += [a]\nprint(a)", "[1, [...]]\n"},
		{"repeat", "print('-' * 10, [0] * 3, 2 * [1, 2], 'ab' * 0)", "---------- [0, 0, 0] [1, 2, 1, 2] \n"},
		{"float exponents", "print(1e16, 1.5e-5, 0.0001, 123456789012345678.0, -0.0, 100.0, 1e-7, 2.0**0.5)", "1e+16 1.5e-05 0.0001 1.2345678901234568e+17 -0.0 100.0 1e-07 1.4142135623730951\n"},
		{"builtins", "print(sum([1, 2, 3.5]), min(3, 1, 2), max([1, 5, 2]), abs(-3), abs(-2.5), len('héllo'), int('42'), int(-3.9), float('1.5'), str(3.0), sum([1, 2], 10))", "6.5 1 5 3 2.5 5 42 -3 1.5 3.0 13\n"},
		{"print sep end", "print(1, 2, 3, sep=', ', end='!\\n')\nprint('done')", "1, 2, 3!\ndone\n"},
		{"semicolons and comments", "a = 1; b = 2  # two\n# comment line\n\nprint(a + b)", "3\n"},
		{"continuation", "total = (100 +\n         200)\nx = 1 + \\\n  2\nprint(total, x)", "300 3\n"},
		{"augmented", "x = 10\nx += 5\nx -= 1\nx *= 3\nx /= 4\nx //= 2\ny = 17\ny %= 5\ny **= 3\nprint(x, y)", "5.0 8\n"},
		{"chained assignment", "a = b = 4\nprint(a * b)", "16\n"},
		{"string concat", "name = 'total'\nprint(name + ': ' + str(42) + \" pesos\")", "total: 42 pesos\n"},
		{"triple quoted", "print('''two\nlines''')", "two\nlines\n"},
		{"adjacent strings", "print('a' 'b' f'{1+1}')", "ab2\n"},
		{"underscores hex", "print(1_000_000, 0x1F, 0o17, 0b101, 1_0.5)", "1000000 31 15 5 10.5\n"},
		{"min max nan", "n = float('nan')\nprint(max([n, 1]), max([1, n]), min(2, 2.0), max(2.0, 2))", "nan 1 2 2.0\n"},
		{"int float mix", "print(3 * 1.0, 2 ** 0.5 * 2 ** 0.5, 10 - 0.1, 1 + 2 * 3 ** 2)", "3.0 2.0000000000000004 9.9 19\n"},
		{"unary", "print(-(-3), +4, -2 ** 2, (-2) ** 2, --5)", "3 4 -4 4 5\n"},
		{"print none", "x = print('a')\nprint(x)", "a\nNone\n"},
		{"big int division", "print(9007199254740993 / 1, 2**62 // 3, -2**62 * 2)", "9007199254740992.0 1537228672809129301 -9223372036854775808\n"},
		{"fstring escapes", "print(f'{{literal}} {3}')", "{literal} 3\n"},
		{"float str parse", "print(float(' 2.5 '), float('1e3'), float('inf'), float('-inf'), int(' 7 '), int('1_000'))", "2.5 1000.0 inf -inf 7 1000\n"},
		{"percent of int", "print(f'{3:.1%}', f'{-1234:,}')", "300.0% -1,234\n"},
		{"round big", "print(round(1e18), round(123.456, 1), round(-2.5), round(2.5, 0))", "1000000000000000000 123.5 -2 2.0\n"},
		{"loop", "for i in [1, 2]:\n    print(i)", "1\n2\n"},
		{"while", "x = 3\nwhile x:\n    x -= 1\nprint(x)", "0\n"},
		{"def", "def f(a, b=2):\n    return a * b\nprint(f(3), f(3, b=4))", "6 12\n"},
		{"lambda", "f = lambda x: x + 1\nprint(f(1))", "2\n"},
		{"comparison", "print(1 < 2, 2 <= 1, 1 == 1.0, 'a' != 'b', 1 < 2 < 3)", "True False True True True\n"},
		{"conditional", "x = 1 if 2 > 3 else 3\nprint(x)", "3\n"},
		{"boolean", "print(True, False, None, not 0)", "True False None True\n"},
		{"and or", "print(1 and 2, 0 or 'x', None or 0)", "2 x 0\n"},
		{"str format method", "print('{:.2f}'.format(3), '{} + {}'.format(1, 2.5))", "3.00 1 + 2.5\n"},
		{"percent format", "print('%.2f' % 3.14159, '%d items, %s' % (3, 'ok'), '%5.1f%%' % 12.345)", "3.14 3 items, ok  12.3%\n"},
		{"percent star", "print('%*d|' % (-5, 1), '%0*d|' % (-5, 1), '%.*f' % (2, 1.5))", "1    | 1    | 1.50\n"},
		{"dict", "d = {'a': 1}\nd['b'] = 2\nprint(d, d.get('c', 0), sorted(d.items()))", "{'a': 1, 'b': 2} 0 [('a', 1), ('b', 2)]\n"},
		{"tuple", "a, b = 1, 2\na, b = b, a\nprint(a, b, (1,), ())", "2 1 (1,) ()\n"},
		{"slice", "xs = [1, 2, 3, 4]\nprint(xs[0:2], xs[::-1], xs[-2:], 'hello'[1:3])", "[1, 2] [4, 3, 2, 1] [3, 4] el\n"},
		{"item assignment", "xs = [1]\nxs[0] = 2\nprint(xs)", "[2]\n"},
		{"bitwise", "print(1 & 3, 1 | 2, 5 ^ 1, 1 << 4, 256 >> 2, ~5)", "1 3 4 16 64 -6\n"},
		{"conversion", "print(f'{1!r} {\"a\"!r} {\"a\"!s} {2.5=}')", "1 'a' a 2.5=2.5\n"},
		{"min strings", "print(min(['b', 'a']), max('abc'), sorted(['b', 'A', 'a']))", "a c ['A', 'a', 'b']\n"},
		{"format code", "print(f'{255:x} {255:#X} {5:b} {8:o} {3.5:e} {255:#06x} {-5:#b} {10:#o}')", "ff 0XFF 101 10 3.500000e+00 0x00ff -0b101 0o12\n"},
		{"comprehensions", "print([x * x for x in range(5) if x % 2], {k: v for k, v in [('a', 1)]}, {x % 3 for x in range(9)}, sum(x for x in range(4)))", "[1, 9] {'a': 1} {0, 1, 2} 6\n"},
		{"try except", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e)\nfinally:\n    print('done')", "caught division by zero\ndone\n"},
		{"min key lambda", "totals = {'a': 120, 'b': 95}\nbest = min(totals, key=lambda s: totals[s])\nprint(f'{best}: {totals[best]}')", "b: 95\n"},
		{"enumerate zip", "for i, (a, b) in enumerate(zip('xy', [1, 2]), start=1):\n    print(i, a, b)", "1 x 1\n2 y 2\n"},
		{"string methods", "s = ' Wireless Earbuds '\nprint(s.strip().lower().split(), s.replace('Earbuds', 'Mouse').strip(), 'x'.join('abc'), s.count('e'))", "['wireless', 'earbuds'] Wireless Mouse axbxc 2\n"},
		{"sets", "a = {1, 2, 3}\nb = {2, 3, 4}\nprint(sorted(a & b), sorted(a | b), sorted(a - b), 2 in a)", "[2, 3] [1, 2, 3, 4] [1] True\n"},
		{"nonlocal", "def outer():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n    inc(); inc()\n    return n\nprint(outer())", "2\n"},
		{"global", "n = 0\ndef inc():\n    global n\n    n += 1\ninc(); inc()\nprint(n)", "2\n"},
		{"isinstance", "print(isinstance(1, int), isinstance(True, int), isinstance(1.0, (int, float)), isinstance('a', list))", "True True True False\n"},
		{"break else", "for n in range(2, 10):\n    if n % 7 == 0:\n        print('found', n)\n        break\nelse:\n    print('none')", "found 7\n"},
		{"divmod pow", "print(divmod(17, 5), divmod(-7, 2), pow(2, 10), pow(3, 4, 5), abs(-0.0))", "(3, 2) (-4, 1) 1024 1 0.0\n"},
		{"str repr", "print(str(round(2.5)), repr('it\\'s'), str([1, 'a']))", "2 \"it's\" [1, 'a']\n"},
		{"exact int float order", "print(2**53 + 1 <= 2.0**53, 2**53 + 1 > 2.0**53, 1 == 1.0, [1, 2] < [1, 2.5])", "False True True True\n"},
		{"empty repeated", "print(len(() * 10**17), '' * 10**18, [] * 10**18)", "0  []\n"},
		{"self reference printed", "d = {}\nd['self'] = d\nprint(d)", "{'self': {...}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.Run(context.Background(), tc.code)
			if err != nil {
				t.Fatalf("%q: %v", tc.code, err)
			}
			if got != tc.want {
				t.Errorf("%q printed\n%q, want\n%q", tc.code, got, tc.want)
			}
		})
	}
}

// TestRunErrors checks that code outside what python_execute runs, or
// failing as it would in Python, is one error with a kind, a line and a
// clear message; Python's errors carry CPython 3.11's message.
func TestRunErrors(t *testing.T) {
	e := newEvaluator(t, Limits{})
	for _, tc := range []struct {
		name, code string
		kind       string
		line       int
		msg        string
	}{
		{"import", "import os\nprint(1)", "Unsupported", 1, "imports are not supported"},
		{"from import", "from math import floor", "Unsupported", 1, "imports are not supported"},
		{"class", "class A:\n    pass", "Unsupported", 1, "class definitions are not supported"},
		{"with", "with x:\n    pass", "Unsupported", 1, "with statements are not supported"},
		{"yield", "def g():\n    yield 1", "Unsupported", 2, "yield is not supported"},
		{"dunder attribute", "print((1).__class__)", "Unsupported", 1, "attribute names starting with '_'"},
		{"dunder import", "print(__import__('os'))", "Unsupported", 1, "__import__ is not available"},
		{"open", "open('/etc/passwd')", "Unsupported", 1, "open is not available: python_execute has no files"},
		{"eval", "eval('1')", "Unsupported", 1, "eval is not available"},
		{"getattr", "getattr(1, 'real')", "Unsupported", 1, "getattr is not available"},
		{"hash", "print(hash('a'))", "Unsupported", 1, "hash() is not supported"},
		{"complex", "print(1j)", "Unsupported", 1, "complex numbers"},
		{"complex power", "print((-8) ** 0.5)", "Unsupported", 1, "complex number"},
		{"bytes", "print(b'x')", "Unsupported", 1, "bytes literals"},
		{"alternate float format", "print(f'{1.5:#}')", "Unsupported", 1, "the # format option"},
		{"undefined", "x = 1\nprint(y)", "NameError", 2, "name 'y' is not defined"},
		{"augmented undefined", "z += 1", "NameError", 1, "name 'z' is not defined"},
		{"not callable", "x = 3\nprint(x(2))", "TypeError", 2, "'int' object is not callable"},
		{"str plus int", "print('a' + 1)", "TypeError", 1, "can only concatenate str (not \"int\") to str"},
		{"none plus", "print(None + 1)", "TypeError", 1, "unsupported operand type(s) for +: 'NoneType' and 'int'"},
		{"unary str", "print(-'a')", "TypeError", 1, "bad operand type for unary -: 'str'"},
		{"min mixed", "print(min([1, 'b']))", "TypeError", 1, "'<' not supported between instances of 'str' and 'int'"},
		{"sort mixed", "print(sorted([1, 'a']))", "TypeError", 1, "'<' not supported between instances of 'str' and 'int'"},
		{"compare mixed", "print(1 < 'a')", "TypeError", 1, "'<' not supported between instances of 'int' and 'str'"},
		{"nested compare mixed", "print([1] >= ['a'])", "TypeError", 1, "'>=' not supported between instances of 'int' and 'str'"},
		{"bad keyword", "print(round(1.5, digits=1))", "TypeError", 1, "'digits' is an invalid keyword argument for round()"},
		{"round arity", "print(round(1, 2, 3))", "TypeError", 1, "round() takes at most 2 arguments (3 given)"},
		{"missing arg", "def f(a, b):\n    return a\nf(1)", "TypeError", 3, "f() missing 1 required positional argument: 'b'"},
		{"too many args", "def f(a):\n    return a\nf(1, 2)", "TypeError", 3, "f() takes 1 positional argument but 2 were given"},
		{"str item assignment", "s = 'abc'\ns[0] = 'x'", "TypeError", 2, "'str' object does not support item assignment"},
		{"attribute error", "x = 5\nx.append(1)", "AttributeError", 2, "'int' object has no attribute 'append'"},
		{"key error", "d = {'a': 1}\nprint(d['b'])", "KeyError", 2, "'b'"},
		{"unpack", "a, b = [1, 2, 3]", "ValueError", 1, "too many values to unpack (expected 2)"},
		{"unbound local", "x = 1\ndef f():\n    x += 1\nf()", "UnboundLocalError", 3, "cannot access local variable 'x' where it is not associated with a value"},
		{"nonlocal without binding", "def f():\n    nonlocal q\n    q = 1\nf()", "SyntaxError", 3, "no binding for nonlocal 'q' found"},
		{"list remove missing", "xs = [1]\nxs.remove(2)", "ValueError", 2, "list.remove(x): x not in list"},
		{"raise", "raise ValueError('budget exceeded')", "ValueError", 1, "budget exceeded"},
		{"assert", "assert 1 > 2, 'too small'", "AssertionError", 1, "too small"},
		{"division by zero", "a = 5\nprint(a / (2 - 2))", "ZeroDivisionError", 2, "division by zero"},
		{"modulo by zero", "print(5 % 0)", "ZeroDivisionError", 1, "integer modulo by zero"},
		{"float floor by zero", "print(5.0 // 0)", "ZeroDivisionError", 1, "float floor division by zero"},
		{"zero negative power", "print(0 ** -1)", "ZeroDivisionError", 1, "0.0 cannot be raised to a negative power"},
		{"int overflow", "print(2 ** 64)", "OverflowError", 1, "integer result too large"},
		{"mul overflow", "print(3037000500 * 3037000500)", "OverflowError", 1, "integer result too large"},
		{"literal overflow", "print(99999999999999999999)", "OverflowError", 1, "too large"},
		{"round to int overflow", "print(round(1e20))", "OverflowError", 1, "integer result too large"},
		{"float overflow", "print(10.0 ** 400)", "OverflowError", 1, "Numerical result out of range"},
		{"nan to int", "print(int(float('nan')))", "ValueError", 1, "cannot convert float NaN to integer"},
		{"bad int literal", "print(int('12a'))", "ValueError", 1, "invalid literal for int() with base 10: '12a'"},
		{"int of float string", "print(int('2.5'))", "ValueError", 1, "invalid literal for int() with base 10: '2.5'"},
		{"bad float literal", "print(float('0x1p3'))", "ValueError", 1, "could not convert string to float"},
		{"empty max", "print(max([]))", "ValueError", 1, "max() arg is an empty sequence"},
		{"format d of float", "print(f'{3.5:d}')", "ValueError", 1, "Unknown format code 'd' for object of type 'float'"},
		{"index", "print([1][3])", "IndexError", 1, "list index out of range"},
		{"index type", "print([1][0.5])", "TypeError", 1, "list indices must be integers or slices, not float"},
		{"indent", "    print(1)", "IndentationError", 1, "unexpected indent"},
		{"unterminated", "print('abc)", "SyntaxError", 1, "unterminated string literal"},
		{"unclosed", "print((1 + 2)", "SyntaxError", 0, "a bracket is not closed"},
		{"leading zero", "print(012)", "SyntaxError", 1, "leading zeros"},
		{"garbage", "print(1 $ 2)", "SyntaxError", 1, "invalid character"},
		{"assign to call", "f(1) = 2", "SyntaxError", 1, "cannot assign to function call"},
		{"nesting", "print(" + strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150) + ")", "SyntaxError", 1, "too many nested"},
		{"recursion", "def f(n):\n    return f(n + 1)\nf(0)", "RecursionError", 2, "maximum recursion depth exceeded"},
		{"cycle compared", "a = [1]\na.append(a)\nb = [1]\nb.append(b)\nprint(a == b)", "RecursionError", 5, "maximum recursion depth exceeded in comparison"},
		{"no output", "total = 1 + 2\ntotal", "", 0, "No output produced by the code. Please use print() calls to output results."},
		{"empty", "", "", 0, "No output produced by the code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := e.Run(context.Background(), tc.code)
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%q: got output %q and error %v, want a %s error", tc.code, out, err, tc.kind)
			}
			if out != "" {
				t.Errorf("%q: output %q alongside the error", tc.code, out)
			}
			if pe.Kind != tc.kind || (tc.line > 0 && pe.Line != tc.line) || !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("%q: got %s error on line %d: %q; want %s on line %d containing %q", tc.code, pe.Kind, pe.Line, pe.Msg, tc.kind, tc.line, tc.msg)
			}
			if pe.Kind == "Unsupported" && !strings.Contains(err.Error(), "python_execute runs plain Python") {
				t.Errorf("%q: unsupported error does not say what is supported: %v", tc.code, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: error is not one line: %q", tc.code, err.Error())
			}
		})
	}
}

// TestLimits checks each bound: a program just inside it runs, one past
// it fails with LimitExceeded (or Timeout) and says which bound.
func TestLimits(t *testing.T) {
	lim := Limits{MaxSourceBytes: 200, MaxOutputBytes: 20, MaxSteps: 50, MaxValueLen: 30, MaxMemory: 400, MaxDepth: 3}
	tight := newEvaluator(t, lim)
	// roomy has steps and memory to spare, for cases that must reach
	// another bound.
	lim.MaxSteps, lim.MaxMemory = 10_000, 10_000
	roomy := newEvaluator(t, lim)
	for _, tc := range []struct {
		name, code string
		ok         bool
		msg        string
		roomy      bool
	}{
		{"source within", "print(" + strings.Repeat("1+", 10) + "1)", true, "", false},
		{"source over", "print(1)" + strings.Repeat(" ", 200), false, "the code is 208 bytes long; at most 200", false},
		{"output within", "print('x' * 19)", true, "", false},
		{"output over", "print('x' * 20)", false, "printed more than 20 bytes", false},
		{"output over in pieces", "print('x' * 10)\nprint('y' * 10)", false, "printed more than 20 bytes", false},
		{"steps within", "x = 1\n" + strings.Repeat("x=x+1\n", 5) + "print(x)", true, "", false},
		{"steps over", "x = 1\n" + strings.Repeat("x=x+1\n", 20) + "print(x)", false, "execution limit: more than 50 steps", false},
		{"loop over", "while True:\n    pass", false, "execution limit: more than 50 steps", false},
		{"string within", "s = 'a' * 30\nprint(len(s))", true, "", false},
		{"string over", "s = 'a' * 31", false, "the repetition would build 31 items or bytes; at most 30", false},
		{"list over", "s = [1] * 31", false, "the repetition would build 31 items or bytes; at most 30", false},
		{"concat over", "s = 'a' * 20\ns = s + s", false, "a string would have 40 bytes; at most 30", false},
		{"append over", "xs = []\nfor i in range(31):\n    xs.append(i)", false, "a list would have 31 items; at most 30", true},
		{"dict over", "d = {i: i for i in range(31)}", false, "a dict would have 31 items; at most 30", true},
		{"depth over", "def f(n):\n    return f(n + 1)\nf(0)", false, "python_execute allows 3 nested calls", true},
		{"memory over", "a = 'a' * 30\nb = 'b' * 30\nc = [1] * 25\nd = 'a' * 30", false, "the code allocates more than 400 bytes", false},
		{"nested repr over", "a = [1] * 10\nb = [a] * 10\nprint(b)", false, "printed more than 20 bytes", false},
		{"format width", "print(f'{1:1001}')", false, "format width above 1000", false},
		{"depth within", "def f(n):\n    return 0 if n == 0 else f(n - 1)\nprint(f(2))", true, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tight
			if tc.roomy {
				e = roomy
			}
			out, err := e.Run(context.Background(), tc.code)
			if tc.ok {
				if err != nil {
					t.Fatalf("%q: %v", tc.code, err)
				}
				return
			}
			var pe *Error
			if !errors.As(err, &pe) || (pe.Kind != "LimitExceeded" && pe.Kind != "RecursionError") || !strings.Contains(pe.Msg, tc.msg) {
				t.Fatalf("%q: got %q, %v; want a bound's error containing %q", tc.code, out, err, tc.msg)
			}
		})
	}
}

// TestCanceled checks the wall-clock bound through the context: a run
// under an expired context stops at its next check with Timeout.
func TestCanceled(t *testing.T) {
	e := newEvaluator(t, Limits{Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code := "x = 0\n" + strings.Repeat("x = x + 1\n", 300) + "print(x)"
	_, err := e.Run(ctx, code)
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != "Timeout" {
		t.Fatalf("canceled run: %v, want a Timeout error", err)
	}
	if out, err := e.Run(context.Background(), code); err != nil || out != "300\n" {
		t.Fatalf("the same code without cancellation: %q, %v", out, err)
	}
}

func TestNewRejectsNegativeLimits(t *testing.T) {
	for _, lim := range []Limits{{MaxSteps: -1}, {MaxOutputBytes: -5}, {Timeout: -time.Second}} {
		if _, err := New(lim); err == nil {
			t.Errorf("New(%+v) accepted negative limits", lim)
		}
	}
	e := newEvaluator(t, Limits{})
	if got := e.Limits(); got != DefaultLimits() {
		t.Errorf("zero limits became %+v, want the defaults %+v", got, DefaultLimits())
	}
}
