package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mountTmpfs mounts a fresh tmpfs with the given options on a temporary
// directory and returns it. Mounting needs root: elsewhere the test is
// skipped, except under CI, which runs as root and must run it.
func mountTmpfs(t *testing.T, options string) string {
	t.Helper()
	dir := t.TempDir()
	err := syscall.Mount("tmpfs", dir, "tmpfs", 0, options)
	if err != nil {
		msg := "mounting a tmpfs (needs root): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// TestFullFileSystem writes more than a small tmpfs holds: the error names
// the target, the old content stays, and the space is given back.
func TestFullFileSystem(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 512<<10)
	tests := []struct {
		name  string
		write func(path string) error
	}{
		{"Write", func(path string) error {
			return Write(path, 0o644, func(w io.Writer) error {
				for range 4 {
					if _, err := w.Write(big); err != nil {
						return err
					}
				}
				return nil
			})
		}},
		{"Create", func(path string) error {
			f, err := Create(path, 0o644)
			if err != nil {
				return err
			}
			defer f.Abort()
			for range 4 {
				if _, err := f.Write(big); err != nil {
					return err
				}
			}
			return f.Commit()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mountTmpfs(t, "size=1m")
			path := filepath.Join(dir, "f")
			putState(t, path, &state{content: "old"})
			checkErr(t, tt.write(path), path, "no space left on device", syscall.ENOSPC)
			checkDir(t, dir, path, state{content: "old"})
			// Only a removed temporary file makes room for this.
			if err := Write(path, 0o644, func(w io.Writer) error { _, err := w.Write(big); return err }); err != nil {
				t.Fatalf("after the failed write: %v", err)
			}
		})
	}
}

// TestReadOnlyDirectory writes into a read-only file system (as root,
// whom permission bits do not stop) or a directory without write
// permission (otherwise).
func TestReadOnlyDirectory(t *testing.T) {
	var dir string
	var wantIs error
	if os.Geteuid() == 0 {
		dir = mountTmpfs(t, "size=1m")
		putState(t, filepath.Join(dir, "f"), &state{content: "old"})
		if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			t.Fatal(err)
		}
		wantIs = syscall.EROFS
	} else {
		dir = t.TempDir()
		putState(t, filepath.Join(dir, "f"), &state{content: "old"})
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
		wantIs = syscall.EACCES
	}
	path := filepath.Join(dir, "f")
	checkErr(t, Write(path, 0o644, writeString("new")), path, "create a temporary file", wantIs)
	checkDir(t, dir, path, state{content: "old"})
}
