package validator

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/shop"
	"arena/shop/gen"
)

// TestLoadIndexPersists checks that a catalog file's index is built and
// written beside it at the first start and mapped at the next, with the
// same answers.
func TestLoadIndexPersists(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "catalog.jsonl")
	g, err := gen.New(gen.Options{Products: 2000, Seed: 3}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	w, err := shop.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Write(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	load := func(wantBuilt string) *shop.Index {
		t.Helper()
		var logs bytes.Buffer
		idx, err := LoadIndex(context.Background(), config.CatalogConfig{File: path}, zerolog.New(&logs), func(string, int, int) {})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(logs.String(), `"built":`+wantBuilt) {
			t.Fatalf("log %s: want built %s", logs.String(), wantBuilt)
		}
		return idx
	}
	first := load("true")
	if _, err := os.Stat(path + shop.IndexFileSuffix); err != nil {
		t.Fatalf("no index file beside the catalog: %v", err)
	}
	second := load("false")
	req := shop.FindRequest{Query: "wireless bluetooth", Page: 1}
	a, err := first.Find(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := second.Find(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shop.AppendSearchItems(nil, b.Items), shop.AppendSearchItems(nil, a.Items); !bytes.Equal(got, want) || a.Total == 0 {
		t.Fatalf("mapped index answers %s, built one %s (total %d)", got, want, a.Total)
	}
}
