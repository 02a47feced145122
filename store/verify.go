package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/ristretto/v2/z"
)

// verifyTables checks the checksum of every block of every table in dir
// and returns an ErrCorrupt error naming the first bad file. Badger can
// verify tables itself when it opens them, but a corrupt block makes its
// verification dereference a nil block (badger v4.9.6,
// table/table.go:709) or index past a slice, in one of its own goroutines,
// which no caller can recover; here each table is opened read-only on the
// caller's goroutine, where such a panic becomes an error.
func verifyTables(dir, label string) error {
	tables, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	for _, path := range tables {
		if err := verifyTable(path); err != nil {
			return corruptError(label, err)
		}
	}
	return nil
}

func verifyTable(path string) (err error) {
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // compacted away since the listing
	}
	if err != nil && !errors.Is(err, z.NewFile) {
		return fmt.Errorf("table %s: %w", path, err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("table %s: a block no longer decodes (%v)", path, r)
		}
	}()
	def := badger.DefaultOptions("")
	t, err := table.OpenTable(mf, table.Options{ChkMode: options.OnTableRead, Compression: def.Compression, BlockSize: def.BlockSize})
	if err != nil {
		return fmt.Errorf("table %s: %w", path, err)
	}
	// Not DecrRef: dropping the last reference deletes the file.
	return t.MmapFile.Close(-1)
}
