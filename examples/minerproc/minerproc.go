// Package minerproc runs an example miner (examples/ts-miner,
// examples/py-miner) as a child process for tests: Launch starts it on a
// loopback port, reads the JSON line every example prints at start-up
// ({"listening", "address", "hotkey"}), and kills it when the test ends.
package minerproc

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
	"strings"
	"sync"
	"testing"
	"time"
)

// Spec is the process to run.
type Spec struct {
	// Name names the miner in messages (ts-miner, py-miner).
	Name string
	// Program and Args are the command line; Dir its working directory.
	Program string
	Args    []string
	Dir     string
	// Env is the whole environment of the process.
	Env []string
	// StartTimeout bounds the wait for the start-up line (default 30 s).
	StartTimeout time.Duration
}

// Miner is a running example miner.
type Miner struct {
	// Endpoint is the HOST:PORT it listens on (validators dial
	// ws://Endpoint/arena/v1).
	Endpoint string
	// Address is the EVM address it signs hello_ack with, as it printed it.
	Address string
	// Hotkey is the SS58 mirror of Address it printed: the hotkey to register.
	Hotkey string

	name    string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	stderr  *tailBuffer
}

// Root is the module root: the closest folder above the working
// directory holding go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Require skips the test when why is set (the miner cannot run here),
// except under CI=true, where it fails it.
func Require(t testing.TB, name string, why error) {
	t.Helper()
	if why == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s cannot run: %v", name, why)
	}
	t.Skipf("%s cannot run: %v", name, why)
}

// Environ is the test's environment without the variables the example
// miners read, so that a developer's own settings do not leak into a test.
func Environ() []string {
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

// Launch starts the miner and waits for its start-up line. The process
// is killed at the end of the test; if it exited before, the test fails.
func Launch(t testing.TB, s Spec) *Miner {
	t.Helper()
	cmd := exec.Command(s.Program, s.Args...)
	cmd.Dir, cmd.Env = s.Dir, s.Env
	m := &Miner{name: s.Name, cmd: cmd, done: make(chan struct{}), stderr: &tailBuffer{max: 256 << 10}}
	cmd.Stderr = m.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", s.Name, err)
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
			t.Errorf("%s exited before the end of the test: %v\nstderr:\n%s", s.Name, m.waitErr, m.stderr)
			return
		default:
		}
		_ = cmd.Process.Kill()
		<-m.done
		if t.Failed() {
			t.Logf("%s stderr:\n%s", s.Name, m.stderr)
		}
	})

	timeout := s.StartTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	var line string
	select {
	case l, ok := <-lines:
		if !ok {
			<-m.done
			t.Fatalf("%s exited without its start-up line: %v\nstderr:\n%s", s.Name, m.waitErr, m.stderr)
		}
		line = l
	case <-time.After(timeout):
		t.Fatalf("%s printed no start-up line in %s\nstderr:\n%s", s.Name, timeout, m.stderr)
	}
	var start struct {
		Listening string `json:"listening"`
		Address   string `json:"address"`
		Hotkey    string `json:"hotkey"`
	}
	if err := json.Unmarshal([]byte(line), &start); err != nil || start.Listening == "" || start.Address == "" {
		t.Fatalf("%s start-up line %q: want {\"listening\":HOST:PORT,\"address\":0x...} (%v)", s.Name, line, err)
	}
	m.Endpoint, m.Address, m.Hotkey = start.Listening, start.Address, start.Hotkey
	return m
}

// Alive is nil while the process runs, else how it exited.
func (m *Miner) Alive() error {
	select {
	case <-m.done:
		if m.waitErr == nil {
			return fmt.Errorf("%s exited with status 0", m.name)
		}
		return fmt.Errorf("%s exited: %w", m.name, m.waitErr)
	default:
		return nil
	}
}

// Stderr is the tail of the miner's log.
func (m *Miner) Stderr() string { return m.stderr.String() }

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
