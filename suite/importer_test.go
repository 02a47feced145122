package suite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// referenceDir holds ShoppingBench's and ORO's published samples
// (testdata/README.md says where each comes from).
const referenceDir = "testdata"

// referenceFile fails rather than skips when a sample is missing: the
// importers' round trips are only meaningful against upstream's own files.
func referenceFile(t *testing.T, rel string) string {
	t.Helper()
	path := filepath.Join(referenceDir, rel)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("reference sample: %v", err)
	}
	return path
}

// generic decodes JSON into plain values so comparisons ignore key order
// and number spelling (419.0 vs 419).
func generic(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

func TestImportShoppingBenchRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Type
	}{
		{"product_sample.jsonl", TypeProduct},
		{"shop_sample.jsonl", TypeShop},
		{"voucher_sample.jsonl", TypeVoucher},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := referenceFile(t, filepath.Join("shoppingbench", tc.file))
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			ps, rep, err := ImportShoppingBench(bytes.NewReader(raw), tc.file)
			if err != nil || len(rep.Errors) > 0 {
				t.Fatalf("import: %v %v", err, rep.Errors)
			}
			lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
			if len(ps) != len(lines) {
				t.Fatalf("imported %d of %d lines", len(ps), len(lines))
			}
			for i := range ps {
				p := &ps[i]
				if p.Type != tc.want {
					t.Errorf("line %d: type %s, want %s", i+1, p.Type, tc.want)
				}
				got, err := ShoppingBenchRecord(p)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(generic(t, got), generic(t, []byte(lines[i]))) {
					t.Errorf("line %d does not round-trip:\n got %s\nwant %s", i+1, got, lines[i])
				}
				// arena's own format round-trips too, id included.
				native, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				var back Problem
				if err := json.Unmarshal(native, &back); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(&back, p) {
					t.Errorf("line %d: native round trip differs:\n got %+v\nwant %+v", i+1, back, *p)
				}
				if id, _ := back.ContentID(); id != p.ID {
					t.Errorf("line %d: id %s changed to %s", i+1, p.ID, id)
				}
			}
		})
	}
}

func TestImportORORoundTrip(t *testing.T) {
	path := referenceFile(t, "oro/problem_suite_v3_sample.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, rep, err := ImportORO(bytes.NewReader(raw), "sample")
	if err != nil || len(rep.Errors) > 0 {
		t.Fatalf("import: %v %v", err, rep.Errors)
	}
	var orig []map[string]any
	if err := json.Unmarshal(raw, &orig); err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(orig) {
		t.Fatalf("imported %d of %d", len(ps), len(orig))
	}
	var buf bytes.Buffer
	if err := WriteORO(&buf, ps); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for i := range orig {
		t.Run(ps[i].Title, func(t *testing.T) {
			delete(orig[i], "reward_title_embeddings") // ignored by design
			if !reflect.DeepEqual(back[i], orig[i]) {
				t.Errorf("element %d does not round-trip:\n got %v\nwant %v", i, back[i], orig[i])
			}
		})
	}
}

func TestImportReportsBadRecords(t *testing.T) {
	good := `{"query": "a red mug", "reward": {"product_id": "1", "title": ["Red Mug"]}}`
	for _, tc := range []struct {
		name, in  string
		oro       bool
		wantKept  int
		wantError string
	}{
		{"jsonl malformed line", good + "\n{not json\n" + good + "x\n", false, 1, "t.jsonl:2: malformed JSON"},
		{"jsonl missing reward", `{"query":"q"}` + "\n" + good + "\n", false, 1, "t.jsonl:1: missing \"reward\""},
		{"jsonl no product id", `{"query":"q","reward":{"title":["x"]}}` + "\n", false, 0, "t.jsonl:1: reward item 1: no product_id"},
		{"jsonl bad price", `{"query":"q","reward":{"product_id":"1","price":[{"about":[1,2]}]}}` + "\n", false, 0, "unknown operator"},
		{"oro bad category", `[{"query":"q","reward":{"product_id":"1"},"category":"Cake","difficulty":"easy"},` + `{"query":"q","reward":{"product_id":"1"},"category":"Product","difficulty":"easy"}]`, true, 1, "t.jsonl[0]: category"},
		{"oro bad element", `[1, {"query":"q","reward":{"product_id":"1"},"category":"Product","difficulty":"hard"}]`, true, 1, "t.jsonl[0]: malformed JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imp := ImportShoppingBench
			if tc.oro {
				imp = ImportORO
			}
			ps, rep, err := imp(bufio.NewReader(strings.NewReader(tc.in)), "t.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != tc.wantKept {
				t.Errorf("kept %d, want %d", len(ps), tc.wantKept)
			}
			if len(rep.Errors) == 0 || !strings.Contains(rep.Errors[0].Error(), tc.wantError) {
				t.Errorf("errors %v, want one containing %q", rep.Errors, tc.wantError)
			}
		})
	}
	t.Run("knowledge tasks import as knowledge problems", func(t *testing.T) {
		path := referenceFile(t, "shoppingbench/knowledge_sample.jsonl")
		ps, rep, err := ImportFile(path, FormatShoppingBench)
		if err != nil || len(ps) != rep.Records || len(rep.Errors) > 0 || ps[0].Type != TypeKnowledge {
			t.Fatalf("kept %d of %d, errors %v, err %v", len(ps), rep.Records, rep.Errors, err)
		}
	})
	if _, _, err := ImportORO(strings.NewReader("{}"), "x.json"); err == nil {
		t.Error("ORO import of an object: no error")
	}
}

func TestPublicHidesGroundTruth(t *testing.T) {
	path := referenceFile(t, "shoppingbench/voucher_sample.jsonl")
	ps, _, err := ImportFile(path, FormatShoppingBench)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		p.Cluster = "c1"
		p.Seed = 7
		b, err := json.Marshal(p.Public())
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, banned := range []string{`"reward"`, `"targets"`, `"cluster"`, `"price_after_voucher"`, `"seed"`, `"source"`} {
			if strings.Contains(s, banned) {
				t.Errorf("public view of %s contains %s: %s", p.ID, banned, s)
			}
		}
		for _, id := range p.Targets {
			if strings.Contains(s, id) {
				t.Errorf("public view of %s names target %s", p.ID, id)
			}
		}
		if !strings.Contains(s, `"budget"`) {
			t.Errorf("public view lost the budget: %s", s)
		}
	}
}
