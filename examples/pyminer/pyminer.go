// Package pyminer runs the Python example miner (examples/py-miner) as a
// child process for tests: Launch starts `/usr/bin/python3
// examples/py-miner/miner.py` on a loopback port, waits for the JSON line
// it prints at start-up, and kills it when the test ends.
//
// The miner needs Debian's python3 with python3-websockets and
// python3-pycryptodome (apt-get install python3-websockets
// python3-pycryptodome). Without them Launch skips the test, except under
// CI=true, where it fails it.
package pyminer

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"arena/examples/minerproc"
)

// Python is Debian's interpreter, which sees the packages apt installs
// (a python3 earlier on PATH, such as pyenv's, may not).
const Python = "/usr/bin/python3"

// Options configure the miner process.
type Options struct {
	// LLMBaseURL, LLMModel and LLMAPIKey are the agent's own
	// OpenAI-compatible endpoint; without a URL the miner plays only
	// episodes whose validator relays inference.
	LLMBaseURL, LLMModel, LLMAPIKey string
	// Key is the miner's private key in hex (MINER_PRIVATE_KEY); empty:
	// a throwaway key.
	Key string
	// MaxEpisodes and MaxVersion are --max-episodes and --max-version (0:
	// the miner's defaults).
	MaxEpisodes, MaxVersion int
	// StartTimeout bounds the wait for the start-up line (default 30 s).
	StartTimeout time.Duration
}

// Dir is the miner's folder, examples/py-miner under the module root.
func Dir() (string, error) {
	root, err := minerproc.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "examples", "py-miner"), nil
}

// Available reports why the miner cannot run here (nil when it can).
func Available() error {
	if _, err := os.Stat(Python); err != nil {
		return fmt.Errorf("%s is missing (apt-get install python3)", Python)
	}
	if out, err := exec.Command(Python, "-c", "import websockets, Cryptodome.Hash.keccak").CombinedOutput(); err != nil {
		return fmt.Errorf("%s cannot import websockets and Cryptodome (apt-get install python3-websockets python3-pycryptodome): %v: %s", Python, err, out)
	}
	return nil
}

// Launch starts the miner; see minerproc.Launch.
func Launch(t testing.TB, opts Options) *minerproc.Miner {
	t.Helper()
	minerproc.Require(t, "py-miner", Available())
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(dir, "miner.py"), "--listen", "127.0.0.1:0"}
	if opts.MaxEpisodes > 0 {
		args = append(args, "--max-episodes", strconv.Itoa(opts.MaxEpisodes))
	}
	if opts.MaxVersion > 0 {
		args = append(args, "--max-version", strconv.Itoa(opts.MaxVersion))
	}
	env := append(minerproc.Environ(), "LLM_BASE_URL="+opts.LLMBaseURL, "LLM_MODEL="+opts.LLMModel, "LLM_API_KEY="+opts.LLMAPIKey,
		"PYTHONDONTWRITEBYTECODE=1")
	if opts.Key != "" {
		env = append(env, "MINER_PRIVATE_KEY="+opts.Key)
	}
	return minerproc.Launch(t, minerproc.Spec{Name: "py-miner", Program: Python, Args: args, Dir: dir, Env: env, StartTimeout: opts.StartTimeout})
}
