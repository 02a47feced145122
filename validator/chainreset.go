package validator

import (
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/scoring/race"
	"arena/store"
	"arena/validator/records"
)

// ChainResetReport says what ResetChainState changed.
type ChainResetReport struct {
	// Era is the new chain era.
	Era uint64
	// Genesis and Cursor are what the data dir knew of the old chain.
	Genesis string
	Cursor  uint64
	// Leader was the standing leader on the old chain, if any.
	Leader *race.Leader
	// AbortedRace is a race that was running, aborted (0: none).
	AbortedRace uint64
	// UnsettledWeights counts weights submissions left pending or
	// committed on the old chain, now recorded as failed.
	UnsettledWeights int
	// Miners counts the miner records dropped (re-read from the new
	// chain's metagraph; their episodes stay).
	Miners int
}

// ResetChainState lets a data dir follow a new chain after the one it was
// built on was reset (a devnet or testnet restarted): block numbers and
// uids of the old chain mean nothing on the new one. In one transaction it
// starts a new chain era: the recorded genesis and the chain cursor are
// cleared (both kept in the era's record in the meta), the race standing
// starts over (no leader; races before this one are no longer evidence),
// a running race is aborted, weights submissions not settled on the old
// chain are marked failed, and the miner records are dropped, to be read
// again from the new metagraph. Episodes, verdicts, race records, earlier
// submissions and the suite, exposures included, are kept.
func ResetChainState(st *store.Store, now time.Time) (ChainResetReport, error) {
	rec := records.New()
	var rep ChainResetReport
	err := st.Update(func(txn *badger.Txn) error {
		m, _, err := rec.GetMeta(txn)
		if err != nil {
			return err
		}
		c, hasCursor, err := rec.GetCursor(txn)
		if err != nil {
			return err
		}
		rs, err := rec.GetState(txn)
		if err != nil {
			return err
		}
		rep.Genesis, rep.Leader = m.Genesis, rs.State.Leader
		if hasCursor {
			rep.Cursor = c.Block
			if err := rec.DeleteCursor(txn); err != nil {
				return err
			}
		}
		if rs.Current != 0 {
			if rc, ok, err := rec.GetRace(txn, rs.Current); err != nil {
				return err
			} else if ok && rc.Phase.Live() {
				rc.Phase, rc.AbortReason = records.PhaseAborted, "the chain was reset under the data dir (arena store reset-chain-state)"
				if err := rec.PutRace(txn, &rc); err != nil {
					return err
				}
				rep.AbortedRace = rc.ID
			}
		}
		rs = records.RaceState{State: race.State{Races: rs.State.Races}, NextRaceID: rs.NextRaceID, FirstRace: max(rs.NextRaceID, 1)}
		if err := rec.PutState(txn, rs); err != nil {
			return err
		}
		subs, err := rec.ListSubmissions(txn)
		if err != nil {
			return err
		}
		for i := range subs {
			s := &subs[i]
			if s.Era == m.Era && (s.Status == records.StatusPending || s.Status == records.StatusCommitted) {
				s.Status, s.Error, s.RawTx = records.StatusFailed, "the chain was reset before it settled", ""
				if err := rec.PutSubmission(txn, s); err != nil {
					return err
				}
				rep.UnsettledWeights++
			}
		}
		var uids [][]byte
		if err := rec.Miners.Iterate(txn, nil, func(k []byte, _ records.Miner) error {
			uids = append(uids, k)
			return nil
		}); err != nil {
			return err
		}
		for _, k := range uids {
			if err := rec.Miners.Delete(txn, k); err != nil {
				return err
			}
		}
		rep.Miners = len(uids)
		m.Resets = append(m.Resets, records.ChainReset{At: now.UTC(), Genesis: m.Genesis, Cursor: rep.Cursor, Leader: rep.Leader})
		m.Era++
		m.Genesis = ""
		rep.Era = m.Era
		return rec.PutMeta(txn, m)
	})
	if err != nil {
		return ChainResetReport{}, fmt.Errorf("reset chain state: %w", err)
	}
	return rep, nil
}
