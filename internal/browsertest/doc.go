// Package browsertest drives Debian's real Chromium from Go tests, through
// the Chrome DevTools Protocol (github.com/chromedp/chromedp), so that a test
// can load a page as a person's browser would and fail on what a person
// would see go wrong: a script error, a failed request, a Content Security
// Policy violation, a blank page.
//
// # Use
//
//	func TestConsole(t *testing.T) {
//		srv := httptest.NewServer(handler) // on loopback
//		t.Cleanup(srv.Close)
//
//		b := browsertest.Start(t)    // one headless Chromium for this test (skips without chromium)
//		p := b.Visit(t, srv.URL+"/") // a new tab; waits for load and network idle
//		p.RequireNoProblems(t)       // console errors/warnings, exceptions, CSP, >= 400, failed requests
//		if !strings.Contains(p.Text, "Leader") {
//			t.Errorf("page text: %q", p.Text)
//		}
//		p.Screenshot(t, filepath.Join(t.TempDir(), "console.png")) // fails on a blank page
//
//		p.Click(t, "#tab-miners") // the tab stays live until the test's cleanup
//		p.WaitVisible(t, "#miners table")
//		p.Refresh(t) // a new snapshot: URL, Title, Text, HTML, Problems
//		if n := p.Count(t, "#miners tbody tr"); n != 8 {
//			t.Errorf("%d miner rows", n)
//		}
//		p.RequireNoProblems(t)
//	}
//
// Starting Chromium takes a few seconds on the project's 2-core machines and
// a Visit one or two, so share one browser between the subtests of a test
// (call Start with the parent) rather than starting one per subtest.
//
// # Lifetimes
//
// [Start] launches one Chromium per call. The cleanup it registers closes
// the browser gracefully, kills whatever of it is left and waits for
// chromedp's goroutines, so that no process and no goroutine outlives the
// test. The browser's profile, config and cache live in a fresh t.TempDir,
// and every process of the browser names that directory in its command line,
// the two chrome_crashpad_handler daemons that Debian's chromium forks off
// outside its process tree included; that is how the leftovers are found.
//
// [Browser.Visit] opens one tab per call, with a 1280x800 viewport, and
// keeps it open until the cleanup of the t given to Visit (or [Page.Close]),
// so that [Page.Screenshot], [Page.Click], [Page.Count] and
// [Page.WaitVisible] work on the live page. The Page's fields are a snapshot
// taken when Visit returned, or at the last [Page.Refresh]. The methods of
// one Page must not be called from several goroutines at once; different
// Pages may be.
//
// # What counts as a problem
//
// Problems holds, one line each, in the order Chromium reported them:
//   - console.error, console.warn and console.assert calls;
//   - uncaught exceptions and unhandled promise rejections;
//   - browser log entries of level error or warning. That is where Chromium
//     reports a Content Security Policy violation (Chromium 148 words it
//     "console security error: Executing inline script violates the
//     following Content Security Policy directive ..."), and deprecations
//     and interventions;
//   - responses with HTTP status >= 400 (Network.responseReceived), the main
//     document's included;
//   - requests that failed (Network.loadingFailed): refused connections,
//     requests blocked by CSP or CORS, aborted loads.
//
// Left out: Chromium's own "Failed to load resource" log line for a request
// (the network event already reports that request, with its URL), and the
// browser's automatic request for /favicon.ico (a 404 there is no error in
// the DevTools console, and whether it lands before Visit returns is a race).
//
// # When Visit returns
//
// Visit waits for the document's "load" and then for Chromium's
// "networkIdle" lifecycle event of that navigation (no request in flight for
// 500ms): events, not sleeps. If the page moves on by itself first (a
// script's location.replace), it waits for the newest document instead. A
// page that never goes fully idle (a long poll or an EventSource stays in
// flight) is taken as loaded 3 seconds after "networkAlmostIdle" (at most
// two requests in flight), with a note in the test log. Problems that a page
// reports later, from a timer say, are in the next [Page.Refresh].
//
// # Without Chromium
//
// Start looks for the chromium binary in PATH (Debian's package chromium:
// apt-get install --no-install-recommends chromium). Without it the test is
// skipped, unless the environment variable CI is "true", in which case it
// fails: .ci/run installs chromium, so a missing browser there is a bug.
//
// # Chromium on the project's machines
//
// The machines run as root on a closed network. Chromium therefore starts
// headless with --no-sandbox (required as root) and --disable-gpu (software
// rendering), and with its own traffic off (--disable-background-networking,
// --disable-component-update, --disable-sync, --disable-quic, --no-pings,
// --no-first-run and a few features): without those flags it keeps trying
// to reach Google's services, which only makes refused connections here.
// Serve the pages under test on loopback (httptest.NewServer does).
// Chromium's own output, which [Browser.Output] returns for a failure
// message, is then mostly harmless noise about the missing D-Bus.
package browsertest
