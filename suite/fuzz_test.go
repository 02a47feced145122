package suite

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// Fuzz targets for the problem importers. Seeds live in
// testdata/fuzz/<FuzzName>: lines and elements copied from ShoppingBench's
// and ORO's sample files, plus hand-made edge cases. scripts/fuzz.sh runs
// each target for a while.

// FuzzImportShoppingBench feeds arbitrary JSON Lines to ImportShoppingBench.
// Invariants: no panic; no error (the input is in memory, so there is no
// read failure, and lines are far below the 16 MiB limit); the report adds
// up; every problem validates, has its content id and its reward's targets;
// and each problem written back with ShoppingBenchRecord imports again to
// the same problem.
func FuzzImportShoppingBench(f *testing.F) {
	f.Add([]byte(`{"query": "a red mug", "reward": {"product_id": "1", "title": ["Red Mug"]}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, rep, err := ImportShoppingBench(bytes.NewReader(data), "f.jsonl")
		if err != nil {
			t.Fatalf("import failed: %v", err)
		}
		checkImport(t, ps, rep)
		for _, re := range rep.Errors {
			if re.Line < 1 || re.Err == nil || re.File != "f.jsonl" {
				t.Fatalf("bad record error %+v", re)
			}
		}
		for i := range ps {
			p := &ps[i]
			rec, err := ShoppingBenchRecord(p)
			if err != nil {
				t.Fatalf("ShoppingBenchRecord(%s): %v", p.ID, err)
			}
			if bytes.ContainsAny(rec, "\r\n") {
				t.Fatalf("record spans lines: %q", rec)
			}
			back, rep2, err := ImportShoppingBench(bytes.NewReader(rec), "again.jsonl")
			if err != nil || len(back) != 1 || len(rep2.Errors) > 0 {
				t.Fatalf("re-import of %s: %d problems, errors %v %v", rec, len(back), rep2.Errors, err)
			}
			sameProblem(t, p, &back[0], rec)
		}
	})
}

// FuzzImportORO feeds arbitrary input to ImportORO. Invariants: no panic;
// an error exactly when the input does not start with a JSON array, and
// then no problems; the report adds up; every problem validates; and each
// problem written back with ORORecord imports again to the same problem.
func FuzzImportORO(f *testing.F) {
	f.Add([]byte(`[{"query": "a red mug", "reward": {"product_id": "1"}, "category": "Product", "difficulty": "easy", "title": "Product 1"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, rep, err := ImportORO(bytes.NewReader(data), "f.json")
		var elems []json.RawMessage
		notArray := json.NewDecoder(bytes.NewReader(data)).Decode(&elems) != nil
		if (err != nil) != notArray {
			t.Fatalf("import error %v, but input is a JSON array: %v", err, !notArray)
		}
		if err != nil {
			if ps != nil || rep.Records != 0 {
				t.Fatalf("failed import returned %d problems, %d records", len(ps), rep.Records)
			}
			return
		}
		if rep.Records != len(elems) {
			t.Fatalf("%d records counted for %d elements", rep.Records, len(elems))
		}
		checkImport(t, ps, rep)
		for _, re := range rep.Errors {
			if re.Index < 0 || re.Index >= len(elems) || re.Err == nil || re.File != "f.json" {
				t.Fatalf("bad record error %+v", re)
			}
		}
		for i := range ps {
			p := &ps[i]
			rec, err := ORORecord(p)
			if err != nil {
				t.Fatalf("ORORecord(%s): %v", p.ID, err)
			}
			back, rep2, err := ImportORO(bytes.NewReader(append(append([]byte("["), rec...), ']')), "again.json")
			if err != nil || len(back) != 1 || len(rep2.Errors) > 0 {
				t.Fatalf("re-import of %s: %d problems, errors %v %v", rec, len(back), rep2.Errors, err)
			}
			sameProblem(t, p, &back[0], rec)
		}
	})
}

// checkImport checks what both importers promise about their result.
func checkImport(t *testing.T, ps []Problem, rep ImportReport) {
	t.Helper()
	if rep.Imported != len(ps) {
		t.Fatalf("report says %d imported, returned %d", rep.Imported, len(ps))
	}
	if rep.Records != rep.Imported+rep.Duplicates+len(rep.Errors) {
		t.Fatalf("%d records != %d imported + %d duplicates + %d errors", rep.Records, rep.Imported, rep.Duplicates, len(rep.Errors))
	}
	ids := map[string]bool{}
	for i := range ps {
		p := &ps[i]
		if err := p.Validate(); err != nil {
			t.Fatalf("imported problem %d does not validate: %v", i, err)
		}
		id, err := p.ContentID()
		if err != nil || id != p.ID {
			t.Fatalf("problem id %s, content id %s (%v)", p.ID, id, err)
		}
		if ids[p.ID] {
			t.Fatalf("duplicate id %s returned", p.ID)
		}
		ids[p.ID] = true
		var want []string
		for _, it := range p.Reward.Items {
			want = append(want, it.ProductID)
		}
		if !slices.Equal(p.Targets, want) {
			t.Fatalf("targets %q, reward ids %q", p.Targets, want)
		}
		if p.Source == "" {
			t.Fatalf("problem %s without source", p.ID)
		}
	}
}

// sameProblem compares an imported problem with its re-import. The source
// differs by design; raw JSON kept in Extra may differ in spelling (white
// space, escapes), so problems are compared in their canonical encoding.
func sameProblem(t *testing.T, want, got *Problem, rec []byte) {
	t.Helper()
	if got.ID != want.ID {
		t.Fatalf("re-import of %s: id %s, want %s", rec, got.ID, want.ID)
	}
	a, b := *want, *got
	a.Source, b.Source = "", ""
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatalf("marshal %s: %v", want.ID, err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatalf("marshal re-import of %s: %v", want.ID, err)
	}
	if !bytes.Equal(ja, jb) {
		t.Fatalf("round trip through %s changed the problem:\n got %s\nwant %s", rec, jb, ja)
	}
}
