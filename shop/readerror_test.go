package shop

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rs/zerolog"
)

// TestIndexFileReadFails makes the index file unreadable under a serving
// catalog (its descriptor closed, as a failing disk would fail the reads):
// tool calls answer with an internal error and the process goes on, and a
// scan of the catalog that defers RecoverReadError gets the error instead of
// a panic.
func TestIndexFileReadFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.jsonl")
	w, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for p := range fixture(t).All() {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	idx, _, err := OpenIndexFile(context.Background(), path, IndexFileOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tools, err := NewTools(ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"q": "earbuds", "page": 1}`)
	if r := tools.Execute(context.Background(), ToolFindProduct, args); r.Err != nil {
		t.Fatalf("before the fault: %v", r.Err)
	}
	if err := idx.cat.file.f.(*os.File).Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		r := tools.Execute(context.Background(), ToolFindProduct, args)
		if r.Err == nil || r.Err.Code != CodeInternal {
			t.Fatalf("after the fault: %+v, want an internal error", r)
		}
	}
	scan := func() (n int, err error) {
		defer RecoverReadError(&err)
		for range idx.cat.All() {
			n++
		}
		return n, nil
	}
	n, err := scan()
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, fs.ErrClosed) || re.Path != path+IndexFileSuffix {
		t.Fatalf("scan read %d products and returned %v, want a ReadError naming the index file", n, err)
	}
	// Other panics are not swallowed.
	defer func() {
		if r := recover(); r != "other" {
			t.Fatalf("recovered %v, want the other panic to go on", r)
		}
	}()
	func() {
		var err error
		defer RecoverReadError(&err)
		panic("other")
	}()
}
