package validator

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// TestPprofOnAPIListener: with api.pprof, `go tool pprof` reads a heap and a CPU profile from
// the API listener, through its token; the token and the host guard still hold there, and
// without api.pprof (or on the metrics listener) there is nothing at /debug/pprof/.
func TestPprofOnAPIListener(t *testing.T) {
	const token = "pr0file-token"
	on, err := NewAPIServer(APIServerOptions{Listen: "127.0.0.1:0", Token: token, Pprof: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	off, err := NewAPIServer(APIServerOptions{Listen: "127.0.0.1:0", Token: token}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewServer(ServerOptions{Listen: "127.0.0.1:0", Gatherer: prometheus.NewRegistry()}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	onURL, offURL, metricsURL := runServer(t, on), runServer(t, off), runServer(t, m)
	bearer := "Bearer " + token

	tests := []struct {
		name string
		url  string
		auth string
		want int
	}{
		{"index", onURL + "/debug/pprof/", bearer, http.StatusOK},
		{"goroutines", onURL + "/debug/pprof/goroutine?debug=1", bearer, http.StatusOK},
		{"no token", onURL + "/debug/pprof/heap", "", http.StatusUnauthorized},
		{"wrong token", onURL + "/debug/pprof/heap", "Bearer nope", http.StatusUnauthorized},
		{"off", offURL + "/debug/pprof/heap", bearer, http.StatusNotFound},
		{"off index", offURL + "/debug/pprof/", bearer, http.StatusNotFound},
		{"off cpu", offURL + "/debug/pprof/profile?seconds=1", bearer, http.StatusNotFound},
		{"metrics listener", metricsURL + "/debug/pprof/heap", "", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, body, _ := fetch(t, http.MethodGet, tt.url, tt.auth); code != tt.want {
				t.Fatalf("GET %s: %d, want %d: %s", tt.url, code, tt.want, body)
			}
		})
	}
	t.Run("host guard", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, onURL+"/debug/pprof/heap", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "rebind.example"
		req.Header.Set("Authorization", bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Fatalf("Host rebind.example: %d, want 421", resp.StatusCode)
		}
	})

	// go tool pprof sends the URL's user information as HTTP Basic authentication, which the
	// listener takes with the token as the password.
	u, err := url.Parse(onURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword("operator", token)
	for _, p := range []struct{ name, path, want string }{
		{"heap", "/debug/pprof/heap", "Type: inuse_space"},
		{"cpu", "/debug/pprof/profile?seconds=1", "Type: cpu"},
	} {
		t.Run("go tool pprof "+p.name, func(t *testing.T) {
			out := goToolPprof(t, "-top", u.String()+p.path)
			if !strings.Contains(out, p.want) {
				t.Fatalf("go tool pprof %s: no %q:\n%s", p.path, p.want, out)
			}
		})
	}
	t.Run("go tool pprof without the token", func(t *testing.T) {
		cmd := exec.Command(goTool(t), "tool", "pprof", "-top", onURL+"/debug/pprof/heap")
		cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "401") {
			t.Fatalf("go tool pprof without the token: err %v:\n%s", err, out)
		}
	})

	// go tool pprof asks for 30 s of CPU by default, as long as the listener's write timeout:
	// the profile is taken, not refused (the client gives up first here).
	t.Run("long cpu profile", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, onURL+"/debug/pprof/profile?seconds=30", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", bearer)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Fatalf("30 s profile answered at once: %d %s", resp.StatusCode, b)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("30 s profile: %v", err)
		}
	})
}

// goTool is the go command that runs the tests (go test puts its GOROOT's bin first in PATH).
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go tool pprof needs the go command: %v", err)
	}
	return p
}

// goToolPprof runs `go tool pprof args...` and returns its output.
func goToolPprof(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(goTool(t), append([]string{"tool", "pprof"}, args...)...)
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
	}
	return string(out)
}
