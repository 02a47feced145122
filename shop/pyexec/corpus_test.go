package pyexec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// snippet is one "=== name" section of a corpus file.
type snippet struct {
	name, code string
	line       int // of the "===" line, for messages
}

// readCorpus splits a corpus file the way testdata/record.py does: each
// section starts with "=== name" and runs to the next; lines before the
// first section are the file's comment.
func readCorpus(t testing.TB, path string) []snippet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []snippet
	var cur *snippet
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.code = body.String()
			out = append(out, *cur)
		}
		body.Reset()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "=== "); ok {
			flush()
			cur = &snippet{name: strings.TrimSpace(name), line: n}
			continue
		}
		if cur != nil {
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	flush()
	return out
}

// golden is what testdata/record.py wrote: CPython's stdout for each
// snippet and, when it raised, the last line of its traceback.
type golden struct {
	Python   string `json:"python"`
	Snippets []struct {
		Name   string `json:"name"`
		Stdout string `json:"stdout"`
		Error  string `json:"error"`
	} `json:"snippets"`
}

// TestRealisticCorpus runs every snippet of testdata/realistic.txt and
// compares what it prints, and the exception it ends with, to what
// CPython did (testdata/realistic.golden.json). The recording is read,
// never redone: the test must not depend on a Python on the machine.
func TestRealisticCorpus(t *testing.T) {
	snips := readCorpus(t, filepath.Join("testdata", "realistic.txt"))
	b, err := os.ReadFile(filepath.Join("testdata", "realistic.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	// The issue asks for at least 200; fewer means the file was cut.
	if len(snips) < 200 {
		t.Fatalf("realistic corpus has %d snippets, want at least 200", len(snips))
	}
	if len(g.Snippets) != len(snips) {
		t.Fatalf("golden file has %d snippets, corpus %d: run python3 testdata/record.py", len(g.Snippets), len(snips))
	}
	e := newEvaluator(t, Limits{})
	matched := 0
	var most Usage // the most any snippet used of each bound
	for i, s := range snips {
		want := g.Snippets[i]
		if want.Name != s.name {
			t.Fatalf("snippet %d is %q in the corpus and %q in the golden file: run python3 testdata/record.py", i, s.name, want.Name)
		}
		ok := t.Run(s.name, func(t *testing.T) {
			out, use, err := e.RunPartial(context.Background(), s.code)
			most = Usage{Steps: max(most.Steps, use.Steps), Memory: max(most.Memory, use.Memory), Depth: max(most.Depth, use.Depth)}
			if out != want.Stdout {
				t.Errorf("realistic.txt:%d printed\n%q\nCPython %s printed\n%q", s.line, out, g.Python, want.Stdout)
			}
			var pe *Error
			switch {
			case want.Error == "" && err != nil:
				t.Errorf("realistic.txt:%d: %v; CPython raised nothing", s.line, err)
			case want.Error != "" && !errors.As(err, &pe):
				t.Errorf("realistic.txt:%d: no error; CPython raised %s", s.line, want.Error)
			case want.Error != "" && pythonError(pe) != want.Error:
				t.Errorf("realistic.txt:%d: raised %q; CPython raised %q", s.line, pythonError(pe), want.Error)
			}
		})
		if ok {
			matched++
		}
	}
	t.Logf("%d of %d realistic snippets match CPython %s; the most any used: %d steps, %d bytes, %d nested calls",
		matched, len(snips), g.Python, most.Steps, most.Memory, most.Depth)
}

// pythonError is the last line of the traceback CPython would print.
func pythonError(e *Error) string {
	if e.Msg == "" {
		return e.Kind
	}
	return e.Kind + ": " + e.Msg
}

// hostileTimeout replaces the wall-clock bound for TestHostileCorpus: long
// enough that no snippet reaches it on a slow or instrumented machine, so
// that a snippet ending in Timeout shows a bound the interpreter failed to
// count, not a busy test runner.
const hostileTimeout = time.Minute

// hostileSteps is the step bound TestHostileCorpus runs with: above the
// default, so that each snippet reaches the bound it was written for
// (memory, depth, recursion) rather than the step count first; with the
// default limits every snippet still ends in an error (TestHostileCorpusDefaultLimits).
const hostileSteps = 1_000_000

// TestHostileCorpus runs every snippet of testdata/hostile.txt with the
// default limits (but hostileSteps and hostileTimeout) and checks that it
// ends in the error its "# want:" line names, within the counted bounds,
// the same way twice.
func TestHostileCorpus(t *testing.T) {
	snips := readCorpus(t, filepath.Join("testdata", "hostile.txt"))
	lim := DefaultLimits()
	lim.Timeout, lim.MaxSteps = hostileTimeout, hostileSteps
	e := newEvaluator(t, lim)
	var slowest time.Duration
	slowestName := ""
	kinds := map[string]int{}
	for _, s := range snips {
		t.Run(s.name, func(t *testing.T) {
			wantKind, wantMsg := hostileWant(t, s)
			start := time.Now()
			out, use, err := e.RunPartial(context.Background(), s.code)
			if d := time.Since(start); d > slowest {
				slowest, slowestName = d, s.name
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("hostile.txt:%d: printed %.100q and ended without an error", s.line, out)
			}
			if pe.Kind != wantKind || !strings.Contains(pe.Msg, wantMsg) {
				t.Errorf("hostile.txt:%d: ended with %v; want %s containing %q", s.line, err, wantKind, wantMsg)
			}
			kinds[pe.Kind]++
			if msg := err.Error(); len(msg) > maxErrorBytes || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("hostile.txt:%d: the error is not one short line: %.200q", s.line, msg)
			}
			switch {
			case use.Steps > lim.MaxSteps:
				t.Errorf("hostile.txt:%d: took %d steps, bound %d", s.line, use.Steps, lim.MaxSteps)
			case use.Depth > lim.MaxDepth:
				t.Errorf("hostile.txt:%d: nested %d calls, bound %d", s.line, use.Depth, lim.MaxDepth)
			case len(out) > lim.MaxOutputBytes:
				t.Errorf("hostile.txt:%d: printed %d bytes, bound %d", s.line, len(out), lim.MaxOutputBytes)
			case use.Memory > lim.MaxMemory:
				t.Errorf("hostile.txt:%d: counted %d bytes of memory, bound %d", s.line, use.Memory, lim.MaxMemory)
			}
			out2, use2, err2 := e.RunPartial(context.Background(), s.code)
			if out2 != out || use2 != use || fmt.Sprint(err2) != fmt.Sprint(err) {
				t.Errorf("hostile.txt:%d: not deterministic: %q %+v %v, then %q %+v %v", s.line, out, use, err, out2, use2, err2)
			}
		})
	}
	t.Logf("%d hostile snippets; ended by %v; slowest %q in %v (default timeout %v)", len(snips), kinds, slowestName,
		slowest.Round(time.Millisecond), DefaultLimits().Timeout)
}

// TestHostileCorpusDefaultLimits: with the default limits (but
// hostileTimeout) every hostile snippet ends in a counted error, never in
// output or the clock.
func TestHostileCorpusDefaultLimits(t *testing.T) {
	snips := readCorpus(t, filepath.Join("testdata", "hostile.txt"))
	lim := DefaultLimits()
	lim.Timeout = hostileTimeout
	e := newEvaluator(t, lim)
	for _, s := range snips {
		out, use, err := e.RunPartial(context.Background(), s.code)
		var pe *Error
		switch {
		case !errors.As(err, &pe):
			t.Errorf("hostile.txt:%d: printed %.100q and ended without an error", s.line, out)
		case pe.Kind == "Timeout":
			t.Errorf("hostile.txt:%d: ended by the clock: %v", s.line, err)
		case use.Steps > lim.MaxSteps:
			t.Errorf("hostile.txt:%d: took %d steps, bound %d", s.line, use.Steps, lim.MaxSteps)
		}
	}
}

// hostileWant reads a hostile snippet's "# want: Kind: text" line.
func hostileWant(t *testing.T, s snippet) (kind, msg string) {
	t.Helper()
	first, _, _ := strings.Cut(s.code, "\n")
	want, ok := strings.CutPrefix(first, "# want: ")
	if !ok {
		t.Fatalf("hostile.txt:%d: first line %q is not \"# want: Kind: text\"", s.line, first)
	}
	kind, msg, _ = strings.Cut(want, ": ")
	if kind == "Timeout" {
		t.Fatalf("hostile.txt:%d: a hostile snippet must end by a counted bound, not the clock", s.line)
	}
	return kind, msg
}

// BenchmarkHostileCorpus times each hostile snippet with the default
// limits, to show how far below the wall-clock bound the counted bounds
// end them (docs/benchmarks.md):
//
//	go test -run '^$' -bench HostileCorpus -benchtime 3x ./shop/pyexec
func BenchmarkHostileCorpus(b *testing.B) {
	snips := readCorpus(b, filepath.Join("testdata", "hostile.txt"))
	lim := DefaultLimits()
	lim.Timeout, lim.MaxSteps = hostileTimeout, hostileSteps
	e, err := New(lim)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range snips {
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Run(context.Background(), s.code); err == nil {
					b.Fatalf("hostile.txt:%d ended without an error", s.line)
				}
			}
		})
	}
}
