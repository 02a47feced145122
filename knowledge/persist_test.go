package knowledge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// TestOpenFile: the first open derives the corpus and writes the file; the
// next reads it and gives the same pages and facts as Build. A changed key
// (another catalog) or seed derives again quietly; a damaged, truncated or
// foreign file derives again after one warning line and is rewritten; a
// file that cannot be written costs a warning, not the corpus.
func TestOpenFile(t *testing.T) {
	cat := generated(t, 5000)
	want := build(t, cat, Options{})
	key := [32]byte{1, 2, 3}
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.arena-index"+FileSuffix)
	open := func(t *testing.T, path string, key [32]byte, opts Options) (*Corpus, FileInfo, string) {
		t.Helper()
		var logs bytes.Buffer
		c, info, err := OpenFile(context.Background(), cat, path, key, opts, zerolog.New(&logs))
		if err != nil {
			t.Fatal(err)
		}
		if same := opts.Seed == 0 && len(opts.Extra) == 0; same && (!reflect.DeepEqual(c.pages, want.pages) || !reflect.DeepEqual(c.facts, want.facts)) {
			t.Fatalf("corpus differs from Build's (%d pages, %d facts; want %d, %d)", len(c.pages), len(c.facts), len(want.pages), len(want.facts))
		}
		return c, info, logs.String()
	}
	warnings := func(logs string) int { return strings.Count(logs, `"level":"warn"`) }

	if _, info, logs := open(t, path, key, Options{}); !info.Built || !info.Persisted || warnings(logs) != 0 {
		t.Fatalf("first open: %+v\n%s", info, logs)
	}
	if _, info, logs := open(t, path, key, Options{}); info.Built || warnings(logs) != 0 {
		t.Fatalf("second open: %+v\n%s", info, logs)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		damage   func([]byte) []byte
		key      [32]byte
		seed     uint64
		warnings int
	}{
		{"another catalog", nil, [32]byte{9}, 0, 0},
		{"another seed", nil, key, 7, 0},
		{"flipped byte", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, key, 0, 1},
		{"truncated", func(b []byte) []byte { return b[:len(b)/3] }, key, 0, 1},
		{"empty", func([]byte) []byte { return nil }, key, 0, 1},
		{"not a corpus file", func([]byte) []byte { return []byte(strings.Repeat("x", 200)) }, key, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(good)
			if tt.damage != nil {
				b = tt.damage(b)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			_, info, logs := open(t, path, tt.key, Options{Seed: tt.seed})
			if !info.Built || !info.Persisted || warnings(logs) != tt.warnings {
				t.Fatalf("%+v, %d warnings, want built and %d\n%s", info, warnings(logs), tt.warnings, logs)
			}
			// Rewritten for what was asked: the next open reads it.
			if _, info, _ := open(t, path, tt.key, Options{Seed: tt.seed}); info.Built {
				t.Fatalf("not rewritten: %+v", info)
			}
		})
	}
	t.Run("cannot write", func(t *testing.T) {
		_, info, logs := open(t, filepath.Join(dir, "missing-dir", "x"+FileSuffix), key, Options{})
		if !info.Built || info.Persisted || warnings(logs) != 1 {
			t.Fatalf("%+v\n%s", info, logs)
		}
	})
	t.Run("extra pages are served, not stored", func(t *testing.T) {
		extra := Page{URL: "https://kb.arena.invalid/extra", Title: "Extra", Snippet: "extra page"}
		c, info, _ := open(t, path, key, Options{Extra: []Page{extra}})
		if info.Built || c.Len() != want.Len()+1 {
			t.Fatalf("%+v, %d pages, want %d", info, c.Len(), want.Len()+1)
		}
		if _, info, _ := open(t, path, key, Options{}); info.Built {
			t.Fatal("the extra page changed the file")
		}
	})
}
