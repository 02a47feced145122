package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// WriteFaults is consulted before every commit; a non-nil error fails the
// commit exactly as a failing disk would. Tests use it (see FaultSwitch) to
// inject ENOSPC or EIO into a running validator.
type WriteFaults interface {
	BeforeCommit() error
}

// FaultSwitch is a WriteFaults whose error is set and cleared at run time.
type FaultSwitch struct {
	mu  sync.Mutex
	err error
}

// Set makes every following commit fail with err (nil clears it).
func (f *FaultSwitch) Set(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

// BeforeCommit returns the error last Set.
func (f *FaultSwitch) BeforeCommit() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// WriteError is Update's error when the commit itself failed (as opposed
// to the transaction's callback): nothing of the transaction was kept. The
// store has already logged it (once per Kind until a commit succeeds), so
// callers need not log it again at error level.
type WriteError struct {
	Label string
	Kind  string // enospc, eio, erofs, enoent, other
	Err   error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("%s: write not committed (%s): %v", e.Label, e.Kind, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// IsWriteError reports whether err is a failed commit or a write refused
// because writes stopped: a disk problem the store has already logged.
func IsWriteError(err error) bool {
	var we *WriteError
	return errors.As(err, &we) || errors.Is(err, ErrWritesStopped)
}

// faultKind names the disk failure behind a commit error. Badger flattens
// errno values into text unless built in debug mode, so the text is
// checked too.
func faultKind(err error) string {
	for _, k := range []struct {
		errno unix.Errno
		kind  string
	}{
		{unix.ENOSPC, "enospc"}, {unix.EDQUOT, "enospc"}, {unix.EIO, "eio"}, {unix.EROFS, "erofs"}, {unix.ENOENT, "enoent"},
	} {
		if errors.Is(err, k.errno) || strings.Contains(err.Error(), k.errno.Error()) {
			return k.kind
		}
	}
	return "other"
}

// faultLog tracks failing commits so that each kind of failure is logged
// once, not once per block, and the recovery once.
type faultLog struct {
	log    zerolog.Logger
	errors *prometheus.CounterVec

	mu     sync.Mutex
	kinds  map[string]bool // kinds logged since the last good commit
	failed int             // commits failed since the last good commit
	last   string          // the latest failure, for Problems
	since  time.Time
}

// faultKinds are faultKind's answers.
func faultKinds() []string { return []string{"enospc", "eio", "erofs", "enoent", "other"} }

func newFaultLog(log zerolog.Logger) *faultLog {
	f := &faultLog{log: log, kinds: map[string]bool{}, errors: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "arena_store_write_errors_total",
		Help: "Store commits that failed on the disk, by kind (enospc, eio, erofs, enoent, other); nothing of them was kept.",
	}, []string{"kind"})}
	// At 0 from the start, so that an alert's increase() sees the first
	// failure of each kind.
	for _, k := range faultKinds() {
		f.errors.WithLabelValues(k)
	}
	return f
}

func (f *faultLog) failure(label string, err error) error {
	kind := faultKind(err)
	f.errors.WithLabelValues(kind).Inc()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed == 0 {
		f.since = time.Now()
	}
	f.failed++
	f.last = fmt.Sprintf("store writes failing since %s (%s): %v", f.since.UTC().Format(time.RFC3339), kind, err)
	if !f.kinds[kind] {
		f.kinds[kind] = true
		f.log.Error().Err(err).Str("kind", kind).
			Msg("store write failed: not committed; the work is retried or redone after a restart (logged once per kind until a write succeeds)")
	}
	return &WriteError{Label: label, Kind: kind, Err: err}
}

func (f *faultLog) success() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failed == 0 {
		return
	}
	f.log.Info().Int("failed_writes", f.failed).Dur("for_ms", time.Since(f.since)).Msg("store writes succeed again")
	f.failed, f.last = 0, ""
	clear(f.kinds)
}

func (f *faultLog) current() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}
