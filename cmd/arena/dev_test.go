package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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

// TestDevRunStatusExport runs `arena dev --races 1` as a new user would,
// asks `arena status` while it runs, then checks the data dir it leaves:
// `arena store check` is clean and every export format reads it, with the
// card counting the rows.
func TestDevRunStatusExport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole arena")
	}
	dir := filepath.Join(t.TempDir(), "arena-data")
	listen := closedPort(t)
	stdout := newWatchWriter("leader uid")
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"arena", "dev", "--races", "1", "--miners", "3", "--data", dir,
			"--listen", listen, "--block-time", "100ms"}, stdout, &stderr, nil)
	}()
	select {
	case <-stdout.seen:
	case code := <-done:
		t.Fatalf("arena dev exited %d before a race was decided:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	code, status, errOut := runCLI(t, nil, "status", "--api", "http://"+listen)
	if code != 0 || !strings.Contains(status, "leader") || !strings.Contains(status, "suite clusters") {
		t.Errorf("arena status: exit %d\n%s%s", code, status, errOut)
	}
	t.Logf("arena status:\n%s", status)
	if code := <-done; code != 0 {
		t.Fatalf("arena dev exited %d:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"qualifying score", "race 1:", "weights set in block", "incentive after the epoch", "summary: 1 race(s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("arena dev output lacks %q:\n%s", want, out)
		}
	}

	if code, stdout, stderr := runCLI(t, nil, "store", "check", "--data", dir); code != 0 || !strings.Contains(stdout, "ok: no problems found") {
		t.Fatalf("store check: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, format := range []string{"sft", "steps", "dpo", "grpo"} {
		outDir := filepath.Join(t.TempDir(), format)
		code, stdout, stderr := runCLI(t, nil, "export", "--data", dir, "--format", format, "--out", outDir, "--min-margin", "0.05")
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

	// A second run replaces the dev data dir; a foreign directory is refused.
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(t, nil, "dev", "--races", "1", "--data", foreign, "--listen", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errOut, "was not made by `arena dev`") {
		t.Errorf("dev on a foreign dir: exit %d, stderr %q", code, errOut)
	}
}
