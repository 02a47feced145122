package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSuiteCalibrate runs `arena suite calibrate` on a small generated
// catalog, from a suite file and with --generate: the table names every
// agent, --json has the documented shape, and bad arguments give one
// line.
func TestSuiteCalibrate(t *testing.T) {
	dir := t.TempDir()
	cat, sfile := filepath.Join(dir, "catalog.jsonl.gz"), filepath.Join(dir, "suite.jsonl")
	if code, _, errOut := runCLI(t, nil, "shop", "generate", "--products", "3000", "--seed", "2", "--out", cat); code != 0 {
		t.Fatalf("shop generate: %s", errOut)
	}
	if code, _, errOut := runCLI(t, nil, "suite", "generate", "--catalog", cat, "--count", "24", "--seed", "3", "--out", sfile); code != 0 {
		t.Fatalf("suite generate: %s", errOut)
	}

	code, out, errOut := runCLI(t, nil, "suite", "calibrate", "--catalog", cat, "--suite", sfile, "--skills", "1,0.4")
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"queries (", "core name verbatim", "lazy ", "heuristic:1.0 ", "heuristic:0.4 ", "solver ", "templated"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runCLI(t, nil, "suite", "calibrate", "--catalog", cat, "--generate", "12", "--seed", "5", "--skills", "1", "--json")
	if code != 0 {
		t.Fatalf("calibrate --json: exit %d: %s", code, errOut)
	}
	var rep struct {
		Agents map[string]map[string]*float64 `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not one object: %v\n%s", err, out)
	}
	for _, agent := range []string{"lazy", "heuristic:1.0", "solver"} {
		rates, ok := rep.Agents[agent]
		if !ok {
			t.Fatalf("--json lacks agent %s: %s", agent, out)
		}
		for _, k := range []string{"product", "shop", "voucher", "knowledge", "all"} {
			if _, ok := rates[k]; !ok {
				t.Errorf("--json %s lacks %q", agent, k)
			}
		}
		if all := rates["all"]; all == nil || *all < 0 || *all > 1 {
			t.Errorf("--json %s.all = %v, want a rate", agent, all)
		}
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"bad skill", []string{"--suite", sfile, "--skills", "1,2"}, "--skills"},
		{"generate and suite", []string{"--suite", sfile, "--generate", "5"}, "not both"},
		{"no catalog file", []string{"--catalog", filepath.Join(dir, "nope.jsonl"), "--suite", sfile}, "nope.jsonl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"suite", "calibrate", "--catalog", cat}, tt.args...)
			code, _, errOut := runCLI(t, nil, args...)
			if lines := strings.Count(strings.TrimSpace(errOut), "\n") + 1; code == 0 || !strings.Contains(errOut, tt.want) || lines != 1 {
				t.Errorf("exit %d, %d lines, stderr %q; want one line with %q", code, lines, errOut, tt.want)
			}
		})
	}
}
