package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestShopPython runs code as python_execute would, from the argument or
// from standard input, including the exact form.
func TestShopPython(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		stdin   io.Reader // nil: the process has none, as in run
		code    int
		stdout  string
		errLine string // part of the one stderr line, when code != 0
	}{
		{"shop totals with a lambda", []string{"shop", "python", `totals = {"a": 120, "b": 95}
best = min(totals, key=lambda s: totals[s])
print(f"{best}: {totals[best]}")`}, nil, 0, "b: 95\n", ""},
		{"voucher from stdin", []string{"shop", "python", "-"}, strings.NewReader("total = 459 + 1299.5\nif total >= 1000:\n    total -= 200\nprint(f'{total:.2f}')\n"), 0, "1558.50\n", ""},
		{"import refused", []string{"shop", "python", "import os"}, nil, 1, "", "arena: python_execute: line 1: Unsupported: imports are not supported"},
		{"endless loop bounded", []string{"shop", "python", "while True:\n    pass"}, nil, 1, "", "LimitExceeded: execution limit: more than 200000 steps"},
		{"exception", []string{"shop", "python", "raise ValueError('over budget')"}, nil, 1, "", "arena: python_execute: line 1: ValueError: over budget"},
		{"nothing printed", []string{"shop", "python", "x = 1"}, nil, 1, "", "No output produced by the code"},
		{"stdin missing", []string{"shop", "python", "-"}, nil, 1, "", "no standard input"},
		{"no code", []string{"shop", "python"}, nil, 2, "", "want one argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runEnv(context.Background(), append([]string{"arena"}, tc.args...),
				&cliEnv{stdin: tc.stdin, stdout: &stdout, stderr: &stderr})
			if code != tc.code || stdout.String() != tc.stdout {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q", code, stdout.String(), stderr.String(), tc.code, tc.stdout)
			}
			if tc.code != 0 && (!strings.Contains(stderr.String(), tc.errLine) || strings.Count(stderr.String(), "\n") != 1) {
				t.Fatalf("stderr %q, want one line containing %q", stderr.String(), tc.errLine)
			}
		})
	}
}
