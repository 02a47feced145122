package practice

import (
	"context"
	"fmt"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// Save writes the practice's problems (to the suite ledger, public
// partition), its episodes (as qualifying episodes under the miner's
// hotkey) and their verdicts into st, in the validator's store format,
// so `arena export` reads them like a validator's data. Episodes and
// verdicts go in one transaction per episode: an episode is never stored
// without its verdict.
func (r *Report) Save(ctx context.Context, st *store.Store, log zerolog.Logger) error {
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, log, nil)
	if err != nil {
		return fmt.Errorf("save practice: %w", err)
	}
	if _, err := ledger.Add(ctx, r.problems, suite.Public); err != nil {
		return fmt.Errorf("save practice: %w", err)
	}
	rec := records.New()
	for i := range r.trajectories {
		p := &r.problems[i]
		cluster := p.Cluster
		if stored, ok, err := ledger.Problem(p.ID); err == nil && ok {
			cluster = stored.Cluster
		}
		e := &records.Episode{Trajectory: r.trajectories[i], Kind: records.Qualifying, Hotkey: r.Miner.Hotkey,
			ProblemType: p.Type, Cluster: cluster}
		ev := &r.evaluations[i]
		v := &records.Verdict{EpisodeID: e.Trajectory.EpisodeID, Metrics: ev.Metrics, Judge: ev.Verdict, Final: ev.Final}
		if err := st.Update(func(txn *badger.Txn) error {
			if err := rec.PutEpisode(txn, e); err != nil {
				return err
			}
			return rec.PutVerdict(txn, v)
		}); err != nil {
			return fmt.Errorf("save practice: episode %s: %w", e.Trajectory.EpisodeID, err)
		}
	}
	return nil
}
