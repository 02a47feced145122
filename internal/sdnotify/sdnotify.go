package sdnotify

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Environment variables set by systemd for a Type=notify service.
const (
	EnvNotifySocket = "NOTIFY_SOCKET"
	EnvWatchdogUsec = "WATCHDOG_USEC"
	EnvWatchdogPID  = "WATCHDOG_PID"
)

// sendTimeout bounds one datagram write, so a wedged service manager can
// never hang the daemon's shutdown.
const sendTimeout = 5 * time.Second

// Options injects the process environment. Zero values use the real one.
type Options struct {
	// Getenv looks up an environment variable; nil means os.Getenv.
	Getenv func(string) string
	// Getpid returns this process's id, compared with WATCHDOG_PID; nil
	// means os.Getpid.
	Getpid func() int
}

// Notifier sends sd_notify messages to systemd. It is safe for concurrent
// use. The zero value and a Notifier built without NOTIFY_SOCKET do
// nothing.
type Notifier struct {
	log         zerolog.Logger
	socket      string        // NOTIFY_SOCKET; "" disables everything
	watchdog    time.Duration // WATCHDOG_USEC for this process; 0 is off
	watchdogErr error         // a malformed WATCHDOG_USEC or WATCHDOG_PID
}

// New reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID through opts.
func New(opts Options, log zerolog.Logger) *Notifier {
	getenv, getpid := opts.Getenv, opts.Getpid
	if getenv == nil {
		getenv = os.Getenv
	}
	if getpid == nil {
		getpid = os.Getpid
	}
	n := &Notifier{log: log.With().Str("component", "sdnotify").Logger()}
	n.socket = getenv(EnvNotifySocket)
	if n.socket == "" {
		n.log.Debug().Msg("NOTIFY_SOCKET not set: not reporting to systemd")
		return n
	}
	n.watchdog, n.watchdogErr = watchdogInterval(getenv(EnvWatchdogUsec), getenv(EnvWatchdogPID), getpid())
	if n.watchdogErr != nil {
		n.log.Error().Err(n.watchdogErr).Msg("systemd watchdog settings unusable")
	}
	n.log.Debug().Str("socket", n.socket).Dur("watchdog_ms", n.watchdog).Msg("reporting to systemd")
	return n
}

// watchdogInterval parses the watchdog variables as sd_watchdog_enabled(3)
// does: no WATCHDOG_USEC, or a WATCHDOG_PID naming another process, means
// the watchdog is off for us.
func watchdogInterval(usec, pid string, self int) (time.Duration, error) {
	if usec == "" {
		return 0, nil
	}
	u, err := strconv.ParseUint(usec, 10, 63)
	if err != nil || u == 0 {
		return 0, fmt.Errorf("%s=%q: want a positive number of microseconds", EnvWatchdogUsec, usec)
	}
	if u > uint64(time.Duration(1<<63-1)/time.Microsecond) {
		return 0, fmt.Errorf("%s=%q: out of range", EnvWatchdogUsec, usec)
	}
	if pid != "" {
		p, err := strconv.Atoi(pid)
		if err != nil || p <= 0 {
			return 0, fmt.Errorf("%s=%q: want a process id", EnvWatchdogPID, pid)
		}
		if p != self {
			return 0, nil
		}
	}
	return time.Duration(u) * time.Microsecond, nil
}

// Enabled reports whether NOTIFY_SOCKET was set, i.e. messages are sent.
func (n *Notifier) Enabled() bool { return n != nil && n.socket != "" }

// WatchdogInterval is the watchdog timeout systemd enforces on this
// process, or 0 when there is none.
func (n *Notifier) WatchdogInterval() time.Duration {
	if n == nil {
		return 0
	}
	return n.watchdog
}

// Ready tells systemd that start-up is complete (READY=1): with
// Type=notify, `systemctl start` returns and dependent units start only
// now.
func (n *Notifier) Ready() error { return n.send("READY=1") }

// Stopping tells systemd that a graceful shutdown has begun (STOPPING=1).
func (n *Notifier) Stopping() error { return n.send("STOPPING=1") }

// Status sets the one-line status shown by `systemctl status`. Newlines
// would start new assignments, so they are replaced by spaces.
func (n *Notifier) Status(status string) error {
	status = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(status)
	return n.send("STATUS=" + status)
}

// Run sends WATCHDOG=1 right away and then every half watchdog interval
// until ctx ends, and returns nil. Without a watchdog (or without
// NOTIFY_SOCKET) it sends nothing and just waits for ctx. It returns an
// error at once only when the watchdog variables are malformed, because
// systemd would then kill a daemon that cannot know when to ping. A failed
// keep-alive is logged and retried on the next tick.
func (n *Notifier) Run(ctx context.Context) error {
	if n == nil || n.socket == "" || n.watchdog == 0 {
		if n != nil && n.watchdogErr != nil {
			return n.watchdogErr
		}
		<-ctx.Done()
		return nil
	}
	every := n.watchdog / 2
	if every <= 0 {
		every = n.watchdog
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		if err := n.send("WATCHDOG=1"); err != nil {
			n.log.Warn().Err(err).Dur("watchdog_ms", n.watchdog).Msg("systemd watchdog keep-alive failed; retrying")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// send writes one datagram to NOTIFY_SOCKET. It dials for every message,
// as sd_notify(3) does, so a socket that systemd re-created (daemon-reexec)
// is picked up.
func (n *Notifier) send(state string) error {
	if n == nil || n.socket == "" {
		return nil
	}
	if !strings.HasPrefix(n.socket, "/") && !strings.HasPrefix(n.socket, "@") {
		return fmt.Errorf("sdnotify: %s=%q: not an absolute path or @abstract name", EnvNotifySocket, n.socket)
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: n.socket, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	defer conn.Close()
	if err := conn.SetWriteDeadline(time.Now().Add(sendTimeout)); err != nil {
		return fmt.Errorf("sdnotify: %w", err)
	}
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("sdnotify: send %s: %w", firstVar(state), err)
	}
	return nil
}

// firstVar names a message in errors without echoing its value.
func firstVar(state string) string {
	name, _, _ := strings.Cut(state, "=")
	return name
}
