package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// manifestFile is the file every Badger database directory holds.
const manifestFile = "MANIFEST"

// ErrNotStore: the directory holds files but no database. Its message names a directory
// below that holds one (an `arena dev` folder keeps its validator's data in ./validator),
// so an operator who passed the parent learns in one line what to pass instead.
var ErrNotStore = errors.New("not an arena data dir")

// checkDataDir refuses a directory that is not a database but holds one a level down, in
// every mode: reading it would fail with Badger's "no manifest found", and writing would start
// a second, empty database beside the real one. A read-only open also refuses a non-empty
// directory with no database in it at all.
func checkDataDir(opts Options) error {
	if opts.InMemory || isStoreDir(opts.Dir) {
		return nil
	}
	entries, err := os.ReadDir(opts.Dir)
	if err != nil || len(entries) == 0 {
		return nil // missing or empty: a fresh database, or Open's own read-only error
	}
	var inside []string
	for _, e := range entries {
		if p := filepath.Join(opts.Dir, e.Name()); e.IsDir() && isStoreDir(p) {
			inside = append(inside, p)
		}
	}
	sort.Strings(inside)
	switch {
	case len(inside) == 1:
		return fmt.Errorf("%s: %w, but %s is one (an `arena dev` folder keeps the validator's data there): pass %s", opts.label(), ErrNotStore, inside[0], inside[0])
	case len(inside) > 1:
		return fmt.Errorf("%s: %w, but %d directories in it are (%s first): pass one of them", opts.label(), ErrNotStore, len(inside), inside[0])
	case opts.ReadOnly:
		return fmt.Errorf("%s: %w: it holds no Badger database (no %s file); pass the validator's data_dir", opts.label(), ErrNotStore, manifestFile)
	}
	return nil
}

func isStoreDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, manifestFile))
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}
