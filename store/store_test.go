package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// openAt opens a store in dir, failing the test on error, and closes it at
// cleanup.
func openAt(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(Options{Dir: dir}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// openTemp opens a store in a fresh temporary directory.
func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	return openAt(t, dir), dir
}

func mustClose(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func rawSet(t *testing.T, s *Store, key, value []byte) {
	t.Helper()
	if err := s.Update(func(txn *badger.Txn) error { return txn.Set(key, value) }); err != nil {
		t.Fatalf("set %x: %v", key, err)
	}
}

func TestSchemaVersionWrittenOnFreshStore(t *testing.T) {
	s, _ := openTemp(t)
	err := s.View(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		if len(v) != 4 || binary.BigEndian.Uint32(v) != SchemaVersion {
			return fmt.Errorf("schema value %x, want big-endian %d", v, SchemaVersion)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenChecksSchema(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, s *Store)
		wantErr string // substring; "" means Open succeeds
		wantIs  error
	}{
		{
			name:    "same version reopens",
			prepare: func(t *testing.T, s *Store) { rawSet(t, s, []byte{0x10, 1}, []byte("x")) },
		},
		{
			name: "other version refused",
			prepare: func(t *testing.T, s *Store) {
				rawSet(t, s, schemaKey, binary.BigEndian.AppendUint32(nil, 2))
			},
			wantErr: ": schema version 2, this arena build expects 1 (restore a backup made by this version or use a matching arena)",
			wantIs:  ErrSchemaMismatch,
		},
		{
			name: "data without version refused",
			prepare: func(t *testing.T, s *Store) {
				rawSet(t, s, []byte{0x10, 1}, []byte("x"))
				if err := s.Update(func(txn *badger.Txn) error { return txn.Delete(schemaKey) }); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: "holds data but no schema version key",
		},
		{
			name: "malformed version refused",
			prepare: func(t *testing.T, s *Store) {
				rawSet(t, s, schemaKey, []byte{1})
			},
			wantErr: "schema version key holds 1 bytes, want 4",
		},
		{
			name: "emptied store gets a version again",
			prepare: func(t *testing.T, s *Store) {
				if err := s.Update(func(txn *badger.Txn) error { return txn.Delete(schemaKey) }); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(Options{Dir: dir}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tt.prepare(t, s)
			mustClose(t, s)

			s, err = Open(Options{Dir: dir}, zerolog.Nop(), nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("reopen: %v", err)
				}
				mustClose(t, s)
				return
			}
			if err == nil {
				mustClose(t, s)
				t.Fatalf("reopen succeeded, want error containing %q", tt.wantErr)
			}
			if want := "store " + dir + ":"; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %q is not %v", err, tt.wantIs)
			}
		})
	}
}

func TestSchemaMismatchExactMessage(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	rawSet(t, s, schemaKey, binary.BigEndian.AppendUint32(nil, 2))
	mustClose(t, s)
	_, err := Open(Options{Dir: dir}, zerolog.Nop(), nil)
	want := "store " + dir + ": schema version 2, this arena build expects 1 (restore a backup made by this version or use a matching arena)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

func TestOpenLockedDirectory(t *testing.T) {
	_, dir := openTemp(t)
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("readonly=%v", readOnly), func(t *testing.T) {
			s, err := Open(Options{Dir: dir, ReadOnly: readOnly}, zerolog.Nop(), nil)
			if err == nil {
				_ = s.Close()
				t.Fatal("second Open of a locked directory succeeded")
			}
			want := "store " + dir + ": already in use by another process"
			if err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
			if !errors.Is(err, ErrInUse) {
				t.Errorf("error %v is not ErrInUse", err)
			}
		})
	}
}

func TestOpenOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    func(dir string) Options
		wantErr string
	}{
		{"no dir", func(string) Options { return Options{} }, "no data directory"},
		{"in-memory with dir", func(d string) Options { return Options{Dir: d, InMemory: true} }, "must be empty"},
		{"bad ratio", func(d string) Options { return Options{Dir: d, GCDiscardRatio: 1} }, "discard ratio"},
		{"negative interval", func(d string) Options { return Options{Dir: d, GCInterval: -time.Second} }, "GC interval"},
		{"read-only missing dir", func(d string) Options { return Options{Dir: d + "/missing", ReadOnly: true} }, "no such directory"},
		{"read-only empty dir", func(d string) Options { return Options{Dir: d, ReadOnly: true} }, "no arena data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(tt.opts(t.TempDir()), zerolog.Nop(), nil)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open succeeded, want error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestReadOnlyOpenReadsData(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	rawSet(t, s, []byte{0x10, 'k'}, []byte("v"))
	mustClose(t, s)

	ro, err := Open(Options{Dir: dir, ReadOnly: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	err = ro.View(func(txn *badger.Txn) error {
		_, err := txn.Get([]byte{0x10, 'k'})
		return err
	})
	if err != nil {
		t.Fatalf("read-only View: %v", err)
	}
	if err := ro.Update(func(txn *badger.Txn) error { return txn.Set([]byte{0x10, 'x'}, nil) }); err == nil {
		t.Error("Update on a read-only store succeeded")
	}
}

func TestUpdateAtomicity(t *testing.T) {
	s, _ := openTemp(t)
	ks := NewKeyspace(0x10, "test-atomic", JSON[string]{})
	boom := errors.New("boom")
	err := s.Update(func(txn *badger.Txn) error {
		if err := ks.Put(txn, ks.Key(U64(1)), "one"); err != nil {
			return err
		}
		if err := ks.Put(txn, ks.Key(U64(2)), "two"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update error %v, want the callback's error", err)
	}
	var n int
	err = s.View(func(txn *badger.Txn) error {
		return ks.Iterate(txn, nil, func([]byte, string) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("failed Update left %d keys behind", n)
	}
}

func TestUpdateRetriesConflicts(t *testing.T) {
	s, _ := openTemp(t)
	ks := NewKeyspace(0x10, "test-counter", JSON[int]{})
	key := ks.Key(String("counter"))
	attempts := 0
	err := s.Update(func(txn *badger.Txn) error {
		attempts++
		n, _, err := ks.Get(txn, key)
		if err != nil {
			return err
		}
		if attempts == 1 {
			// A concurrent writer commits the same key after we read it,
			// so our commit must conflict and be retried.
			if err := s.db.Update(func(other *badger.Txn) error { return ks.Put(other, key, 10) }); err != nil {
				return err
			}
		}
		return ks.Put(txn, key, n+1)
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if attempts != 2 {
		t.Errorf("callback ran %d times, want 2", attempts)
	}
	var got int
	if err := s.View(func(txn *badger.Txn) error { got, _, err = ks.Get(txn, key); return err }); err != nil {
		t.Fatal(err)
	}
	if got != 11 {
		t.Errorf("counter %d, want 11 (retry must see the concurrent write)", got)
	}
}

func TestUpdateGivesUpOnEndlessConflicts(t *testing.T) {
	s, _ := openTemp(t)
	key := []byte{0x10, 'k'}
	attempts := 0
	err := s.Update(func(txn *badger.Txn) error {
		attempts++
		if _, err := txn.Get(key); err != nil && !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		if err := s.db.Update(func(other *badger.Txn) error { return other.Set(key, []byte{byte(attempts)}) }); err != nil {
			return err
		}
		return txn.Set(key, []byte("mine"))
	})
	if !errors.Is(err, badger.ErrConflict) {
		t.Fatalf("error %v, want ErrConflict after retries", err)
	}
	if attempts != updateAttempts {
		t.Errorf("callback ran %d times, want %d", attempts, updateAttempts)
	}
}

// counterValue reads a counter from a registry by name.
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("metric %s not registered", name)
	return 0
}

// waitFor fails the test if ch yields nothing in a generous time; it is a
// guard against hangs, not a sleep.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

func TestGCLoop(t *testing.T) {
	reg := prometheus.NewRegistry()
	s, err := Open(Options{Dir: t.TempDir(), GCInterval: time.Hour}, zerolog.Nop(), reg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 100 {
		rawSet(t, s, []byte{0x10, byte(i)}, bytes.Repeat([]byte{byte(i)}, 4096))
	}

	ticks := make(chan time.Time)
	stopped := make(chan struct{})
	s.newTicker = func(d time.Duration) (<-chan time.Time, func()) {
		if d != time.Hour {
			t.Errorf("ticker interval %s, want the configured 1h", d)
		}
		return ticks, func() { close(stopped) }
	}
	type result struct {
		rewrites int
		err      error
	}
	cycles := make(chan result)
	s.afterGC = func(rewrites int, err error) { cycles <- result{rewrites, err} }

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()

	for i := 1; i <= 2; i++ {
		ticks <- time.Now()
		r := waitFor(t, cycles, "a GC cycle")
		if r.err != nil {
			t.Fatalf("GC cycle %d: %v", i, r.err)
		}
		if got := counterValue(t, reg, "arena_store_gc_runs_total"); got != float64(i) {
			t.Errorf("after cycle %d: gc_runs_total %v", i, got)
		}
	}
	_ = counterValue(t, reg, "arena_store_gc_rewrites_total")

	cancel()
	if err := waitFor(t, done, "Run to return"); err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}
	waitFor(t, stopped, "the ticker to be stopped")
}

func TestGCLoopStopsWithoutTicks(t *testing.T) {
	for _, inMemory := range []bool{false, true} {
		t.Run(fmt.Sprintf("inmemory=%v", inMemory), func(t *testing.T) {
			opts := Options{InMemory: inMemory}
			if !inMemory {
				opts.Dir = t.TempDir()
			}
			s, err := Open(opts, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx) }()
			cancel()
			if err := waitFor(t, done, "Run to return"); err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
		})
	}
}

func TestGCOnce(t *testing.T) {
	s, _ := openTemp(t)
	rewrites, err := s.GCOnce(context.Background())
	if err != nil || rewrites != 0 {
		t.Fatalf("GCOnce on a fresh store = %d, %v; want 0, nil", rewrites, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.GCOnce(ctx); err != nil {
		t.Fatalf("GCOnce with a done context: %v", err)
	}
}

func TestMetricsRegistration(t *testing.T) {
	reg := prometheus.NewRegistry()
	s, err := Open(Options{Dir: t.TempDir()}, zerolog.Nop(), reg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"arena_store_gc_runs_total", "arena_store_gc_rewrites_total"} {
		if v := counterValue(t, reg, name); v != 0 {
			t.Errorf("%s = %v before any GC", name, v)
		}
	}
	// A second store on the same registry is a wiring bug and is reported.
	s2, err := Open(Options{InMemory: true}, zerolog.Nop(), reg)
	if err == nil {
		_ = s2.Close()
		t.Fatal("second registration on one registry succeeded")
	}
}

func TestCloseTwice(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestBadgerLoggerLevels(t *testing.T) {
	var buf bytes.Buffer
	l := newBadgerLogger(zerolog.New(&buf).Level(zerolog.TraceLevel))
	l.Errorf("e %d\n", 1)
	l.Warningf("w %d", 2)
	l.Infof("i %d\n", 3)
	l.Debugf("d %d", 4)
	want := []struct{ level, msg string }{{"error", "e 1"}, {"warn", "w 2"}, {"debug", "i 3"}, {"trace", "d 4"}}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, line := range lines {
		var rec map[string]string
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if rec["level"] != want[i].level || rec["message"] != want[i].msg || rec["component"] != "badger" {
			t.Errorf("line %d = %v, want level %s message %q component badger", i, rec, want[i].level, want[i].msg)
		}
	}

	buf.Reset()
	quiet := newBadgerLogger(zerolog.New(&buf).Level(zerolog.InfoLevel))
	quiet.Infof("compaction chatter")
	quiet.Debugf("more chatter")
	if buf.Len() != 0 {
		t.Errorf("Infof/Debugf logged at info level: %s", buf.String())
	}
}

// crashCopy copies the files of an open store into a new directory: the
// image a crash would leave behind.
func crashCopy(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		copyFile(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
	}
	return to
}

func TestOpenAfterCrash(t *testing.T) {
	// Small files keep the copy cheap; Badger preallocates 2 GB otherwise.
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).
		WithValueLogFileSize(1 << 20).WithMemTableSize(1 << 20).WithValueThreshold(1 << 10))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := initSchema(db, Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	ks := NewKeyspace(0x10, "test-crash", JSON[int]{})
	if err := db.Update(func(txn *badger.Txn) error { return ks.Put(txn, ks.Key(U64(1)), 1) }); err != nil {
		t.Fatal(err)
	}
	crashed := crashCopy(t, dir)

	_, err = Open(Options{Dir: crashed, ReadOnly: true}, zerolog.Nop(), nil)
	if !errors.Is(err, ErrNeedsRecovery) {
		t.Fatalf("read-only open after a crash: %v, want ErrNeedsRecovery", err)
	}
	// A writable open recovers everything that was committed.
	r := openAt(t, crashed)
	view(t, r, func(txn *badger.Txn) error {
		if v, ok, err := ks.Get(txn, ks.Key(U64(1))); v != 1 || !ok || err != nil {
			t.Errorf("after recovery: %v %v %v", v, ok, err)
		}
		return nil
	})
}

// copyFile copies with os.File's ReadFrom (copy_file_range on Linux), which
// keeps Badger's large preallocated files cheap to copy.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dst.ReadFrom(src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefusesParentOfDataDir: a directory that is not a database, but holds one a level
// down (an `arena dev` folder), is refused in every mode with one line naming the one to
// pass; a non-empty directory without a database is refused read-only, and nothing in
// either is touched.
func TestOpenRefusesParentOfDataDir(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "validator")
	mustClose(t, openAt(t, data))
	if err := os.WriteFile(filepath.Join(home, ".arena-dev"), []byte("marker\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "notes.txt"), []byte("not a store\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	twice := t.TempDir()
	for _, name := range []string{"a", "b"} {
		mustClose(t, openAt(t, filepath.Join(twice, name)))
	}
	tests := []struct {
		name     string
		dir      string
		readOnly bool
		want     string // "" opens
	}{
		{"dev folder read-only", home, true, "store " + home + ": not an arena data dir, but " + data + " is one (an `arena dev` folder keeps the validator's data there): pass " + data},
		{"dev folder writable", home, false, "pass " + data},
		{"two data dirs below", twice, true, "2 directories in it are (" + filepath.Join(twice, "a") + " first): pass one of them"},
		{"plain dir read-only", plain, true, "store " + plain + ": not an arena data dir: it holds no Badger database (no MANIFEST file); pass the validator's data_dir"},
		{"plain dir writable", plain, false, ""},
		{"data dir read-only", data, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := os.ReadDir(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(Options{Dir: tt.dir, ReadOnly: tt.readOnly}, zerolog.Nop(), nil)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				mustClose(t, s)
				return
			}
			if err == nil {
				_ = s.Close()
				t.Fatalf("opened, want %q", tt.want)
			}
			if !errors.Is(err, ErrNotStore) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q, want one line with %q", err, tt.want)
			}
			after, err := os.ReadDir(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Fatalf("%d entries before, %d after: the refused open wrote", len(before), len(after))
			}
		})
	}
}
