package shop

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func line(id, title string, price string) string {
	return `{"product_id": "` + id + `", "shop_id": "s1", "title": "` + title + `", "price": ` + price + `}`
}

func TestLoad(t *testing.T) {
	mixed := strings.Join([]string{
		line("1", "first", "10"), // 1
		"",                       // 2 blank
		`{"product_id": "2", "title": "two", "price": 20`, // 3 malformed
		line("3", "three", "30"),                          // 4
		`{"product_id": "4", "price": 40}`,                // 5 invalid: no title
		line("1", "dup of first", "11"),                   // 6 duplicate
		`{"title": "no id", "price": 1}`,                  // 7 invalid
		`{"product_id": "5", "title": "no price"}`,        // 8 invalid
		line("6", "six", "60"),                            // 9
		`not json at all`,                                 // 10 malformed
	}, "\n")
	tests := []struct {
		name       string
		input      []byte
		opts       LoadOptions
		wantIDs    []string
		wantRep    LoadReport
		wantErr    string
		wantErrAny bool
	}{
		{
			name:    "plain, mixed lines",
			input:   []byte(mixed),
			wantIDs: []string{"1", "3", "6"},
			wantRep: LoadReport{Lines: 10, Products: 3, Malformed: 2, Invalid: 3, Duplicates: 1},
		},
		{
			name:    "gzip, mixed lines",
			input:   gzipBytes(t, []byte(mixed+"\n")),
			wantIDs: []string{"1", "3", "6"},
			wantRep: LoadReport{Lines: 10, Products: 3, Malformed: 2, Invalid: 3, Duplicates: 1},
		},
		{
			name:    "strict fails at the first malformed line",
			input:   []byte(mixed),
			opts:    LoadOptions{Strict: true},
			wantErr: "line 3: malformed",
		},
		{
			name:    "strict fails at an invalid line",
			input:   []byte(line("1", "a", "1") + "\n" + `{"product_id": "2", "price": 1}`),
			opts:    LoadOptions{Strict: true},
			wantErr: "line 2: invalid: missing title",
		},
		{
			name:    "strict tolerates duplicates",
			input:   []byte(line("1", "a", "1") + "\n" + line("1", "b", "2") + "\r\n"),
			opts:    LoadOptions{Strict: true},
			wantIDs: []string{"1"},
			wantRep: LoadReport{Lines: 2, Products: 1, Duplicates: 1},
		},
		{
			name:    "line too long",
			input:   []byte(line("1", strings.Repeat("x", 500), "1") + "\n" + line("2", "ok", "2")),
			opts:    LoadOptions{MaxLineBytes: 100},
			wantIDs: []string{"2"},
			wantRep: LoadReport{Lines: 2, Products: 1, Malformed: 1},
		},
		{
			name:    "empty input",
			input:   nil,
			wantRep: LoadReport{},
		},
		{
			name:    "envelope disabled",
			input:   []byte(`{"product": {"product_id": "1", "title": "t", "price": 1}}`),
			opts:    LoadOptions{Envelope: "-"},
			wantRep: LoadReport{Lines: 1, Invalid: 1},
		},
		{
			name:    "unknown services dropped and counted",
			input:   []byte(`{"product_id": "1", "title": "t", "price": 1, "service": ["COD", "LazGlobal"]}`),
			wantIDs: []string{"1"},
			wantRep: LoadReport{Lines: 1, Products: 1, UnknownServices: 1},
		},
		{
			name:       "corrupt gzip",
			input:      []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3},
			wantErrAny: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Workers = 2
			ps, rep, err := Load(context.Background(), bytes.NewReader(tt.input), tt.opts, zerolog.Nop())
			switch {
			case tt.wantErrAny:
				if err == nil {
					t.Fatal("Load succeeded")
				}
				return
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("Load: %v", err)
			}
			var ids []string
			for _, p := range ps {
				ids = append(ids, p.ProductID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.wantIDs, ",") {
				t.Fatalf("ids %v, want %v", ids, tt.wantIDs)
			}
			rep.Errors = nil
			if !reflect.DeepEqual(rep, tt.wantRep) {
				t.Fatalf("report %+v, want %+v", rep, tt.wantRep)
			}
		})
	}
}

func TestLoadReportsLineNumbers(t *testing.T) {
	in := line("1", "a", "1") + "\n{bad\n" + line("2", "b", "2") + "\n" + line("1", "c", "3") + "\n"
	_, rep, err := Load(context.Background(), strings.NewReader(in), LoadOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"line 2: malformed", "line 4: duplicate"}
	if len(rep.Errors) != len(want) {
		t.Fatalf("errors %v", rep.Errors)
	}
	for i, w := range want {
		if !strings.HasPrefix(rep.Errors[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, rep.Errors[i].Error(), w)
		}
	}
	if rep.Skipped() != 2 {
		t.Fatalf("skipped %d", rep.Skipped())
	}
}

// TestLoadManyBatches crosses batch boundaries so line numbers, order and
// duplicate detection are checked across parallel workers.
func TestLoadManyBatches(t *testing.T) {
	var b strings.Builder
	const n = 30000
	for i := range n {
		if i%997 == 5 {
			b.WriteString("{broken\n")
			continue
		}
		b.WriteString(line(strconv.Itoa(i%20000), "product "+strings.Repeat("x", 40), "1"))
		b.WriteByte('\n')
	}
	ps, rep, err := Load(context.Background(), strings.NewReader(b.String()), LoadOptions{Workers: 3, MaxReported: 1000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Lines != n || rep.Malformed != 31 || rep.Products+rep.Duplicates+rep.Malformed != n {
		t.Fatalf("report %+v", rep)
	}
	for i := 1; i < len(ps) && i < 19000; i++ {
		if ps[i].ProductID == ps[i-1].ProductID {
			t.Fatal("duplicate kept")
		}
	}
	if ps[0].ProductID != "0" || ps[1].ProductID != "1" {
		t.Fatal("file order not kept")
	}
	for _, e := range rep.Errors {
		if e.Kind == "malformed" && (e.Line-1)%997 != 5 {
			t.Fatalf("malformed reported at line %d", e.Line)
		}
	}
}

func TestLoadCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := strings.Repeat(line("1", "a", "1")+"\n", 50000)
	if _, _, err := Load(ctx, strings.NewReader(in), LoadOptions{}, zerolog.Nop()); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestWriterLoadRoundTrip(t *testing.T) {
	products := []Product{sampleProduct(), {ProductID: "42", ShopID: "7", Title: "plain", Price: 9.99, Service: ServiceOfficial}}
	for _, name := range []string{"c.jsonl", "c.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			w, err := CreateFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := range products {
				if err := w.Write(&products[i]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Fatal("file visible before Close")
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, rep, err := LoadFile(context.Background(), path, LoadOptions{Strict: true}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Products != 2 || got[0].Title != products[0].Title || got[1].Price != 9.99 || got[1].Service != ServiceOfficial {
				t.Fatalf("round trip lost data: %+v", got)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Fatalf("temporary files left: %v", entries)
			}
		})
	}
}

func TestWriterAbort(t *testing.T) {
	dir := t.TempDir()
	w, err := CreateFile(filepath.Join(dir, "x.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	p := sampleProduct()
	if err := w.Write(&p); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("abort left %v", entries)
	}
}

func TestLoadFileMissing(t *testing.T) {
	_, _, err := LoadFile(context.Background(), filepath.Join(t.TempDir(), "nope.jsonl"), LoadOptions{}, zerolog.Nop())
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("error %v", err)
	}
}

// referenceDir holds ShoppingBench's sample task files. They are problem
// files, so the suite package that imports them holds them; the loader reads
// the product documents embedded in the knowledge tasks.
const referenceDir = "../suite/testdata/shoppingbench"

// referenceFile fails rather than skips when a sample is missing: these
// tests are the loader's only contact with real ShoppingBench documents.
func referenceFile(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(referenceDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("reference sample: %v", err)
	}
	return path
}

// TestLoadRealKnowledgeSample loads the complete product documents that
// ShoppingBench embeds as the reward of each knowledge task.
func TestLoadRealKnowledgeSample(t *testing.T) {
	path := referenceFile(t, "knowledge_sample.jsonl")
	cat, rep, err := OpenCatalog(context.Background(), path, LoadOptions{Envelope: "reward", Strict: true}, zerolog.Nop())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if rep.Products != 5 || cat.Len() != 5 || rep.Skipped() != 0 {
		t.Fatalf("report %+v", rep)
	}
	p, ok := cat.Product("3706669986")
	if !ok {
		t.Fatal("violin bow missing")
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"shop", p.ShopID == "3450032"},
		{"brand", p.Brand == "HEART STRING"},
		{"category", p.Category == "Media, Music & Books > Musical Instruments > Musical Accessories"},
		{"price", p.Price == 256},
		{"sold", p.SoldCount == 2},
		{"five sku variants in key order", len(p.SKUOptions) == 5 && p.SKUOptions[0][0].Value == "1/4 violin bow" && p.SKUOptions[4][0].Value == "1/8 violin bow"},
		{"attributes", len(p.Attributes) == 3 && p.Attributes[0].Key == "brand"},
		{"services", p.Service == ServiceCOD|ServiceFlashsale},
		{"specification", p.Specification == "model:Violin Bow;brand:heart string;condition:new"},
		{"description kept", strings.HasPrefix(p.Description, "Enter the store")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s wrong: %+v", c.name, p)
		}
	}
	// The catalog can be indexed and searched.
	tools := newTestTools(t, cat)
	res := tools.Execute(context.Background(), ToolFindProduct, []byte(`{"q": "violin bow horsetail", "page": 1}`))
	if !res.OK() || !strings.Contains(string(res.Output), `"product_id":"3706669986"`) {
		t.Fatalf("search over real data: %+v %s", res.Err, res.Output)
	}
}

// TestLoadRealTaskFilesAreNotProducts makes sure task files pointed at the
// loader by mistake are rejected line by line, not half-loaded.
func TestLoadRealTaskFilesAreNotProducts(t *testing.T) {
	for _, name := range []string{"product_sample.jsonl", "shop_sample.jsonl", "voucher_sample.jsonl"} {
		t.Run(name, func(t *testing.T) {
			path := referenceFile(t, name)
			_, rep, err := LoadFile(context.Background(), path, LoadOptions{}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if rep.Products != 0 || rep.Invalid != rep.Lines || rep.Lines == 0 {
				t.Fatalf("report %+v", rep)
			}
			_, _, err = LoadFile(context.Background(), path, LoadOptions{Strict: true}, zerolog.Nop())
			if err == nil || !strings.Contains(err.Error(), "line 1: invalid") {
				t.Fatalf("strict error %v", err)
			}
		})
	}
}
