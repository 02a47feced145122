package records

import (
	"context"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"arena/store"
	"arena/suite"
)

// CheckReport is the result of Check: counts of what was read and every
// inconsistency found.
type CheckReport struct {
	Episodes    int      `json:"episodes"`
	Verdicts    int      `json:"verdicts"`
	Races       int      `json:"races"`
	Submissions int      `json:"submissions"`
	Miners      int      `json:"miners"`
	Clusters    int      `json:"clusters"`
	Problems    []string `json:"problems"`
}

// OK reports whether no inconsistency was found.
func (c *CheckReport) OK() bool { return len(c.Problems) == 0 }

func (c *CheckReport) addf(format string, args ...any) {
	c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
}

// Check verifies the cross-references between the validator's keyspaces
// and the suite ledger, reading only. It reports every problem rather than
// stopping at the first.
func (r *Records) Check(ctx context.Context, st *store.Store, ledger *suite.Ledger) (CheckReport, error) {
	var rep CheckReport
	// One transaction for the clusters and the records: a validator that
	// runs meanwhile starts races (a race record and its exposures commit
	// together), and two snapshots could see one without the other.
	err := st.View(func(txn *badger.Txn) error {
		clusters, err := ledger.ClustersTxn(ctx, txn)
		if err != nil {
			return err
		}
		rep.Clusters = len(clusters)
		clusterByID := make(map[string]*suite.ClusterRecord, len(clusters))
		for i := range clusters {
			clusterByID[clusters[i].ID] = &clusters[i]
		}
		episodes := map[string]*Episode{}
		err = r.Episodes.Iterate(txn, nil, func(_ []byte, e Episode) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			rep.Episodes++
			episodes[e.Trajectory.EpisodeID] = &e
			id := e.Trajectory.EpisodeID
			if _, ok, err := r.ByProblem.Get(txn, r.ByProblem.Key(store.String(e.Trajectory.ProblemID), store.String(id))); err != nil {
				return err
			} else if !ok {
				rep.addf("episode %s: missing from the problem index", id)
			}
			if _, ok, err := r.ByMiner.Get(txn, r.ByMiner.Key(store.U16(e.Trajectory.MinerUID), store.String(id))); err != nil {
				return err
			} else if !ok {
				rep.addf("episode %s: missing from the miner index", id)
			}
			if e.Kind == Racing {
				if _, ok, err := r.ByRace.Get(txn, r.ByRace.Key(store.U64(e.RaceID), store.String(id))); err != nil {
					return err
				} else if !ok {
					rep.addf("episode %s: missing from the race index", id)
				}
				if _, ok, err := r.GetRace(txn, e.RaceID); err != nil {
					return err
				} else if !ok {
					rep.addf("episode %s: race %d is not stored", id, e.RaceID)
				}
			}
			if e.Cluster != "" && clusterByID[e.Cluster] == nil {
				rep.addf("episode %s: cluster %s is not in the suite", id, e.Cluster)
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = r.Verdicts.Iterate(txn, nil, func(_ []byte, v Verdict) error {
			rep.Verdicts++
			if episodes[v.EpisodeID] == nil {
				rep.addf("verdict %s: no such episode", v.EpisodeID)
			}
			return nil
		})
		if err != nil {
			return err
		}
		indexed := func(name string, ks func(fn func(id string) error) error) error {
			return ks(func(id string) error {
				if episodes[id] == nil {
					rep.addf("%s index: names missing episode %s", name, id)
				}
				return nil
			})
		}
		if err := indexed("problem", func(fn func(string) error) error {
			return r.ByProblem.Iterate(txn, nil, func(key []byte, _ struct{}) error {
				rd := r.ByProblem.Read(key)
				rd.Str()
				return fn(rd.Str())
			})
		}); err != nil {
			return err
		}
		if err := indexed("miner", func(fn func(string) error) error {
			return r.ByMiner.Iterate(txn, nil, func(key []byte, _ string) error {
				rd := r.ByMiner.Read(key)
				rd.U16()
				return fn(rd.Str())
			})
		}); err != nil {
			return err
		}
		if err := indexed("race", func(fn func(string) error) error {
			return r.ByRace.Iterate(txn, nil, func(key []byte, _ RaceEntry) error {
				rd := r.ByRace.Read(key)
				rd.U64()
				return fn(rd.Str())
			})
		}); err != nil {
			return err
		}

		state, err := r.GetState(txn)
		if err != nil {
			return err
		}
		races, err := r.ListRaces(txn, 0)
		if err != nil {
			return err
		}
		rep.Races = len(races)
		clusterRace := map[string]uint64{}
		for _, rc := range races {
			if rc.ID >= state.NextRaceID {
				rep.addf("race %d: id not below the next race id %d", rc.ID, state.NextRaceID)
			}
			if (rc.Phase == PhaseRunning || rc.Phase == PhaseJudging) && state.Current != rc.ID {
				rep.addf("race %d: %s but not the current race (%d)", rc.ID, rc.Phase, state.Current)
			}
			for _, cid := range rc.Clusters {
				if other, dup := clusterRace[cid]; dup {
					rep.addf("cluster %s: raced twice (races %d and %d)", cid, other, rc.ID)
				}
				clusterRace[cid] = rc.ID
				c := clusterByID[cid]
				switch {
				case c == nil:
					rep.addf("race %d: cluster %s is not in the suite", rc.ID, cid)
				case c.Partition == suite.Hidden || c.Partition == suite.Public:
					rep.addf("race %d: cluster %s is still %s, its exposure was not recorded", rc.ID, cid, c.Partition)
				case !slices.ContainsFunc(c.Exposures, func(x suite.Exposure) bool { return x.Block == rc.StartedBlock }):
					rep.addf("race %d: cluster %s has no exposure at block %d", rc.ID, cid, rc.StartedBlock)
				}
			}
			if rc.Phase != PhaseDone {
				continue
			}
			ids, err := r.RaceEpisodes(txn, rc.ID)
			if err != nil {
				return err
			}
			if want := len(rc.Racers) * len(rc.Problems); len(ids)+rc.EpisodesPruned != want {
				pruned := ""
				if rc.EpisodesPruned > 0 {
					pruned = fmt.Sprintf(" and %d pruned by store retention", rc.EpisodesPruned)
				}
				rep.addf("race %d: %d episodes stored%s, want %d (%d racers × %d problems)", rc.ID, len(ids), pruned, want, len(rc.Racers), len(rc.Problems))
			}
			seen := map[[2]string]bool{}
			for _, id := range ids {
				e := episodes[id]
				if e == nil {
					continue
				}
				pair := [2]string{fmt.Sprint(e.Trajectory.MinerUID), e.Trajectory.ProblemID}
				if seen[pair] {
					rep.addf("race %d: uid %d ran problem %s twice", rc.ID, e.Trajectory.MinerUID, e.Trajectory.ProblemID)
				}
				seen[pair] = true
				if _, ok, err := r.GetVerdict(txn, id); err != nil {
					return err
				} else if !ok {
					rep.addf("race %d: episode %s has no verdict", rc.ID, id)
				}
			}
		}
		if state.Current != 0 {
			if _, ok, err := r.GetRace(txn, state.Current); err != nil {
				return err
			} else if !ok {
				rep.addf("race state: current race %d is not stored", state.Current)
			}
		}

		subs, err := r.ListSubmissions(txn)
		if err != nil {
			return err
		}
		rep.Submissions = len(subs)
		for _, s := range subs {
			if len(s.UIDs) != len(s.Values) {
				rep.addf("weights window %d: %d uids but %d values", s.Window, len(s.UIDs), len(s.Values))
			}
			switch s.Status {
			case StatusSet:
				if s.TxHash == "" {
					rep.addf("weights window %d: set without a transaction hash", s.Window)
				}
			case StatusCommitted, StatusRevealed:
				if len(s.Salt) == 0 || s.CommitHash == "" || s.TxHash == "" {
					rep.addf("weights window %d: %s without salt, commit hash or transaction", s.Window, s.Status)
				}
				if s.Status == StatusRevealed && s.RevealTxHash == "" {
					rep.addf("weights window %d: revealed without a reveal transaction", s.Window)
				}
			}
		}

		miners, err := r.ListMiners(txn)
		if err != nil {
			return err
		}
		rep.Miners = len(miners)
		for _, m := range miners {
			if m.Qualifying == nil {
				continue
			}
			for _, id := range m.Qualifying.Episodes {
				if episodes[id] == nil {
					rep.addf("miner %d: qualifying episode %s is not stored", m.UID, id)
				}
			}
		}
		return nil
	})
	return rep, err
}
