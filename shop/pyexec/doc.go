// Package pyexec runs the Python that shopping agents send to
// ShoppingBench's python_execute tool, without running Python or any other
// program: it parses the code and interprets it itself.
//
// ShoppingBench's tool exec()s arbitrary code in a subprocess with a 60 s
// timeout (src/agent/toolkit/python_execute.py in its repository). A
// validator cannot do that for untrusted miners, yet models write real
// Python there: a dict of shop totals, a loop over vouchers with an if,
// min(options, key=lambda o: o["total"]), an f-string with {:.2f}. This
// package runs that everyday Python with CPython 3.11's semantics and
// error messages: numbers, strings, f-strings, %-formatting and
// str.format; lists, tuples, dicts and sets with their common methods;
// if/for/while, def, lambda, comprehensions, try/except; and the
// built-ins such code uses. testdata/realistic.txt holds 220 such
// calculations with the output CPython printed for each
// (testdata/realistic.golden.json, recorded by testdata/record.py), and
// TestRealisticCorpus checks that this package prints the same.
//
// What it refuses is an Unsupported error that says what runs instead:
// imports, files, input, eval and exec, introspection (getattr, globals,
// attribute names starting with '_'), classes, with, yield, complex
// numbers and bytes. Nothing else is reachable: the interpreter holds only
// its own values, so there is no file, network, clock or host access to
// escape to. Integers stay within 64 bits (a larger result is an
// OverflowError). Sets keep insertion order, so output never depends on
// hashing, and two runs of the same code print the same on any machine.
//
// Every run is bounded (Limits): the source size, the steps (work the
// interpreter counts: statements and expressions, items walked, compared,
// hashed or moved, bytes copied), the size of any one value, the memory
// the run allocates, the printed output, the nesting of calls, of
// expressions and of containers, and a wall-clock timeout. All but the
// timeout are counted, so every validator stops the same code at the same
// point; the step bound is set so that the timeout is never the one that
// fires. testdata/hostile.txt holds code written to get past them
// (endless loops, huge allocations, deep recursion, reference cycles,
// quadratic removals, escapes), and TestHostileCorpus checks that each
// ends in its error. As in ShoppingBench, code that prints nothing is an
// error, since the caller only sees the output.
package pyexec
