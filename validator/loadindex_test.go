package validator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/knowledge"
	"arena/shop"
	"arena/shop/gen"
)

// TestLoadShopPersists checks that a catalog file's index and knowledge
// corpus are built and written at the first start, beside the catalog or in
// catalog.index_dir, and mapped and read at the next, with the same answers.
func TestLoadShopPersists(t *testing.T) {
	for _, inDir := range []bool{false, true} {
		t.Run(fmt.Sprintf("index_dir=%v", inDir), func(t *testing.T) {
			checkLoadShopPersists(t, inDir)
		})
	}
}

func checkLoadShopPersists(t *testing.T, inDir bool) {
	t.Helper()
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
	cc := config.CatalogConfig{File: path}
	filesDir := dir
	if inDir {
		cc.IndexDir = filepath.Join(t.TempDir(), "not", "yet")
		filesDir = cc.IndexDir
	}
	var webs []string
	load := func(wantBuilt string) *shop.Index {
		t.Helper()
		var logs bytes.Buffer
		idx, web, err := LoadShop(context.Background(), cc, 0, zerolog.New(&logs), func(string, int, int) {})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(logs.String(), `"built":`+wantBuilt) || !strings.Contains(logs.String(), `"knowledge_built":`+wantBuilt) {
			t.Fatalf("log %s: want built and knowledge_built %s", logs.String(), wantBuilt)
		}
		if strings.Contains(logs.String(), `"level":"warn"`) {
			t.Fatalf("warnings on a clean start: %s", logs.String())
		}
		res, err := web.WebSearch(context.Background(), "what brand", 5)
		if err != nil || len(res) == 0 {
			t.Fatalf("web search: %v %v", res, err)
		}
		webs = append(webs, fmt.Sprint(res))
		return idx
	}
	first := load("true")
	for _, suffix := range []string{shop.IndexFileSuffix, shop.IndexFileSuffix + knowledge.FileSuffix} {
		if _, err := os.Stat(filepath.Join(filesDir, filepath.Base(path)+suffix)); err != nil {
			t.Fatalf("no %s file in %s: %v", suffix, filesDir, err)
		}
	}
	if entries, _ := os.ReadDir(dir); inDir && len(entries) != 1 {
		t.Fatalf("the catalog's directory holds %v, want the catalog alone", entries)
	}
	second := load("false")
	if webs[0] != webs[1] {
		t.Fatalf("the read corpus answers %s, the derived one %s", webs[1], webs[0])
	}
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

// BenchmarkLoadShop times a validator's catalog stage on a restart: the
// index file mapped and the knowledge corpus read, for the catalog file
// ARENA_BENCH_CATALOG names (the first, untimed load builds both files if
// they are missing).
//
//	arena shop generate --products 2500000 --seed 1 --out c2500k.jsonl.gz
//	ARENA_BENCH_CATALOG=$PWD/c2500k.jsonl.gz go test ./validator -run '^$' -bench LoadShop -benchtime 3x
func BenchmarkLoadShop(b *testing.B) {
	path := os.Getenv("ARENA_BENCH_CATALOG")
	if path == "" {
		b.Skip("set ARENA_BENCH_CATALOG to a catalog file")
	}
	cc := config.CatalogConfig{File: path}
	if _, _, err := LoadShop(context.Background(), cc, 0, zerolog.Nop(), func(string, int, int) {}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		idx, web, err := LoadShop(context.Background(), cc, 0, zerolog.Nop(), func(string, int, int) {})
		if err != nil || idx == nil || web == nil {
			b.Fatal(err)
		}
	}
}
