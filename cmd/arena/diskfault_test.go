package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/dataset/datasettest"
	"arena/devarena"
	"arena/internal/diskfault"
)

// startChainOnly starts a devnet with three reference miners and no
// validator, for a validator child process to follow.
func startChainOnly(t *testing.T) *devarena.Arena {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := devarena.Start(ctx, devarena.Options{Config: config.Default(), Miners: 3, BlockTime: 100 * time.Millisecond, ChainOnly: true}, zerolog.Nop())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-runDone
		_ = a.Close()
	})
	return a
}

// readyz returns /readyz's status code and body.
func readyz(t *testing.T, addr string) (int, string) {
	t.Helper()
	return getPath(t, addr, "/readyz")
}

// getPath returns the status code and body of GET http://addr/path.
func getPath(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// waitReadyz polls /readyz until its code is want and its body contains
// reason.
func waitReadyz(t *testing.T, addr string, want int, reason string) {
	t.Helper()
	var code int
	var body string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if code, body = readyz(t, addr); code == want && strings.Contains(body, reason) {
			return
		}
	}
	t.Fatalf("/readyz = %d %q, want %d with %q", code, body, want, reason)
}

// exit waits up to timeout for the process to end and returns its exit
// code and every line it wrote from now on.
func (p *validatorProcess) exit(t *testing.T, timeout time.Duration) (int, []map[string]any) {
	t.Helper()
	var lines []map[string]any
	deadline := time.After(timeout)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				err := <-p.done
				var ee *exec.ExitError
				switch {
				case err == nil:
					return 0, lines
				case errors.As(err, &ee):
					return ee.ExitCode(), lines
				}
				t.Fatal(err)
			}
			lines = append(lines, m)
		case <-deadline:
			t.Fatalf("the process did not exit within %v", timeout)
		}
	}
}

// assertNoCrash fails on any sign of a runtime crash in lines.
func assertNoCrash(t *testing.T, lines []map[string]any) {
	t.Helper()
	for _, m := range lines {
		msg, _ := m["message"].(string)
		for _, bad := range []string{"fatal error", "SIGBUS", "SIGSEGV", "panic:", "goroutine "} {
			if strings.Contains(msg, bad) {
				t.Errorf("crash output %q in %q", bad, msg)
			}
		}
	}
}

func hasMessage(lines []map[string]any, part string) bool {
	for _, m := range lines {
		if msg, _ := m["message"].(string); strings.Contains(msg, part) {
			return true
		}
		if e, _ := m["error"].(string); strings.Contains(e, part) {
			return true
		}
	}
	return false
}

// TestDiskFullValidator runs `arena run` with its data dir on a real
// tmpfs and fills the filesystem under it. Under the soft limit it stays
// up, /readyz fails with the reason and no race starts; with the space
// back it is ready and races again without a restart; with the filesystem
// full it stops writing and exits 1 within the shutdown bound, without a
// crash; on a larger filesystem `arena store check` is clean and the
// validator starts again.
func TestDiskFullValidator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts validator processes")
	}
	fs := diskfault.Mount(t, 512<<20)
	a := startChainOnly(t)
	data := filepath.Join(fs.Dir, "data")
	cfgPath := writeRunConfig(t, a, t.TempDir(), data, `shutdown_timeout: 20s
store: {min_free_soft: 96MiB, min_free_soft_percent: 0, min_free_hard: 32MiB, min_free_hard_percent: 0, reserve: 16MiB}
race: {floor: 0, ratio_start: 0, ratio_floor: 0}
`)
	p := startValidator(t, cfgPath)
	metrics, _ := p.waitFor(t, "operator endpoints: /metrics /livez /readyz", time.Minute, nil)["listen"].(string)
	p.waitFor(t, "race done", 3*time.Minute, nil)
	waitReadyz(t, metrics, http.StatusOK, "")

	fs.LeaveFree(t, 60<<20)
	p.waitLine(t, "the free-space-low line", 10*time.Second, func(m map[string]any) bool {
		msg, _ := m["message"].(string)
		return strings.HasPrefix(msg, "free space low")
	})
	waitReadyz(t, metrics, http.StatusServiceUnavailable, "free space low")
	// Three race windows (40 blocks of 100 ms each) pass without a race or
	// a qualifying run starting.
	quiet := time.After(3 * 4 * time.Second)
	for waiting := true; waiting; {
		select {
		case m := <-p.lines:
			if msg := m["message"]; msg == "race started" || msg == "qualifying started" {
				t.Fatalf("%s under the soft limit: %v", msg, m)
			}
		case <-quiet:
			waiting = false
		}
	}
	if code, body := readyz(t, metrics); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz while low = %d %q", code, body)
	}

	fs.Release(t)
	p.waitFor(t, "free space back above the soft limit: new work resumes", 10*time.Second, nil)
	waitReadyz(t, metrics, http.StatusOK, "")
	p.waitFor(t, "race started", time.Minute, nil)

	fs.LeaveFree(t, 0)
	code, lines := p.exit(t, 30*time.Second)
	assertNoCrash(t, lines)
	if code != 1 || !hasMessage(lines, "store writes stopped") {
		t.Fatalf("exit code %d, want 1 after the line \"store writes stopped\"; lines: %v", code, lines)
	}

	fs.Release(t)
	fs.Resize(t, 1<<30)
	if code, out, errOut := runCLI(t, nil, "store", "check", "--data", data); code != 0 || !strings.Contains(out, "ok: no problems found") {
		t.Fatalf("store check after the full disk: exit %d\n%s%s", code, out, errOut)
	}
	p = startValidator(t, cfgPath)
	p.waitFor(t, "first sync done; ready", time.Minute, nil)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, lines := p.exit(t, 30*time.Second); code != 0 || !hasMessage(lines, "shut down cleanly") {
		t.Fatalf("restart then SIGTERM: exit %d, lines %v", code, lines)
	}
}

// TestDataDirVanishes removes the data dir under a running validator. With
// the free-space guard it notices and exits 1 by itself; without it, Badger
// retries its final flush forever, and SIGTERM still ends the process
// within shutdown_timeout, or at once on a second signal.
func TestDataDirVanishes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts validator processes")
	}
	a := startChainOnly(t)
	const unguarded = "store: {min_free_soft: 0, min_free_soft_percent: 0, min_free_hard: 0, min_free_hard_percent: 0, reserve: 0}\n"
	tests := []struct {
		name     string
		extra    string
		signals  int
		within   time.Duration
		wantCode int
		wantLine string
	}{
		{"guarded", "shutdown_timeout: 20s\n", 0, 30 * time.Second, 1, "vanished"},
		{"unguarded SIGTERM", "shutdown_timeout: 3s\n" + unguarded, 1, 15 * time.Second, 1, "shutdown did not finish within shutdown_timeout"},
		{"unguarded two signals", "shutdown_timeout: 5m\n" + unguarded, 2, 15 * time.Second, 128 + int(syscall.SIGTERM), "second terminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			p := startValidator(t, writeRunConfig(t, a, dir, data, tt.extra))
			p.waitFor(t, "qualifying done", 2*time.Minute, nil)
			if err := os.RemoveAll(data); err != nil {
				t.Fatal(err)
			}
			for i := range tt.signals {
				if i > 0 {
					p.waitFor(t, "validator stopped", 10*time.Second, nil)
				}
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			code, lines := p.exit(t, tt.within)
			assertNoCrash(t, lines)
			if code != tt.wantCode || !hasMessage(lines, tt.wantLine) {
				t.Fatalf("exit code %d after %v, want %d with a line containing %q; lines: %v", code, time.Since(start).Round(time.Millisecond), tt.wantCode, tt.wantLine, lines)
			}
		})
	}
}

// TestCorruptDataDirEveryReaderFails flips bytes in a table of a real data
// dir: the validator, export, store check and backup each refuse it with
// one line naming the table, and write nothing.
func TestCorruptDataDirEveryReaderFails(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	datasettest.Build(t, data, datasettest.Options{ProblemsPerType: 8})
	table := diskfault.CorruptLargestTable(t, data)
	out := t.TempDir()
	keys, pw := filepath.Join(t.TempDir(), "keys"), filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("right\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, nil, "keys", "new", "--light-kdf", "--keystore", keys, "--password-file", pw); code != 0 {
		t.Fatalf("keys new: %s", stderr)
	}
	tests := []struct {
		name string
		args []string
	}{
		{"export", []string{"export", "--data", data, "--format", "sft", "--out", filepath.Join(out, "sft")}},
		{"store check", []string{"store", "check", "--data", data}},
		{"backup", []string{"backup", "--data", data, "--out", filepath.Join(out, "backup")}},
		{"run", []string{"run", "--data", data, "--chain", "ws://" + closedPort(t), "--listen", "127.0.0.1:0", "--api-listen", "127.0.0.1:0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, []string{"ARENA_KEYSTORE_DIR=" + keys, "ARENA_KEYSTORE_PASSWORD_FILE=" + pw}, tt.args...)
			if code == 0 || !strings.Contains(stderr, "data corrupt") || !strings.Contains(stderr, table) {
				t.Fatalf("exit %d, stderr %q: want a failure naming %s", code, stderr, table)
			}
			if strings.Contains(stdout, "ok: no problems") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("want one error line and no result; stdout %q stderr %q", stdout, stderr)
			}
		})
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("readers of a corrupt store wrote %d files", len(entries))
	}
}
