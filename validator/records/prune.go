package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/store"
)

// EpisodeInfo is what store retention needs to know of a stored episode,
// read without decoding its steps.
type EpisodeInfo struct {
	ID      string
	Kind    Kind
	RaceID  uint64
	UID     uint16
	Problem string
	// Start is when the episode began (wall clock; zero if the record
	// has none).
	Start time.Time
	// Bytes is what the episode and its verdict take in the store, keys
	// and values.
	Bytes int64
}

// episodeHead is the part of a stored Episode that EpisodeInfo needs:
// decoding only these fields skips the steps, which hold nearly all of an
// episode's bytes.
type episodeHead struct {
	Trajectory struct {
		EpisodeID string `json:"episode_id"`
		ProblemID string `json:"problem_id"`
		MinerUID  uint16 `json:"miner_uid"`
		Timings   struct {
			Start time.Time `json:"start"`
		} `json:"timings"`
	} `json:"trajectory"`
	Kind   Kind   `json:"kind"`
	RaceID uint64 `json:"race_id"`
}

func decodeHead(data []byte) (EpisodeInfo, error) {
	var h episodeHead
	if err := json.Unmarshal(data, &h); err != nil {
		return EpisodeInfo{}, fmt.Errorf("keyspace episodes: decode: %w", err)
	}
	t := h.Trajectory
	return EpisodeInfo{ID: t.EpisodeID, Kind: h.Kind, RaceID: h.RaceID, UID: t.MinerUID, Problem: t.ProblemID, Start: t.Timings.Start}, nil
}

// ForEachEpisodeInfo calls fn for every stored episode, in id order, with
// what retention needs of it. It reads one record at a time; fn's error
// ends the walk (store.ErrStop with nil).
func (r *Records) ForEachEpisodeInfo(txn *badger.Txn, fn func(EpisodeInfo) error) error {
	prefix := r.Episodes.Key()
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		var info EpisodeInfo
		err := item.Value(func(v []byte) error {
			var err error
			info, err = decodeHead(v)
			return err
		})
		if err != nil {
			return fmt.Errorf("keyspace %s: %x: %w", r.Episodes.Name(), item.Key(), err)
		}
		info.Bytes = int64(len(item.Key())) + item.ValueSize()
		vkey := r.Verdicts.Key(store.String(info.ID))
		switch vi, err := txn.Get(vkey); {
		case errors.Is(err, badger.ErrKeyNotFound):
		case err != nil:
			return fmt.Errorf("keyspace %s: get %x: %w", r.Verdicts.Name(), vkey, err)
		default:
			info.Bytes += int64(len(vkey)) + vi.ValueSize()
		}
		if err := fn(info); err != nil {
			if errors.Is(err, store.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// PruneEpisode deletes a stored episode in txn with everything that names
// it: its verdict and its entries in the problem, miner and race indexes.
// A race episode is counted in its race record's EpisodesPruned in the
// same transaction, so Check still accounts for every racer and problem of
// the race. It reports whether the episode was stored. Deciding what may
// be pruned is the caller's (validator retention).
func (r *Records) PruneEpisode(txn *badger.Txn, id string) (bool, error) {
	key := r.Episodes.Key(store.String(id))
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("prune episode %s: %w", id, err)
	}
	var info EpisodeInfo
	if err := item.Value(func(v []byte) error { info, err = decodeHead(v); return err }); err != nil {
		return false, fmt.Errorf("prune episode %s: %w", id, err)
	}
	del := func(err error) error {
		if err != nil {
			return fmt.Errorf("prune episode %s: %w", id, err)
		}
		return nil
	}
	if err := del(r.Episodes.Delete(txn, key)); err != nil {
		return false, err
	}
	if err := del(r.Verdicts.Delete(txn, r.Verdicts.Key(store.String(id)))); err != nil {
		return false, err
	}
	if err := del(r.ByProblem.Delete(txn, r.ByProblem.Key(store.String(info.Problem), store.String(id)))); err != nil {
		return false, err
	}
	if err := del(r.ByMiner.Delete(txn, r.ByMiner.Key(store.U16(info.UID), store.String(id)))); err != nil {
		return false, err
	}
	if info.Kind != Racing {
		return true, nil
	}
	if err := del(r.ByRace.Delete(txn, r.ByRace.Key(store.U64(info.RaceID), store.String(id)))); err != nil {
		return false, err
	}
	rc, ok, err := r.GetRace(txn, info.RaceID)
	if err != nil || !ok {
		return err == nil, del(err)
	}
	rc.EpisodesPruned++
	if err := del(r.PutRace(txn, &rc)); err != nil {
		return false, err
	}
	return true, nil
}
