package validator

import (
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
	"arena/validator/records"
)

// runServer serves s until the test ends and returns its base URL.
func runServer(t *testing.T, s *Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return "http://" + s.Addr()
}

// fetch does one request and returns the status code and the body.
func fetch(t *testing.T, method, url, auth string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestAPIListenerLoopback: the API (every miner's trajectories) binds
// loopback by default and refuses any other address, the all-interfaces
// forms included, unless a bearer token guards it. The metrics listener
// may bind anywhere: it serves numbers and health only.
func TestAPIListenerLoopback(t *testing.T) {
	host, _, err := net.SplitHostPort(config.Default().API.Listen)
	if err != nil || !config.IsLoopbackHost(host) {
		t.Fatalf("default api.listen %q is not loopback", config.Default().API.Listen)
	}
	for _, tt := range []struct {
		listen   string
		loopback bool
	}{
		{"127.0.0.1:0", true}, {"localhost:0", true}, {"[::1]:0", true},
		{"0.0.0.0:0", false}, {":0", false}, {"[::]:0", false},
	} {
		t.Run(tt.listen, func(t *testing.T) {
			s, err := NewAPIServer(APIServerOptions{Listen: tt.listen}, zerolog.Nop(), nil)
			switch {
			case err != nil && strings.HasPrefix(tt.listen, "[") && !strings.Contains(err.Error(), "loopback"):
				t.Skipf("cannot bind %s here: %v", tt.listen, err)
			case tt.loopback && err != nil:
				t.Fatal(err)
			case !tt.loopback && (err == nil || !strings.Contains(err.Error(), "not a loopback address")):
				t.Fatalf("API on %s without a token: err %v, want a refusal", tt.listen, err)
			}
			if s != nil {
				s.ln.Close()
			}
			if tt.loopback {
				return
			}
			s, err = NewAPIServer(APIServerOptions{Listen: tt.listen, Token: "t0ken"}, zerolog.Nop(), nil)
			if err != nil {
				if strings.HasPrefix(tt.listen, "[") {
					t.Skipf("cannot bind %s here: %v", tt.listen, err)
				}
				t.Fatalf("API on %s with a token: %v", tt.listen, err)
			}
			s.ln.Close()
			m, err := NewServer(ServerOptions{Listen: tt.listen, Gatherer: prometheus.NewRegistry()}, zerolog.Nop())
			if err != nil {
				t.Fatalf("metrics on %s: %v", tt.listen, err)
			}
			m.ln.Close()
		})
	}
}

// TestListenersServeOnlyTheirRoutes: the metrics listener answers 404 for
// every API path and the API listener 404 for metrics and health, so
// publishing the metrics port publishes nothing else. Both accept GET only.
func TestListenersServeOnlyTheirRoutes(t *testing.T) {
	m, err := NewServer(ServerOptions{Listen: "127.0.0.1:0", Gatherer: prometheus.NewRegistry()}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAPIServer(APIServerOptions{Listen: "127.0.0.1:0"}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	metrics, api := runServer(t, m), runServer(t, a)
	apiPaths := []string{"/api/v1/status", "/api/v1/leaderboard", "/api/v1/races", "/api/v1/races/1", "/api/v1/episodes/x"}
	for _, p := range apiPaths {
		if code, _, _ := fetch(t, http.MethodGet, metrics+p, ""); code != http.StatusNotFound {
			t.Errorf("metrics listener GET %s: %d, want 404", p, code)
		}
	}
	for _, p := range []string{"/metrics", "/livez", "/readyz"} {
		if code, _, _ := fetch(t, http.MethodGet, api+p, ""); code != http.StatusNotFound {
			t.Errorf("API listener GET %s: %d, want 404", p, code)
		}
	}
	for _, p := range []string{"/metrics", "/livez"} {
		if code, _, _ := fetch(t, http.MethodGet, metrics+p, ""); code != http.StatusOK {
			t.Errorf("metrics listener GET %s: %d, want 200", p, code)
		}
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		for _, u := range append([]string{metrics + "/metrics", metrics + "/livez", metrics + "/readyz"}, prefixAll(api, apiPaths)...) {
			if code, _, _ := fetch(t, method, u, ""); code != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %d, want 405", method, u, code)
			}
		}
	}
}

func prefixAll(base string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = base + p
	}
	return out
}

// TestAPIBearerToken: with a token, a request without it, or with another,
// gets 401 and a WWW-Authenticate challenge; with it, the request reaches
// the handler (here a bad race id: 400).
func TestAPIBearerToken(t *testing.T) {
	a, err := NewAPIServer(APIServerOptions{Listen: "127.0.0.1:0", Token: "s3cret-token"}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	url := runServer(t, a) + "/api/v1/races/x"
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong", http.StatusUnauthorized},
		{"Bearer s3cret-token-and-more", http.StatusUnauthorized},
		{"Basic s3cret-token", http.StatusUnauthorized},
		{"Bearer s3cret-token", http.StatusBadRequest},
	} {
		code, body, hdr := fetch(t, http.MethodGet, url, tc.auth)
		if code != tc.want {
			t.Errorf("Authorization %q: %d %s, want %d", tc.auth, code, body, tc.want)
		}
		if code == http.StatusUnauthorized && (!strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") || strings.Contains(body, "s3cret")) {
			t.Errorf("401 without a Bearer challenge, or echoing the token: %v %s", hdr, body)
		}
	}
}

// TestConsolePagesBehindToken: the console's pages share the API's
// listener and token; a browser gives the token as the Basic password
// (any user name) and is asked for it with a Basic challenge. The API
// itself takes the same Basic credentials.
func TestConsolePagesBehindToken(t *testing.T) {
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "page "+r.URL.Path) })
	a, err := NewAPIServer(APIServerOptions{Listen: "127.0.0.1:0", Token: "s3cret-token", Pages: pages}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	base := runServer(t, a)
	basic := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	for _, tc := range []struct {
		path, auth string
		want       int
		challenge  string
	}{
		{"/", "", http.StatusUnauthorized, "Basic"},
		{"/races/3", basic("me", "wrong"), http.StatusUnauthorized, "Basic"},
		{"/races/3", basic("anyone", "s3cret-token"), http.StatusOK, ""},
		{"/", "Bearer s3cret-token", http.StatusOK, ""},
		{"/api/v1/races/x", basic("", "s3cret-token"), http.StatusBadRequest, ""},
		{"/api/v1/races/x", "", http.StatusUnauthorized, "Bearer"},
	} {
		code, body, hdr := fetch(t, http.MethodGet, base+tc.path, tc.auth)
		if code != tc.want {
			t.Errorf("%s with %q: %d %s, want %d", tc.path, tc.auth, code, body, tc.want)
		}
		if tc.challenge != "" && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), tc.challenge) {
			t.Errorf("%s: challenge %q, want %s", tc.path, hdr.Get("WWW-Authenticate"), tc.challenge)
		}
		if code == http.StatusOK && !strings.HasPrefix(body, "page ") && !strings.HasPrefix(tc.path, "/api/") {
			t.Errorf("%s: %q, want the page", tc.path, body)
		}
	}
	// Each API answer names its page, which links back to its JSON.
	for api, page := range map[string]string{"/api/v1/races/x": "/races/x", "/api/v1/races/y": "/races/y"} {
		_, _, hdr := fetch(t, http.MethodGet, base+api, "Bearer s3cret-token")
		if want := "<" + page + `>; rel="alternate"; type="text/html"`; hdr.Get("Link") != want {
			t.Errorf("%s: Link %q, want %q", api, hdr.Get("Link"), want)
		}
	}
	// A method other than GET on a page is the mux's 405, as on the API.
	if code, _, _ := fetch(t, http.MethodPost, base+"/", "Bearer s3cret-token"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d, want 405", code)
	}
}

// TestPublicServerServesOnlyItsHandler: the public listener has no API,
// metrics or health route of its own.
func TestPublicServerServesOnlyItsHandler(t *testing.T) {
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	p, err := NewPublicServer(PublicServerOptions{Listen: "127.0.0.1:0", Pages: pages}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	base := runServer(t, p)
	for _, path := range []string{"/api/v1/status", "/metrics", "/readyz", "/livez"} {
		if code, _, _ := fetch(t, http.MethodGet, base+path, ""); code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, code)
		}
	}
	if _, err := NewPublicServer(PublicServerOptions{Listen: "127.0.0.1:0"}, zerolog.Nop()); err == nil {
		t.Error("a public server without pages was built")
	}
}

// TestLinkPages: each API path names its console page.
func TestLinkPages(t *testing.T) {
	h := linkPages(http.NotFoundHandler())
	for api, want := range map[string]string{
		"/api/v1/status": "</>; rel=\"alternate\"; type=\"text/html\"", "/api/v1/leaderboard": "</leaderboard>; rel=\"alternate\"; type=\"text/html\"",
		"/api/v1/episodes/e1": "</episodes/e1>; rel=\"alternate\"; type=\"text/html\"", "/api/v1/": "", "/races": "",
	} {
		rw := httptest.NewRecorder()
		h.ServeHTTP(rw, httptest.NewRequest(http.MethodGet, api, nil))
		if got := rw.Header().Get("Link"); got != want {
			t.Errorf("%s: Link %q, want %q", api, got, want)
		}
	}
}

// TestAPIHostGuard: on a real listener, a request whose Host header names
// anything but the configured listen host, loopback or api.allowed_hosts
// (a DNS-rebinding page: attacker.example resolved to 127.0.0.1) gets 421
// with nothing of the validator in it, before the token is even asked
// for, and one whose Origin is another site gets 403; the operator's own
// names reach the API and the pages. The unrevealed commit's salt stands
// for what the status would hand a rebinding page.
func TestAPIHostGuard(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	salt := []uint16{31337, 27183}
	err := h.store.Update(func(txn *badger.Txn) error {
		return h.v.rec.PutSubmission(txn, &records.Submission{Window: 3, Op: "commit", Status: records.StatusCommitted, UIDs: []uint16{1}, Values: []uint16{65535},
			Salt: salt, CommitHash: "0xc0ffee", TxHash: "0xabc", CreatedBlock: 2, Block: 3})
	})
	if err != nil {
		t.Fatal(err)
	}
	pages := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "operator page "+r.URL.Path) })
	for _, listener := range []struct {
		name   string
		listen string
		token  string
	}{
		{"loopback without a token", "127.0.0.1:0", ""},
		{"configured host with a token", "127.0.0.2:0", "s3cret-token"},
	} {
		t.Run(listener.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			a, err := NewAPIServer(APIServerOptions{Listen: listener.listen, Validator: h.v, Pages: pages, Token: listener.token,
				AllowedHosts: []string{"validator.example.org", "2001:db8::7"}}, zerolog.Nop(), reg)
			if err != nil {
				t.Fatal(err)
			}
			base := runServer(t, a)
			_, port, err := net.SplitHostPort(a.Addr())
			if err != nil {
				t.Fatal(err)
			}
			listenHost, _, _ := net.SplitHostPort(listener.listen)
			auth := ""
			if listener.token != "" {
				auth = "Bearer " + listener.token
			}
			for _, tt := range []struct {
				host, origin string
				want         int
			}{
				{"attacker.example:" + port, "", http.StatusMisdirectedRequest},
				{"attacker.example", "", http.StatusMisdirectedRequest},
				{"localhost.attacker.example:" + port, "", http.StatusMisdirectedRequest},
				{"127.0.0.1.nip.io:" + port, "", http.StatusMisdirectedRequest},
				{"10.0.0.9:" + port, "", http.StatusMisdirectedRequest},
				{"attacker.example:" + port, "http://attacker.example:" + port, http.StatusMisdirectedRequest},
				{listenHost + ":" + port, "", http.StatusOK},
				{"localhost:" + port, "", http.StatusOK},
				{"LocalHost.:" + port, "", http.StatusOK},
				{"127.0.0.1:" + port, "", http.StatusOK},
				{"[::1]:" + port, "", http.StatusOK},
				{"validator.example.org", "", http.StatusOK},
				{"Validator.Example.org:443", "", http.StatusOK},
				{"[2001:db8::7]:" + port, "", http.StatusOK},
				{"localhost:" + port, "http://localhost:" + port, http.StatusOK},
				{"validator.example.org", "https://validator.example.org", http.StatusOK},
				{"localhost:" + port, "http://attacker.example:" + port, http.StatusForbidden},
				{"localhost:" + port, "http://localhost:1", http.StatusForbidden},
				{"localhost:" + port, "null", http.StatusForbidden},
			} {
				for _, path := range []string{"/api/v1/status", "/", "/races/1"} {
					req, err := http.NewRequest(http.MethodGet, base+path, nil)
					if err != nil {
						t.Fatal(err)
					}
					req.Host = tt.host
					if tt.origin != "" {
						req.Header.Set("Origin", tt.origin)
					}
					if auth != "" {
						req.Header.Set("Authorization", auth)
					}
					resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
					if err != nil {
						t.Fatal(err)
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != tt.want {
						t.Errorf("GET %s Host %q Origin %q: %d, want %d\n%.300s", path, tt.host, tt.origin, resp.StatusCode, tt.want, body)
						continue
					}
					leaked := strings.Contains(string(body), "31337") || strings.Contains(string(body), "operator page") || strings.Contains(string(body), h.v.opts.Signer.Address.Hex())
					switch {
					case tt.want != http.StatusOK && leaked:
						t.Errorf("GET %s Host %q Origin %q: refused but the body has the validator's data:\n%.300s", path, tt.host, tt.origin, body)
					case tt.want != http.StatusOK && resp.Header.Get("WWW-Authenticate") != "":
						t.Errorf("GET %s Host %q: refused with a credentials challenge", path, tt.host)
					case tt.want == http.StatusOK && !leaked:
						t.Errorf("GET %s Host %q: served, but not the status or page:\n%.300s", path, tt.host, body)
					}
				}
			}
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			refused := map[string]float64{}
			for _, mf := range mfs {
				for _, m := range mf.GetMetric() {
					refused[m.GetLabel()[0].GetValue()] += m.GetCounter().GetValue()
				}
			}
			if refused["host"] != 18 || refused["origin"] != 9 {
				t.Errorf("arena_api_refused_requests_total: %v, want host 18 and origin 9", refused)
			}
		})
	}
}
