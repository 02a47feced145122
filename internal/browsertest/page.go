package browsertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Page is one tab that Browser.Visit loaded. Its fields are a snapshot taken
// when Visit returned, or at the last Refresh; the tab itself stays open
// until the cleanup of the test given to Visit, or Close.
type Page struct {
	URL   string // location.href (after redirects)
	Title string // document.title
	Text  string // document.body.innerText: the text a person sees
	HTML  string // document.documentElement.outerHTML, as the DOM is now

	// Problems are the console errors and warnings, uncaught exceptions,
	// CSP violations and failed or >= 400 requests that the tab reported so
	// far, one line each, in the order Chromium reported them.
	Problems []string

	ctx    context.Context // chromedp's context of the tab
	cancel context.CancelFunc
	rec    *recorder
	once   sync.Once
}

// Visit loads url in a new tab and waits until the document has loaded and
// the network has gone idle (see the package documentation), then returns a
// snapshot of the page. It fails the test if the page cannot be navigated to
// (a refused connection, say) or does not settle within 30 seconds. An HTTP
// error status is not a failure of Visit: it is one of the page's Problems.
func (b *Browser) Visit(t testing.TB, url string) *Page {
	t.Helper()
	rec := newRecorder()
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithListener(rec.listen))
	p := &Page{ctx: ctx, cancel: cancel, rec: rec}
	t.Cleanup(p.Close)

	// The first Run on a tab's context ties the tab to the context it is
	// given, so it gets ctx itself; the watchdog is the deadline. The
	// window of headless Chromium has room for a browser's toolbars, so
	// the viewport is set, not left to the window's size.
	opened := make(chan error, 1)
	go func() { opened <- chromedp.Do(ctx, chromedp.EmulateViewport(ViewportWidth, ViewportHeight)) }()
	timer := time.NewTimer(actionTimeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-opened:
	case <-timer.C:
		cancel()
		<-opened
		err = errors.New("no answer after " + actionTimeout.String())
	}
	if err != nil {
		t.Fatalf("browsertest: opening a tab for %s: %v", url, err)
	}

	actx, acancel := context.WithTimeout(ctx, actionTimeout)
	defer acancel()
	nav, err := chromedp.Call(actx, page.Navigate, page.NavigateParams{URL: url})
	if err == nil && nav.ErrorText != "" {
		err = errors.New(nav.ErrorText)
	}
	if err != nil {
		t.Fatalf("browsertest: navigating to %s: %v%s", url, err, p.problemList())
	}
	almostOnly, err := rec.waitSettled(actx, nav.FrameID, nav.LoaderID)
	if err != nil {
		t.Fatalf("browsertest: waiting for %s to load: %v%s", url, err, p.problemList())
	}
	if almostOnly {
		t.Logf("browsertest: %s never had the network fully idle (a request stays in flight); took it as loaded once at most 2 requests were", url)
	}
	p.refresh(t, actx)
	return p
}

// Refresh takes a new snapshot of the live page into the Page's fields: after
// a Click, say. It does not reload the page.
func (p *Page) Refresh(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	p.refresh(t, ctx)
}

type snapshot struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Text  string `json:"text"`
	HTML  string `json:"html"`
}

const snapshotJS = `({
	url: location.href,
	title: document.title,
	text: document.body ? document.body.innerText : "",
	html: document.documentElement ? document.documentElement.outerHTML : "",
})`

func (p *Page) refresh(t testing.TB, ctx context.Context) {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[snapshot](snapshotJS))
	if err != nil {
		t.Fatalf("browsertest: reading the page: %v%s", err, p.problemList())
	}
	p.URL, p.Title, p.Text, p.HTML = s.URL, s.Title, s.Text, s.HTML
	// The evaluation's reply came after every event the tab sent before it,
	// and the listener has seen those: Problems is up to date.
	p.Problems = p.rec.problemsNow()
}

// RequireNoProblems fails the test, listing them, if the page has Problems.
func (p *Page) RequireNoProblems(t testing.TB) {
	t.Helper()
	if len(p.Problems) > 0 {
		t.Fatalf("browsertest: %s (%s) has %d problem(s):%s", p.URL, p.Title, len(p.Problems), p.problemList())
	}
}

// problemList formats the problems recorded so far for a failure message.
func (p *Page) problemList() string {
	probs := p.rec.problemsNow()
	if len(probs) == 0 {
		return ""
	}
	return "\n\t" + strings.Join(probs, "\n\t")
}

// Screenshot captures the whole page (beyond the viewport) as a PNG, writes
// it to path (creating its directory), fails the test if the image is blank
// (see CheckNotBlank) and returns the PNG. The file is written before the
// check, so that a blank one can be looked at.
func (p *Page) Screenshot(t testing.TB, path string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	if err != nil {
		t.Fatalf("browsertest: screenshot of %s: %v", p.URL, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckNotBlank(png); err != nil {
		t.Fatalf("browsertest: screenshot of %s (%s): %v", p.URL, path, err)
	}
	return png
}

// Count returns the number of elements that match the CSS selector, now.
func (p *Page) Count(t testing.TB, selector string) int {
	t.Helper()
	sel, _ := json.Marshal(selector)
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+string(sel)+`).length`))
	if err != nil {
		t.Fatalf("browsertest: counting %q on %s: %v", selector, p.URL, err)
	}
	return n
}

// EvalJSON evaluates a JavaScript expression in the page, now, and decodes
// its value, passed through JSON.stringify, into out. It is how a test asks
// the browser what only layout knows (where a text ended up, which style
// applies); the page's Content Security Policy does not apply to it.
func (p *Page) EvalJSON(t testing.TB, expr string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	js, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify((`+expr+`))`))
	if err != nil {
		t.Fatalf("browsertest: evaluating on %s: %v", p.URL, err)
	}
	if err := json.Unmarshal([]byte(js), out); err != nil {
		t.Fatalf("browsertest: the value evaluated on %s: %v\n%.300s", p.URL, err, js)
	}
}

// Click waits until the first element that matches the CSS selector is
// visible, and clicks it with the mouse. It does not wait for what the click
// causes: follow it with WaitVisible, then Refresh.
func (p *Page) Click(t testing.TB, selector string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(selector), chromedp.NodeVisible)); err != nil {
		t.Fatalf("browsertest: clicking %q on %s: %v%s", selector, p.URL, err, p.problemList())
	}
}

// WaitVisible waits (up to 30 seconds) until an element that matches the CSS
// selector is visible.
func (p *Page) WaitVisible(t testing.TB, selector string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(selector))); err != nil {
		t.Fatalf("browsertest: waiting for %q to be visible on %s: %v%s", selector, p.URL, err, p.problemList())
	}
}

// Close closes the tab. Visit registers it with t.Cleanup; calling it
// earlier frees the tab sooner. The snapshot fields stay; the methods that
// use the live tab fail after it.
func (p *Page) Close() {
	p.once.Do(p.cancel)
}

// recorder collects, from chromedp's listener (which runs in the tab's
// event loop, in the order Chromium sent the events), the problems of a
// tab and the lifecycle events of its navigations.
type recorder struct {
	mu        sync.Mutex
	problems  []string
	requests  map[network.RequestID]string     // request id → URL, for loadingFailed
	lifecycle map[cdp.LoaderID]map[string]bool // loader → lifecycle event names seen
	documents map[cdp.FrameID][]cdp.LoaderID   // frame → the loaders of its documents, in order ("init" events)
	changed   chan struct{}                    // closed (and replaced) when lifecycle changes
}

func newRecorder() *recorder {
	return &recorder{
		requests:  make(map[network.RequestID]string),
		lifecycle: make(map[cdp.LoaderID]map[string]bool),
		documents: make(map[cdp.FrameID][]cdp.LoaderID),
		changed:   make(chan struct{}),
	}
}

func (r *recorder) problemsNow() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.problems...)
}

func (r *recorder) add(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	line = strings.Join(strings.Fields(line), " ") // one line
	r.problems = append(r.problems, line)
}

// listen is the chromedp listener. It must return quickly and send no
// command.
func (r *recorder) listen(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventLifecycleEvent:
		names := r.lifecycle[ev.LoaderID]
		if names == nil {
			names = make(map[string]bool)
			r.lifecycle[ev.LoaderID] = names
		}
		names[ev.Name] = true
		if ev.Name == "init" {
			r.documents[ev.FrameID] = append(r.documents[ev.FrameID], ev.LoaderID)
		}
		close(r.changed)
		r.changed = make(chan struct{})

	case *runtime.EventConsoleAPICalled:
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeWarning, runtime.ConsoleAPICalledTypeAssert:
			r.add("console.%s: %s%s", ev.Type, argsText(ev.Args), stackPlace(ev.StackTrace))
		}

	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		if d == nil {
			return
		}
		msg := d.Text
		if d.Exception != nil {
			desc := d.Exception.Description
			if desc == "" {
				desc = valueText(d.Exception)
			}
			desc, _, _ = strings.Cut(desc, "\n") // the first line; the stack is below it
			msg += " " + desc
		}
		place := ""
		if d.URL != "" {
			place = fmt.Sprintf(" (%s:%d:%d)", d.URL, d.LineNumber+1, d.ColumnNumber+1)
		} else {
			place = stackPlace(d.StackTrace)
		}
		r.add("exception: %s%s", msg, place)

	case *cdplog.EventEntryAdded:
		e := ev.Entry
		if e == nil || (e.Level != cdplog.EntryLevelError && e.Level != cdplog.EntryLevelWarning) {
			return
		}
		// "Failed to load resource: ..." for a request: the network
		// events below report that request, with its URL and status.
		if e.Source == cdplog.EntrySourceNetwork && e.NetworkRequestID != "" {
			return
		}
		place := ""
		if e.URL != "" {
			place = fmt.Sprintf(" (%s:%d)", e.URL, e.LineNumber+1)
		}
		r.add("console %s %s: %s%s", e.Source, e.Level, e.Text, place)

	case *network.EventRequestWillBeSent:
		if ev.Request != nil {
			r.requests[ev.RequestID] = ev.Request.URL
		}

	case *network.EventResponseReceived:
		if resp := ev.Response; resp != nil && resp.Status >= 400 && !autoFavicon(ev.Type, resp.URL) {
			r.add("HTTP %d %s: %s %s", resp.Status, resp.StatusText, ev.Type, shortURL(resp.URL))
		}

	case *network.EventLoadingFailed:
		if autoFavicon(ev.Type, r.requests[ev.RequestID]) {
			return
		}
		why := ev.ErrorText
		if ev.BlockedReason != "" {
			why += " (blocked: " + string(ev.BlockedReason) + ")"
		}
		if ev.CorsErrorStatus != nil {
			why += " (CORS: " + string(ev.CorsErrorStatus.CorsError) + ")"
		}
		if ev.Canceled {
			why += " (canceled)"
		}
		r.add("request failed: %s: %s %s", why, ev.Type, shortURL(r.requests[ev.RequestID]))
	}
}

// autoFavicon reports whether a request is the browser's own fetch of
// /favicon.ico, which Chromium makes for every page that declares no icon.
// Its failure is no problem of the page: the DevTools console does not show
// it, and whether it lands before Visit returns is a race.
func autoFavicon(typ network.ResourceType, rawURL string) bool {
	if typ != network.ResourceTypeOther {
		return false
	}
	u, err := url.Parse(rawURL)
	return err == nil && u.Path == "/favicon.ico"
}

// waitSettled waits until the navigation of loader in frame has fired
// "load" and "networkIdle". If "networkAlmostIdle" has fired and
// "networkIdle" has not come idleGrace later, it settles for that and
// reports almostOnly. When the page moves on by itself (a script's
// location.replace, a meta refresh) before it settles, it waits for the
// frame's newest document instead.
func (r *recorder) waitSettled(ctx context.Context, frame cdp.FrameID, loader cdp.LoaderID) (almostOnly bool, err error) {
	var grace <-chan time.Time
	for {
		r.mu.Lock()
		docs := r.documents[frame]
		for i, l := range docs {
			if l == loader && i < len(docs)-1 {
				loader, grace = docs[len(docs)-1], nil // a new document: start over
				break
			}
		}
		seen := r.lifecycle[loader]
		load, idle, almost := seen["load"], seen["networkIdle"], seen["networkAlmostIdle"]
		changed := r.changed
		r.mu.Unlock()
		if load && idle {
			return false, nil
		}
		if load && almost && grace == nil {
			grace = time.After(idleGrace)
		}
		select {
		case <-changed:
		case <-grace:
			return true, nil
		case <-ctx.Done():
			var got []string
			for name := range seen {
				got = append(got, name)
			}
			sort.Strings(got)
			return false, fmt.Errorf("%w (lifecycle events of the document: %s)", ctx.Err(), strings.Join(got, ", "))
		}
	}
}

// argsText formats the arguments of a console call as the console shows
// them, roughly: strings as they are, other values by their description.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, valueText(a))
	}
	return strings.Join(parts, " ")
}

func valueText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		if o.Type != runtime.RemoteObjectTypeObject {
			return string(o.Value)
		}
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

// stackPlace formats the top frame of a stack trace as " (url:line:col)".
func stackPlace(st *runtime.StackTrace) string {
	if st == nil || len(st.CallFrames) == 0 {
		return ""
	}
	f := st.CallFrames[0]
	if f.URL == "" {
		return ""
	}
	return fmt.Sprintf(" (%s:%d:%d)", f.URL, f.LineNumber+1, f.ColumnNumber+1)
}

// shortURL keeps a problem line readable when the URL is a long data: URL.
func shortURL(u string) string {
	const max = 200
	if len(u) > max {
		return u[:max] + "..."
	}
	return u
}
