package browsertest

import (
	"bytes"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test left a goroutine of chromedp or a
// Chromium process behind.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "browsertest: leaked goroutines:", err)
			code = 1
		}
	}
	rootsMu.Lock()
	for _, dir := range roots {
		if pids := processesUsing(dir); len(pids) > 0 {
			fmt.Fprintf(os.Stderr, "browsertest: chromium processes %v of %s outlived their test\n", pids, dir)
			code = 1
		}
	}
	rootsMu.Unlock()
	os.Exit(code)
}

// site serves the test pages. Each test gets its own server on loopback.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	// Chromium asks for /favicon.ico by itself; a 404 there would be a
	// problem of every page.
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/content", html(`<!doctype html>
<html><head><title>Arena console</title>
<style>
body { margin: 0; font-family: sans-serif; }
header { background: #1d3557; color: #fff; padding: 24px; font-size: 28px; }
main { padding: 24px; }
td { border: 1px solid #999; padding: 4px 12px; }
</style></head>
<body><header>Arena console</header>
<main><p>Leader: <b id="leader">miner-7</b></p>
<table><tbody><tr><td>miner-1</td><td>0.25</td></tr><tr><td>miner-7</td><td>0.75</td></tr></tbody></table>
<button id="more" onclick="document.getElementById('extra').style.display='block'">More</button>
<p id="extra" style="display:none">Weights set at block 1234</p>
</main></body></html>`))
	mux.HandleFunc("/throws", html(`<!doctype html><title>throws</title><p>script errors below
<script>console.error("broken widget", 42); console.warn("careful"); console.log("fine, not a problem");</script>
<script>throw new Error("boom from the page")</script>
<script>Promise.reject(new Error("nobody caught me"))</script>`))
	mux.HandleFunc("/missing-image", html(`<!doctype html><title>img</title><p>an image: <img src="/no-such.png" alt="x">`))
	mux.HandleFunc("/csp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'")
		html(`<!doctype html><title>csp</title><p>strict CSP<script>document.title = "inline ran"</script>`)(w, r)
	})
	mux.HandleFunc("/refused-script", func(w http.ResponseWriter, r *http.Request) {
		src := "http://127.0.0.1:" + r.URL.Query().Get("port") + "/app.js"
		html(`<!doctype html><title>refused</title><p>a script from nowhere<script src="`+src+`"></script>`)(w, r)
	})
	mux.HandleFunc("/moves-on", html(`<!doctype html><title>moving</title><script>location.replace("/content")</script>`))
	mux.HandleFunc("/white", html(`<!doctype html><title>white</title><body></body>`))
	mux.HandleFunc("/", http.NotFound)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestBrowser runs the checks that need a browser in subtests of one test,
// so that they share one Chromium (starting one takes seconds here); the
// subtests run in parallel (go test's -parallel, the number of cores, at a
// time), each in its own tab, which overlaps their waits for network idle.
func TestBrowser(t *testing.T) {
	srv := site(t)
	b := Start(t)

	t.Run("content renders and is read", func(t *testing.T) {
		t.Parallel()
		p := b.Visit(t, srv.URL+"/content")
		p.RequireNoProblems(t)
		if p.Title != "Arena console" {
			t.Errorf("Title = %q", p.Title)
		}
		if p.URL != srv.URL+"/content" {
			t.Errorf("URL = %q", p.URL)
		}
		for _, want := range []string{"Arena console", "Leader: miner-7", "miner-1\t0.25"} {
			if !strings.Contains(p.Text, want) {
				t.Errorf("Text lacks %q:\n%s", want, p.Text)
			}
		}
		if strings.Contains(p.Text, "Weights set") {
			t.Errorf("Text has the hidden paragraph:\n%s", p.Text)
		}
		if !strings.Contains(p.HTML, `<b id="leader">miner-7</b>`) {
			t.Errorf("HTML lacks the leader element:\n%s", p.HTML)
		}
		if n := p.Count(t, "tbody tr"); n != 2 {
			t.Errorf("Count(tbody tr) = %d, want 2", n)
		}
		if n := p.Count(t, `td:not([class="x"])`); n != 4 { // quotes in a selector
			t.Errorf("Count(td) = %d, want 4", n)
		}
		var got struct {
			Rows   int    `json:"rows"`
			Leader string `json:"leader"`
		}
		p.EvalJSON(t, `{rows: document.querySelectorAll("tbody tr").length, leader: document.getElementById("leader").textContent}`, &got)
		if got.Rows != 2 || got.Leader != "miner-7" {
			t.Errorf("EvalJSON = %+v, want 2 rows and leader miner-7", got)
		}

		p.Click(t, "#more")
		p.WaitVisible(t, "#extra")
		p.Refresh(t)
		if !strings.Contains(p.Text, "Weights set at block 1234") {
			t.Errorf("after the click, Text lacks the shown paragraph:\n%s", p.Text)
		}
		p.RequireNoProblems(t)
	})

	t.Run("a page that moves on by itself", func(t *testing.T) {
		t.Parallel()
		p := b.Visit(t, srv.URL+"/moves-on")
		p.RequireNoProblems(t)
		if p.URL != srv.URL+"/content" || p.Title != "Arena console" {
			t.Errorf("Visit returned %s (%q), not the page that the script went to", p.URL, p.Title)
		}
	})

	t.Run("screenshot of a real page", func(t *testing.T) {
		t.Parallel()
		p := b.Visit(t, srv.URL+"/content")
		path := filepath.Join(t.TempDir(), "shots", "content.png") // Screenshot makes shots/
		shot := p.Screenshot(t, path)
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != ViewportWidth || h < ViewportHeight {
			t.Errorf("screenshot is %dx%d, want %d wide and at least %d high", w, h, ViewportWidth, ViewportHeight)
		}
		if onDisk, err := os.ReadFile(path); err != nil || !bytes.Equal(onDisk, shot) {
			t.Errorf("the file differs from the returned PNG (%v)", err)
		}
	})

	t.Run("screenshot of a white page is blank", func(t *testing.T) {
		t.Parallel()
		p := b.Visit(t, srv.URL+"/white")
		p.RequireNoProblems(t)
		path := filepath.Join(t.TempDir(), "white.png")
		ft := &fakeT{TB: t}
		ft.run(func() { p.Screenshot(ft, path) })
		if !ft.failed.Load() || !strings.Contains(ft.msg, "blank image") {
			t.Errorf("a white page's screenshot was not found blank; message %q", ft.msg)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the blank screenshot was not kept for a look: %v", err)
		}
	})

	t.Run("script errors", func(t *testing.T) {
		t.Parallel()
		p, all := problemsOf(t, b, srv.URL+"/throws")
		for _, want := range []string{
			"console.error: broken widget 42",
			"console.warning: careful",
			"exception: Uncaught Error: boom from the page",
			"nobody caught me",
		} {
			if !strings.Contains(all, want) {
				t.Errorf("no problem with %q", want)
			}
		}
		if strings.Contains(all, "fine, not a problem") {
			t.Error("console.log was reported as a problem")
		}

		ft := &fakeT{TB: t}
		ft.run(func() { p.RequireNoProblems(ft) })
		if !ft.failed.Load() || !strings.Contains(ft.msg, "boom from the page") {
			t.Errorf("RequireNoProblems did not fail listing the problems; message %q", ft.msg)
		}
	})

	t.Run("missing image", func(t *testing.T) {
		t.Parallel()
		p, all := problemsOf(t, b, srv.URL+"/missing-image")
		if !strings.Contains(all, "HTTP 404") || !strings.Contains(all, srv.URL+"/no-such.png") {
			t.Errorf("the 404 of the image is not reported")
		}
		if len(p.Problems) != 1 {
			t.Errorf("%d problems, want the one 404 alone (no duplicate log line)", len(p.Problems))
		}
	})

	t.Run("CSP violation", func(t *testing.T) {
		t.Parallel()
		p, all := problemsOf(t, b, srv.URL+"/csp")
		if p.Title == "inline ran" {
			t.Fatal("the inline script ran despite the CSP")
		}
		if !strings.Contains(all, "Content Security Policy") || !strings.Contains(all, "inline script") {
			t.Errorf("the CSP violation is not reported")
		}
	})

	t.Run("missing page", func(t *testing.T) {
		t.Parallel()
		_, all := problemsOf(t, b, srv.URL+"/nothing-here")
		if !strings.Contains(all, "HTTP 404") || !strings.Contains(all, "Document") {
			t.Errorf("the 404 of the document is not reported")
		}
	})

	t.Run("failed request", func(t *testing.T) {
		t.Parallel()
		_, all := problemsOf(t, b, srv.URL+"/refused-script?port="+closedPort(t))
		if !strings.Contains(all, "request failed: net::ERR_CONNECTION_REFUSED") {
			t.Errorf("the refused script request is not reported")
		}
	})
}

// problemsOf visits url and returns the page and its problems, joined for
// matching.
func problemsOf(t *testing.T, b *Browser, url string) (*Page, string) {
	t.Helper()
	p := b.Visit(t, url)
	t.Logf("problems of %s:\n\t%s", url, strings.Join(p.Problems, "\n\t"))
	return p, strings.Join(p.Problems, "\n")
}

// closedPort returns a loopback port that nothing listens on (it was free
// a moment ago).
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

// TestNoProcessLeft checks that a browser's processes are gone once the test
// that started it has finished.
func TestNoProcessLeft(t *testing.T) {
	srv := site(t)
	var dir string
	var pid int
	t.Run("browser", func(t *testing.T) {
		b := Start(t)
		dir, pid = b.root, b.pid()
		b.Visit(t, srv.URL+"/content").RequireNoProblems(t)
		if len(processesUsing(dir)) < 2 {
			t.Errorf("found %v as the processes of the running browser; the check below would prove nothing", processesUsing(dir))
		}
	})
	if dir == "" {
		t.Skip("no browser ran")
	}
	if pids := processesUsing(dir); len(pids) > 0 {
		t.Errorf("processes %v of the browser outlived its test", pids)
	}
	// The main process was reaped, not left a zombie.
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the browser's main process %d still exists", pid)
	}
}

// fakeT stands in for a testing.TB to see that a helper fails: Fatal and
// friends record the failure and end the goroutine, as testing's do.
type fakeT struct {
	testing.TB
	failed atomic.Bool
	msg    string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	f.failed.Store(true)
	runtime.Goexit()
}

func (f *fakeT) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	f.failed.Store(true)
	runtime.Goexit()
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	f.failed.Store(true)
}

// run calls fn in a goroutine and waits for it, so that a Fatal in fn ends
// only that goroutine.
func (f *fakeT) run(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}
