package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arena/examples/minerproc"
	"arena/examples/pyminer"
)

// docScript returns the shell lines of the ```sh blocks between
// <!-- doctest:NAME --> and <!-- /doctest:NAME --> in doc, as written.
func docScript(t *testing.T, doc, name string) string {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	in, fenced := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "<!-- doctest:"+name+" -->":
			in = true
		case line == "<!-- /doctest:"+name+" -->":
			if b.Len() == 0 {
				t.Fatalf("%s: the doctest:%s block holds no commands", doc, name)
			}
			return b.String()
		case !in:
		case line == "```sh":
			fenced = true
		case line == "```":
			fenced = false
		case fenced:
			b.WriteString(line + "\n")
		}
	}
	t.Fatalf("%s: no complete doctest:%s block", doc, name)
	return ""
}

// TestMiningDoc runs docs/mining.md's commands as written, in order, as
// one bash script: from the root of the checkout, with a fresh home
// directory and the arena under test first on PATH (the doc's install
// step builds it). Keys, the reference miner, practice with the stand-in,
// the conformance check, then the Python example. It uses the doc's fixed
// ports (8091, 8092) and leaves nothing new in the checkout.
func TestMiningDoc(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reference and Python miners, two practices and two checks")
	}
	minerproc.Require(t, "py-miner", pyminer.Available())
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	script := docScript(t, filepath.Join(root, "docs", "mining.md"), "mining")
	bin, home := t.TempDir(), t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "arena"), []byte("#!/bin/sh\nexec '"+self+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := untracked(t, root)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"+script)
	cmd.Dir = root
	cmd.Env = append(minerproc.Environ(), "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), childEnv+"=1")
	cmd.Env = append(cmd.Env, practiceEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the doc's commands failed: %v\n%s\nscript:\n%s", err, out, script)
	}
	for _, want := range []struct {
		text string
		n    int
	}{
		{"19 clauses: 19 passed, 0 failed, 0 skipped", 2},
		{"20 episodes: success", 2},
		{"verified inference: 100% of", 2},
		{"the relay served the offline stand-in", 2},
	} {
		if got := strings.Count(string(out), want.text); got != want.n {
			t.Errorf("%q appears %d times, want %d:\n%s", want.text, got, want.n, out)
		}
	}
	if fi, err := os.Stat(filepath.Join(home, ".arena", "miner.pass")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the password file: %v, mode %v; want 0600 in ~/.arena", err, fi.Mode())
	}
	if keys, _ := filepath.Glob(filepath.Join(home, ".arena", "miner-keys", "UTC--*")); len(keys) != 1 {
		t.Errorf("%d keys in ~/.arena/miner-keys, want 1", len(keys))
	}
	if after := untracked(t, root); after != before {
		t.Errorf("the doc's commands left files in the checkout:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// untracked lists the checkout's untracked files, ignored ones included
// ("" outside a git checkout).
func untracked(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=all", "--ignored").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// TestSecretsIgnored: git ignores the keys, passwords and data a
// newcomer may make inside the checkout, and still tracks the examples.
func TestSecretsIgnored(t *testing.T) {
	root := filepath.Join("..", "..")
	if err := exec.Command("git", "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	for _, tt := range []struct {
		path    string
		ignored bool
	}{
		{"miner-keys/UTC--2026-01-01T00-00-00Z--abc", true},
		{"miner-keys.pass", true},
		{"examples/ts-miner/miner.key", true},
		{"examples/py-miner/miner.key", true},
		{"examples/py-miner/__pycache__/miner.cpython-311.pyc", true},
		{"arena-data/validator/MANIFEST", true},
		{"arena-keys/UTC--2026", true},
		{"examples/py-miner/miner.py", false},
		{"docs/mining.md", false},
	} {
		err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", tt.path).Run()
		if ignored := err == nil; ignored != tt.ignored {
			t.Errorf("%s: ignored %v, want %v", tt.path, ignored, tt.ignored)
		}
	}
}
