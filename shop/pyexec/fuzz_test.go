package pyexec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxErrorBytes bounds an error message: program text is echoed only
// clipped, so no input makes the error long.
const maxErrorBytes = 512

// FuzzRun evaluates arbitrary code. Seeds live in testdata/fuzz/FuzzRun;
// scripts/fuzz.sh-style runs: go test -run '^$' -fuzz '^FuzzRun$' ./shop/pyexec.
// Invariants: no panic; exactly one of a non-empty output and an *Error;
// the output is valid UTF-8 within MaxOutputBytes; the error is one short
// valid UTF-8 line with a kind or the no-output message; and a run is
// deterministic (unless it hit the wall-clock bound).
func FuzzRun(f *testing.F) {
	for _, seed := range []string{
		"print(120.5 + 330 - 50)",
		"total = 459 + 1299.5\nafter = max(total * (1 - 0.15), total - 200)\nprint(f\"{after:,.2f}\")",
		"a = [1]\na += [a]\nprint(a * 2, len(a))",
		"print(round(2.675, 2), 7 // -2, -7 % 3, 2 ** -2, int('1_0'), float(' 1e3 '))",
		"x = 'ab' * 3\nprint(x[-1], str(x), sep='|', end='')",
		"import os\nos.system('ls')",
		"print(f'{1:>{2}}')",
		"for i in range(3):\n    print(i)",
	} {
		f.Add(seed)
	}
	e, err := New(Limits{})
	if err != nil {
		f.Fatal(err)
	}
	lim := e.Limits()
	f.Fuzz(func(t *testing.T, code string) {
		out, err := e.Run(context.Background(), code)
		if (out == "") == (err == nil) {
			t.Fatalf("%q: want exactly one of output and error, got %q and %v", code, out, err)
		}
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%q: error %T is not an *Error: %v", code, err, err)
			}
			msg := err.Error()
			switch {
			case pe.Kind == "" && !strings.HasPrefix(msg, "No output produced"):
				t.Fatalf("%q: error without a kind: %q", code, msg)
			case len(msg) > maxErrorBytes:
				t.Fatalf("%q: error is %d bytes: %.200q", code, len(msg), msg)
			case strings.ContainsAny(msg, "\n\r"), !utf8.ValidString(msg):
				t.Fatalf("%q: error is not one valid UTF-8 line: %q", code, msg)
			}
			if pe.Kind == "Timeout" {
				return
			}
		} else if len(out) > lim.MaxOutputBytes || !utf8.ValidString(out) {
			t.Fatalf("%q: output of %d bytes (max %d), valid UTF-8 %v", code, len(out), lim.MaxOutputBytes, utf8.ValidString(out))
		}
		again, err2 := e.Run(context.Background(), code)
		var pe2 *Error
		if errors.As(err2, &pe2) && pe2.Kind == "Timeout" {
			return
		}
		if again != out || (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("%q: not deterministic: %q %v, then %q %v", code, out, err, again, err2)
		}
	})
}
