package records

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/store"
)

// TestEpisodeWritesArePutEpisodes: PutEpisode and PutVerdict write exactly
// the keys and values EpisodeWrites lists, which is what the fixtures
// write through.
func TestEpisodeWritesArePutEpisodes(t *testing.T) {
	ep := func(kind Kind) Episode {
		return Episode{Kind: kind, RaceID: 4, Hotkey: "5Hk", Block: 9,
			Trajectory: episode.Trajectory{EpisodeID: "e-" + string(kind), MinerUID: 3, ProblemID: "p1"}}
	}
	tests := []struct {
		name     string
		e        Episode
		verdict  bool
		wantKeys int
	}{
		{"qualifying, unjudged", ep(Qualifying), false, 3},
		{"race episode, judged", ep(Racing), true, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := store.Open(store.Options{InMemory: true}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			rec := New()
			var v *Verdict
			if tt.verdict {
				v = &Verdict{EpisodeID: tt.e.Trajectory.EpisodeID, Final: 0.5}
			}
			err = st.Update(func(txn *badger.Txn) error {
				if err := rec.PutEpisode(txn, &tt.e); err != nil {
					return err
				}
				if v != nil {
					return rec.PutVerdict(txn, v)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			stored := map[string][]byte{}
			err = st.View(func(txn *badger.Txn) error {
				it := txn.NewIterator(badger.DefaultIteratorOptions)
				defer it.Close()
				for it.Rewind(); it.Valid(); it.Next() {
					k := it.Item().KeyCopy(nil)
					if k[0] == 0 || k[0] == '!' {
						continue // the store's own meta and Badger's
					}
					val, err := it.Item().ValueCopy(nil)
					if err != nil {
						return err
					}
					stored[string(k)] = val
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			writes, err := rec.EpisodeWrites(&tt.e, v)
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string][]byte{}
			for _, w := range writes {
				listed[string(w.Key)] = w.Value
			}
			if len(listed) != tt.wantKeys || !maps.EqualFunc(stored, listed, bytes.Equal) {
				t.Errorf("stored keys %q\nlisted keys %q (want %d)", slices.Sorted(maps.Keys(stored)), slices.Sorted(maps.Keys(listed)), tt.wantKeys)
			}
		})
	}
}
