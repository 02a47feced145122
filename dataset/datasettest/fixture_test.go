package datasettest

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/store"
)

// TestBulkMatchesBuild requires the bulk writer to store exactly the keys
// and values the PutEpisode/PutVerdict path stores.
func TestBulkMatchesBuild(t *testing.T) {
	o := Options{ProblemsPerType: 3, Racers: 5, Steps: 2, Anomalies: true}
	slow := dump(t, Build(t, filepath.Join(t.TempDir(), "slow"), o).Dir)
	o.Bulk = true
	fast := dump(t, Build(t, filepath.Join(t.TempDir(), "fast"), o).Dir)
	if len(slow) != len(fast) || len(slow) < 100 {
		t.Fatalf("%d keys built, %d bulk", len(slow), len(fast))
	}
	for i := range slow {
		if !bytes.Equal(slow[i][0], fast[i][0]) || !bytes.Equal(slow[i][1], fast[i][1]) {
			t.Fatalf("entry %d differs: %q=%q vs %q=%q", i, slow[i][0], slow[i][1], fast[i][0], fast[i][1])
		}
	}
}

func dump(t *testing.T, dir string) [][2][]byte {
	st, err := store.Open(store.Options{Dir: dir, ReadOnly: true}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out [][2][]byte
	err = st.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out = append(out, [2][]byte{it.Item().KeyCopy(nil), v})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
