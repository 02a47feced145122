// Package pyexec evaluates the arithmetic subset of Python that shopping
// agents send to ShoppingBench's python_execute tool, without running
// Python or any other interpreter.
//
// ShoppingBench's tool exec()s arbitrary code in a subprocess with a 60 s
// timeout (src/agent/toolkit/python_execute.py in its repository). A
// validator cannot do that for untrusted miners, and agents only use the
// tool to add prices, apply a voucher and compare totals. This package
// parses the code itself and evaluates only:
//
//   - int and float literals (1_000, 2.5, 1e3), string literals and
//     f-strings with {expr} and {expr:spec} fields;
//   - + - * / // % ** and unary + -, parentheses, with Python's semantics
//     (true division gives a float, // and % floor, ints stay exact);
//   - variables: name = expr and the augmented forms += -= *= /= //= %=;
//   - lists: [a, b], xs[i], list + list, list * int;
//   - the functions print, min, max, sum, round, abs, len, int, float, str.
//
// Statements are separated by newlines or ';'. Anything else (loops,
// comparisons, imports, attribute access, other names) is an error with a
// message saying what is not supported. There is nothing to escape from:
// the evaluator has no access to files, the network, the clock or the Go
// runtime beyond its own values.
//
// Every evaluation is bounded: the source size, the evaluation steps, the
// length of any string or list, integer magnitude (Python's ints are
// unbounded; here a result beyond int64 is an OverflowError) and the
// printed output, plus a wall-clock timeout. As in ShoppingBench, code
// that prints nothing is an error, since the caller only sees the output.
package pyexec
