package shop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"arena/knowledge"
	"arena/shop"
	"arena/shop/gen"
	"arena/shop/pyexec"
)

// Fuzz targets for the agent tools and the catalog loader. Seeds live in
// testdata/fuzz/<FuzzName>; scripts/fuzz.sh runs each target for a while.

// fuzzCatalogSeed and fuzzCatalogSize pick the small generated catalog the
// tool fuzzer answers from. Seeds name its product ids (2057125590,
// 4708914281, ...), so changing either invalidates the id seeds.
const (
	fuzzCatalogSeed = 7
	fuzzCatalogSize = 200
)

// maxToolMessage bounds a tool error message. Messages echo agent input only
// clipped, so no argument, however long, makes the error long.
const maxToolMessage = 512

var fuzzTools struct {
	once  sync.Once
	tools *shop.Tools
	// maxInfo is the longest view_product_information entry of any one
	// product; it bounds every successful output.
	maxInfo int
	err     error
}

func toolsForFuzz(tb testing.TB) (*shop.Tools, int) {
	tb.Helper()
	ft := &fuzzTools
	ft.once.Do(func() {
		g, err := gen.New(gen.Options{Products: fuzzCatalogSize, Seed: fuzzCatalogSeed}, zerolog.Nop())
		if err != nil {
			ft.err = err
			return
		}
		ps, err := g.Products(context.Background())
		if err != nil {
			ft.err = err
			return
		}
		cat, err := shop.NewCatalog(ps)
		if err != nil {
			ft.err = err
			return
		}
		idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{Workers: 1}, zerolog.Nop())
		if err != nil {
			ft.err = err
			return
		}
		web, err := knowledge.Build(context.Background(), cat, knowledge.Options{}, zerolog.Nop())
		if err != nil {
			ft.err = err
			return
		}
		ft.tools, ft.err = shop.NewTools(shop.ToolsOptions{Index: idx, Web: web}, zerolog.Nop(), nil)
		for p := range cat.All() {
			ft.maxInfo = max(ft.maxInfo, len(shop.AppendProductInfo(nil, []*shop.Product{p})),
				len(shop.AppendSearchItems(nil, []*shop.Product{p})))
		}
	})
	if ft.err != nil {
		tb.Fatalf("fuzz catalog: %v", ft.err)
	}
	return ft.tools, ft.maxInfo
}

// FuzzToolExecute calls Tools.Execute with arbitrary arguments. tool picks
// one of the six tools, or (tool%7 == 6) uses name as the tool name.
// Invariants: no panic (Execute turns one into CodeInternal, which must
// never happen); exactly one of Output and Err; an error has a code and a
// short, valid UTF-8 message naming the tool; an output is valid JSON of
// the tool's shape with at most a page (find) or MaxViewIDs (view) of
// entries and a bounded size; and the call is deterministic.
func FuzzToolExecute(f *testing.F) {
	f.Add(uint8(0), "", []byte(`{"q": "drawer organizer", "page": 1}`))
	f.Add(uint8(1), "", []byte(`{"product_ids": "2057125590,4708914281"}`))
	f.Add(uint8(2), "", []byte(`{"product_ids": ["2057125590"]}`))
	f.Add(uint8(3), "", []byte(`{"status": "success"}`))
	f.Add(uint8(4), "", []byte(`{"q": "which brand was founded in Bergen", "max_results": 3}`))
	f.Add(uint8(5), "", []byte(`{"code": "print(round(459 * 0.85, 2))"}`))
	f.Add(uint8(6), "search", []byte(`{}`))
	tools, maxInfo := toolsForFuzz(f)
	names := shop.ToolNames()
	f.Fuzz(func(t *testing.T, tool uint8, name string, args []byte) {
		if int(tool)%7 < len(names) {
			name = names[int(tool)%7]
		}
		ctx := context.Background()
		res := tools.Execute(ctx, name, json.RawMessage(args))
		if (res.Output == nil) == (res.Err == nil) {
			t.Fatalf("%s %q: want exactly one of Output and Err, got output %q err %v", name, args, res.Output, res.Err)
		}
		if res.Err != nil {
			e := res.Err
			switch {
			case e.Code == shop.CodeInternal:
				t.Fatalf("%s %q: internal error (a recovered panic): %s", name, args, e.Message)
			case e.Code == "":
				t.Fatalf("%s %q: error without a code: %s", name, args, e.Message)
			case strings.TrimSpace(e.Message) == "":
				t.Fatalf("%s %q: error %s without a message", name, args, e.Code)
			case len(e.Message) > maxToolMessage:
				t.Fatalf("%s: error message is %d bytes (max %d): %.300s…", name, len(e.Message), maxToolMessage, e.Message)
			case !utf8.ValidString(e.Message):
				t.Fatalf("%s %q: error message is not valid UTF-8: %q", name, args, e.Message)
			case e.Code != shop.CodeUnknownTool && !strings.HasPrefix(e.Message, name+": "):
				t.Fatalf("%s %q: message does not name the tool: %s", name, args, e.Message)
			}
		} else {
			out := res.Output
			if !json.Valid(out) {
				t.Fatalf("%s %q: output is not valid JSON: %q", name, args, out)
			}
			limit := 20*maxInfo + 1024
			if name == shop.ToolPythonExecute {
				// Printed text, JSON-escaped: at most 6 bytes per byte.
				limit = 6*pyexec.DefaultLimits().MaxOutputBytes + 2
			}
			if len(out) > limit {
				t.Fatalf("%s %q: output is %d bytes, over %d", name, args, len(out), limit)
			}
			switch name {
			case shop.ToolFindProduct, shop.ToolViewProductInformation:
				var items []map[string]any
				if err := json.Unmarshal(out, &items); err != nil {
					t.Fatalf("%s %q: output is not a JSON array of objects: %v", name, args, err)
				}
				limit := 20
				if name == shop.ToolFindProduct {
					limit = shop.PageSize
				}
				if len(items) > limit {
					t.Fatalf("%s %q: %d items, at most %d", name, args, len(items), limit)
				}
				for _, it := range items {
					if id, _ := it["product_id"].(string); id == "" {
						t.Fatalf("%s %q: item without product_id: %v", name, args, it)
					}
				}
			case shop.ToolWebSearch:
				var results []map[string]string
				if err := json.Unmarshal(out, &results); err != nil {
					t.Fatalf("%s %q: output is not a JSON array of string objects: %v", name, args, err)
				}
				if len(results) > shop.MaxWebResults {
					t.Fatalf("%s %q: %d results, at most %d", name, args, len(results), shop.MaxWebResults)
				}
				for _, r := range results {
					if len(r) != 3 || r["url"] == "" || r["title"] == "" || r["content"] == "" {
						t.Fatalf("%s %q: result %v is not {url, title, content}", name, args, r)
					}
				}
			case shop.ToolRecommendProduct, shop.ToolTerminate, shop.ToolPythonExecute:
				var s string
				if err := json.Unmarshal(out, &s); err != nil {
					t.Fatalf("%s %q: output is not a JSON string: %v", name, args, err)
				}
			default:
				t.Fatalf("unknown tool %q succeeded", name)
			}
		}
		again := tools.Execute(ctx, name, json.RawMessage(args))
		if !bytes.Equal(again.Output, res.Output) || (again.Err == nil) != (res.Err == nil) ||
			(again.Err != nil && *again.Err != *res.Err) {
			t.Fatalf("%s %q: not deterministic", name, args)
		}
	})
}

// loadOptionsFor picks the loader options a fuzz input runs with: mostly
// the defaults, as the validator loads catalog.file, and sometimes strict,
// bare-product, knowledge-envelope or short-line loads.
func loadOptionsFor(mode uint8) shop.LoadOptions {
	switch mode % 8 {
	case 4:
		return shop.LoadOptions{Strict: true}
	case 5:
		return shop.LoadOptions{Envelope: "-"}
	case 6:
		return shop.LoadOptions{Envelope: "reward"}
	case 7:
		return shop.LoadOptions{MaxLineBytes: 64, MaxReported: 2}
	}
	return shop.LoadOptions{}
}

// FuzzLoadCatalog feeds arbitrary catalog files (JSON Lines, JSON arrays,
// anything) to shop.Load. Invariants: no panic; a non-strict load of plain
// input never fails; the report adds up (every line is a product, blank or
// counted as skipped; Products is what was returned; Errors is capped);
// every product validates and ids are unique, so NewCatalog accepts the
// result; and writing the products and loading them again is lossless.
func FuzzLoadCatalog(f *testing.F) {
	f.Add(uint8(0), []byte(`{"product_id": "1", "title": "Red Shoes", "price": 10}`+"\n"))
	f.Add(uint8(0), []byte("[\n"+`{"product_id": "1", "title": "Red Shoes", "price": 10},`+"\n"+`{"product_id": "2", "title": "Blue Shoes", "price": 12}`+"\n]\n"))
	f.Fuzz(func(t *testing.T, mode uint8, data []byte) {
		opts := loadOptionsFor(mode)
		ctx := context.Background()
		products, rep, err := shop.Load(ctx, bytes.NewReader(data), opts, zerolog.Nop())
		gzipped := len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b
		if err != nil {
			if !opts.Strict && !gzipped {
				t.Fatalf("non-strict load of plain input failed: %v", err)
			}
			if products != nil {
				t.Fatalf("failed load returned %d products", len(products))
			}
			return
		}
		if rep.Products != len(products) {
			t.Fatalf("report says %d products, returned %d", rep.Products, len(products))
		}
		maxReported := opts.MaxReported
		if maxReported == 0 {
			maxReported = 20
		}
		if len(rep.Errors) > maxReported || len(rep.Errors) > rep.Skipped() {
			t.Fatalf("%d errors reported for %d skipped lines (cap %d)", len(rep.Errors), rep.Skipped(), maxReported)
		}
		if opts.Strict && rep.Skipped() > 0 {
			t.Fatalf("strict load succeeded with %d skipped lines", rep.Skipped())
		}
		if rep.Products+rep.Skipped() > rep.Lines {
			t.Fatalf("%d products + %d skipped > %d lines", rep.Products, rep.Skipped(), rep.Lines)
		}
		if !gzipped {
			lines, blank := countLines(data, opts.MaxLineBytes)
			if rep.Lines != lines {
				t.Fatalf("report says %d lines, input has %d", rep.Lines, lines)
			}
			if rep.Products+rep.Skipped()+blank != lines {
				t.Fatalf("%d products + %d skipped + %d blank != %d lines", rep.Products, rep.Skipped(), blank, lines)
			}
		}
		seen := map[string]bool{}
		for i := range products {
			p := &products[i]
			if err := p.Validate(); err != nil {
				t.Fatalf("product %d (%q) does not validate: %v", i, p.ProductID, err)
			}
			if p.ProductID != strings.TrimSpace(p.ProductID) {
				t.Fatalf("product_id %q is not trimmed", p.ProductID)
			}
			if seen[p.ProductID] {
				t.Fatalf("duplicate product_id %q returned", p.ProductID)
			}
			seen[p.ProductID] = true
		}
		if _, err := shop.NewCatalog(products); err != nil {
			t.Fatalf("NewCatalog rejects loaded products: %v", err)
		}
		// Write and reload: the writer's output must load back to the same
		// bytes (the first write normalizes, e.g. invalid UTF-8 to U+FFFD).
		first := writeProducts(t, products)
		again, rep2, err := shop.Load(ctx, bytes.NewReader(first), shop.LoadOptions{Envelope: "-", Strict: true}, zerolog.Nop())
		if err != nil {
			t.Fatalf("reload of written products: %v\n%s", err, first)
		}
		if rep2.Products != len(products) {
			t.Fatalf("reload kept %d of %d products", rep2.Products, len(products))
		}
		if second := writeProducts(t, again); !bytes.Equal(first, second) {
			t.Fatalf("write/load round trip differs:\n%s\n%s", first, second)
		}
	})
}

// countLines counts lines as the loader does (a final line without a
// newline counts) and those that are blank (only white space, not over
// maxLine bytes).
func countLines(data []byte, maxLine int) (lines, blank int) {
	if maxLine <= 0 {
		maxLine = 16 << 20
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		lines++
		if len(line) <= maxLine && len(bytes.TrimSpace(line)) == 0 {
			blank++
		}
	}
	return lines, blank
}

func writeProducts(t *testing.T, products []shop.Product) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := shop.NewWriter(&buf, false)
	for i := range products {
		if err := w.Write(&products[i]); err != nil {
			t.Fatalf("write product %q: %v", products[i].ProductID, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close writer: %v", err)
	}
	return buf.Bytes()
}
