package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Write writes the file at path with the content fn writes, replacing any
// file already there. perm applies as in os.WriteFile (before the umask).
// When fn fails the target is left as it was.
func Write(path string, perm fs.FileMode, fn func(io.Writer) error) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		_ = f.Abort()
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == path {
			return err // a write to f failed, and says so under path already
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// File is a file being written under a temporary name beside its target.
// The target changes only on a successful Commit or CommitNoReplace; a
// File that is neither committed nor aborted leaves its temporary file
// behind, so callers defer Abort, which does nothing after a commit.
type File struct {
	f    *os.File
	path string
	done bool
}

// Create starts writing the file at path, with permissions perm before the
// umask. A directory at path is refused now rather than after the content
// is written.
func Create(path string, perm fs.FileMode) (*File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
		return nil, stepError(path, "create", syscall.EISDIR)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Leading dot: directory listings and globs for the target's pattern
	// pass over a file that is still being written.
	prefix := filepath.Join(dir, "."+base+".tmp-")
	for try := 0; ; try++ {
		f, err := os.OpenFile(prefix+strconv.FormatUint(rand.Uint64(), 36), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			return &File{f: f, path: path}, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return nil, stepError(path, "create a temporary file", err)
		}
	}
}

// Write implements io.Writer; its errors name the target path.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, &fs.PathError{Op: "write", Path: f.path, Err: fs.ErrClosed}
	}
	n, err := f.f.Write(p)
	if err != nil {
		err = &fs.PathError{Op: "write", Path: f.path, Err: bare(err)}
	}
	return n, err
}

// ReadAt reads back content already written, for a writer that builds
// later parts of a file from earlier ones. Its errors name the target path.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.done {
		return 0, &fs.PathError{Op: "read", Path: f.path, Err: fs.ErrClosed}
	}
	n, err := f.f.ReadAt(p, off)
	if err != nil && err != io.EOF {
		err = &fs.PathError{Op: "read", Path: f.path, Err: bare(err)}
	}
	return n, err
}

// Commit makes the written content the file at path, replacing any file
// there.
func (f *File) Commit() error {
	return f.commit("rename into place", replace)
}

// CommitNoReplace is Commit that fails, with an error matching
// fs.ErrExist, when something exists at path, even if it appeared after
// Create. The temporary file is then removed and path left alone.
func (f *File) CommitNoReplace() error {
	return f.commit("create without replacing", linkNew)
}

// Abort discards the written content; after a commit it does nothing.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.f.Close()
	if rmErr := os.Remove(f.f.Name()); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		err = errors.Join(err, rmErr)
	}
	if err != nil {
		return stepError(f.path, "discard the temporary file", err)
	}
	return nil
}

func (f *File) commit(step string, place func(tmp, path string) error) error {
	if f.done {
		return stepError(f.path, "commit", fs.ErrClosed)
	}
	f.done = true
	tmp := f.f.Name()
	if err := f.f.Sync(); err != nil {
		_ = f.f.Close()
		_ = os.Remove(tmp)
		return stepError(f.path, "sync", err)
	}
	if err := f.f.Close(); err != nil {
		_ = os.Remove(tmp)
		return stepError(f.path, "close", err)
	}
	if err := place(tmp, f.path); err != nil {
		_ = os.Remove(tmp)
		return stepError(f.path, step, err)
	}
	if err := syncDir(filepath.Dir(f.path)); err != nil {
		return stepError(f.path, "sync its directory (the new file is in place, but may not survive a crash)", err)
	}
	return nil
}

// replace renames tmp over path. os.Rename refuses a directory at path
// with EEXIST, which would read as if a file were in the way.
func replace(tmp, path string) error {
	err := os.Rename(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return syscall.EISDIR
	}
	return err
}

// linkNew moves tmp to path unless path exists. A hard link fails instead
// of replacing, atomically; on a file system without hard links a checked
// rename has to do, with a window in which a new file at path is lost.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		return os.Remove(tmp)
	case errors.Is(err, fs.ErrExist):
		return err
	}
	if _, statErr := os.Lstat(path); statErr == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory say so with EINVAL or ENOTSUP; there is nothing more to do on
// them.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		err = nil
	}
	return errors.Join(err, d.Close())
}

// stepError names the target path and the step, and drops the temporary
// file's name that os errors carry.
func stepError(path, step string, err error) error {
	return fmt.Errorf("write %s: %s: %w", path, step, bare(err))
}

func bare(err error) error {
	switch e := err.(type) {
	case *fs.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}
