package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"

	"arena/internal/diskfault"
)

// logLines counts the lines of buf whose message contains msg.
func logLines(buf *bytes.Buffer, msg string) int {
	return strings.Count(buf.String(), msg)
}

func hasKey(t *testing.T, s *Store, key []byte) bool {
	t.Helper()
	found := false
	err := s.View(func(txn *badger.Txn) error {
		_, err := txn.Get(key)
		found = err == nil
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestWriteFaultsLoggedOncePerKind(t *testing.T) {
	var buf bytes.Buffer
	faults := &FaultSwitch{}
	reg := prometheus.NewRegistry()
	s, err := Open(Options{Dir: t.TempDir(), WriteFaults: faults}, zerolog.New(&buf), reg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	set := func(key string) error {
		return s.Update(func(txn *badger.Txn) error { return txn.Set([]byte(key), []byte("v")) })
	}
	if err := set("before"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		fault    error
		writes   int
		wantKind string
	}{
		{syscall.ENOSPC, 5, "enospc"},
		{fmt.Errorf("write 000002.sst: %w", syscall.EIO), 2, "eio"},
		{syscall.ENOSPC, 3, "enospc"}, // already logged in this outage
	}
	for i, st := range steps {
		faults.Set(st.fault)
		for j := range st.writes {
			key := fmt.Sprintf("k%d-%d", i, j)
			err := set(key)
			var we *WriteError
			if !errors.As(err, &we) || we.Kind != st.wantKind || !IsWriteError(err) {
				t.Fatalf("step %d: Update = %v, want a *WriteError of kind %s", i, err, st.wantKind)
			}
			if hasKey(t, s, []byte(key)) {
				t.Fatalf("step %d: %s was kept although its commit failed", i, key)
			}
		}
		if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0], "store writes failing") || !strings.Contains(p[0], st.wantKind) {
			t.Fatalf("step %d: Problems = %q, want the failing writes (%s)", i, p, st.wantKind)
		}
	}
	if n := logLines(&buf, "store write failed"); n != 2 {
		t.Errorf("failure logged %d times, want once per kind (2):\n%s", n, buf.String())
	}
	faults.Set(nil)
	if err := set("after"); err != nil {
		t.Fatal(err)
	}
	if p := s.Problems(); len(p) != 0 {
		t.Errorf("Problems after a good commit = %q, want none", p)
	}
	if n := logLines(&buf, "store writes succeed again"); n != 1 || !strings.Contains(buf.String(), `"failed_writes":10`) {
		t.Errorf("recovery logged %d times, want once with failed_writes 10:\n%s", n, buf.String())
	}
	if got := testutil.ToFloat64(s.faults.errors.WithLabelValues("enospc")); got != 8 {
		t.Errorf("arena_store_write_errors_total{kind=enospc} = %v, want 8", got)
	}
	// A new outage is logged again.
	faults.Set(syscall.EROFS)
	_ = set("again")
	if n := logLines(&buf, "store write failed"); n != 3 {
		t.Errorf("a new outage was logged %d times in all, want 3", n)
	}
}

func TestFaultKind(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("sync: %w", syscall.ENOSPC), "enospc"},
		{errors.New("while writing to 000003.vlog error: no space left on device"), "enospc"}, // Badger flattens errnos into text
		{syscall.EDQUOT, "enospc"},
		{errors.New("write error: input/output error"), "eio"},
		{fmt.Errorf("open: %w", syscall.EROFS), "erofs"},
		{errors.New("open /data/000004.sst: no such file or directory"), "enoent"},
		{errors.New("something else"), "other"},
	}
	for _, tt := range tests {
		if got := faultKind(tt.err); got != tt.want {
			t.Errorf("faultKind(%q) = %s, want %s", tt.err, got, tt.want)
		}
	}
}

// allocated reports whether every writable byte of Badger's logs in dir
// is backed by allocated blocks.
func logsAllocated(t *testing.T, dir string) (n int, sparse []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".mem") && !strings.HasSuffix(e.Name(), ".vlog") {
			continue
		}
		n++
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Blocks*512 < min(st.Size, valueLogFileSize) {
			sparse = append(sparse, fmt.Sprintf("%s (%d of %d bytes allocated)", e.Name(), st.Blocks*512, st.Size))
		}
	}
	return n, sparse
}

// TestSpaceGuardOnTmpfs fills a real filesystem under an open store: under
// the soft limit the store reports a problem but still writes, back above
// it (with the margin) the problem clears, and with the filesystem full it
// stops writing, deletes its reserve and still closes cleanly.
func TestSpaceGuardOnTmpfs(t *testing.T) {
	fs := diskfault.Mount(t, 256<<20)
	dir := filepath.Join(fs.Dir, "data")
	var buf bytes.Buffer
	limits := SpaceLimits{SoftBytes: 64 << 20, HardBytes: 24 << 20, Reserve: 8 << 20}
	reg := prometheus.NewRegistry()
	s, err := Open(Options{Dir: dir, Space: limits}, zerolog.New(&buf), reg)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = s.Close()
		}
	})
	if _, err := os.Stat(filepath.Join(dir, ReserveFile)); err != nil {
		t.Fatalf("no reserve file: %v", err)
	}
	set := func(key string) error {
		return s.Update(func(txn *badger.Txn) error { return txn.Set([]byte(key), bytes.Repeat([]byte("v"), 4096)) })
	}
	check := func(step string, wantLevel SpaceLevel, wantProblem string) error {
		t.Helper()
		err := s.checkSpace()
		s.space.mu.Lock()
		level := s.space.level
		s.space.mu.Unlock()
		p := strings.Join(s.Problems(), "; ")
		if level != wantLevel || (wantProblem == "") != (p == "") || !strings.Contains(p, wantProblem) {
			t.Fatalf("%s: level %s, problems %q; want level %s and a problem containing %q", step, level, p, wantLevel, wantProblem)
		}
		if got := testutil.ToFloat64(s.spaceLevel); got != float64(wantLevel) {
			t.Errorf("%s: arena_store_space_level = %v, want %d", step, got, wantLevel)
		}
		return err
	}

	if err := check("fresh", SpaceOK, ""); err != nil {
		t.Fatal(err)
	}
	if n, sparse := logsAllocated(t, dir); n == 0 || len(sparse) > 0 {
		t.Fatalf("after a check, Badger's %d logs should be allocated; sparse: %v", n, sparse)
	}
	if free := testutil.ToFloat64(s.freeBytes); free < float64(limits.SoftBytes) {
		t.Errorf("arena_store_free_bytes = %v, want the tmpfs's free space", free)
	}

	fs.LeaveFree(t, 40<<20)
	if err := check("40 MiB free", SpaceLow, "free space low"); err != nil {
		t.Fatal(err)
	}
	if err := set("while-low"); err != nil {
		t.Fatalf("writes must go on under the soft limit: %v", err)
	}
	fs.LeaveFree(t, 65<<20)
	if err := check("65 MiB free (inside the 5% margin)", SpaceLow, "free space low"); err != nil {
		t.Fatal(err)
	}
	fs.LeaveFree(t, 80<<20)
	if err := check("80 MiB free", SpaceOK, ""); err != nil {
		t.Fatal(err)
	}
	if n := logLines(&buf, "free space low"); n != 1 {
		t.Errorf("the low-space line was logged %d times, want once", n)
	}
	if n := logLines(&buf, "free space back"); n != 1 {
		t.Errorf("the recovery line was logged %d times, want once", n)
	}

	fs.LeaveFree(t, 0)
	err = check("full", SpaceCritical, "writes stopped")
	if !errors.Is(err, ErrWritesStopped) {
		t.Fatalf("checkSpace on a full filesystem = %v, want ErrWritesStopped", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ReserveFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the reserve was not deleted at the hard limit: %v", err)
	}
	if err := set("after-full"); !errors.Is(err, ErrWritesStopped) || !IsWriteError(err) {
		t.Errorf("Update after the hard limit = %v, want ErrWritesStopped", err)
	}
	// Run ends at once with the same error.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Run(ctx); !errors.Is(err, ErrWritesStopped) {
		t.Errorf("Run = %v, want ErrWritesStopped", err)
	}
	closed = true
	if err := s.Close(); err != nil {
		t.Fatalf("Close with the reserve released: %v", err)
	}

	fs.Release(t)
	s2, err := Open(Options{Dir: dir, Space: limits}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if !hasKey(t, s2, []byte("while-low")) || hasKey(t, s2, []byte("after-full")) {
		t.Error("after a restart: want the write made under the soft limit and none after the hard one")
	}
}

func TestOpenRefusesFullOrReadOnlyFilesystem(t *testing.T) {
	fs := diskfault.Mount(t, 32<<20)
	fs.LeaveFree(t, 16<<20)
	tests := []struct {
		name    string
		dir     string
		limits  SpaceLimits
		wantErr string
	}{
		{"under the soft limit", filepath.Join(fs.Dir, "a"), SpaceLimits{SoftBytes: 64 << 20}, "free on its filesystem, under the 64 MiB soft limit"},
		{"under the soft percentage", filepath.Join(fs.Dir, "b"), SpaceLimits{SoftPercent: 60}, "soft limit"},
		{"reserve does not fit", filepath.Join(fs.Dir, "c"), SpaceLimits{SoftBytes: 1 << 20, Reserve: 64 << 20}, "cannot set aside the 64 MiB emergency reserve"},
		{"read-only filesystem", filepath.Join(diskfault.MountReadOnly(t), "."), SpaceLimits{}, "read-only filesystem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(Options{Dir: tt.dir, Space: tt.limits}, zerolog.Nop(), nil)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantErr) || strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("Open = %q, want one line containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestVanishedDirectory removes the data directory under an open store:
// the guard stops writes and Close returns at once instead of retrying
// Badger's final flush forever.
func TestVanishedDirectory(t *testing.T) {
	for _, how := range []string{"deleted", "unmounted"} {
		t.Run(how, func(t *testing.T) {
			var root string
			var vanish func()
			switch how {
			case "deleted":
				root = t.TempDir()
				vanish = func() {
					if err := os.RemoveAll(filepath.Join(root, "data")); err != nil {
						t.Fatal(err)
					}
				}
			case "unmounted":
				fs := diskfault.Mount(t, 256<<20)
				root = fs.Dir
				vanish = func() { fs.Unmount(t) }
			}
			dir := filepath.Join(root, "data")
			s, err := Open(Options{Dir: dir, Space: SpaceLimits{SoftBytes: 1 << 20, HardBytes: 1 << 19}}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			rawSet(t, s, []byte("k"), []byte("v"))
			vanish()
			if err := s.checkSpace(); !errors.Is(err, ErrWritesStopped) || !strings.Contains(err.Error(), "vanished") {
				t.Fatalf("checkSpace = %v, want writes stopped: vanished", err)
			}
			if err := s.Update(func(txn *badger.Txn) error { return txn.Set([]byte("x"), nil) }); !errors.Is(err, ErrWritesStopped) {
				t.Errorf("Update = %v, want ErrWritesStopped", err)
			}
			done := make(chan error, 1)
			go func() { done <- s.Close() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not closed") {
					t.Errorf("Close = %v, want an error saying the store was not closed", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close hung on a vanished directory")
			}
		})
	}
}

func TestBadgerLoggerCollapsesRepeats(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(1000, 0)
	l := newBadgerLogger(zerolog.New(&buf))
	l.now = func() time.Time { return now }
	for range 30 { // Badger retries a failing flush every second
		l.Errorf("error flushing memtable to disk: %v, retrying", "no such file or directory")
		now = now.Add(time.Second)
	}
	l.Warningf("another warning")
	out := buf.String()
	if n := strings.Count(out, "error flushing memtable"); n != 1 {
		t.Fatalf("repeated error logged %d times in 30 s, want once:\n%s", n, out)
	}
	now = now.Add(badgerRepeatWindow)
	l.Errorf("error flushing memtable to disk: %v, retrying", "no such file or directory")
	if !strings.Contains(buf.String(), `"repeated":29`) {
		t.Errorf("the next line after the window should carry repeated=29:\n%s", buf.String())
	}
	if !strings.Contains(out, "another warning") {
		t.Error("a different message was suppressed")
	}
}

func TestCheckFree(t *testing.T) {
	fs := diskfault.Mount(t, 32<<20)
	missing := filepath.Join(fs.Dir, "not", "yet")
	if err := CheckFree(missing, SpaceLimits{SoftBytes: 1 << 20}); err != nil {
		t.Errorf("CheckFree on a roomy filesystem = %v", err)
	}
	var se *SpaceError
	if err := CheckFree(missing, SpaceLimits{SoftBytes: 64 << 20}); !errors.As(err, &se) || se.Limit != 64<<20 {
		t.Errorf("CheckFree under the limit = %v, want a *SpaceError", err)
	}
}

func TestCorruptTableIsAnError(t *testing.T) {
	dir := t.TempDir()
	s := openAt(t, dir)
	for i := range 2000 {
		rawSet(t, s, []byte(fmt.Sprintf("key-%05d", i)), bytes.Repeat([]byte{byte(i)}, 512))
	}
	if err := s.Verify(); err != nil {
		t.Fatalf("Verify on a sound store: %v", err)
	}
	mustClose(t, s) // flushes the memtable into a table
	table := diskfault.CorruptLargestTable(t, dir)
	for _, ro := range []bool{false, true} {
		s, err := Open(Options{Dir: dir, ReadOnly: ro}, zerolog.Nop(), nil)
		if err == nil {
			s.Close()
			t.Fatalf("Open(read-only=%v) of a corrupt table succeeded", ro)
		}
		t.Logf("read-only=%v: %v", ro, err)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), table) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Open(read-only=%v) = %v, want ErrCorrupt naming %s", ro, err, table)
		}
	}
}
