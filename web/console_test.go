package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/goleak"

	"arena/store"
	"arena/validator/records"
)

func smallArena(t *testing.T, think string) *fixtureArena {
	t.Helper()
	return buildArena(t, t.TempDir(), arenaOptions{Races: 3, Racers: 3, Problems: 4, Pool: 12, Unexposed: 4, Miners: 4, LiveRace: true, Think: think})
}

// TestOperatorPages: every page renders from the store with the facts
// it is about, and its JSON twin decodes to the same facts.
func TestOperatorPages(t *testing.T) {
	f := smallArena(t, "")
	c := newConsole(t, f, Options{})
	h := c.Operator()
	firstRaceEp := "r000001-u02-p001"
	tests := []struct {
		path string
		want []string
	}{
		{"/", []string{"Validator overview", "uid 1", "block 180", "operator-only readiness detail", "race 3", "Suite health", "<svg", `href="/api/v1/status"`}},
		{"/leaderboard", []string{"Leaderboard", "5Hotke", "not serving: axon 10.9.9.9:1 is a private address", "<svg"}},
		{"/races", []string{"4 races stored", "race 3", "defended", "crowned"}},
		{"/races/1", []string{"Race 1", "crowned", "Decision", "/episodes/" + firstRaceEp, f.hidden[1].Query, `href="/api/v1/races/1"`}},
		{"/races/4", []string{"running", "shown once it is decided"}},
		{"/episodes/" + firstRaceEp, []string{"Step 0", "Step 1", "find_product", "widget &lt;b&gt;bold&lt;/b&gt;", "cited a price", "missed: price &lt;= 100", "Ground truth"}},
		{"/episodes/q01-00", []string{"qualifying", f.public[0].Query}},
		{"/miners/1", []string{"Miner uid 1", "ws://10.0.0.1:8091", "race 3", "/episodes/r000003-u01-p000", "/episodes/q01-00", "<svg"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			code, body, hdr := get(t, h, tt.path)
			if code != http.StatusOK {
				t.Fatalf("%s: %d\n%s", tt.path, code, body)
			}
			if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("content type %q", ct)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q", tt.path, w)
				}
			}
			code, js, _ := get(t, h, tt.path+"?format=json")
			var doc map[string]any
			if code != http.StatusOK || json.Unmarshal([]byte(js), &doc) != nil {
				t.Fatalf("%s JSON twin: %d %.200s", tt.path, code, js)
			}
		})
	}
	// The judge numbers steps from 0, as the page does: its line for step
	// 1 belongs in the second step's section.
	if _, body, _ := get(t, h, "/episodes/"+firstRaceEp); strings.Index(body, "cited a price") < strings.Index(body, `id="step-1"`) {
		t.Errorf("the judge's line for step 1 is not in section step-1")
	}
	code, body, _ := get(t, h, "/episodes/"+f.liveEp)
	if code != http.StatusForbidden || !strings.Contains(body, "not decided yet") {
		t.Errorf("live episode: %d %s", code, body)
	}
	for path, want := range map[string]int{"/races/99": 404, "/races/x": 400, "/episodes/nope": 404, "/miners/77": 404, "/miners/70000": 400, "/nope": 404} {
		if code, _, _ := get(t, h, path); code != want {
			t.Errorf("%s: %d, want %d", path, code, want)
		}
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]+)"`)

// crawl fetches every page reachable from the overview through links on
// the console's own host, and each page's JSON twin, returning path ->
// body for each 200 answer.
func crawl(t *testing.T, h http.Handler) map[string]string {
	t.Helper()
	seen := map[string]string{}
	queue := []string{"/"}
	for len(queue) > 0 && len(seen) < 400 {
		p := queue[0]
		queue = queue[1:]
		if _, ok := seen[p]; ok {
			continue
		}
		code, body, _ := get(t, h, p)
		seen[p] = body
		if code != http.StatusOK {
			continue
		}
		for _, m := range hrefRE.FindAllStringSubmatch(body, -1) {
			u, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
			if err != nil || u.Host != "" || !strings.HasPrefix(u.Path, "/") {
				continue
			}
			queue = append(queue, u.RequestURI())
		}
	}
	return seen
}

// TestPublicListener: the public handler serves the pages but no operator
// endpoint, and nothing it shows, through any link or JSON twin, holds an
// unexposed problem, a live race's episodes or operator-only details.
func TestPublicListener(t *testing.T) {
	f := smallArena(t, "")
	// A decided race naming an unexposed problem cannot happen (drawing
	// exposes), but if a record said so, the pages must still withhold
	// the problem: the check is on the problem, not on how it was reached.
	secret := f.unexposed[0]
	w := &bulkWriter{st: f.v.st}
	w.put(t, f.v.rec.Races.Key(store.U64(50)), records.Race{ID: 50, Phase: records.PhaseDone, StartedBlock: 5000, Problems: []string{secret.ID},
		Racers: []records.Racer{{UID: 1, Hotkey: "5H"}}})
	w.episode(t, f.v.rec, records.Episode{Kind: records.Racing, RaceID: 50, Hotkey: "5H", ProblemType: secret.Type, Cluster: secret.Cluster,
		Trajectory: fixtureTrajectory("on-unexposed", secret, 1, "thinking")}, nil)
	// An episode whose miner could not be dialled: its end detail names
	// the miner's axon, which only the operator may see.
	dialFail := fixtureTrajectory("dial-failed", f.public[0], 2, "")
	dialFail.Steps, dialFail.EndReason = nil, "dial_failed"
	dialFail.EndDetail = "dial 10.0.0.2:8091: dial tcp 10.0.0.2:8091: connect: connection refused"
	w.episode(t, f.v.rec, records.Episode{Kind: records.Qualifying, Hotkey: fixtureHotkey(2), ProblemType: f.public[0].Type, Cluster: f.public[0].Cluster,
		Trajectory: dialFail}, nil)
	w.flush(t)
	c := newConsole(t, f, Options{PublicBurst: 100000, PublicRate: 100000})
	pub := c.Public()
	for _, path := range []string{"/episodes/dial-failed", "/episodes/dial-failed?format=json"} {
		code, body, _ := get(t, pub, path)
		if code != http.StatusOK || strings.Contains(body, "10.0.0.2") || !strings.Contains(body, "connect: connection refused") {
			t.Errorf("public %s: %d, want the reason without the address:\n%.2000s", path, code, body)
		}
		if code, body, _ := get(t, c.Operator(), path); code != http.StatusOK || !strings.Contains(body, "dial 10.0.0.2:8091") {
			t.Errorf("operator %s: %d, want the whole detail", path, code)
		}
	}
	if code, body, _ := get(t, pub, "/races/50"); code != http.StatusOK || !strings.Contains(body, "withheld") {
		t.Errorf("public race naming an unexposed problem: %d, withheld shown: %v", code, strings.Contains(body, "withheld"))
	}
	if code, _, _ := get(t, pub, "/episodes/on-unexposed"); code != http.StatusNotFound {
		t.Errorf("public episode on an unexposed problem: %d, want 404", code)
	}
	for _, p := range []string{"/api/v1/status", "/api/v1/leaderboard", "/api/v1/races", "/api/v1/episodes/q01-00", "/metrics", "/readyz", "/livez"} {
		if code, body, _ := get(t, pub, p); code != http.StatusNotFound {
			t.Errorf("public %s: %d, want 404 (%.100s)", p, code, body)
		}
	}
	if code, _, _ := get(t, pub, "/episodes/"+f.liveEp); code != http.StatusForbidden {
		t.Errorf("public live episode: %d", code)
	}
	pages := crawl(t, pub)
	if len(pages) < 20 {
		t.Fatalf("crawled only %d pages", len(pages))
	}
	// 4242 is a weight of the commit not revealed yet.
	forbidden := []string{secretMarker, "operator-only readiness detail", "10.9.9.9", "ws://10.0.0.", "0xsigned", `"salt"`, "4242", f.liveEp}
	for _, p := range f.unexposed {
		forbidden = append(forbidden, p.Query, p.ID)
	}
	for p, body := range pages {
		for _, bad := range forbidden {
			if strings.Contains(body, bad) {
				t.Errorf("public page %s shows %q", p, bad)
			}
		}
		if !strings.Contains(p, "format=json") {
			if _, ok := pages[jsonOf(p)]; !ok {
				code, body, _ := get(t, pub, jsonOf(p))
				for _, bad := range forbidden {
					if strings.Contains(body, bad) {
						t.Errorf("public JSON %s (%d) shows %q", jsonOf(p), code, bad)
					}
				}
			}
		}
	}
	// The operator pages do show the operator-only details, so the
	// public check above is not vacuous; unexposed problems show nowhere.
	op := crawl(t, c.Operator())
	joined := strings.Join(mapValues(op), "\n")
	for _, want := range []string{"operator-only readiness detail", "10.9.9.9", "ws://10.0.0.1", "4242"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no operator page shows %q", want)
		}
	}
	// The operator sees the episode's own record (its query is the
	// miner's input), but no page shows the problem's ground truth.
	for p, body := range op {
		if strings.HasPrefix(p, "/episodes/on-unexposed") {
			if strings.Contains(body, "Ground truth:") {
				t.Errorf("operator page %s shows an unexposed problem's ground truth", p)
			}
			continue
		}
		if strings.Contains(body, secretMarker) || strings.Contains(body, secret.Targets[0]) {
			t.Errorf("operator page %s shows an unexposed problem", p)
		}
	}
}

func jsonOf(p string) string {
	if strings.Contains(p, "?") {
		return p + "&format=json"
	}
	return p + "?format=json"
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestSecurityHeaders: every answer of both handlers carries the strict
// CSP; public pages are cacheable for a few seconds, operator pages not.
func TestSecurityHeaders(t *testing.T) {
	f := smallArena(t, "")
	c := newConsole(t, f, Options{})
	for _, tt := range []struct {
		h     http.Handler
		path  string
		cache string
	}{
		{c.Operator(), "/", "no-store"},
		{c.Operator(), "/nope", "no-store"},
		{c.Public(), "/", "public, max-age=5"},
		{c.Public(), "/races/1?format=json", "public, max-age=5"},
		{c.Public(), "/static/console.css", "public, max-age=3600"},
	} {
		_, _, hdr := get(t, tt.h, tt.path)
		if got := hdr.Get("Content-Security-Policy"); got != contentSecurityPolicy || !strings.Contains(got, "default-src 'none'") {
			t.Errorf("%s: CSP %q", tt.path, got)
		}
		if got := hdr.Get("Cache-Control"); got != tt.cache {
			t.Errorf("%s: Cache-Control %q, want %q", tt.path, got, tt.cache)
		}
		if hdr.Get("X-Content-Type-Options") != "nosniff" || hdr.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", tt.path, hdr)
		}
	}
	// No page has a script or a style attribute for the CSP to block.
	for p, body := range crawl(t, c.Operator()) {
		if strings.Contains(body, "<script") || strings.Contains(body, " style=") || strings.Contains(body, "<style") {
			t.Errorf("%s has inline script or style", p)
		}
	}
}

// TestPublicRateLimit: one IP past its burst gets 429 with Retry-After;
// another IP is still served.
func TestPublicRateLimit(t *testing.T) {
	f := smallArena(t, "")
	c := newConsole(t, f, Options{PublicRate: 0.5, PublicBurst: 3})
	pub := c.Public()
	fetch := func(ip string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, "/leaderboard", nil)
		req.RemoteAddr = ip + ":5555"
		rw := httptest.NewRecorder()
		pub.ServeHTTP(rw, req)
		return rw.Result()
	}
	for i := range 3 {
		if r := fetch("198.51.100.7"); r.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d", i, r.StatusCode)
		}
	}
	r := fetch("198.51.100.7")
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "2" || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("4th request: %d Retry-After %q Cache-Control %q, want 429, 2 and no-store", r.StatusCode, r.Header.Get("Retry-After"), r.Header.Get("Cache-Control"))
	}
	if r := fetch("198.51.100.8"); r.StatusCode != http.StatusOK {
		t.Errorf("another IP: %d", r.StatusCode)
	}
	// The same IPv4 address spelled as IPv4-mapped IPv6 is the same client.
	if r := fetch("[::ffff:198.51.100.7]"); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("198.51.100.7 as ::ffff:198.51.100.7: %d, want 429", r.StatusCode)
	}
	// Every address of one IPv6 /64 shares a bucket; the next /64 has its own.
	for i := range 3 {
		if r := fetch(fmt.Sprintf("[2001:db8:1:2::%x]", i+1)); r.StatusCode != http.StatusOK {
			t.Fatalf("IPv6 request %d: %d", i, r.StatusCode)
		}
	}
	if r := fetch("[2001:db8:1:2:ffff:ffff:ffff:fffe]"); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("another address of the same /64: %d, want 429", r.StatusCode)
	}
	if r := fetch("[2001:db8:1:3::1]"); r.StatusCode != http.StatusOK {
		t.Errorf("an address of the next /64: %d, want 200", r.StatusCode)
	}
	// The operator handler is never limited.
	for range 10 {
		if code, _, _ := get(t, c.Operator(), "/leaderboard"); code != http.StatusOK {
			t.Fatalf("operator: %d", code)
		}
	}
}

// TestClientKey: an IPv4 client is its address, an IPv6 one its /64.
func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"198.51.100.7:5555":          "198.51.100.7",
		"[::ffff:198.51.100.7]:5555": "198.51.100.7",
		"[2001:db8:1:2::1]:443":      "2001:db8:1:2::/64",
		"[2001:db8:1:2:a:b:c:d]:1":   "2001:db8:1:2::/64",
		"[fe80::1%eth0]:80":          "fe80::/64",
		"[::1]:80":                   "::/64",
		"2001:db8::1":                "2001:db8::/64",
		"not an address":             "not an address",
	} {
		if got := clientKey(in); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLimiterEviction: past maxTrackedIPs the limiter forgets clients
// whose bucket has refilled, and keeps a client it just limited.
func TestLimiterEviction(t *testing.T) {
	l := newIPLimiter(1, 1)
	now := time.Unix(1_700_000_000, 0)
	if ok, _ := l.allow("hot", now); !ok {
		t.Fatal("first request refused")
	}
	for i := range maxTrackedIPs {
		l.allow(fmt.Sprintf("ip%d", i), now.Add(-time.Hour))
	}
	if ok, wait := l.allow("hot", now); ok || wait <= 0 {
		t.Fatalf("second request at once allowed (%v %v)", ok, wait)
	}
	l.allow("new", now)
	if len(l.clients) > maxTrackedIPs {
		t.Fatalf("%d clients tracked, cap %d", len(l.clients), maxTrackedIPs)
	}
	if ok, _ := l.allow("hot", now); ok {
		t.Error("eviction forgot a client that is being limited")
	}
}

// TestDigestsFollowRaces: a race that is decided after the console read
// it live is shown decided at the next refresh, and a new race appears.
func TestDigestsFollowRaces(t *testing.T) {
	f := smallArena(t, "")
	c := newConsole(t, f, Options{})
	if _, body, _ := get(t, c.Operator(), "/races"); !strings.Contains(body, "running") {
		t.Fatal("the live race is not listed as running")
	}
	rec, st := f.v.rec, f.v.st
	w := &bulkWriter{st: st}
	rc := records.Race{ID: f.liveRace, Phase: records.PhaseAborted, StartedBlock: 1000, AbortReason: "validator restarted"}
	w.put(t, rec.Races.Key(store.U64(f.liveRace)), rc)
	w.put(t, rec.Races.Key(store.U64(f.liveRace+1)), records.Race{ID: f.liveRace + 1, Phase: records.PhaseRunning, StartedBlock: 1040})
	w.flush(t)
	if err := c.refreshRaces(); err != nil {
		t.Fatal(err)
	}
	_, body, _ := get(t, c.Operator(), "/races?format=json")
	var view RacesView
	if err := json.Unmarshal([]byte(body), &view); err != nil {
		t.Fatal(err)
	}
	if view.Total != 5 || view.Races[0].ID != f.liveRace+1 || view.Races[1].Phase != records.PhaseAborted {
		t.Fatalf("after refresh: %d races, newest %+v, next %+v", view.Total, view.Races[0], view.Races[1])
	}
}

// TestMain fails the package's tests when a console, store, arena or
// browser outlives its test. The two ignored functions are the devnet's
// (go-ethereum and goleveldb) that the browser test's arena starts; why
// each is safe to ignore is in chain/leak_test.go.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("github.com/ethereum/go-ethereum/core.(*txSenderCacher).cache"),
		goleak.IgnoreTopFunction("github.com/syndtr/goleveldb/leveldb.(*DB).mpoolDrain"),
	)
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven runes", 10, "eleven ru…"},
		{"żółćżółćżółć", 5, "żółć…"},
		{"ab", 1, "…"},
	} {
		if got := clip(tt.in, tt.n); got != tt.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TestStaticFilesOnly: /static/ serves the embedded files and no listing
// of them: a directory is a 404 on both handlers.
func TestStaticFilesOnly(t *testing.T) {
	f := smallArena(t, "")
	c := newConsole(t, f, Options{PublicRate: 1e9, PublicBurst: 1 << 30})
	for _, h := range []http.Handler{c.Operator(), c.Public()} {
		for _, tt := range []struct {
			path string
			want int
		}{
			{"/static/console.css", http.StatusOK},
			{"/static/icon.svg", http.StatusOK},
			{"/static/", http.StatusNotFound},
			{"/static/nope.css", http.StatusNotFound},
			{"/static/console.css/", http.StatusNotFound},
		} {
			code, body, _ := get(t, h, tt.path)
			if code != tt.want {
				t.Errorf("%s: %d, want %d", tt.path, code, tt.want)
			}
			if strings.Contains(body, `href="console.css"`) || strings.Contains(body, `href="icon.svg"`) {
				t.Errorf("%s lists the directory:\n%.300s", tt.path, body)
			}
		}
	}
}

// TestPrunedRace: once store retention deleted a race's episodes, its page
// still shows every score (from the race record), says why the cells link
// nowhere, and the deleted episodes answer 404.
func TestPrunedRace(t *testing.T) {
	f := smallArena(t, "")
	var pruned []string
	err := f.v.st.Update(func(txn *badger.Txn) error {
		ids, err := f.v.rec.RaceEpisodes(txn, 1)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := f.v.rec.PruneEpisode(txn, id); err != nil {
				return err
			}
		}
		pruned = ids
		return nil
	})
	if err != nil || len(pruned) == 0 {
		t.Fatalf("pruned %d episodes: %v", len(pruned), err)
	}
	c := newConsole(t, f, Options{PublicRate: 1e9, PublicBurst: 1 << 30})
	for _, h := range []http.Handler{c.Operator(), c.Public()} {
		code, body, _ := get(t, h, "/races/1")
		if code != http.StatusOK || !strings.Contains(body, "store retention") || strings.Contains(body, `href="/episodes/`) {
			t.Errorf("/races/1: %d, retention note %v, episode links %v", code, strings.Contains(body, "store retention"), strings.Contains(body, `href="/episodes/`))
		}
		_, js, _ := get(t, h, "/races/1?format=json")
		var view RaceView
		if err := json.Unmarshal([]byte(js), &view); err != nil {
			t.Fatal(err)
		}
		scores := 0
		for _, r := range view.Grid {
			for _, cell := range r.Cells {
				if cell.Score != nil {
					scores++
				}
			}
		}
		if view.EpisodesPruned != len(pruned) || scores != len(pruned) {
			t.Errorf("race 1's twin: %d pruned, %d scores; want %d of each", view.EpisodesPruned, scores, len(pruned))
		}
		if code, _, _ := get(t, h, "/episodes/"+pruned[0]); code != http.StatusNotFound {
			t.Errorf("a pruned episode: %d, want 404", code)
		}
	}
}
