// Package tsminer runs the TypeScript example miner (examples/ts-miner) as a
// child process for tests: Start launches `node examples/ts-miner/dist/main.js`
// on a loopback port, waits for the JSON line it prints at start-up, and
// kills it when the test ends.
//
// The miner must have been built first:
//
//	cd examples/ts-miner && npm ci && npm run build
//
// Without node, node_modules or dist/, Start skips the test, except under
// CI=true, where it fails it.
package tsminer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configure the miner process.
type Options struct {
	// LLMBaseURL, LLMModel and LLMAPIKey are the agent's own
	// OpenAI-compatible endpoint (LLM_BASE_URL, LLM_MODEL, LLM_API_KEY).
	// Without a URL the miner plays only episodes whose validator relays
	// inference (protocol version 2).
	LLMBaseURL, LLMModel, LLMAPIKey string
	// Key is the miner's private key in hex (MINER_PRIVATE_KEY); empty:
	// the miner generates a fresh one.
	Key string
	// MaxEpisodes is --max-episodes (0: the miner's default).
	MaxEpisodes int
	// MaxVersion is --max-version (0: the miner's default, protocol
	// version 2 when the validator offers it).
	MaxVersion int
	// Env holds more KEY=VALUE entries, e.g. LLM_TIMEOUT_MS=2000 or
	// LOG_LEVEL=debug.
	Env []string
	// StartTimeout bounds the wait for the start-up line (default 30 s).
	StartTimeout time.Duration
}

// Miner is a running TypeScript miner.
type Miner struct {
	// Endpoint is the HOST:PORT it listens on (validators dial
	// ws://Endpoint/arena/v1).
	Endpoint string
	// Address is the EVM address it signs hello_ack with, as it printed it.
	Address string
	// Hotkey is the SS58 mirror of Address it printed: the hotkey to register.
	Hotkey string

	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	stderr  *tailBuffer
}

// Start launches the miner and returns its HOST:PORT and EVM address. The
// process is killed at the end of the test; if it exited before, the test
// fails.
func Start(t testing.TB, opts Options) (endpoint, address string) {
	t.Helper()
	m := Launch(t, opts)
	return m.Endpoint, m.Address
}

// Dir is the miner's folder, examples/ts-miner under the module root (the
// closest folder above the working directory holding go.mod).
func Dir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "examples", "ts-miner"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Available reports why the miner cannot run here (nil when it can): node
// missing, or the package not installed, not built or built from older
// sources.
func Available() error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("node is not installed (apt-get install nodejs npm)")
	}
	build := fmt.Sprintf("(cd %s && npm ci && npm run build)", dir)
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		return fmt.Errorf("%s/node_modules is missing: install and build the miner first %s", dir, build)
	}
	if _, err := os.Stat(filepath.Join(dir, "dist", "main.js")); err != nil {
		return fmt.Errorf("%s/dist/main.js is missing: build the miner first %s", dir, build)
	}
	// A dist/ older than its sources would test code that is not the
	// miner's any more.
	srcs, err := filepath.Glob(filepath.Join(dir, "src", "*.ts"))
	if err != nil {
		return err
	}
	for _, src := range srcs {
		js := filepath.Join(dir, "dist", strings.TrimSuffix(filepath.Base(src), ".ts")+".js")
		si, err := os.Stat(src)
		if err != nil {
			return err
		}
		if ji, err := os.Stat(js); err != nil || ji.ModTime().Before(si.ModTime()) {
			return fmt.Errorf("%s is missing or older than %s: rebuild the miner %s", js, src, build)
		}
	}
	return nil
}

// Require skips the test when the miner cannot run here (Available),
// except under CI=true, where it fails it.
func Require(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ts-miner cannot run: %v", err)
		}
		t.Skipf("ts-miner cannot run: %v", err)
	}
}

// Launch is Start returning the whole Miner: its hotkey, and Alive to check
// the process is still running.
func Launch(t testing.TB, opts Options) *Miner {
	t.Helper()
	Require(t)
	dir, _ := Dir()
	node, _ := exec.LookPath("node")
	args := []string{filepath.Join(dir, "dist", "main.js"), "--listen", "127.0.0.1:0"}
	if opts.MaxEpisodes > 0 {
		args = append(args, "--max-episodes", strconv.Itoa(opts.MaxEpisodes))
	}
	if opts.MaxVersion > 0 {
		args = append(args, "--max-version", strconv.Itoa(opts.MaxVersion))
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	cmd.Env = append(environ(), "LLM_BASE_URL="+opts.LLMBaseURL, "LLM_MODEL="+opts.LLMModel)
	if opts.LLMAPIKey != "" {
		cmd.Env = append(cmd.Env, "LLM_API_KEY="+opts.LLMAPIKey)
	}
	if opts.Key != "" {
		cmd.Env = append(cmd.Env, "MINER_PRIVATE_KEY="+opts.Key)
	}
	cmd.Env = append(cmd.Env, opts.Env...)
	m := &Miner{cmd: cmd, done: make(chan struct{}), stderr: &tailBuffer{max: 256 << 10}}
	cmd.Stderr = m.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start ts-miner: %v", err)
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, err := r.ReadString('\n')
		if err == nil {
			lines <- line
		}
		close(lines)
		_, _ = io.Copy(io.Discard, r) // the miner prints nothing more, but never block it
	}()
	go func() {
		m.waitErr = cmd.Wait()
		close(m.done)
	}()
	t.Cleanup(func() {
		select {
		case <-m.done:
			t.Errorf("ts-miner exited before the end of the test: %v\nstderr:\n%s", m.waitErr, m.stderr)
			return
		default:
		}
		_ = cmd.Process.Kill()
		<-m.done
		if t.Failed() {
			t.Logf("ts-miner stderr:\n%s", m.stderr)
		}
	})

	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	var line string
	select {
	case l, ok := <-lines:
		if !ok {
			<-m.done
			t.Fatalf("ts-miner exited without its start-up line: %v\nstderr:\n%s", m.waitErr, m.stderr)
		}
		line = l
	case <-time.After(timeout):
		t.Fatalf("ts-miner printed no start-up line in %s\nstderr:\n%s", timeout, m.stderr)
	}
	var start struct {
		Listening string `json:"listening"`
		Address   string `json:"address"`
		Hotkey    string `json:"hotkey"`
	}
	if err := json.Unmarshal([]byte(line), &start); err != nil || start.Listening == "" || start.Address == "" {
		t.Fatalf("ts-miner start-up line %q: want {\"listening\":HOST:PORT,\"address\":0x...} (%v)", line, err)
	}
	m.Endpoint, m.Address, m.Hotkey = start.Listening, start.Address, start.Hotkey
	return m
}

// Alive is nil while the process runs, else how it exited.
func (m *Miner) Alive() error {
	select {
	case <-m.done:
		if m.waitErr == nil {
			return errors.New("ts-miner exited with status 0")
		}
		return fmt.Errorf("ts-miner exited: %w", m.waitErr)
	default:
		return nil
	}
}

// Stderr is the tail of the miner's log.
func (m *Miner) Stderr() string { return m.stderr.String() }

// environ is the test's environment without the variables the miner reads,
// so that a developer's own settings do not leak into the test.
func environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "LLM_") || strings.HasPrefix(name, "MINER_") || name == "LOG_LEVEL" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - b.max; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
