package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arena/suite"
	"arena/validator"
)

// TestStatusFindsTheAPI: `arena status` dials api.listen from --config
// (or ARENA_API_LISTEN) unless --api is given, sends the bearer token of
// api.token_file, reaches a wildcard listen address on loopback, and
// answers a config it cannot read, or a listen address it cannot dial,
// with one error line.
func TestStatusFindsTheAPI(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-123" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		var doc any
		switch r.URL.Path {
		case "/api/v1/status":
			doc = validator.Status{Validator: "0xF28C05d06f838B10b3232714521A4AE41768223F", UID: 0, Netuid: 15, HeadBlock: 4242, Phase: "idle"}
		case "/api/v1/leaderboard":
			doc = []validator.LeaderboardRow{}
		default:
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(api.Close)
	_, port, err := net.SplitHostPort(api.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	dead := closedPort(t)

	dir := t.TempDir()
	token := filepath.Join(dir, "api.token")
	if err := os.WriteFile(token, []byte("tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := func(name, listen string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("api:\n  listen: \""+listen+"\"\n  allow_remote: true\n  token_file: "+token+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	live := config("live.yaml", api.Listener.Addr().String())
	wildcard := config("wildcard.yaml", ":"+port)
	unreachable := config("dead.yaml", dead)
	_, deadPort, err := net.SplitHostPort(dead)
	if err != nil {
		t.Fatal(err)
	}
	deadWildcard := config("dead-wildcard.yaml", "0.0.0.0:"+deadPort)
	random := config("random.yaml", "127.0.0.1:0")

	tests := []struct {
		name    string
		environ []string
		args    []string
		wantOut string // on success
		wantErr string // in the one error line
	}{
		{"listen from --config", nil, []string{"--config", live, "status"}, "block 4242", ""},
		{"wildcard listen dialled on loopback", nil, []string{"--config", wildcard, "status"}, "block 4242", ""},
		{"listen from the environment", []string{"ARENA_API_LISTEN=" + api.Listener.Addr().String(), "ARENA_API_TOKEN_FILE=" + token}, []string{"status"}, "block 4242", ""},
		{"no token", []string{"ARENA_API_LISTEN=" + api.Listener.Addr().String()}, []string{"status"}, "", "401 Unauthorized"},
		{"--api wins over --config", nil, []string{"--config", unreachable, "status", "--api", api.URL}, "block 4242", ""},
		{"--config is dialled, not the default", nil, []string{"--config", unreachable, "status"}, "", "http://" + dead + "/api/v1/status"},
		{"wildcard named as loopback", nil, []string{"--config", deadWildcard, "status"}, "", "http://127.0.0.1:" + deadPort + "/api/v1/status"},
		{"missing config file", nil, []string{"--config", filepath.Join(dir, "nope.yaml"), "status", "--api", api.URL}, "", "nope.yaml: no such file or directory"},
		{"unreadable config file", nil, []string{"--config", dir, "status"}, "", "is a directory"},
		{"random listen port", nil, []string{"--config", random, "status"}, "", "pass --api"},
		{"bad --api", nil, []string{"status", "--api", "127.0.0.1:9100"}, "", "must be an http or https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.environ, tt.args...)
			if tt.wantErr == "" {
				if code != 0 || !strings.Contains(stdout, tt.wantOut) {
					t.Fatalf("exit %d, stdout %q, stderr %q; want exit 0 and %q", code, stdout, stderr, tt.wantOut)
				}
				return
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if code == 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], "arena: ") || !strings.Contains(lines[0], tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want one arena: line containing %q", code, stderr, tt.wantErr)
			}
		})
	}
}

// TestStatusTokenStaysWithTheAPI: `arena status` sends the bearer token
// only to the API's own scheme, host and port. A redirect to another
// server (another host name, or another port of the same host, which Go's
// client alone would send a request header to) is refused with one error
// line, and the other server never sees the token; a redirect within the
// API is followed with it.
func TestStatusTokenStaysWithTheAPI(t *testing.T) {
	type seen struct{ path, auth string }
	record := make(chan seen, 16)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record <- seen{r.URL.Path, r.Header.Get("Authorization")}
		_ = json.NewEncoder(w).Encode(validator.Status{HeadBlock: 666})
	}))
	t.Cleanup(other.Close)
	_, otherPort, err := net.SplitHostPort(other.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	var redirectTo string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-456" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/api/v1/status":
			http.Redirect(w, r, redirectTo, http.StatusFound)
		case "/api/v1/status/moved":
			_ = json.NewEncoder(w).Encode(validator.Status{HeadBlock: 4243})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(api.Close)
	dir := t.TempDir()
	token := filepath.Join(dir, "api.token")
	if err := os.WriteFile(token, []byte("tok-456\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"ARENA_API_TOKEN_FILE=" + token}
	for _, tt := range []struct {
		name     string
		to       string
		wantOut  string
		wantErr  string
		wantSeen int // requests the other server got
	}{
		{"same host, other port", other.URL + "/api/v1/status", "", "not the validator API's host", 0},
		{"other host name", "http://localhost:" + otherPort + "/api/v1/status", "", "not the validator API's host", 0},
		{"within the API", "/api/v1/status/moved", "4243", "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			redirectTo = tt.to
			code, stdout, stderr := runCLI(t, env, "status", "--json", "--api", api.URL)
			if tt.wantErr == "" {
				if code != 0 || !strings.Contains(stdout, tt.wantOut) {
					t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, tt.wantOut)
				}
			} else if lines := strings.Split(strings.TrimSpace(stderr), "\n"); code == 0 || len(lines) != 1 || !strings.Contains(lines[0], tt.wantErr) {
				t.Fatalf("exit %d, stderr %q; want one line containing %q", code, stderr, tt.wantErr)
			}
			drain := func() []seen {
				var out []seen
				for {
					select {
					case s := <-record:
						out = append(out, s)
					default:
						return out
					}
				}
			}
			got := drain()
			if len(got) != tt.wantSeen {
				t.Errorf("the other server got %d requests, want %d: %+v", len(got), tt.wantSeen, got)
			}
			for _, s := range got {
				if s.auth != "" {
					t.Errorf("the other server got %s with Authorization %q", s.path, s.auth)
				}
			}
		})
	}
}

// TestAPIClientBindsTheToken: the transport adds the token for the API's
// origin only, whatever a request names, so no code path that builds a
// request to another origin can carry it.
func TestAPIClientBindsTheToken(t *testing.T) {
	type seen struct{ host, auth string }
	record := make(chan seen, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record <- seen{r.Host, r.Header.Get("Authorization")}
	}))
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	client, err := apiClient("http://127.0.0.1:"+port, "tok", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		url, wantAuth string
	}{
		{"http://127.0.0.1:" + port + "/api/v1/status", "Bearer tok"},
		{"HTTP://127.0.0.1:" + port + "/x", "Bearer tok"},
		{"http://localhost:" + port + "/api/v1/status", ""},
	} {
		resp, err := client.Get(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if s := <-record; s.auth != tt.wantAuth {
			t.Errorf("GET %s: Authorization %q, want %q", tt.url, s.auth, tt.wantAuth)
		}
	}
	for in, want := range map[string]string{
		"http://Example.org":      "http://example.org:80",
		"https://example.org":     "https://example.org:443",
		"https://example.org:443": "https://example.org:443",
		"http://[::1]:9101/x":     "http://[::1]:9101",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := originOf(u); got != want {
			t.Errorf("originOf(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestCapacityLine(t *testing.T) {
	tests := []struct {
		name string
		c    suite.Capacity
		want []string
	}{
		{"a catalog file with a year left", suite.Capacity{Days: 365.25, UnusedProducts: 657_000, TargetsPerProblem: 1.8, ProblemsPerDay: 1000},
			[]string{"365.2 days of races (657000 unused products at 1.80 targets a problem, 1000 problems a day)", "the catalog never restocks"}},
		{"a catalog file running dry", suite.Capacity{Days: 12, UnusedProducts: 21_600, TargetsPerProblem: 1.8, ProblemsPerDay: 1000},
			[]string{"12.0 days", "the catalog never restocks", "RUNS DRY WITHIN 30 DAYS"}},
		{"restocks keep up", suite.Capacity{Days: 53, UnusedProducts: 96_000, TargetsPerProblem: 1.8, ProblemsPerDay: 1000, RestockCoverage: 1.39},
			[]string{"53.0 days", "restocks add 1.39× what races use, so it never runs dry"}},
		{"restocks fall short", suite.Capacity{Days: 20, UnusedProducts: 36_000, TargetsPerProblem: 1.8, ProblemsPerDay: 1000, RestockCoverage: 0.5},
			[]string{"restocks add only 0.50× what races use", "RUNS DRY WITHIN 30 DAYS"}},
		{"a devnet's fast blocks", suite.Capacity{Days: 0.0123, UnusedProducts: 19_000, TargetsPerProblem: 1.8, ProblemsPerDay: 2e6, RestockCoverage: 1.3},
			[]string{"0.012 days of races", "never runs dry"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capacityLine(&tt.c)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("capacityLine = %q\nwant it to contain %q", got, w)
				}
			}
			if dry := strings.Contains(got, "RUNS DRY"); dry != tt.c.RunsDryWithin(validator.CapacityWarnDays) {
				t.Errorf("capacityLine = %q; runs dry: %v", got, tt.c.RunsDryWithin(validator.CapacityWarnDays))
			}
		})
	}
}
