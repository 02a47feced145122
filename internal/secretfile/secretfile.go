// Package secretfile reads files that hold secrets (keys, passwords,
// tokens) and refuses them, with the chmod that fixes it, when their mode
// grants the group or the world any access: such a file may already have
// been read by another account.
package secretfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
)

// Read reads a secret file, refusing it when its mode grants any
// group or world access. The mode is taken from the open descriptor (after
// symlinks are followed), so what is checked is what is read.
func Read(kind, path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file", kind, path)
	}
	if err := CheckMode(kind, path, info.Mode(), 0o600); err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", kind, path, err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%s %s: larger than %d bytes", kind, path, limit)
	}
	return raw, nil
}

// CheckMode refuses a secret file's or directory's mode that grants any
// permission to group or other. Windows has no such mode bits: skipped there.
func CheckMode(kind, path string, mode fs.FileMode, want fs.FileMode) error {
	perm := mode.Perm()
	if runtime.GOOS == "windows" || perm&0o077 == 0 {
		return nil
	}
	how := "group/world accessible"
	switch {
	case perm&0o044 != 0:
		how = "group/world readable"
	case perm&0o022 != 0:
		how = "group/world writable"
	}
	return fmt.Errorf("%s %s: permissions %04o are too open (%s); run chmod %o %s", kind, path, perm, how, want, path)
}

// ReadLine reads a one-line secret (a password, a token) with Read and
// returns it without its trailing line break; an empty secret is an error.
func ReadLine(kind, path string) (string, error) {
	raw, err := Read(kind, path, 1<<16)
	if err != nil {
		return "", err
	}
	s := strings.TrimRight(string(raw), "\r\n")
	if s == "" {
		return "", fmt.Errorf("%s %s is empty", kind, path)
	}
	return s, nil
}
