package records

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"arena/store"
)

// ForEachEpisodeRaw calls fn for every stored episode in id order with its
// id (read from the key), the episode's stored JSON and its verdict's
// stored JSON (nil when not judged yet), without decoding either. Both
// slices are copies that fn may keep and hand to other goroutines, so a
// caller can decode in parallel while this iterates. Decode them with
// DecodeEpisode and DecodeVerdict (the keyspaces' codec). An error from fn
// ends the iteration and is returned as is, except store.ErrStop, which
// ends it with nil.
//
// The verdict is looked up by the key's id; PutEpisode stores an episode
// under its trajectory's EpisodeID, so this is the id ForEachEpisode uses.
func (r *Records) ForEachEpisodeRaw(txn *badger.Txn, fn func(id string, episode, verdict []byte) error) error {
	prefix := r.Episodes.Key()
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		rd := r.Episodes.Read(item.Key())
		id := rd.Str()
		if err := rd.Done(); err != nil {
			return fmt.Errorf("keyspace %s: %w", r.Episodes.Name(), err)
		}
		ev, err := item.ValueCopy(nil)
		if err != nil {
			return fmt.Errorf("keyspace %s: read %x: %w", r.Episodes.Name(), item.Key(), err)
		}
		vv, err := r.rawVerdict(txn, id)
		if err != nil {
			return err
		}
		if err := fn(id, ev, vv); err != nil {
			if errors.Is(err, store.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// rawVerdict returns a copy of the stored verdict JSON of id, or nil.
func (r *Records) rawVerdict(txn *badger.Txn, id string) ([]byte, error) {
	key := r.Verdicts.Key(store.String(id))
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("keyspace %s: get %x: %w", r.Verdicts.Name(), key, err)
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, fmt.Errorf("keyspace %s: read %x: %w", r.Verdicts.Name(), key, err)
	}
	return v, nil
}

// DecodeEpisode decodes an episode's stored JSON as the Episodes keyspace
// does (encoding/json). It is safe for concurrent use.
func DecodeEpisode(data []byte, e *Episode) error {
	if err := (store.JSON[Episode]{}).Unmarshal(data, e); err != nil {
		return fmt.Errorf("keyspace episodes: decode: %w", err)
	}
	return nil
}

// DecodeVerdict decodes a verdict's stored JSON as the Verdicts keyspace
// does (encoding/json). It is safe for concurrent use.
func DecodeVerdict(data []byte, v *Verdict) error {
	if err := (store.JSON[Verdict]{}).Unmarshal(data, v); err != nil {
		return fmt.Errorf("keyspace verdicts: decode: %w", err)
	}
	return nil
}
