package shop_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/internal/diskfault"
	"arena/internal/testseed"
	"arena/shop"
	"arena/shop/gen"
	"arena/shop/index"
	"arena/shop/workload"
)

// writeCatalog generates n products with seed into a catalog file in dir
// and returns its path and the products as generated.
func writeCatalog(t *testing.T, dir string, n int, seed uint64) (string, []shop.Product) {
	t.Helper()
	g, err := gen.New(gen.Options{Products: n, Seed: seed}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "catalog.jsonl.gz")
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
	products, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return path, products
}

// writeCatalogFile writes products, in their order, to a catalog file at path.
func writeCatalogFile(t testing.TB, path string, products []shop.Product) {
	t.Helper()
	w, err := shop.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range products {
		if err := w.Write(&products[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// memoryIndex builds the index of products in memory, taking ownership of
// the slice as NewCatalog does: the reference the index files are checked
// against.
func memoryIndex(t testing.TB, products []shop.Product) *shop.Index {
	t.Helper()
	cat, err := shop.NewCatalog(products)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// logLines collects a logger's output.
type logLines struct{ bytes.Buffer }

func (l *logLines) logger() zerolog.Logger { return zerolog.New(&l.Buffer) }

// warnings returns the warning lines logged.
func (l *logLines) warnings() []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, `"level":"warn"`) {
			out = append(out, line)
		}
	}
	return out
}

// openIndexFile opens catalog's index file in dir, failing t on error.
func openIndexFile(t *testing.T, catalog, dir string, log zerolog.Logger) (*shop.Index, shop.IndexFileInfo) {
	t.Helper()
	idx, info, err := shop.OpenIndexFile(context.Background(), catalog, shop.IndexFileOptions{Dir: dir}, log)
	if err != nil {
		t.Fatalf("OpenIndexFile: %v", err)
	}
	return idx, info
}

// sameResults fails t unless both indexes answer queries, and show every
// product, byte for byte alike.
func sameResults(t *testing.T, want, got *shop.Index, queries []workload.Query) {
	t.Helper()
	wt, err := shop.NewTools(shop.ToolsOptions{Index: want}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	gt, err := shop.NewTools(shop.ToolsOptions{Index: got}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range queries {
		a, b := wt.Execute(ctx, shop.ToolFindProduct, q.Args()), gt.Execute(ctx, shop.ToolFindProduct, q.Args())
		if !bytes.Equal(a.Output, b.Output) || (a.Err == nil) != (b.Err == nil) {
			t.Fatalf("find_product %s:\n got %s %v\nwant %s %v", q.Args(), b.Output, b.Err, a.Output, a.Err)
		}
	}
	wc, gc := want.Catalog(), got.Catalog()
	if wc.Len() != gc.Len() {
		t.Fatalf("%d products, want %d", gc.Len(), wc.Len())
	}
	for i := range wc.Len() {
		a, b := wc.At(i), gc.At(i)
		if !bytes.Equal(a.AppendJSON(nil), b.AppendJSON(nil)) {
			t.Fatalf("product %d:\n got %s\nwant %s", i, b.AppendJSON(nil), a.AppendJSON(nil))
		}
	}
}

// TestCompactCatalogRendersAsStructs checks that tool results rendered from
// the compact catalog are byte-identical to those rendered from the
// products as Go values, for every product.
func TestCompactCatalogRendersAsStructs(t *testing.T) {
	g, err := gen.New(gen.Options{Products: 5000, Seed: 3}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	products, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkRendering(t, products)
}

// TestCompactCatalogRendersAsStructs1M is the same check on the 1M
// catalog; it runs when ARENATEST_SHOP_1M=1 (about a minute and 3 GB).
func TestCompactCatalogRendersAsStructs1M(t *testing.T) {
	if os.Getenv("ARENATEST_SHOP_1M") != "1" {
		t.Skip("set ARENATEST_SHOP_1M=1 to check the 1M catalog")
	}
	g, err := gen.New(gen.Options{Products: 1_000_000, Seed: 1}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	products, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkRendering(t, products)
}

// checkRendering compares find_product's and view_product_information's
// rendering of each product from the values and from a compact catalog.
func checkRendering(t *testing.T, products []shop.Product) {
	t.Helper()
	// NewCatalog takes the slice; the reference keeps its own copies.
	ref := make(map[string]*shop.Product, len(products))
	for i := range products {
		p := products[i]
		ref[p.ProductID] = &p
	}
	cat, err := shop.NewCatalog(products)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Len() != len(ref) {
		t.Fatalf("%d products, want %d", cat.Len(), len(ref))
	}
	for i := range cat.Len() {
		got := cat.At(i)
		want, ok := ref[got.ProductID]
		if !ok {
			t.Fatalf("position %d: unknown id %q", i, got.ProductID)
		}
		pair := func(p *shop.Product) []byte {
			b := shop.AppendSearchItems(nil, []*shop.Product{p})
			return shop.AppendProductInfo(b, []*shop.Product{p})
		}
		if g, w := pair(got), pair(want); !bytes.Equal(g, w) {
			t.Fatalf("product %s:\n got %s\nwant %s", got.ProductID, g, w)
		}
		if pos, ok := cat.Position(got.ProductID); !ok || pos != i {
			t.Fatalf("Position(%q) = %d, %v; want %d", got.ProductID, pos, ok, i)
		}
	}
}

func TestIndexFile(t *testing.T) {
	dir := t.TempDir()
	path, products := writeCatalog(t, dir, 4000, 5)
	queries := workload.Queries(workload.Slice(products), 600, 2)
	for _, kind := range workload.AdversarialKinds {
		queries = append(queries, workload.Adversarial(workload.Slice(products), kind, 100, 2)...)
	}
	mem := memoryIndex(t, products)

	var log logLines
	first, info := openIndexFile(t, path, "", log.logger())
	if !info.Built || !info.Persisted || info.Why != "no index file" {
		t.Fatalf("first open: %+v, want built and persisted for want of a file", info)
	}
	if want := path + shop.IndexFileSuffix; info.Path != want {
		t.Fatalf("index file %s, want %s beside the catalog", info.Path, want)
	}
	sameResults(t, mem, first, queries)
	second, info := openIndexFile(t, path, "", log.logger())
	if info.Built || info.Why != "" {
		t.Fatalf("second open: %+v, want the file mapped", info)
	}
	sameResults(t, mem, second, queries)
	if w := log.warnings(); len(w) != 0 {
		t.Fatalf("warnings on a clean start: %q", w)
	}
	// A touched but unchanged catalog is recognised by its content.
	touched := time.Unix(1_700_000_000, 0)
	if err := os.Chtimes(path, touched, touched); err != nil {
		t.Fatal(err)
	}
	if _, info := openIndexFile(t, path, "", log.logger()); info.Built {
		t.Fatalf("touched catalog: %+v, want the file mapped", info)
	}
}

// TestIndexFileRebuilds damages the index file or changes the catalog under
// it: each start must rebuild, say why in at most one warning line, and
// answer as the rebuilt catalog does; never from the bad file.
func TestIndexFileRebuilds(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(t *testing.T, index, catalog, dir string)
		why      string
		warnings int
		warning  string
	}{
		{"truncated", func(t *testing.T, index, _, _ string) {
			t.Helper()
			st, err := os.Stat(index)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(index, st.Size()/2); err != nil {
				t.Fatal(err)
			}
		}, "index file unusable", 1, "truncated"},
		{"flipped byte", func(t *testing.T, index, _, _ string) {
			t.Helper()
			b, err := os.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/3] ^= 0x40
			if err := os.WriteFile(index, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "index file unusable", 1, "checksum mismatch"},
		{"empty", func(t *testing.T, index, _, _ string) {
			t.Helper()
			if err := os.WriteFile(index, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "index file unusable", 1, "truncated"},
		{"catalog changed", func(t *testing.T, _, catalog, dir string) {
			t.Helper()
			// Another catalog of the same size class under the same name.
			other, _ := writeCatalog(t, t.TempDir(), 1500, 99)
			b, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(catalog, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "catalog changed", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			catalog, _ := writeCatalog(t, dir, 1500, 7)
			_, info := openIndexFile(t, catalog, "", zerolog.Nop())
			tt.damage(t, info.Path, catalog, dir)

			var log logLines
			idx, info := openIndexFile(t, catalog, "", log.logger())
			if !info.Built || !info.Persisted || info.Why != tt.why {
				t.Fatalf("after damage: %+v, want built and persisted because %q", info, tt.why)
			}
			w := log.warnings()
			if len(w) != tt.warnings || (tt.warning != "" && !strings.Contains(w[0], tt.warning)) {
				t.Fatalf("warnings %q, want %d naming %q", w, tt.warnings, tt.warning)
			}
			// The answers are the current catalog's.
			cat, _, err := shop.OpenCatalog(context.Background(), catalog, shop.LoadOptions{}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			want, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			var products []shop.Product
			for p := range cat.All() {
				products = append(products, *p)
			}
			sameResults(t, want, idx, workload.Queries(workload.Slice(products), 200, 1))
			// And the rewritten file maps cleanly.
			if _, info := openIndexFile(t, catalog, "", zerolog.Nop()); info.Built {
				t.Fatalf("third open: %+v, want the rewritten file mapped", info)
			}
		})
	}
}

// TestIndexFileUnwritable writes the index file where it cannot go: to a
// file system too small for it, and to a read-only one. The index is served
// from memory after one warning naming the cause, and no file, whole or
// partial, is left behind.
func TestIndexFileUnwritable(t *testing.T) {
	tests := []struct {
		name  string
		dir   func(t *testing.T) string
		cause string
	}{
		{"disk full", func(t *testing.T) string { t.Helper(); return diskfault.Mount(t, 256<<10).Dir }, "no space left on device"},
		{"read-only", diskfault.MountReadOnly, "read-only file system"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkUnwritable(t, tt.dir(t), tt.cause)
		})
	}
}

func checkUnwritable(t *testing.T, dir, cause string) {
	t.Helper()
	catalog, products := writeCatalog(t, t.TempDir(), 3000, 11)
	var log logLines
	idx, info := openIndexFile(t, catalog, dir, log.logger())
	if !info.Built || info.Persisted {
		t.Fatalf("%+v, want built and not persisted", info)
	}
	w := log.warnings()
	if len(w) != 1 || !strings.Contains(w[0], cause) {
		t.Fatalf("warnings %q, want one naming %q", w, cause)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("files left behind: %v", entries)
	}
	want := memoryIndex(t, products)
	sameResults(t, want, idx, workload.Queries(workload.Slice(products), 200, 1))
}

// TestIndexFile1M checks the acceptance bar on the 1M catalog: 10,000
// queries (7,000 of the mix, 1,000 of each hostile set) answered by the
// mapped index file exactly as by the index built in memory from the
// products as Go values, and every product shown alike. It runs when
// ARENATEST_SHOP_1M=1 (a few minutes, about 4 GB).
func TestIndexFile1M(t *testing.T) {
	if os.Getenv("ARENATEST_SHOP_1M") != "1" {
		t.Skip("set ARENATEST_SHOP_1M=1 to check the 1M catalog")
	}
	catalog, products := writeCatalog(t, t.TempDir(), 1_000_000, 1)
	queries := workload.Queries(workload.Slice(products), 7000, 7)
	for _, kind := range workload.AdversarialKinds {
		queries = append(queries, workload.Adversarial(workload.Slice(products), kind, 1000, 7)...)
	}
	mem := memoryIndex(t, products)
	if _, info := openIndexFile(t, catalog, "", zerolog.Nop()); !info.Built {
		t.Fatalf("first open: %+v, want built", info)
	}
	mapped, info := openIndexFile(t, catalog, "", zerolog.Nop())
	if info.Built {
		t.Fatalf("second open: %+v, want mapped", info)
	}
	sameResults(t, mem, mapped, queries)
}

// TestIndexFileSettings rebuilds an index file made with other ranking
// parameters: they are part of what the file was built from.
func TestIndexFileSettings(t *testing.T) {
	catalog, _ := writeCatalog(t, t.TempDir(), 800, 4)
	openIndexFile(t, catalog, "", zerolog.Nop())
	params := index.DefaultParams()
	params.K1 = 1.6
	ctx := context.Background()
	_, info, err := shop.OpenIndexFile(ctx, catalog, shop.IndexFileOptions{Index: shop.IndexOptions{Params: params}}, zerolog.Nop())
	if err != nil || !info.Built || info.Why != "catalog changed" {
		t.Fatalf("other parameters: %+v, %v; want a rebuild", info, err)
	}
	if _, info, err = shop.OpenIndexFile(ctx, catalog, shop.IndexFileOptions{Index: shop.IndexOptions{Params: params}}, zerolog.Nop()); err != nil || info.Built {
		t.Fatalf("same parameters again: %+v, %v; want the file mapped", info, err)
	}
}

// writeShuffled writes products to a plain JSON Lines catalog in dir in a
// shuffled order, with one product repeated and one malformed line, and
// returns its path.
func writeShuffled(t *testing.T, dir string, products []shop.Product, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	lines := make([][]byte, 0, len(products)+2)
	for i := range products {
		lines = append(lines, append(products[i].AppendJSON(nil), '\n'))
	}
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	lines = append(lines, lines[len(lines)/2], []byte("{not json\n"))
	path := filepath.Join(dir, "shuffled.jsonl")
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestIndexFileUnsortedCatalog reads a catalog whose lines are not in
// product-id order (with a repeated product and a malformed line): the index
// file's records must still come out in id order, and the mapped index must
// answer and show every product as the index built in memory does.
func TestIndexFileUnsortedCatalog(t *testing.T) {
	seed := testseed.Seed(t)
	dir := t.TempDir()
	_, products := writeCatalog(t, t.TempDir(), 3000, 21)
	path := writeShuffled(t, dir, products, seed)
	mem := memoryIndex(t, slices.Clone(products))
	queries := workload.Queries(workload.Slice(products), 400, seed)
	var log logLines
	first, info := openIndexFile(t, path, "", log.logger())
	if !info.Built || !info.Persisted || info.Report.Duplicates != 1 || info.Report.Malformed != 1 {
		t.Fatalf("first open: %+v, want built and persisted, one duplicate and one malformed line", info)
	}
	sameResults(t, mem, first, queries)
	second, info := openIndexFile(t, path, "", log.logger())
	if info.Built {
		t.Fatalf("second open: %+v, want the file mapped", info)
	}
	sameResults(t, mem, second, queries)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%s holds %v, want the catalog and its index file only", dir, entries)
	}
}

// TestIndexFileDiskFills runs out of space at each stage of writing an index
// file: while the load streams the records, while the records of an
// unsorted catalog are copied into id order, and while the index's own parts
// are written after the build. Each start serves the index from memory
// after one warning naming the cause, and leaves no file behind.
func TestIndexFileDiskFills(t *testing.T) {
	_, products := writeCatalog(t, t.TempDir(), 3000, 23)
	sorted := filepath.Join(t.TempDir(), "catalog.jsonl")
	writeCatalogFile(t, sorted, products)
	shuffled := writeShuffled(t, t.TempDir(), products, 5)
	// How large the file is, and how much of it the records take (the
	// catalog's text: nearly all).
	_, info := openIndexFile(t, sorted, t.TempDir(), zerolog.Nop())
	st, err := os.Stat(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(st.Size())
	tests := []struct {
		name    string
		catalog string
		room    uint64 // size of the file system
		bad     int    // catalog lines skipped, each warned of once
	}{
		{"while streaming the records", sorted, size / 3, 0},
		{"while writing the index parts", sorted, size - 8<<10, 0},
		// Two copies of the records do not fit: the load's and the id-ordered
		// one. A tenth below the index file's size, so that the run cannot end
		// persisted whichever copy the file system frees first (with room for
		// exactly one index file, 1 run in about 15 fitted).
		{"while reordering the records", shuffled, size * 9 / 10, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := diskfault.Mount(t, tt.room)
			var log logLines
			idx, info := openIndexFile(t, tt.catalog, fs.Dir, log.logger())
			if !info.Built || info.Persisted {
				t.Fatalf("%+v, want built and not persisted", info)
			}
			var lines, other []string
			for _, w := range log.warnings() {
				if strings.Contains(w, "skipping catalog line") {
					lines = append(lines, w)
				} else {
					other = append(other, w)
				}
			}
			if len(other) != 1 || !strings.Contains(other[0], "no space left on device") || len(lines) != tt.bad {
				t.Fatalf("warnings %q and %q, want one naming the full disk and %d skipped lines", other, lines, tt.bad)
			}
			if entries, err := os.ReadDir(fs.Dir); err != nil || len(entries) != 0 {
				t.Fatalf("files left behind: %v (%v)", entries, err)
			}
			want := memoryIndex(t, slices.Clone(products))
			sameResults(t, want, idx, workload.Queries(workload.Slice(products), 200, 3))
		})
	}
}
