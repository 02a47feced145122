package validator

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"arena/chain"
	"arena/episode"
	"arena/suite"
	"arena/validator/records"
)

// scheduleQualifying starts a qualifying run for every serving miner whose
// current hotkey and endpoint have none, at most QualifyingConcurrency at
// a time.
func (v *Validator) scheduleQualifying(ctx context.Context, block uint64) {
	meta, _, self := v.snapshot()
	if meta == nil || v.storeBlocksNewWork() {
		return
	}
	var due []records.Miner
	err := v.opts.Store.View(func(txn *badger.Txn) error {
		miners, err := v.rec.ListMiners(txn)
		if err != nil {
			return err
		}
		for _, m := range miners {
			if int(m.UID) == self || m.Skipped != "" || m.Endpoint == "" {
				continue
			}
			if m.Qualifying != nil && m.Qualifying.Endpoint == m.Endpoint {
				continue
			}
			due = append(due, m)
		}
		return nil
	})
	if err != nil {
		v.log.Error().Err(err).Msg("store: list miners")
		return
	}
	// Miners that never failed go first, then those that failed least:
	// unreachable axons must not take every slot at every block.
	v.mu.Lock()
	slices.SortStableFunc(due, func(a, b records.Miner) int {
		return cmp.Compare(v.retry[a.UID].failures, v.retry[b.UID].failures)
	})
	v.mu.Unlock()
	for _, m := range due {
		v.mu.Lock()
		busy := v.qualifying[m.UID] || block < v.retry[m.UID].after
		if !busy {
			select {
			case v.qualifySem <- struct{}{}:
				v.qualifying[m.UID] = true
			default:
				busy = true // at the concurrency bound; try next block
			}
		}
		v.mu.Unlock()
		if busy {
			continue
		}
		n, ok := neuronByUID(meta, m.UID)
		if !ok {
			<-v.qualifySem
			v.mu.Lock()
			delete(v.qualifying, m.UID)
			v.mu.Unlock()
			continue
		}
		v.spawn(func() {
			defer func() {
				<-v.qualifySem
				v.mu.Lock()
				delete(v.qualifying, m.UID)
				v.mu.Unlock()
			}()
			v.qualify(ctx, episode.MinerFromNeuron(n), m.Hotkey, block)
		})
	}
}

func neuronByUID(meta *chain.Metagraph, uid uint16) (chain.Neuron, bool) {
	for _, n := range meta.Neurons {
		if n.UID == uid {
			return n, true
		}
	}
	return chain.Neuron{}, false
}

// qualify runs one miner on the public qualifying set, judges it and
// records its score.
func (v *Validator) qualify(ctx context.Context, m episode.Miner, hotkey string, block uint64) {
	log := v.log.With().Uint16("uid", m.UID).Str("endpoint", m.Endpoint).Logger()
	// The due list came from a snapshot that may predate a run that just
	// finished for this miner: never qualify the same hotkey and endpoint
	// twice.
	var already bool
	if err := v.opts.Store.View(func(txn *badger.Txn) error {
		rec, ok, err := v.rec.GetMiner(txn, m.UID)
		already = ok && rec.Hotkey == hotkey && rec.Qualifying != nil && rec.Qualifying.Endpoint == m.Endpoint
		return err
	}); err != nil || already {
		return
	}
	// The stock of the run's first block serves all its episodes.
	stock, err := v.opts.Shop.At(ctx, block)
	if err != nil {
		if ctx.Err() == nil {
			log.Error().Err(err).Msg("qualifying: restock the shop")
			v.deferRetry(m.UID)
		}
		return
	}
	problems, err := v.opts.Ledger.Draw(suite.Public, v.opts.QualifyingProblems, v.opts.QualifyingSeed)
	if err != nil {
		log.Error().Err(err).Msg("qualifying: draw public problems")
		v.deferRetry(m.UID)
		return
	}
	clusters := make([]string, len(problems))
	for i := range problems {
		clusters[i] = problems[i].Cluster
	}
	if err := v.opts.Ledger.MarkExposed(clusters, []string{hotkey}, max(block, 1)); err != nil {
		storeError(log, err, "qualifying: record exposure")
		return
	}
	log.Info().Int("problems", len(problems)).Msg("qualifying started")
	v.emit(Event{Kind: EventQualifyStart, Block: block, UID: m.UID, Text: fmt.Sprintf("uid %d qualifying on %d public problems", m.UID, len(problems))})

	trs := v.runner.RunOn(ctx, stock.Tools, m, toEpisodeProblems(problems))
	if ctx.Err() != nil {
		return // shutdown: a fresh run happens after restart
	}
	if allUnreachable(trs) {
		log.Warn().Str("reason", string(trs[0].EndReason)).Str("detail", trs[0].EndDetail).Msg("qualifying: miner unreachable; retrying later")
		v.deferRetry(m.UID)
		return
	}
	eps := v.episodes(trs, problems, records.Qualifying, 0, hotkey, block)
	if err := v.storeEpisodes(eps); err != nil {
		storeError(log, err, "qualifying: store episodes")
		return
	}
	verdicts := make([]records.Verdict, len(eps))
	epRefs := make([]*records.Episode, len(eps))
	for i := range eps {
		if verdicts[i], err = v.evaluate(ctx, &eps[i], block); err != nil {
			log.Error().Err(err).Msg("qualifying: judge")
			return
		}
		epRefs[i] = &eps[i]
	}
	vdRefs := refs(verdicts)
	if v.voids(vdRefs) {
		v.m.void.WithLabelValues("qualifying").Inc()
		log.Warn().Msg("qualifying void: no llm judge model answered (judge.on_unavailable: void); retrying later")
		if err := v.opts.Store.Update(func(txn *badger.Txn) error { return v.putVerdicts(txn, verdicts) }); err != nil {
			storeError(log, err, "qualifying: store verdicts")
		}
		v.deferRetry(m.UID)
		return
	}
	if relayFault(epRefs) {
		// The validator's provider failed: the run says nothing about
		// the miner, so it is void like a run no judge model answered.
		v.m.void.WithLabelValues("qualifying").Inc()
		log.Warn().Msg("qualifying void: the relay's provider failed during the run (never the miner's fault); retrying later")
		if err := v.opts.Store.Update(func(txn *badger.Txn) error { return v.putVerdicts(txn, verdicts) }); err != nil {
			storeError(log, err, "qualifying: store verdicts")
		}
		v.deferRetry(m.UID)
		return
	}
	if f, ok := v.judgeRun("qualifying", epRefs, vdRefs); ok {
		log.Warn().Str("skeleton", f.Skeleton).Float64("share", f.Share).Msg("qualifying: the thinks follow one template; reasoning score capped")
	}
	total := 0.0
	for _, vd := range verdicts {
		total += vd.Final
	}
	score := total / float64(len(problems))
	v.mu.Lock()
	done := v.head.Number
	v.mu.Unlock()
	err = v.opts.Store.Update(func(txn *badger.Txn) error {
		if err := v.putVerdicts(txn, verdicts); err != nil {
			return err
		}
		rec, ok, err := v.rec.GetMiner(txn, m.UID)
		if err != nil {
			return err
		}
		if !ok || rec.Hotkey != hotkey {
			return nil // the uid changed hands while qualifying; the new hotkey qualifies afresh
		}
		ids := make([]string, len(eps))
		for i := range eps {
			ids[i] = eps[i].Trajectory.EpisodeID
		}
		rec.Qualifying = &records.QualifyingRun{Score: score, Block: done, Endpoint: m.Endpoint, Episodes: ids}
		return v.rec.PutMiner(txn, &rec)
	})
	if err != nil {
		storeError(log, err, "qualifying: store result")
		return
	}
	v.mu.Lock()
	delete(v.retry, m.UID)
	v.mu.Unlock()
	log.Info().Float64("score", score).Msg("qualifying done")
	v.emit(Event{Kind: EventQualified, Block: done, UID: m.UID, Score: score, Text: fmt.Sprintf("uid %d qualifying score %.3f", m.UID, score)})
}

// retryState is an unreachable miner's back-off.
type retryState struct {
	after    uint64 // no new attempt before this block
	failures int
}

// deferRetry backs a miner off, counted from the current head (the
// attempt may have taken many blocks) and doubling with each failure up to
// 32 sync intervals.
func (v *Validator) deferRetry(uid uint16) {
	v.mu.Lock()
	st := v.retry[uid]
	st.failures++
	st.after = v.head.Number + 3*v.opts.SyncEveryBlocks<<min(st.failures-1, 4)
	v.retry[uid] = st
	v.mu.Unlock()
}

// allUnreachable reports whether no episode got past the connection: the
// miner was down, not wrong, so qualifying is retried rather than scored.
func allUnreachable(trs []episode.Trajectory) bool {
	if len(trs) == 0 {
		return true
	}
	for _, t := range trs {
		if t.EndReason != episode.ReasonDialFailed && t.EndReason != episode.ReasonHandshakeTimeout {
			return false
		}
	}
	return true
}

func toEpisodeProblems(ps []suite.Problem) []episode.Problem {
	out := make([]episode.Problem, len(ps))
	for i := range ps {
		out[i] = episode.Problem{ID: ps[i].ID, Query: ps[i].Query}
	}
	return out
}

// episodes wraps trajectories (one per problem, in order) as stored
// episodes. A miner that could not be reached has trajectories without an
// episode id (no episode_start was sent); they get one here so the failure
// is stored like any other episode.
func (v *Validator) episodes(trs []episode.Trajectory, problems []suite.Problem, kind records.Kind, raceID uint64, hotkey string, block uint64) []records.Episode {
	out := make([]records.Episode, len(trs))
	for i := range trs {
		if trs[i].EpisodeID == "" {
			trs[i].EpisodeID = randomID()
		}
		p := &problems[i]
		out[i] = records.Episode{Trajectory: trs[i], Kind: kind, RaceID: raceID, Hotkey: hotkey,
			ProblemType: p.Type, Cluster: p.Cluster, Block: block}
	}
	return out
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b[:])
}

// storeEpisodes writes episodes and their indexes in one transaction.
func (v *Validator) storeEpisodes(eps []records.Episode) error {
	return v.opts.Store.Update(func(txn *badger.Txn) error {
		for i := range eps {
			if err := v.rec.PutEpisode(txn, &eps[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
