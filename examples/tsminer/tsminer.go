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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"arena/examples/minerproc"
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
type Miner = minerproc.Miner

// Start launches the miner and returns its HOST:PORT and EVM address. The
// process is killed at the end of the test; if it exited before, the test
// fails.
func Start(t testing.TB, opts Options) (endpoint, address string) {
	t.Helper()
	m := Launch(t, opts)
	return m.Endpoint, m.Address
}

// Dir is the miner's folder, examples/ts-miner under the module root.
func Dir() (string, error) {
	root, err := minerproc.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "examples", "ts-miner"), nil
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
	minerproc.Require(t, "ts-miner", Available())
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
	env := append(minerproc.Environ(), "LLM_BASE_URL="+opts.LLMBaseURL, "LLM_MODEL="+opts.LLMModel)
	if opts.LLMAPIKey != "" {
		env = append(env, "LLM_API_KEY="+opts.LLMAPIKey)
	}
	if opts.Key != "" {
		env = append(env, "MINER_PRIVATE_KEY="+opts.Key)
	}
	return minerproc.Launch(t, minerproc.Spec{Name: "ts-miner", Program: node, Args: args, Dir: dir, Env: append(env, opts.Env...),
		StartTimeout: opts.StartTimeout})
}
