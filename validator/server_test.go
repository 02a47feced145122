package validator

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
)

// TestOperatorListenerLoopback proves the operator surface (metrics,
// health, JSON API: one listener) binds loopback by default, and that any
// other bind address, including the all-interfaces forms, logs exactly one
// warning. The server is built without a Validator: construction must not
// need one, and no request here reaches a handler that uses it.
func TestOperatorListenerLoopback(t *testing.T) {
	def := config.Default().Metrics.Listen
	host, _, err := net.SplitHostPort(def)
	if err != nil {
		t.Fatalf("default metrics.listen %q: %v", def, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Fatalf("default metrics.listen %q is not a loopback address", def)
	}
	defaultAny := net.JoinHostPort(host, "0") // the default host, on a free port

	tests := []struct {
		name     string
		listen   string
		warn     bool
		loopback bool // the bound address is loopback
	}{
		{"default host", defaultAny, false, true},
		{"127.0.0.1", "127.0.0.1:0", false, true},
		{"localhost", "localhost:0", false, true},
		{"::1", "[::1]:0", false, true},
		{"0.0.0.0", "0.0.0.0:0", true, false},
		{"empty host (all interfaces)", ":0", true, false},
		{"::", "[::]:0", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := zerolog.New(&buf)
			s, err := NewServer(ServerOptions{Listen: tt.listen, Gatherer: prometheus.NewRegistry()}, log)
			if err != nil {
				if strings.HasPrefix(tt.listen, "[") { // no IPv6 on this host
					t.Skipf("cannot bind %s here: %v", tt.listen, err)
				}
				t.Fatal(err)
			}
			defer s.ln.Close()
			var warnings []map[string]any
			for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
				if len(line) == 0 {
					continue
				}
				var entry map[string]any
				if err := json.Unmarshal(line, &entry); err != nil {
					t.Fatalf("log line %q: %v", line, err)
				}
				if entry["level"] == "warn" {
					warnings = append(warnings, entry)
				}
			}
			if !tt.warn {
				if len(warnings) != 0 {
					t.Errorf("loopback bind %s warned: %v", tt.listen, warnings)
				}
			} else {
				if len(warnings) != 1 {
					t.Fatalf("bind %s: %d warnings, want 1 (log: %s)", tt.listen, len(warnings), buf.String())
				}
				w := warnings[0]
				if w["listen"] != tt.listen || w["component"] != "operator-http" || !strings.Contains(w["message"].(string), "beyond loopback") {
					t.Errorf("warning %v: want listen=%q, component operator-http and a 'beyond loopback' message", w, tt.listen)
				}
			}
			ap, err := net.ResolveTCPAddr("tcp", s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			if got := ap.IP.IsLoopback(); got != tt.loopback {
				t.Errorf("bound %s: loopback %v, want %v", s.Addr(), got, tt.loopback)
			}
		})
	}
}

// TestOperatorAPIReadOnly proves the operator API accepts no writes: it has
// no authentication, so it must offer nothing but GET. Method checks run
// before any handler, so no Validator is needed.
func TestOperatorAPIReadOnly(t *testing.T) {
	s, err := NewServer(ServerOptions{Listen: "127.0.0.1:0", Gatherer: prometheus.NewRegistry()}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	client := &http.Client{Timeout: 5 * time.Second}
	base := "http://" + s.Addr()
	resp, err := client.Get(base + "/livez")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /livez: %d", resp.StatusCode)
	}
	paths := []string{"/api/v1/status", "/api/v1/leaderboard", "/api/v1/races", "/api/v1/races/1", "/api/v1/episodes/x", "/metrics", "/readyz"}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		for _, p := range paths {
			req, err := http.NewRequest(method, base+p, strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %d, want 405", method, p, resp.StatusCode)
			}
		}
	}
}
