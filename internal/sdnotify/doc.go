// Package sdnotify tells systemd how the validator daemon is doing, through
// the sd_notify protocol: READY=1 once it serves, STATUS= lines for
// `systemctl status`, WATCHDOG=1 keep-alives and STOPPING=1 on shutdown.
//
// # Protocol
//
// A service started with Type=notify gets NOTIFY_SOCKET in its
// environment: the path of a unix datagram socket, or an abstract-namespace
// name written with a leading '@' (Go's net package maps '@' to the leading
// NUL byte on Linux). Each message is one datagram of newline-separated
// VAR=value assignments. With WatchdogSec= set, systemd also exports
// WATCHDOG_USEC (the timeout in microseconds) and WATCHDOG_PID (the process
// that must send keep-alives); the service must send WATCHDOG=1 more often
// than that timeout or be killed and restarted. Run sends one at half the
// interval, as sd_watchdog_enabled(3) recommends.
//
// # Why every call is a no-op without NOTIFY_SOCKET
//
// The same binary runs under systemd, in Docker, from a shell and in tests.
// Only systemd sets NOTIFY_SOCKET, so when it is unset there is no one to
// tell and every method returns nil without doing anything: callers never
// branch on "am I under systemd". Likewise, when WATCHDOG_USEC is unset, or
// WATCHDOG_PID names another process (we were started by a wrapper that
// inherited the variables), the watchdog is off and Run just waits for its
// context.
//
// A send that fails under systemd is returned to the caller (Ready,
// Stopping, Status) or logged (Run's keep-alives, which retry on the next
// tick); it never stops the daemon by itself.
//
// # Why not github.com/coreos/go-systemd
//
// go-systemd's daemon package reads NOTIFY_SOCKET, WATCHDOG_USEC and
// WATCHDOG_PID straight from the process environment (os.Getenv, os.Getpid),
// so code using it can only be tested by mutating process-wide globals. The
// protocol is one datagram per message, so this package implements it in a
// few lines with the environment and PID injected through Options, and adds
// no dependency.
//
// The variables are not unset after reading: arena starts no child
// processes that could inherit them and mistake themselves for the service.
package sdnotify
