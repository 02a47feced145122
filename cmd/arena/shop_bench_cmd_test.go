package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestShopBench runs the sizing check twice on a small catalog: the first
// run builds and writes the index file, the second maps it; --json prints
// the documented fields.
func TestShopBench(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog.jsonl.gz")
	if code, _, errOut := runCLI(t, nil, "shop", "generate", "--products", "3000", "--seed", "2", "--out", cat); code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errOut)
	}
	for _, wantBuilt := range []bool{true, false} {
		code, out, errOut := runCLI(t, nil, "--log-level", "warn", "shop", "bench", "--catalog", cat, "--queries", "60", "--json")
		if code != 0 {
			t.Fatalf("bench: exit %d: %s", code, errOut)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("bench --json printed %q: %v", out, err)
		}
		for _, field := range []string{"products", "start_s", "built", "rss_peak_mb", "p50_ms", "p99_ms", "qps"} {
			if _, ok := got[field]; !ok {
				t.Fatalf("bench --json lacks %q: %s", field, out)
			}
		}
		if got["products"] != 3000.0 || got["built"] != wantBuilt || got["persisted"] != true {
			t.Fatalf("bench --json = %s, want 3000 products, built %v, persisted", out, wantBuilt)
		}
		if p50, p99 := got["p50_ms"].(float64), got["p99_ms"].(float64); !(p50 > 0 && p99 >= p50) || got["qps"].(float64) <= 0 {
			t.Fatalf("bench --json timings implausible: %s", out)
		}
	}
	code, out, errOut := runCLI(t, nil, "--log-level", "warn", "shop", "bench", "--catalog", cat, "--queries", "20")
	if code != 0 || !strings.Contains(out, "mapped from "+cat+".arena-index") || !strings.Contains(out, "p50") {
		t.Fatalf("bench table: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestShopBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no catalog flag", []string{"shop", "bench"}, "catalog"},
		{"missing catalog", []string{"shop", "bench", "--catalog", filepath.Join(dir, "nope.jsonl")}, "no such file"},
		{"no queries", []string{"shop", "bench", "--catalog", filepath.Join(dir, "nope.jsonl"), "--queries", "0"}, "--queries 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, nil, tt.args...)
			if code == 0 || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want failure naming %q", code, errOut, tt.want)
			}
		})
	}
}
