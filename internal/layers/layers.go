// Package layers holds arena's import rules as one table: which arena
// packages each layer may import, which it must not, and which few may
// import it. Its test checks every package's imports against the table
// and checks that docs/design.md's dependency list is the table's Text,
// so the doc and the check cannot drift apart.
package layers

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the module path that package patterns are relative to.
const Module = "arena"

// Kind is what a rule restricts.
type Kind int

const (
	// Only: the matched packages import no arena package outside List.
	Only Kind = iota
	// Never: the matched packages import none of List.
	Never
	// ImportedBy: no package outside List imports the matched packages.
	ImportedBy
)

// Rule is one row. Pkg and List hold module-relative patterns: "x"
// matches x alone, "x/..." matches x and everything below it.
type Rule struct {
	Kind Kind
	Pkg  string
	List []string
}

// Rules is the table. Test-only imports are outside it: a test may import
// anything below or beside it, and `go list`'s Imports leaves them out.
var Rules = []Rule{
	{Only, "internal/...", []string{"internal/..."}},
	{Only, "config", nil},
	{Only, "store", nil},
	{Only, "chain", []string{"internal/..."}},
	{Only, "shop/...", []string{"shop/...", "internal/..."}},
	{Only, "shop/pyexec", nil},
	{Only, "knowledge", []string{"shop/...", "internal/..."}},
	{Only, "suite", []string{"shop/...", "store", "knowledge", "internal/..."}},
	{Only, "episode", []string{"chain", "shop"}},
	{Only, "scoring", []string{"episode", "shop", "suite", "knowledge", "internal/..."}},
	{Only, "scoring/judge", []string{"scoring", "scoring/verify", "episode", "suite", "internal/..."}},
	{Only, "scoring/verify", []string{"episode", "shop"}},
	{Only, "scoring/race", nil},
	{Only, "scoring/weights", nil},
	{Only, "relay", []string{"config", "episode", "internal/..."}},
	{Only, "validator/records", []string{"store", "episode", "suite", "scoring", "scoring/judge", "scoring/race"}},
	{Only, "web/plot", nil},
	{Never, "validator/...", []string{"miner", "web/...", "devarena", "practice", "minercheck", "calibrate", "simulate", "dataset/...", "chain/devnet/..."}},
	{ImportedBy, "devarena", []string{"cmd/arena"}},
	{ImportedBy, "miner", []string{"devarena", "calibrate", "practice", "cmd/arena"}},
	{ImportedBy, "internal/browsertest", nil},
}

// Graph maps a module-relative package path to the module-relative paths
// of the arena packages it imports.
type Graph map[string][]string

// Match reports whether the module-relative path pkg matches pattern.
func Match(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func matchAny(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return Match(p, pkg) })
}

// Check returns one line per import that breaks a rule, and one per rule
// whose Pkg matches no package (a stale row checks nothing), sorted.
func Check(g Graph, rules []Rule) []string {
	var bad []string
	for _, r := range rules {
		matched := false
		for pkg, imports := range g {
			if Match(r.Pkg, pkg) {
				matched = true
			}
			for _, imp := range imports {
				if broken(r, pkg, imp) {
					bad = append(bad, fmt.Sprintf("%s imports %s, but %s", pkg, imp, r.clause()))
				}
			}
		}
		if !matched {
			bad = append(bad, fmt.Sprintf("rule %q matches no package", r.clause()))
		}
	}
	slices.Sort(bad)
	return bad
}

func broken(r Rule, pkg, imp string) bool {
	switch r.Kind {
	case Only:
		return Match(r.Pkg, pkg) && !matchAny(r.List, imp)
	case Never:
		return Match(r.Pkg, pkg) && matchAny(r.List, imp)
	case ImportedBy:
		return Match(r.Pkg, imp) && !matchAny(r.List, pkg)
	}
	return false
}

func code(ps []string, conj string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = "`" + p + "`"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " " + conj + " " + q[len(q)-1]
}

func (r Rule) clause() string {
	p := "`" + r.Pkg + "`"
	switch {
	case r.Kind == Only && len(r.List) == 0:
		return p + " imports no arena package"
	case r.Kind == Only:
		return p + " imports only " + code(r.List, "and")
	case r.Kind == Never:
		return p + " does not import " + code(r.List, "or")
	case len(r.List) == 0:
		return p + " is imported by no package (tests only)"
	}
	return p + " is imported only by " + code(r.List, "and")
}

// Text is the table as the prose docs/design.md carries, wrapped at width
// columns.
func Text(rules []Rule, width int) string {
	clauses := make([]string, len(rules))
	for i, r := range rules {
		clauses[i] = r.clause()
	}
	s := strings.Join(clauses, "; ") + "."
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && line+1+len(w) > width {
			b.WriteByte('\n')
			line = 0
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String() + "\n"
}
