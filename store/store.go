package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// SchemaVersion is the key layout this build reads and writes. Bump it when
// a change makes existing data unreadable by the new code (or the new data
// unreadable by old code); Open refuses a database of another version.
const SchemaVersion uint32 = 1

// Defaults applied by Open for zero Options fields.
const (
	DefaultGCInterval     = 5 * time.Minute
	DefaultGCDiscardRatio = 0.5
)

// Badger's log sizes. The memtable's write-ahead log is a sparse file of
// twice memTableSize, of which at most memTableSize plus one batch (15% of
// it) is ever written; the value log (values over Badger's 1 MiB threshold,
// which episodes almost never reach) rotates at valueLogFileSize and is
// created at twice that. The free-space guard allocates what can be
// written, so a smaller value log reserves less.
const (
	memTableSize     = 64 << 20
	valueLogFileSize = 16 << 20
)

// updateAttempts bounds how often Update runs a transaction that keeps
// hitting badger.ErrConflict.
const updateAttempts = 8

var (
	// ErrInUse is returned (wrapped) by Open when another process holds the
	// database directory.
	ErrInUse = errors.New("already in use by another process")
	// ErrSchemaMismatch is returned (wrapped) by Open and Restore when the
	// data was written with another SchemaVersion.
	ErrSchemaMismatch = errors.New("schema version mismatch")
	// ErrNeedsRecovery is returned (wrapped) by a read-only Open of a
	// database whose last writer did not close it (a crash or kill -9):
	// Badger must replay and truncate its logs, which needs a writable open.
	ErrNeedsRecovery = errors.New("was not closed cleanly and needs recovery, which a read-only open cannot do")
	// ErrNotEmpty is returned (wrapped) by Restore when the target directory
	// already holds files.
	ErrNotEmpty = errors.New("directory is not empty")
	// ErrCorrupt is returned (wrapped, with the file named) when a table or
	// value fails its checksum.
	ErrCorrupt = errors.New("data corrupt")
)

// Options configures Open. Zero values take the defaults noted.
type Options struct {
	// Dir is the database directory; it is created if missing (unless
	// ReadOnly). Required unless InMemory.
	Dir string
	// InMemory keeps everything in memory (tests only); Dir must be empty.
	InMemory bool
	// ReadOnly opens an existing database with a shared lock and no writes
	// (backups, inspection). Update fails; the GC loop idles.
	ReadOnly bool
	// GCInterval is the pause between value-log GC cycles (default 5m).
	GCInterval time.Duration
	// GCDiscardRatio is passed to RunValueLogGC, in (0,1) (default 0.5).
	GCDiscardRatio float64
	// BlockCacheSize is Badger's block cache in bytes; 0 keeps Badger's
	// default (256 MB). One sequential scan (an export) gains nothing
	// from a cache, so it sets a small one to bound memory.
	BlockCacheSize int64
	// Space sets the free-space guard of a writable directory store; the
	// zero value disables it.
	Space SpaceLimits
	// WriteFaults, if set, can fail any commit (tests).
	WriteFaults WriteFaults
}

func (o Options) withDefaults() Options {
	if o.GCInterval == 0 {
		o.GCInterval = DefaultGCInterval
	}
	if o.GCDiscardRatio == 0 {
		o.GCDiscardRatio = DefaultGCDiscardRatio
	}
	if o.Space.Interval == 0 {
		o.Space.Interval = DefaultSpaceInterval
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.InMemory && o.Dir != "":
		return errors.New("store: Dir must be empty for an in-memory store")
	case !o.InMemory && o.Dir == "":
		return errors.New("store: no data directory given")
	case o.InMemory && o.ReadOnly:
		return errors.New("store: an in-memory store cannot be read-only")
	case o.GCInterval < 0:
		return fmt.Errorf("store: GC interval %s must be positive", o.GCInterval)
	case o.GCDiscardRatio <= 0 || o.GCDiscardRatio >= 1:
		return fmt.Errorf("store: GC discard ratio %v must be in (0,1)", o.GCDiscardRatio)
	}
	return o.Space.validate()
}

// label names the store in errors: "store DIR".
func (o Options) label() string {
	if o.InMemory {
		return "store (in memory)"
	}
	return "store " + o.Dir
}

// Store is the validator's Badger database. It is safe for concurrent use.
type Store struct {
	db   *badger.DB
	opts Options
	log  zerolog.Logger

	gcRuns     prometheus.Counter
	gcRewrites prometheus.Counter
	freeBytes  prometheus.Gauge
	fsBytes    prometheus.Gauge
	softLimit  prometheus.Gauge
	spaceLevel prometheus.Gauge

	space  spaceState
	faults *faultLog

	// Test hooks for the GC loop: newTicker replaces time.NewTicker, and
	// afterGC observes each cycle's outcome.
	newTicker func(time.Duration) (<-chan time.Time, func())
	afterGC   func(rewrites int, err error)

	closeOnce sync.Once
	closeErr  error
}

// Open opens (or creates) the database in opts.Dir, checks its schema
// version and registers the store's metrics on reg when reg is not nil.
// log should be the process's root logger: the store adds component=store
// to its own lines and component=badger to Badger's.
// A fresh database gets SchemaVersion; a database of another version, or a
// non-empty one without a version key, is refused.
func Open(opts Options, log zerolog.Logger, reg prometheus.Registerer) (*Store, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	parent := log
	log = log.With().Str("component", "store").Logger()
	if opts.ReadOnly {
		entries, err := os.ReadDir(opts.Dir)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("%s: no such directory (nothing to open read-only)", opts.label())
		case err != nil:
			return nil, fmt.Errorf("%s: %w", opts.label(), err)
		case len(entries) == 0:
			return nil, fmt.Errorf("%s: empty directory, no arena data to read", opts.label())
		}
	}
	if err := checkDataDir(opts); err != nil {
		return nil, err
	}
	var identity dirIdentity
	if !opts.ReadOnly && !opts.InMemory {
		if err := checkWritableDir(opts.Dir, opts.label()); err != nil {
			return nil, err
		}
		var err error
		if identity, err = identify(opts.Dir); err != nil {
			return nil, fmt.Errorf("%s: %w", opts.label(), err)
		}
	}
	if opts.guarded() {
		if err := prepareSpace(opts); err != nil {
			return nil, err
		}
	}
	db, err := openBadger(opts, parent)
	if err != nil {
		return nil, err
	}
	if err := initSchema(db, opts); err != nil {
		_ = db.Close()
		return nil, err
	}
	s := &Store{
		db:   db,
		opts: opts,
		log:  log,
		gcRuns: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_store_gc_runs_total",
			Help: "Badger value-log GC cycles run by the store.",
		}),
		gcRewrites: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_store_gc_rewrites_total",
			Help: "Badger value-log files rewritten by GC.",
		}),
		freeBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_store_free_bytes",
			Help: "Bytes available on the data directory's filesystem, as the free-space guard last read them.",
		}),
		fsBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_store_filesystem_bytes",
			Help: "Size of the data directory's filesystem.",
		}),
		softLimit: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_store_soft_limit_bytes",
			Help: "The soft free-space limit on the data directory's filesystem in bytes (store.min_free_soft or its percentage, whichever is larger): under it no new work starts.",
		}),
		spaceLevel: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_store_space_level",
			Help: "Free-space level of the data directory: 0 ok, 1 under the soft limit (no new work), 2 under the hard limit (writes stopped).",
		}),
		faults: newFaultLog(log),
		newTicker: func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTicker(d)
			return t.C, t.Stop
		},
	}
	s.space.identity = identity
	if reg != nil {
		var done []prometheus.Collector
		size := func(kind string, pick func(lsm, vlog int64) int64) prometheus.Collector {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Name: "arena_store_size_bytes", Help: "Badger's on-disk size, by kind (lsm, vlog), as Badger last measured it.",
				ConstLabels: prometheus.Labels{"kind": kind},
			}, func() float64 { return float64(pick(db.Size())) })
		}
		sizeLSM := size("lsm", func(lsm, _ int64) int64 { return lsm })
		sizeVlog := size("vlog", func(_, vlog int64) int64 { return vlog })
		collectors := []prometheus.Collector{s.gcRuns, s.gcRewrites, sizeLSM, sizeVlog, s.faults.errors}
		if opts.guarded() {
			collectors = append(collectors, s.freeBytes, s.fsBytes, s.softLimit, s.spaceLevel)
		}
		for _, c := range collectors {
			if err := reg.Register(c); err != nil {
				for _, d := range done {
					reg.Unregister(d)
				}
				_ = db.Close()
				return nil, fmt.Errorf("%s: register metrics: %w", opts.label(), err)
			}
			done = append(done, c)
		}
	}
	log.Debug().Str("dir", opts.Dir).Bool("read_only", opts.ReadOnly).Uint32("schema", SchemaVersion).Msg("store open")
	return s, nil
}

// openBadger opens the database without looking at its contents. log must
// not carry a component field yet: Badger's lines get component=badger.
func openBadger(opts Options, log zerolog.Logger) (*badger.DB, error) {
	bopts := badger.DefaultOptions(opts.Dir).
		WithInMemory(opts.InMemory).
		WithReadOnly(opts.ReadOnly).
		WithMetricsEnabled(false).
		// Every table was verified before Badger opens it (verifyTables);
		// from then on each block is verified as it is read, and every
		// value-log entry: bit rot is an error naming the file, never a
		// shorter iteration.
		WithChecksumVerificationMode(options.OnBlockRead).
		WithVerifyValueChecksum(true).
		// Both logs are preallocated by the free-space guard (see
		// preallocateLogs); Badger's 1 GiB value-log default would reserve
		// 2 GiB for values that are almost never that large.
		WithValueLogFileSize(valueLogFileSize).
		WithMemTableSize(memTableSize).
		WithLogger(newBadgerLogger(log))
	if opts.BlockCacheSize > 0 {
		bopts = bopts.WithBlockCacheSize(opts.BlockCacheSize)
	}
	if !opts.InMemory {
		if err := verifyTables(opts.Dir, opts.label()); err != nil {
			return nil, err
		}
	}
	db, err := badger.Open(bopts)
	if err != nil {
		if isLockError(err) {
			return nil, fmt.Errorf("%s: %w", opts.label(), ErrInUse)
		}
		if opts.ReadOnly && strings.Contains(err.Error(), badger.ErrTruncateNeeded.Error()) {
			return nil, fmt.Errorf("%s: %w", opts.label(), ErrNeedsRecovery)
		}
		if isChecksumError(err) {
			return nil, corruptError(opts.label(), err)
		}
		return nil, fmt.Errorf("%s: open: %w", opts.label(), err)
	}
	return db, nil
}

// isLockError recognises Badger's failure to flock the directory. Badger
// flattens the underlying errno into text unless built in debug mode, so
// both forms are checked.
func isLockError(err error) bool {
	return errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) ||
		strings.Contains(err.Error(), "Cannot acquire directory lock")
}

type schemaError struct {
	label     string
	got, want uint32
}

func (e *schemaError) Error() string {
	return fmt.Sprintf("%s: schema version %d, this arena build expects %d (restore a backup made by this version or use a matching arena)",
		e.label, e.got, e.want)
}

func (e *schemaError) Unwrap() error { return ErrSchemaMismatch }

// readSchema returns the stored schema version, whether it was present, and
// whether the database holds any key at all.
func readSchema(db *badger.DB) (version uint32, found, nonEmpty bool, err error) {
	err = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		if errors.Is(err, badger.ErrKeyNotFound) {
			opts := badger.DefaultIteratorOptions
			opts.PrefetchValues = false
			it := txn.NewIterator(opts)
			defer it.Close()
			it.Rewind()
			nonEmpty = it.Valid()
			return nil
		}
		if err != nil {
			return err
		}
		found, nonEmpty = true, true
		return item.Value(func(v []byte) error {
			if len(v) != 4 {
				return fmt.Errorf("schema version key holds %d bytes, want 4", len(v))
			}
			version = binary.BigEndian.Uint32(v)
			return nil
		})
	})
	return version, found, nonEmpty, err
}

// checkSchema verifies a database that must already carry SchemaVersion.
func checkSchema(db *badger.DB, label string) (empty bool, err error) {
	version, found, nonEmpty, err := readSchema(db)
	switch {
	case err != nil:
		return false, fmt.Errorf("%s: read schema version: %w", label, err)
	case found && version != SchemaVersion:
		return false, &schemaError{label: label, got: version, want: SchemaVersion}
	case !found && nonEmpty:
		return false, fmt.Errorf("%s: holds data but no schema version key: not an arena store, or written by an incompatible build", label)
	}
	return !found, nil
}

// initSchema checks the schema version and writes it into an empty
// database.
func initSchema(db *badger.DB, opts Options) error {
	empty, err := checkSchema(db, opts.label())
	if err != nil || !empty {
		return err
	}
	if opts.ReadOnly {
		return fmt.Errorf("%s: empty database, no arena data to read", opts.label())
	}
	err = db.Update(func(txn *badger.Txn) error {
		return txn.Set(schemaKey, binary.BigEndian.AppendUint32(nil, SchemaVersion))
	})
	if err != nil {
		return fmt.Errorf("%s: write schema version: %w", opts.label(), err)
	}
	return nil
}

// Close closes the database. Calling it again returns the first result.
// When the directory vanished under the store, Badger is not closed: its
// final flush would retry forever. What was committed is in its log, which
// the next Open replays.
// Dir is the database directory ("" in memory).
func (s *Store) Dir() string { return s.opts.Dir }

func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.space.mu.Lock()
		gone := s.space.gone
		s.space.mu.Unlock()
		if gone != "" {
			s.closeErr = fmt.Errorf("%s: not closed: %s (committed writes are in its log, replayed at the next start)", s.opts.label(), gone)
			return
		}
		if err := s.db.Close(); err != nil {
			s.closeErr = fmt.Errorf("%s: close: %w", s.opts.label(), err)
		}
	})
	return s.closeErr
}

// Update runs fn in a read-write transaction and commits it if fn returns
// nil; otherwise nothing fn wrote is kept and fn's error is returned as is.
// When the commit conflicts with a concurrent transaction, fn is run again
// on a fresh transaction (a bounded number of times), so fn must not have
// side effects outside txn. A commit the disk refuses returns a *WriteError
// (nothing kept); after the store stopped writing, Update returns
// ErrWritesStopped without running fn.
func (s *Store) Update(fn func(txn *badger.Txn) error) error {
	s.space.mu.Lock()
	stopped := s.space.stopped
	s.space.mu.Unlock()
	if stopped != nil {
		return stopped
	}
	var err error
	for range updateAttempts {
		err = s.update(fn)
		if !errors.Is(err, badger.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("%s: transaction still conflicting after %d attempts: %w", s.opts.label(), updateAttempts, err)
}

func (s *Store) update(fn func(txn *badger.Txn) error) error {
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	if err := fn(txn); err != nil {
		return err
	}
	if s.opts.WriteFaults != nil {
		if err := s.opts.WriteFaults.BeforeCommit(); err != nil {
			return s.faults.failure(s.opts.label(), err)
		}
	}
	switch err := txn.Commit(); {
	case err == nil:
		s.faults.success()
		return nil
	case errors.Is(err, badger.ErrConflict), errors.Is(err, badger.ErrReadOnlyTxn), errors.Is(err, badger.ErrDBClosed):
		return err
	default:
		return s.faults.failure(s.opts.label(), err)
	}
}

// Verify checks the checksum of every block of every table, and returns
// an error naming the first corrupt file.
func (s *Store) Verify() error {
	if s.opts.InMemory {
		return nil
	}
	return verifyTables(s.opts.Dir, s.opts.label())
}

// View runs fn in a read-only transaction over a consistent snapshot.
func (s *Store) View(fn func(txn *badger.Txn) error) error {
	return s.db.View(fn)
}

// isChecksumError recognises Badger's checksum failures, which it reports
// as text ("checksum mismatch", "checksum validation failed for table").
func isChecksumError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "checksum") || strings.Contains(msg, "Checksum")
}

func corruptError(label string, err error) error {
	return fmt.Errorf("%s: %w: %v (restore the last backup, see docs/operations.md)", label, ErrCorrupt, err)
}
