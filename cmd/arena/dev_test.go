package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"arena/devarena"
)

// watchWriter collects output and closes a channel the first time it
// contains a given text.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	text string
	seen chan struct{}
}

func newWatchWriter(text string) *watchWriter {
	return &watchWriter{text: text, seen: make(chan struct{})}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.text != "" && strings.Contains(w.buf.String(), w.text) {
		close(w.seen)
		w.text = ""
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// readmeCommand is one command of the README, split as a shell would.
type readmeCommand struct {
	line string
	args []string
}

var inlineCommand = regexp.MustCompile("`(go run ./cmd/arena [^`]+)`")

// readmeCommands returns, in the order a reader meets them, the lines of
// the README's sh blocks and its inline `go run ./cmd/arena ...` commands.
func readmeCommands(t *testing.T, readme string) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	add := func(line string) {
		args, err := shellWords(line)
		if err != nil {
			t.Fatalf("README command %q: %v", line, err)
		}
		cmds = append(cmds, readmeCommand{line: line, args: args})
	}
	inBlock := false
	for _, line := range strings.Split(readme, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inBlock = !inBlock && trimmed == "```sh"
		case inBlock:
			if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
				add(trimmed)
			}
		default:
			for _, m := range inlineCommand.FindAllStringSubmatch(line, -1) {
				add(m[1])
			}
		}
	}
	return cmds
}

// shellWords splits a command line on blanks, honouring double quotes (all
// the quoting the README uses).
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// ignoredTopDirs are the folders the .gitignore ignores at the top of the
// checkout ("/name/" lines).
func ignoredTopDirs(gitignore string) map[string]bool {
	dirs := map[string]bool{}
	for _, line := range strings.Split(gitignore, "\n") {
		line = strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(line, "/"); ok && strings.HasSuffix(name, "/") && !strings.ContainsAny(name[:len(name)-1], "/*?[") {
			dirs[strings.TrimSuffix(name, "/")] = true
		}
	}
	return dirs
}

// TestReadmeCommands runs the README's commands as a newcomer would, in an
// empty directory standing for the checkout: `arena dev` (for one race,
// asking `arena status` while it runs), the export of its data and the
// shopping environment. Every command succeeds, and everything they write
// lies in folders the .gitignore ignores, none of them a package folder,
// so `git status` stays clean. Commands that serve until stopped or need a
// served devnet are not run.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole arena")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	gitignore, err := os.ReadFile(filepath.Join(repo, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	ignored := ignoredTopDirs(string(gitignore))
	for dir := range ignored {
		if gofiles, _ := filepath.Glob(filepath.Join(repo, dir, "*.go")); len(gofiles) > 0 {
			t.Errorf(".gitignore ignores /%s/, a package folder", dir)
		}
	}
	checkout := t.TempDir()
	t.Chdir(checkout)

	ran := map[string]bool{}
	var devOut string
	for _, c := range readmeCommands(t, string(readme)) {
		switch {
		case len(c.args) == 3 && c.args[0] == "mkdir" && c.args[1] == "-p":
			if err := os.MkdirAll(c.args[2], 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		case len(c.args) < 4 || strings.Join(c.args[:3], " ") != "go run ./cmd/arena":
			t.Logf("not an arena command, not run: %s", c.line)
			continue
		}
		args := c.args[3:]
		switch args[0] {
		case "devnet", "chain":
			t.Logf("serves or needs a served devnet, not run: %s", c.line)
			continue
		case "status":
			continue // asked while arena dev runs
		case "dev":
			devOut = runReadmeDev(t, args)
		default:
			code, stdout, stderr := runCLI(t, nil, args...)
			if code != 0 {
				t.Fatalf("%s: exit %d\n%s%s", c.line, code, stdout, stderr)
			}
		}
		ran[strings.Join(args[:min(2, len(args))], " ")] = true
	}
	for _, want := range []string{"dev", "export --data", "shop generate", "shop search", "suite generate"} {
		if !ran[want] {
			t.Errorf("the README has no %q command to run (ran %v)", want, ran)
		}
	}
	if devOut == "" {
		t.FailNow()
	}

	entries, err := os.ReadDir(checkout)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !ignored[e.Name()] {
			t.Errorf("the README's commands leave %s in the checkout, which git does not ignore", e.Name())
		}
	}

	data := devarena.DataDir("arena-data")
	if code, stdout, stderr := runCLI(t, nil, "store", "check", "--data", data); code != 0 || !strings.Contains(stdout, "ok: no problems found") {
		t.Fatalf("store check: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, format := range []string{"sft", "steps", "dpo", "grpo"} {
		outDir := filepath.Join(t.TempDir(), format)
		code, stdout, stderr := runCLI(t, nil, "export", "--data", data, "--format", format, "--out", outDir, "--min-margin", "0.05")
		if code != 0 {
			t.Fatalf("export %s: exit %d\n%s%s", format, code, stdout, stderr)
		}
		card, err := os.ReadFile(filepath.Join(outDir, "README.md"))
		if err != nil {
			t.Fatal(err)
		}
		n := countLines(t, filepath.Join(outDir, "train.jsonl"))
		if n == 0 && format != "dpo" {
			t.Errorf("export %s: no rows from a dev arena", format)
		}
		if !strings.Contains(string(card), fmt.Sprintf("| train | **all** | %d |", n)) {
			t.Errorf("export %s: card does not count the %d rows:\n%s", format, n, card)
		}
	}

	// Another run on a busy port costs none of the data the first one left.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if err := os.WriteFile(filepath.Join("arena-data", "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, "arena-data")
	code, _, stderr := runCLI(t, nil, "dev", "--races", "1", "--miners", "1", "--listen", busy.Addr().String())
	if code == 0 || !oneErrorLine(stderr, "operator listener") {
		t.Errorf("dev on a busy port: exit %d, stderr %q", code, stderr)
	}
	if after := listFiles(t, "arena-data"); !maps.Equal(after, before) {
		t.Errorf("dev on a busy port changed the data dir:\nbefore %v\nafter  %v", before, after)
	}
}

// runReadmeDev runs the README's `arena dev` for one race on test timings
// and a free port, asks `arena status` once the race is done, and returns
// what arena dev printed.
func runReadmeDev(t *testing.T, args []string) string {
	t.Helper()
	listen, apiListen := closedPort(t), closedPort(t)
	args = append(args, "--races", "1", "--miners", "3", "--listen", listen, "--api-listen", apiListen, "--block-time", "100ms")
	stdout := newWatchWriter("  UID  SKILL")
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(context.Background(), append([]string{"arena"}, args...), stdout, &stderr, nil) }()
	// A stuck run fails here with what it printed, well before the test
	// binary's timeout would end it with goroutine dumps.
	deadline := time.After(5 * time.Minute)
	select {
	case <-stdout.seen:
	case code := <-done:
		t.Fatalf("arena dev exited %d before a race was done:\n%s\n%s", code, stdout.String(), stderr.String())
	case <-deadline:
		t.Fatalf("arena dev did not finish a race in 5 minutes:\n%s\n%s", stdout.String(), stderr.String())
	}
	code, status, errOut := runCLI(t, nil, "status", "--api", "http://"+apiListen)
	if code != 0 || !strings.Contains(status, "leader") || !strings.Contains(status, "suite clusters") {
		t.Errorf("arena status: exit %d\n%s%s", code, status, errOut)
	}
	// The dev catalog restocks faster than its races spend products.
	if !regexp.MustCompile(`suite capacity\s+[0-9.e+-]+ days of races \([0-9]+ unused products.*restocks add [0-9.]+× what races use, so it never runs dry`).MatchString(status) {
		t.Errorf("arena status does not show the suite's capacity with restocks that keep up:\n%s", status)
	}
	// The race just run drew its hidden clusters today.
	if !regexp.MustCompile(`hidden used\s+[1-9][0-9]* cluster\(s\) in the last 24 h`).MatchString(status) {
		t.Errorf("arena status does not show the race's hidden clusters:\n%s", status)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("arena dev exited %d:\n%s\n%s", code, stdout.String(), stderr.String())
		}
	case <-deadline:
		t.Fatalf("arena dev --races 1 did not exit in 5 minutes:\n%s\n%s", stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"qualifying score", "race 1:", "weights set in block", "incentive after the epoch", "summary: 1 race(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("arena dev output lacks %q:\n%s", want, out)
		}
	}
	// Offline by default, and it says once that steps are unverified.
	if n := strings.Count(out+stderr.String(), "not verified") + strings.Count(out+stderr.String(), "unverified"); n != 1 ||
		!strings.Contains(out, "steps are unverified: "+devUnverified) {
		t.Errorf("arena dev says %d times that steps are unverified, want once in its view:\n%s\n%s", n, out, stderr.String())
	}
	return out
}

// listFiles maps every file under dir to its size and modification time.
func listFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// A directory's time moves when an entry is renamed and back.
			files[path] = "dir"
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[path] = fmt.Sprintf("%d %s", info.Size(), info.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// oneErrorLine reports whether stderr is a single "arena: " line holding want.
func oneErrorLine(stderr, want string) bool {
	return strings.Count(stderr, "\n") == 1 && strings.HasPrefix(stderr, "arena: ") && strings.Contains(stderr, want)
}

// TestDevRefusesForeignData: `arena dev` will not use a --data it did not
// make, and says so in one line without touching it.
func TestDevRefusesForeignData(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign")
	if err := os.Mkdir(foreign, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		want string
	}{
		{"a directory of the user's", foreign, "was not made by `arena dev`; pass another --data"},
		{"a file", file, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := listFiles(t, tt.data)
			code, _, stderr := runCLI(t, nil, "dev", "--races", "1", "--data", tt.data, "--listen", "127.0.0.1:0")
			if code == 0 || !oneErrorLine(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want one line with %q", code, stderr, tt.want)
			}
			if after := listFiles(t, tt.data); !maps.Equal(after, before) {
				t.Errorf("refused --data changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestUsageErrorsAreOneLine: a mistake on the command line is one line on
// stderr naming the help to read, with exit status 2; the help itself is
// still there with --help.
func TestUsageErrorsAreOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string // "" for a help page on stdout
	}{
		{[]string{"dev", "-x"}, "arena: flag provided but not defined: -x (see arena dev --help)"},
		{[]string{"dev", "--miners", "many"}, `invalid value "many" for flag -miners`},
		{[]string{"dev", "now"}, `arena: unexpected argument "now" (see arena dev --help)`},
		{[]string{"dev", "--races", "-1"}, "arena: --races must not be negative (see arena dev --help)"},
		{[]string{"--bogus", "dev"}, "arena: flag provided but not defined: -bogus (see arena --help)"},
		{[]string{"frobnicate"}, `arena: unknown command "frobnicate" (see arena --help)`},
		{[]string{"chain", "frob"}, `arena: unknown command "frob" (see arena chain --help)`},
		{[]string{"chain", "metagraph", "--nope"}, "(see arena chain metagraph --help)"},
		{[]string{"export", "--format", "sft"}, `Required flag "out" not set (see arena export --help)`},
		{[]string{"--help"}, ""},
		{[]string{"dev", "--help"}, ""},
		{[]string{"chain"}, ""},
		{[]string{"chain", "metagraph", "-h"}, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			if tt.want == "" {
				if code != 0 || stderr != "" || !strings.Contains(stdout, "USAGE:") || strings.Count(stdout, "\n") < 10 {
					t.Fatalf("help: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
				}
				return
			}
			if code != 2 || stdout != "" || !oneErrorLine(stderr, tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", code, stdout, stderr, tt.want)
			}
		})
	}
}
