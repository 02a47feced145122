package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
