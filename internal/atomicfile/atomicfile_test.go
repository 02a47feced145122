package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// state is what a test expects at the target path afterwards.
type state struct {
	absent  bool
	dir     bool   // a directory (the one the test put there)
	content string // otherwise a file with this content
}

// checkDir fails unless path is in the state want and dir holds nothing
// but the target: no temporary file is left behind.
func checkDir(t *testing.T, dir, path string, want state) {
	t.Helper()
	checkTarget(t, path, want)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	wantNames := []string{filepath.Base(path)}
	if want.absent {
		wantNames = nil
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("%s holds %v, want %v", dir, names, wantNames)
	}
}

func checkTarget(t *testing.T, path string, want state) {
	t.Helper()
	fi, err := os.Lstat(path)
	switch {
	case want.absent:
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exists (%v), want it absent", path, err)
		}
	case err != nil:
		t.Fatalf("%s: %v", path, err)
	case want.dir != fi.IsDir():
		t.Errorf("%s is a directory: %v, want %v", path, fi.IsDir(), want.dir)
	case !want.dir:
		if got, err := os.ReadFile(path); err != nil || string(got) != want.content {
			t.Errorf("%s holds %q (%v), want %q", path, got, err, want.content)
		}
	}
}

// checkErr fails unless err names path, contains want and, when is is
// set, matches it.
func checkErr(t *testing.T, err error, path, want string, is error) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, want) || strings.Contains(msg, ".tmp-") {
		t.Errorf("error %q: want it to name %s, contain %q and not the temporary name", msg, path, want)
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("error %v does not match %v", err, is)
	}
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWrite(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		old     *state // what is at the path before; nil for nothing
		path    string // relative to the test directory; default "f"
		fn      func(io.Writer) error
		want    state
		wantErr string
		wantIs  error
	}{
		{name: "new file", fn: writeString("new"), want: state{content: "new"}},
		{name: "empty file", fn: writeString(""), want: state{content: ""}},
		{name: "replaces a file", old: &state{content: "old"}, fn: writeString("new"), want: state{content: "new"}},
		{name: "callback fails after writing", old: &state{content: "old"},
			fn:   func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return boom },
			want: state{content: "old"}, wantErr: "boom", wantIs: boom},
		{name: "callback fails on a new file", fn: func(io.Writer) error { return boom },
			want: state{absent: true}, wantErr: "boom", wantIs: boom},
		{name: "target is a directory", old: &state{dir: true}, fn: writeString("new"),
			want: state{dir: true}, wantErr: "create: is a directory"},
		{name: "missing directory", path: "nope/f", fn: writeString("new"),
			want: state{absent: true}, wantErr: "create a temporary file", wantIs: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			if tt.path != "" {
				path = filepath.Join(dir, tt.path)
			}
			putState(t, path, tt.old)
			err := Write(path, 0o600, tt.fn)
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" {
				checkErr(t, err, path, tt.wantErr, tt.wantIs)
			}
			checkDir(t, filepath.Dir(path), path, tt.want)
			if tt.wantErr == "" {
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("mode %v (%v), want 0600", fi.Mode(), err)
				}
			}
		})
	}
}

func putState(t *testing.T, path string, s *state) {
	t.Helper()
	var err error
	switch {
	case s == nil || s.absent:
		return
	case s.dir:
		err = os.Mkdir(path, 0o755)
	default:
		err = os.WriteFile(path, []byte(s.content), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestFileFaults writes through Create, puts a fault in place between the
// writes and the commit, and checks what the commit leaves.
func TestFileFaults(t *testing.T) {
	commit := (*File).Commit
	noReplace := (*File).CommitNoReplace
	abort := (*File).Abort
	tests := []struct {
		name    string
		old     *state
		fault   func(dir, path string) error
		end     func(*File) error
		want    state
		wantErr string
		wantIs  error
	}{
		{name: "commit", end: commit, want: state{content: "new"}},
		{name: "commit replaces", old: &state{content: "old"}, end: commit, want: state{content: "new"}},
		{name: "abort", old: &state{content: "old"}, end: abort, want: state{content: "old"}},
		{name: "abort a new file", end: abort, want: state{absent: true}},
		{name: "directory removed mid-write", old: &state{content: "old"},
			fault: func(dir, _ string) error { return os.RemoveAll(dir) },
			end:   commit, want: state{absent: true}, wantErr: "rename into place", wantIs: fs.ErrNotExist},
		{name: "target becomes a directory mid-write",
			fault: func(_, path string) error { return os.Mkdir(path, 0o755) },
			end:   commit, want: state{dir: true}, wantErr: "rename into place: is a directory", wantIs: syscall.EISDIR},
		{name: "no replace, new file", end: noReplace, want: state{content: "new"}},
		{name: "no replace, file there", old: &state{content: "old"}, end: noReplace,
			want: state{content: "old"}, wantErr: "create without replacing", wantIs: fs.ErrExist},
		{name: "no replace, file appears mid-write",
			fault: func(_, path string) error { return os.WriteFile(path, []byte("other"), 0o644) },
			end:   noReplace, want: state{content: "other"}, wantErr: "create without replacing", wantIs: fs.ErrExist},
		{name: "no replace, directory removed mid-write",
			fault: func(dir, _ string) error { return os.RemoveAll(dir) },
			end:   noReplace, want: state{absent: true}, wantErr: "create without replacing", wantIs: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "f")
			putState(t, path, tt.old)
			f, err := Create(path, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Abort()
			for _, part := range []string{"n", "e", "w"} {
				if _, err := f.Write([]byte(part)); err != nil {
					t.Fatal(err)
				}
			}
			checkTarget(t, path, stateOr(tt.old)) // unchanged until the end
			if tt.fault != nil {
				if err := tt.fault(dir, path); err != nil {
					t.Fatal(err)
				}
			}
			err = tt.end(f)
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" {
				checkErr(t, err, path, tt.wantErr, tt.wantIs)
			}
			checkDir(t, dir, path, tt.want)
		})
	}
}

func stateOr(s *state) state {
	if s == nil {
		return state{absent: true}
	}
	return *s
}

// TestFileAfterCommit checks that a finished File refuses more work and
// that Abort after a commit leaves the new file.
func TestFileAfterCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	_, err = f.Write([]byte("more"))
	checkErr(t, err, path, "file already closed", fs.ErrClosed)
	checkErr(t, f.Commit(), path, "commit", fs.ErrClosed)
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir, path, state{content: "new"})
}

// TestFileReadAt checks that written content reads back before the commit,
// and that a finished File refuses to read.
func TestFileReadAt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if _, err := f.Write([]byte("header,body")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if n, err := f.ReadAt(got, 7); err != nil || string(got[:n]) != "body" {
		t.Fatalf("ReadAt = %q, %v; want \"body\"", got[:n], err)
	}
	if n, err := f.ReadAt(got, 9); err != io.EOF || string(got[:n]) != "dy" {
		t.Fatalf("ReadAt past the end = %q, %v; want \"dy\", EOF", got[:n], err)
	}
	checkTarget(t, path, state{absent: true})
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	checkDir(t, dir, path, state{content: "header,body"})
	_, err = f.ReadAt(got, 0)
	checkErr(t, err, path, "file already closed", fs.ErrClosed)
}
