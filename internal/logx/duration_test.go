package logx

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// durationSuffix ends the name of every duration field (see the package doc).
const durationSuffix = "_ms"

// TestDurationRendering pins what the "_ms" suffix promises: a Dur field
// from a logx logger is a number of milliseconds in both formats.
func TestDurationRendering(t *testing.T) {
	const d = 215040 * time.Microsecond
	tests := []struct {
		format string
		check  func(t *testing.T, out []byte)
	}{
		{FormatJSON, func(t *testing.T, out []byte) {
			var m map[string]any
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatalf("%v: %q", err, out)
			}
			if got, ok := m["took_ms"].(float64); !ok || got != 215.04 {
				t.Fatalf("took_ms = %#v, want 215.04 (milliseconds): %q", m["took_ms"], out)
			}
		}},
		{FormatConsole, func(t *testing.T, out []byte) {
			if !strings.Contains(string(out), "took_ms=215.04") {
				t.Fatalf("console line lacks took_ms=215.04: %q", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			var buf bytes.Buffer
			log, err := New(&buf, Options{Format: tt.format})
			if err != nil {
				t.Fatal(err)
			}
			log.Info().Dur("took_ms", d).Msg("done")
			tt.check(t, buf.Bytes())
		})
	}
}

// TestDurationFieldsNameTheirUnit reads every Go file of the module: each
// duration field (Dur, Durs, TimeDiff) has a literal name ending in
// durationSuffix, and nobody reassigns zerolog's duration globals, which
// would make those names lie.
func TestDurationFieldsNameTheirUnit(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	calls := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || len(n.Args) == 0 {
					return true
				}
				switch sel.Sel.Name {
				case "Dur", "Durs", "TimeDiff":
				default:
					return true
				}
				calls++
				lit, ok := n.Args[0].(*ast.BasicLit)
				name, uerr := "", error(nil)
				if ok && lit.Kind == token.STRING {
					name, uerr = strconv.Unquote(lit.Value)
				}
				if !ok || uerr != nil || !strings.HasSuffix(name, durationSuffix) {
					t.Errorf("%s: duration field %s does not end in %q", fset.Position(n.Pos()), exprText(n.Args[0]), durationSuffix)
				}
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					if sel, ok := lhs.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "DurationField") {
						t.Errorf("%s: assigns %s; duration fields are named for zerolog's default unit", fset.Position(n.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The module logs durations in several packages; finding none means the
	// walk missed the source, not that the rule holds.
	if calls < 5 {
		t.Fatalf("found %d duration fields under %s; the walk is broken", calls, root)
	}
	t.Logf("%d duration fields checked under %s", calls, root)
}

func exprText(e ast.Expr) string {
	if lit, ok := e.(*ast.BasicLit); ok {
		return lit.Value
	}
	return "(not a string literal)"
}

// moduleRoot is the nearest directory above the test's that holds go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}
