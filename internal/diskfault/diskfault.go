// Package diskfault gives tests real disk faults: a small tmpfs mounted for
// the test, filled to a chosen free space by a preallocated file, resized,
// or unmounted under a running process. Mounting needs root; elsewhere the
// tests that use it skip with a message, except under CI=true, where a skip
// would hide a missing check and the test fails instead.
package diskfault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// FS is a tmpfs mounted for one test and unmounted at its cleanup.
type FS struct {
	Dir    string
	filler string
}

// Mount mounts a tmpfs of size bytes on a new temporary directory.
func Mount(t *testing.T, size uint64) *FS {
	t.Helper()
	dir := t.TempDir()
	err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size))
	if err != nil {
		msg := fmt.Sprintf("cannot mount a tmpfs for the disk-fault test (needs root): %v", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must run these tests as root")
		}
		t.Skip(msg)
	}
	fs := &FS{Dir: dir, filler: filepath.Join(dir, "filler")}
	t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
	return fs
}

// Free returns the bytes available on the filesystem.
func (f *FS) Free(t *testing.T) uint64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(f.Dir, &st); err != nil {
		t.Fatal(err)
	}
	return st.Bavail * uint64(st.Bsize)
}

// LeaveFree grows or shrinks a filler file so that about leave bytes stay
// free (0 fills the filesystem completely).
func (f *FS) LeaveFree(t *testing.T, leave uint64) {
	t.Helper()
	cur := int64(0)
	if fi, err := os.Stat(f.filler); err == nil {
		cur = fi.Size()
	}
	free := int64(f.Free(t))
	want := cur + free - int64(leave)
	if want < 0 {
		want = 0
	}
	if want < cur {
		if err := os.Truncate(f.filler, want); err != nil {
			t.Fatal(err)
		}
		return
	}
	fd, err := os.OpenFile(f.filler, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	// Allocate in steps: the exact free space moves while other writers
	// run, and a request larger than what is left fails as a whole.
	for step := int64(1 << 20); want > cur && step >= 4096; {
		n := min(step, want-cur)
		if err := unix.Fallocate(int(fd.Fd()), 0, cur, n); err != nil {
			if errors.Is(err, unix.ENOSPC) {
				step /= 2
				continue
			}
			t.Fatal(err)
		}
		cur += n
	}
}

// Release deletes the filler file.
func (f *FS) Release(t *testing.T) {
	t.Helper()
	if err := os.Remove(f.filler); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}

// Resize changes the tmpfs's size in place (remount), keeping its files.
func (f *FS) Resize(t *testing.T, size uint64) {
	t.Helper()
	if err := unix.Mount("tmpfs", f.Dir, "tmpfs", unix.MS_REMOUNT, fmt.Sprintf("size=%d", size)); err != nil {
		t.Fatalf("resize tmpfs: %v", err)
	}
}

// MountReadOnly mounts an empty read-only tmpfs on a new directory.
func MountReadOnly(t *testing.T) string {
	t.Helper()
	f := Mount(t, 1<<20)
	if err := unix.Mount("tmpfs", f.Dir, "tmpfs", unix.MS_REMOUNT|unix.MS_RDONLY, "size=1048576"); err != nil {
		t.Fatalf("remount read-only: %v", err)
	}
	return f.Dir
}

// Unmount detaches the tmpfs while files on it may still be open: the
// directory path then names the empty mount point, as after a lost mount.
func (f *FS) Unmount(t *testing.T) {
	t.Helper()
	if err := unix.Unmount(f.Dir, unix.MNT_DETACH); err != nil {
		t.Fatalf("unmount: %v", err)
	}
}

// CorruptLargestTable overwrites 64 bytes in the middle of the largest
// Badger table (*.sst) in dir, as bit rot would, and returns its name.
func CorruptLargestTable(t *testing.T, dir string) string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no table in %s (%v)", dir, err)
	}
	var name string
	var size int64
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.Size() > size {
			name, size = m, fi.Size()
		}
	}
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	junk := make([]byte, 64)
	for i := range junk {
		junk[i] = byte(i*97 + 13)
	}
	if _, err := f.WriteAt(junk, size/2); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(name)
}
