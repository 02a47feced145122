package sdnotify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// recvTimeout only guards against a hung test; every wait below ends as soon
// as the datagram or result it waits for arrives.
const recvTimeout = 10 * time.Second

const fakePID = 4242

// env returns a Getenv over a fixed map, so no test touches the process
// environment.
func env(vars map[string]string) Options {
	return Options{
		Getenv: func(k string) string { return vars[k] },
		Getpid: func() int { return fakePID },
	}
}

// listen binds a unix datagram socket in a temporary directory, standing in
// for systemd's notification socket.
func listen(t *testing.T) (*net.UnixConn, string) {
	t.Helper()
	dir := t.TempDir()
	if len(dir) > 90 { // sun_path holds ~108 bytes; long test names can exceed it
		var err error
		if dir, err = os.MkdirTemp("", "sdn"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	path := filepath.Join(dir, "notify.sock")
	return listenAddr(t, path), path
}

func listenAddr(t *testing.T, name string) *net.UnixConn {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatalf("listen %s: %v", name, err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// recv returns the next datagram.
func recv(t *testing.T, conn *net.UnixConn) string {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(recvTimeout)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatalf("no datagram: %v", err)
	}
	return string(buf[:n])
}

// assertNothingSent proves no datagram is queued on conn: it sends a marker
// through a working Notifier and checks that the marker is what arrives
// first. Sends are synchronous, so anything sent earlier would be ahead of it.
func assertNothingSent(t *testing.T, conn *net.UnixConn, path string) {
	t.Helper()
	marker := New(env(map[string]string{EnvNotifySocket: path}), zerolog.Nop())
	if err := marker.Status("marker"); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, conn); got != "STATUS=marker" {
		t.Fatalf("a datagram was sent before the marker: %q", got)
	}
}

func TestMessages(t *testing.T) {
	tests := []struct {
		name string
		call func(*Notifier) error
		want string
	}{
		{"ready", (*Notifier).Ready, "READY=1"},
		{"stopping", (*Notifier).Stopping, "STOPPING=1"},
		{"status", func(n *Notifier) error { return n.Status("syncing metagraph (uid 3/64)") }, "STATUS=syncing metagraph (uid 3/64)"},
		{"status newline", func(n *Notifier) error { return n.Status("line one\nREADY=1\r\nx") }, "STATUS=line one READY=1 x"},
		{"status empty", func(n *Notifier) error { return n.Status("") }, "STATUS="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, path := listen(t)
			n := New(env(map[string]string{EnvNotifySocket: path}), zerolog.Nop())
			if !n.Enabled() {
				t.Fatal("Enabled() = false with NOTIFY_SOCKET set")
			}
			if err := tc.call(n); err != nil {
				t.Fatalf("send: %v", err)
			}
			if got := recv(t, conn); got != tc.want {
				t.Fatalf("datagram %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAbstractSocket(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("abstract unix sockets are Linux-only")
	}
	name := fmt.Sprintf("@arena-sdnotify-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	conn := listenAddr(t, name)
	n := New(env(map[string]string{EnvNotifySocket: name}), zerolog.Nop())
	if err := n.Ready(); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, conn); got != "READY=1" {
		t.Fatalf("datagram %q, want READY=1", got)
	}
}

func TestNoSocketIsNoop(t *testing.T) {
	conn, path := listen(t)
	for name, n := range map[string]*Notifier{
		"unset": New(env(map[string]string{EnvWatchdogUsec: "20000"}), zerolog.Nop()),
		"zero":  {},
		"nil":   nil,
	} {
		t.Run(name, func(t *testing.T) {
			if n.Enabled() {
				t.Fatal("Enabled() = true without NOTIFY_SOCKET")
			}
			if d := n.WatchdogInterval(); d != 0 {
				t.Fatalf("WatchdogInterval() = %v without NOTIFY_SOCKET", d)
			}
			for _, err := range []error{n.Ready(), n.Status("x"), n.Stopping()} {
				if err != nil {
					t.Fatalf("no-op returned %v", err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if err := n.Run(ctx); err != nil {
				t.Fatalf("Run: %v", err)
			}
			assertNothingSent(t, conn, path)
		})
	}
}

func TestWatchdogPings(t *testing.T) {
	conn, path := listen(t)
	n := New(env(map[string]string{
		EnvNotifySocket: path,
		EnvWatchdogUsec: "20000", // 20ms: a ping every 10ms
		EnvWatchdogPID:  fmt.Sprint(fakePID),
	}), zerolog.Nop())
	if got := n.WatchdogInterval(); got != 20*time.Millisecond {
		t.Fatalf("WatchdogInterval() = %v, want 20ms", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	for i := range 3 {
		if got := recv(t, conn); got != "WATCHDOG=1" {
			t.Fatalf("ping %d: datagram %q, want WATCHDOG=1", i, got)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(recvTimeout):
		t.Fatal("Run did not return after its context ended")
	}
}

// TestWatchdogOff: with a socket but no watchdog for this process, Run sends
// nothing and returns nil once its context ends.
func TestWatchdogOff(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
	}{
		{"no WATCHDOG_USEC", map[string]string{}},
		{"other WATCHDOG_PID", map[string]string{EnvWatchdogUsec: "20000", EnvWatchdogPID: "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conn, path := listen(t)
			tc.vars[EnvNotifySocket] = path
			n := New(env(tc.vars), zerolog.Nop())
			if d := n.WatchdogInterval(); d != 0 {
				t.Fatalf("WatchdogInterval() = %v, want 0", d)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- n.Run(ctx) }()
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
			case <-time.After(recvTimeout):
				t.Fatal("Run did not return after its context ended")
			}
			assertNothingSent(t, conn, path)
		})
	}
}

func TestRunMalformedWatchdog(t *testing.T) {
	_, path := listen(t)
	n := New(env(map[string]string{EnvNotifySocket: path, EnvWatchdogUsec: "soon"}), zerolog.Nop())
	// The context never ends: Run must fail at once rather than block.
	err := n.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), EnvWatchdogUsec) {
		t.Fatalf("Run = %v, want an error naming %s", err, EnvWatchdogUsec)
	}
}

func TestWatchdogInterval(t *testing.T) {
	tests := []struct {
		usec, pid string
		want      time.Duration
		wantErr   bool
	}{
		{"", "", 0, false},
		{"", "4242", 0, false},
		{"60000000", "", 60 * time.Second, false},
		{"60000000", "4242", 60 * time.Second, false},
		{"60000000", "4243", 0, false},
		{"1", "", time.Microsecond, false},
		{"0", "", 0, true},
		{"-5", "", 0, true},
		{"1.5", "", 0, true},
		{"99999999999999999999", "", 0, true},
		{"60000000", "pid", 0, true},
		{"60000000", "0", 0, true},
	}
	for _, tc := range tests {
		got, err := watchdogInterval(tc.usec, tc.pid, fakePID)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("watchdogInterval(%q, %q) = %v, %v; want %v, error %v", tc.usec, tc.pid, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestSendErrors(t *testing.T) {
	tests := []struct {
		name, socket string
	}{
		{"missing socket", filepath.Join(t.TempDir(), "absent.sock")},
		{"relative path", "notify.sock"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := New(env(map[string]string{EnvNotifySocket: tc.socket}), zerolog.Nop())
			err := n.Ready()
			if err == nil {
				t.Fatal("Ready succeeded with no listener")
			}
			var opErr *net.OpError
			if tc.name == "missing socket" && !errors.As(err, &opErr) {
				t.Fatalf("Ready = %v, want a *net.OpError", err)
			}
		})
	}
}
