package layers

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/design.md's dependency list from the table")

const (
	docPath  = "../../docs/design.md"
	docBegin = "<!-- layers:begin (generated from internal/layers; go test ./internal/layers -update) -->\n"
	docEnd   = "<!-- layers:end -->"
)

// moduleGraph lists the module's packages with `go list`, test imports
// left out, as module-relative paths.
func moduleGraph(t *testing.T) Graph {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", Module+"/...")
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	g := Graph{}
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], Module+"/")
		if !ok {
			continue
		}
		g[pkg] = nil
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, Module+"/"); ok {
				g[pkg] = append(g[pkg], rel)
			}
		}
	}
	if len(g) < 20 {
		t.Fatalf("go list found %d arena packages; expected the whole module", len(g))
	}
	return g
}

func TestModuleKeepsItsLayers(t *testing.T) {
	for _, line := range Check(moduleGraph(t), Rules) {
		t.Error(line)
	}
}

func TestDesignDocListsTheTable(t *testing.T) {
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := bytes.Cut(doc, []byte(docBegin))
	if !ok {
		t.Fatalf("%s: no %q marker", docPath, strings.TrimSpace(docBegin))
	}
	body, after, ok := bytes.Cut(rest, []byte(docEnd))
	if !ok {
		t.Fatalf("%s: no %q marker", docPath, docEnd)
	}
	want := Text(Rules, 100)
	if string(body) == want {
		return
	}
	if *update {
		out := slices.Concat(before, []byte(docBegin), []byte(want), []byte(docEnd), after)
		if err := os.WriteFile(docPath, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's dependency list differs from the table (go test ./internal/layers -update rewrites it)\n got: %s\nwant: %s", docPath, body, want)
}

func TestCheck(t *testing.T) {
	g := Graph{
		"store":               nil,
		"chain":               {"internal/secretfile"},
		"validator":           {"chain", "store"},
		"devarena":            {"validator"},
		"cmd/arena":           {"devarena", "validator"},
		"internal/secretfile": nil,
	}
	tests := []struct {
		name  string
		graph func(Graph)
		rules []Rule
		want  []string
	}{
		{"clean", nil, []Rule{
			{Only, "store", nil},
			{Only, "chain", []string{"internal/..."}},
			{Never, "validator", []string{"devarena"}},
			{ImportedBy, "devarena", []string{"cmd/arena"}},
		}, nil},
		{"store imports upward", func(g Graph) { g["store"] = []string{"chain"} },
			[]Rule{{Only, "store", nil}},
			[]string{"store imports chain, but `store` imports no arena package"}},
		{"chain imports outside its list", func(g Graph) { g["chain"] = append(g["chain"], "validator") },
			[]Rule{{Only, "chain", []string{"internal/..."}}},
			[]string{"chain imports validator, but `chain` imports only `internal/...`"}},
		{"forbidden edge", func(g Graph) { g["validator"] = append(g["validator"], "devarena") },
			[]Rule{{Never, "validator/...", []string{"devarena"}}},
			[]string{"validator imports devarena, but `validator/...` does not import `devarena`"}},
		{"importer outside the list", func(g Graph) { g["chain"] = append(g["chain"], "devarena") },
			[]Rule{{ImportedBy, "devarena", []string{"cmd/arena"}}},
			[]string{"chain imports devarena, but `devarena` is imported only by `cmd/arena`"}},
		{"stale rule", nil,
			[]Rule{{Only, "gone", nil}},
			[]string{"rule \"`gone` imports no arena package\" matches no package"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gg := Graph{}
			for k, v := range g {
				gg[k] = slices.Clone(v)
			}
			if tc.graph != nil {
				tc.graph(gg)
			}
			if got := Check(gg, tc.rules); !slices.Equal(got, tc.want) {
				t.Errorf("Check = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, pkg string
		want         bool
	}{
		{"shop", "shop", true},
		{"shop", "shop/gen", false},
		{"shop/...", "shop", true},
		{"shop/...", "shop/internal/raw", true},
		{"shop/...", "shopx", false},
		{"internal/...", "shop/internal/raw", false},
	}
	for _, tc := range tests {
		if got := Match(tc.pattern, tc.pkg); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.pkg, got, tc.want)
		}
	}
}
