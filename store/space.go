package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	"golang.org/x/sys/unix"
)

// ReserveFile is the emergency reserve kept in the data directory: a file of
// SpaceLimits.Reserve bytes, allocated at Open and deleted when free space
// falls under the hard limit, so that Badger can flush its memtable and
// close on a filesystem someone else filled.
const ReserveFile = "ARENA_RESERVE"

// DefaultSpaceInterval is how often the guard reads the filesystem.
const DefaultSpaceInterval = time.Second

// SpaceLimits are the free-space thresholds of the data directory's
// filesystem. A threshold is the larger of its bytes and its percentage of
// the filesystem's size; both zero disables it.
type SpaceLimits struct {
	// Under the soft threshold the store reports a problem (Problems): the
	// validator starts no new work and is not ready. Open refuses a
	// filesystem already under it.
	SoftBytes   uint64
	SoftPercent float64
	// Under the hard threshold the store stops writing, deletes its reserve
	// and Run returns an error, so the process shuts down before Badger
	// writes into a memory-mapped page the filesystem cannot back (SIGBUS).
	HardBytes   uint64
	HardPercent float64
	// Reserve is the size of ReserveFile; 0 keeps none.
	Reserve uint64
	// Interval is the pause between checks (default DefaultSpaceInterval).
	Interval time.Duration
}

func (l SpaceLimits) threshold(bytes uint64, percent float64, total uint64) uint64 {
	return max(bytes, uint64(percent/100*float64(total)))
}

func (l SpaceLimits) soft(total uint64) uint64 { return l.threshold(l.SoftBytes, l.SoftPercent, total) }
func (l SpaceLimits) hard(total uint64) uint64 { return l.threshold(l.HardBytes, l.HardPercent, total) }

func (l SpaceLimits) validate() error {
	switch {
	case l.SoftPercent < 0 || l.SoftPercent >= 100 || l.HardPercent < 0 || l.HardPercent >= 100:
		return errors.New("store: free-space percentages must be in [0,100)")
	case l.Interval < 0:
		return fmt.Errorf("store: free-space check interval %s must be positive", l.Interval)
	case l.HardBytes > l.SoftBytes && l.SoftBytes > 0 || l.HardPercent > l.SoftPercent && l.SoftPercent > 0:
		return errors.New("store: the hard free-space limit must not exceed the soft one")
	}
	return nil
}

// SpaceLevel is how much room the data directory's filesystem has left.
type SpaceLevel int

// Space levels, in order of severity.
const (
	SpaceOK SpaceLevel = iota
	SpaceLow
	SpaceCritical
)

func (l SpaceLevel) String() string {
	return [...]string{"ok", "low", "critical"}[l]
}

// fsUsage is one reading of a filesystem.
type fsUsage struct {
	Free, Total uint64 // bytes available to this user, and the filesystem's size
	ReadOnly    bool
}

func statFS(dir string) (fsUsage, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fsUsage{}, err
	}
	bs := uint64(st.Bsize)
	return fsUsage{Free: st.Bavail * bs, Total: st.Blocks * bs, ReadOnly: st.Flags&unix.ST_RDONLY != 0}, nil
}

// dirIdentity is the device and inode a directory had when the store
// opened it: a path that later names another directory (a lost mount
// exposing the mount point, a deleted and recreated directory) is not the
// store's directory any more.
type dirIdentity struct{ dev, ino uint64 }

func identify(dir string) (dirIdentity, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return dirIdentity{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirIdentity{}, nil
	}
	return dirIdentity{dev: st.Dev, ino: st.Ino}, nil
}

// ErrWritesStopped is returned (wrapped) by Update once the store stopped
// writing: free space under the hard limit, or the directory gone.
var ErrWritesStopped = errors.New("writes stopped")

// SpaceError is Open's and Run's error when the filesystem is too full.
type SpaceError struct {
	Label       string
	Free, Limit uint64
	Level       SpaceLevel
}

func (e *SpaceError) Error() string {
	what := "soft"
	if e.Level == SpaceCritical {
		what = "hard"
	}
	return fmt.Sprintf("%s: %s free on its filesystem, under the %s %s limit",
		e.Label, humanize.IBytes(e.Free), humanize.IBytes(e.Limit), what)
}

// spaceState is what the guard last found, read by Problems and Update.
type spaceState struct {
	mu       sync.Mutex
	level    SpaceLevel
	usage    fsUsage
	checked  bool
	gone     string // why the directory is no longer the store's, or ""
	stopped  error  // set once writes stopped; never cleared
	identity dirIdentity
	// statFailed is touched only by the guard's goroutine.
	statFailed bool
}

// checkWritableDir makes sure dir exists and can be written before Badger
// opens it, so that a read-only or foreign-owned directory is one clear line.
func checkWritableDir(dir, label string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	switch err := unix.Access(dir, unix.W_OK); {
	case errors.Is(err, unix.EROFS):
		return fmt.Errorf("%s: the directory is on a read-only filesystem; the validator needs to write there", label)
	case err != nil:
		return fmt.Errorf("%s: the directory is not writable by this user: %w", label, err)
	}
	u, err := statFS(dir)
	if err == nil && u.ReadOnly {
		return fmt.Errorf("%s: the directory is on a read-only filesystem; the validator needs to write there", label)
	}
	return nil
}

// prepareSpace runs at a writable Open with limits: it sets the reserve
// aside and refuses a filesystem already under the soft threshold.
func prepareSpace(opts Options) error {
	if opts.Space.Reserve > 0 {
		if err := ensureReserve(filepath.Join(opts.Dir, ReserveFile), opts.Space.Reserve); err != nil {
			u, _ := statFS(opts.Dir)
			return fmt.Errorf("%s: cannot set aside the %s emergency reserve (%s free): %w",
				opts.label(), humanize.IBytes(opts.Space.Reserve), humanize.IBytes(u.Free), err)
		}
	}
	u, err := statFS(opts.Dir)
	if err != nil {
		return fmt.Errorf("%s: read free space: %w", opts.label(), err)
	}
	if soft := opts.Space.soft(u.Total); u.Free < soft {
		return &SpaceError{Label: opts.label(), Free: u.Free, Limit: soft, Level: SpaceLow}
	}
	return nil
}

// ensureReserve makes path a fully allocated file of size bytes.
func ensureReserve(path string, size uint64) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	err = unix.Fallocate(int(f.Fd()), 0, 0, int64(size))
	if err == nil {
		err = f.Truncate(int64(size)) // a larger reserve from an earlier setting shrinks
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// preallocateLogs allocates every block of Badger's write-ahead and value
// logs. Badger creates them as sparse files of their full size and writes
// into them through mmap; a page the filesystem cannot back then kills the
// process with SIGBUS. Allocated up front, those writes cannot fail.
func preallocateLogs(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		var writable int64 // how much of the file Badger can write
		switch {
		case strings.HasSuffix(name, ".mem"):
			writable = memTableSize + memTableSize*15/100 + 1<<20
		case strings.HasSuffix(name, ".vlog"):
			writable = 2 * valueLogFileSize
		default:
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // deleted since the listing: Badger rotated it
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		target := min(writable, st.Size)
		if !ok || st.Blocks*512 >= target {
			continue
		}
		if err := allocate(filepath.Join(dir, name), target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("allocate %s: %w", name, err)
		}
	}
	return nil
}

func allocate(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Fallocate(int(f.Fd()), 0, 0, size)
}

// checkSpace reads the filesystem once, updates the state and metrics, and
// logs a change of level. It returns an error once writes must stop.
func (s *Store) checkSpace() error {
	sp := &s.space
	if id, err := identify(s.opts.Dir); err != nil || id != sp.identity {
		why := "it no longer exists"
		if err == nil {
			why = "the path now names another directory (a lost mount or a recreated directory)"
		} else if !errors.Is(err, fs.ErrNotExist) {
			why = err.Error()
		}
		return s.stopWrites(fmt.Sprintf("data directory %s vanished: %s", s.opts.Dir, why), true)
	}
	allocErr := preallocateLogs(s.opts.Dir)
	u, err := statFS(s.opts.Dir)
	if err != nil {
		if !s.space.statFailed {
			s.log.Warn().Err(err).Msg("free space: statfs failed; retrying every check")
		}
		s.space.statFailed = true
		return nil
	}
	s.space.statFailed = false
	s.freeBytes.Set(float64(u.Free))
	s.fsBytes.Set(float64(u.Total))
	soft, hard := s.opts.Space.soft(u.Total), s.opts.Space.hard(u.Total)
	s.softLimit.Set(float64(soft))
	sp.mu.Lock()
	prev := sp.level
	level := SpaceOK
	switch {
	case u.Free < hard || allocErr != nil && isNoSpace(allocErr):
		level = SpaceCritical
	case u.Free < soft, prev == SpaceLow && u.Free < soft+soft/20:
		// Back to ok only with 5% of the soft threshold to spare, so a
		// filesystem hovering at the line does not flap.
		level = SpaceLow
	}
	sp.level, sp.usage, sp.checked = level, u, true
	sp.mu.Unlock()
	s.spaceLevel.Set(float64(level))
	ev := s.log.Info()
	switch {
	case level == SpaceCritical:
		reason := fmt.Sprintf("%s free on the data directory's filesystem, under the %s hard limit", humanize.IBytes(u.Free), humanize.IBytes(hard))
		if allocErr != nil && u.Free >= hard {
			reason = "no space to allocate Badger's log: " + allocErr.Error()
		}
		return s.stopWrites(reason, false)
	case level == prev:
		if allocErr != nil {
			s.log.Warn().Err(allocErr).Msg("free space: could not preallocate a Badger log")
		}
		return nil
	case level == SpaceLow:
		ev = s.log.Error()
	}
	ev.Str("dir", s.opts.Dir).Str("free", humanize.IBytes(u.Free)).Str("soft_limit", humanize.IBytes(soft)).
		Str("hard_limit", humanize.IBytes(hard)).Str("level", level.String()).Msg(map[SpaceLevel]string{
		SpaceLow: "free space low: no new races, qualifying runs or exports until space returns; health and the API keep serving",
		SpaceOK:  "free space back above the soft limit: new work resumes",
	}[level])
	return nil
}

func isNoSpace(err error) bool {
	return errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT)
}

// stopWrites makes every later Update fail, deletes the reserve so that
// Badger can flush and close, and returns the error Run ends with. gone
// marks a directory that is no longer there: Close must not wait on Badger.
func (s *Store) stopWrites(reason string, gone bool) error {
	sp := &s.space
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.stopped != nil {
		return sp.stopped
	}
	sp.level = SpaceCritical
	if gone {
		sp.gone = reason
	}
	sp.stopped = fmt.Errorf("%s: %s; %w to shut down cleanly before the disk fails under Badger", s.opts.label(), reason, ErrWritesStopped)
	s.spaceLevel.Set(float64(SpaceCritical))
	if !gone && s.opts.Space.Reserve > 0 {
		if err := os.Remove(filepath.Join(s.opts.Dir, ReserveFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn().Err(err).Msg("free space: could not delete the emergency reserve")
		}
	}
	s.log.Error().Str("dir", s.opts.Dir).Str("reason", reason).Msg("store writes stopped: shutting down")
	return sp.stopped
}

// runSpaceGuard checks the filesystem every Interval until ctx ends or
// writes must stop.
func (s *Store) runSpaceGuard(ctx context.Context) error {
	tick := time.NewTicker(s.opts.Space.Interval)
	defer tick.Stop()
	for {
		if err := s.checkSpace(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// guarded reports whether the free-space guard runs for this store.
func (o Options) guarded() bool {
	return !o.InMemory && !o.ReadOnly && (o.Space.SoftBytes > 0 || o.Space.SoftPercent > 0 ||
		o.Space.HardBytes > 0 || o.Space.HardPercent > 0)
}

// Problems lists why the store cannot take new work now: free space under
// the soft limit, writes stopped, or the last commit failed. Empty means
// healthy. The validator shows these as readiness reasons and starts no
// new race or qualifying run while there are any.
func (s *Store) Problems() []string {
	var out []string
	sp := &s.space
	sp.mu.Lock()
	switch {
	case sp.stopped != nil:
		out = append(out, sp.stopped.Error())
	case sp.checked && sp.level == SpaceLow:
		out = append(out, fmt.Sprintf("free space low: %s free on the data directory's filesystem, under the %s soft limit",
			humanize.IBytes(sp.usage.Free), humanize.IBytes(s.opts.Space.soft(sp.usage.Total))))
	}
	sp.mu.Unlock()
	if f := s.faults.current(); f != "" {
		out = append(out, f)
	}
	return out
}

// CheckFree returns a *SpaceError when the filesystem holding path (or its
// nearest existing parent, for a path not created yet) has less free space
// than the soft limit of limits. Commands that write much outside the
// store (an export) call it before they start.
func CheckFree(path string, limits SpaceLimits) error {
	dir := filepath.Clean(path)
	for {
		u, err := statFS(dir)
		if err == nil {
			if soft := limits.soft(u.Total); u.Free < soft {
				return &SpaceError{Label: path, Free: u.Free, Limit: soft, Level: SpaceLow}
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if !errors.Is(err, fs.ErrNotExist) || parent == dir {
			return fmt.Errorf("%s: read free space: %w", path, err)
		}
		dir = parent
	}
}
