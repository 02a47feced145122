package browsertest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Executable is the name of the browser binary that Start looks for in PATH:
// Debian's package chromium installs /usr/bin/chromium.
const Executable = "chromium"

// Timeouts. They are generous because the machines have 2 cores shared with
// other tests; a healthy local page takes well under a second.
const (
	startTimeout  = 60 * time.Second // until Chromium answers on its pipe
	actionTimeout = 30 * time.Second // one Visit, Click, Screenshot, ...
	closeTimeout  = 10 * time.Second // graceful Browser.close
	// idleGrace is how long Visit waits for networkIdle once
	// networkAlmostIdle has fired, before accepting the latter.
	idleGrace = 3 * time.Second
)

// ViewportWidth and ViewportHeight are the size of the viewport that every
// tab lays its page out in (a desktop screen). Screenshots are full-page: as
// wide as the viewport and as tall as the page, at least the viewport.
const (
	ViewportWidth  = 1280
	ViewportHeight = 800
)

// Browser is one headless Chromium process, started by Start for one test.
type Browser struct {
	ctx  context.Context // chromedp's context of the browser's first tab
	root string          // a t.TempDir for the profile, config and cache; every process of this browser names it
	out  *tailBuffer     // Chromium's stdout and stderr, the last part of it
	log  *testLog
}

// Start launches a headless Chromium for the test and returns it; t.Cleanup
// closes it, kills any process of it that is left and waits for chromedp's
// goroutines, so that nothing outlives the test.
//
// Without the chromium binary, Start skips the test with t.Skip, unless the
// environment variable CI is "true", in which case it fails the test.
func Start(t testing.TB) *Browser {
	t.Helper()
	execPath, err := exec.LookPath(Executable)
	if err != nil {
		const msg = "browsertest: no " + Executable + " in PATH; install it with `apt-get install --no-install-recommends chromium`"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true, where .ci/run installs it, so browser tests fail instead of skipping)")
		}
		t.Skip(msg)
	}

	b := &Browser{
		root: t.TempDir(), // removed after our cleanup below, which runs first
		out:  &tailBuffer{max: 16 << 10},
		log:  &testLog{t: t},
	}
	registerRoot(b.root)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath),
		chromedp.UserDataDir(filepath.Join(b.root, "profile")),
		// Chromium keeps its crash reports (and GTK its dconf cache) under
		// XDG_CONFIG_HOME and XDG_CACHE_HOME, ~/.config and ~/.cache by
		// default, even with --user-data-dir. Keep them in the test's
		// directory too; then the two chrome_crashpad_handler daemons that
		// Debian's chromium starts outside its process tree name it in
		// their command lines as well, and killLeftovers finds them.
		chromedp.Env("XDG_CONFIG_HOME="+filepath.Join(b.root, "config"), "XDG_CACHE_HOME="+filepath.Join(b.root, "cache")),
		chromedp.NoSandbox, // required as root, which the project's machines run as
		chromedp.DisableGPU,
		chromedp.WindowSize(ViewportWidth, ViewportHeight), // Visit sets the viewport itself
		chromedp.CombinedOutput(b.out),
		// No traffic of Chromium's own: the network is closed, and each
		// attempt is a refused connection (and noise in its log).
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater"),
	)
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx,
		chromedp.WithErrorf(b.log.logf("chromedp error: ")),
		chromedp.WithBrowserOption(chromedp.WithBrowserErrorf(b.log.logf("chromedp browser error: "))),
	)
	b.ctx = ctx

	var once sync.Once
	closeBrowser := func() {
		once.Do(func() {
			// Graceful first (Browser.close lets Chromium shut its children
			// down), then the hard way: cancel kills the main process, and
			// allocCancel waits until it is reaped and its output read.
			cctx, ccancel := context.WithTimeout(ctx, closeTimeout)
			err := chromedp.Cancel(cctx)
			ccancel()
			cancel()
			allocCancel()
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				t.Logf("browsertest: closing chromium: %v", err)
			}
			// Children of Chromium (zygote, renderers, utility processes)
			// can outlive the main process for a moment.
			if n := killLeftovers(b.root); n > 0 {
				t.Logf("browsertest: killed %d leftover chromium process(es)", n)
			}
			b.log.close()
		})
	}
	t.Cleanup(closeBrowser)

	// The first Run starts the browser and ties its life to the context it
	// is given, so it gets ctx itself, with a watchdog instead of a timeout.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case err = <-started:
	case <-timer.C:
		cancel()
		<-started
		err = errors.New("no answer after " + startTimeout.String())
	}
	if err != nil {
		closeBrowser()
		t.Fatalf("browsertest: starting %s: %v\nchromium output (tail):\n%s", execPath, err, b.out.String())
	}
	return b
}

// Output returns the last part of what Chromium wrote to stdout and stderr,
// for a failure message.
func (b *Browser) Output() string { return b.out.String() }

// pid returns the process id of the browser's main process.
func (b *Browser) pid() int {
	if c := chromedp.FromContext(b.ctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			return p.Pid
		}
	}
	return 0
}

// testLog forwards chromedp's log lines to t.Logf until the browser is
// closed, and drops them after that: a goroutine of chromedp that logs late
// must not call t.Logf after the test has finished, which panics.
type testLog struct {
	mu     sync.Mutex
	t      testing.TB
	closed bool
}

func (l *testLog) logf(prefix string) func(string, ...any) {
	return func(format string, args ...any) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.closed {
			l.t.Logf("browsertest: "+prefix+format, args...)
		}
	}
}

func (l *testLog) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// roots are the directories of every browser that Start launched in this
// process, for the package's own leak check.
var (
	rootsMu sync.Mutex
	roots   []string
)

func registerRoot(dir string) {
	rootsMu.Lock()
	roots = append(roots, dir)
	rootsMu.Unlock()
}

// killLeftovers kills the processes whose command line names a file under
// root (see processesUsing), until none has shown up for a few passes, and
// returns how many it killed. root is a fresh t.TempDir, so this finds
// exactly one browser's processes.
func killLeftovers(root string) int {
	const (
		quietPasses = 3
		pause       = 10 * time.Millisecond
		limit       = 3 * time.Second
	)
	killed := 0
	deadline := time.Now().Add(limit)
	for quiet := 0; quiet < quietPasses && time.Now().Before(deadline); time.Sleep(pause) {
		pids := processesUsing(root)
		if len(pids) == 0 {
			quiet++
			continue
		}
		quiet = 0
		for _, pid := range pids {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
	}
	return killed
}

// processesUsing returns the live processes (zombies excluded: their command
// line reads empty) whose command line names root or a file under it.
// Chromium passes --user-data-dir=root/profile on to each of its children,
// and the crash handlers get --database=root/config/...; the zygote rewrites
// the command line of the processes it forks into one string with spaces
// (setproctitle), so this looks for a substring, not a whole argument.
func processesUsing(root string) []int {
	root = filepath.Clean(root)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if namesPath(cmdline, root) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// namesPath reports whether cmdline has root in it, followed by a slash, a
// NUL, a space or the end: root itself or a path under it, not
// root + "0/...".
func namesPath(cmdline []byte, root string) bool {
	for i := 0; ; {
		j := bytes.Index(cmdline[i:], []byte(root))
		if j < 0 {
			return false
		}
		end := i + j + len(root)
		if end == len(cmdline) || cmdline[end] == '/' || cmdline[end] == 0 || cmdline[end] == ' ' {
			return true
		}
		i = end
	}
}
