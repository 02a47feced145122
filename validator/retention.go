package validator

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/validator/records"
)

// RetentionOptions configure store retention (store.retention): which
// stored episodes the validator deletes, and how often it looks. The zero
// value deletes nothing: the trajectories are the product.
type RetentionOptions struct {
	// MaxAge deletes episodes that started longer ago (0: none by age).
	MaxAge time.Duration
	// MaxBytes deletes the oldest episodes while the stored episodes and
	// their verdicts take more (0: no limit).
	MaxBytes int64
	// Every is how often Run prunes (default 1 h).
	Every time.Duration
}

// Enabled reports whether any limit is set.
func (o RetentionOptions) Enabled() bool { return o.MaxAge > 0 || o.MaxBytes > 0 }

// Why an episode is pruned (arena_validator_pruned_episodes_total's label).
const (
	pruneAge  = "age"
	pruneSize = "size"
)

// pruneBatch bounds the episodes one transaction deletes: a transaction
// holds its writes in memory, and a short one rarely conflicts with the
// validator's own writes.
const pruneBatch = 200

// PruneReport says what one retention run did.
type PruneReport struct {
	// Pruned episodes, ByAge and BySize of them, taking PrunedBytes.
	Pruned, ByAge, BySize int
	PrunedBytes           int64
	// Bytes the stored episodes and verdicts take after the run, Kept of
	// them by the rules whatever the limits.
	Bytes, Kept int64
}

// runRetention prunes once the validator is first ready (the head, which
// places the evidence window, is known by then) and then every
// RetentionOptions.Every, until ctx ends.
func (v *Validator) runRetention(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-v.readyC:
	}
	every := v.opts.Retention.Every
	if every <= 0 {
		every = time.Hour
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if _, err := v.Prune(ctx, time.Now()); err != nil && ctx.Err() == nil {
			storeError(v.log, err, "retention: prune episodes")
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Prune deletes the stored episodes that store retention lets go, as
// measured at now: those that started more than MaxAge ago, then the
// oldest while episodes take more than MaxBytes. Never deleted: race
// records (with their heats, results and per-episode scores), weights
// submissions, the episodes of a race not decided yet or started within
// the race rule's evidence window (race.Params.EvidenceFrom at the head),
// and those of a miner's current qualifying run or of a run in flight.
// Each deleted episode goes with its verdict and index entries, and a race
// episode is counted in its race record, so records.Check stays clean.
func (v *Validator) Prune(ctx context.Context, now time.Time) (PruneReport, error) {
	var rep PruneReport
	if v.resetReason.Load() != nil {
		// The head is another chain's: it places no evidence window.
		return rep, nil
	}
	o := v.opts.Retention
	var eps []prunable
	err := v.opts.Store.View(func(txn *badger.Txn) error {
		g, err := v.retentionGuard(txn)
		if err != nil {
			return err
		}
		return v.rec.ForEachEpisodeInfo(txn, func(info records.EpisodeInfo) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			why, err := g.keeps(info)
			eps = append(eps, prunable{info: info, kept: why != ""})
			return err
		})
	})
	if err != nil {
		return rep, fmt.Errorf("retention: read episodes: %w", err)
	}
	plan, total := planPrune(eps, o, now)
	for _, e := range eps {
		if e.kept {
			rep.Kept += e.info.Bytes
		}
	}
	for batch := range slices.Chunk(plan, pruneBatch) {
		if ctx.Err() != nil {
			break
		}
		var done []pruneItem
		err := v.opts.Store.Update(func(txn *badger.Txn) error {
			done = done[:0]
			// The rules are read again in the deleting transaction: a
			// qualifying run may have finished, or a race started, since
			// the plan. Every record read here is one whose change makes
			// the commit conflict and run again.
			g, err := v.retentionGuard(txn)
			if err != nil {
				return err
			}
			for _, it := range batch {
				if why, err := g.keeps(it.info); err != nil || why != "" {
					if err != nil {
						return err
					}
					continue
				}
				ok, err := v.rec.PruneEpisode(txn, it.info.ID)
				if err != nil {
					return err
				}
				if ok {
					done = append(done, it)
				}
			}
			return nil
		})
		if err != nil {
			return rep, fmt.Errorf("retention: %w", err)
		}
		for _, it := range done {
			rep.Pruned++
			rep.PrunedBytes += it.info.Bytes
			if it.reason == pruneAge {
				rep.ByAge++
			} else {
				rep.BySize++
			}
			v.m.pruned.WithLabelValues(it.reason).Inc()
		}
	}
	rep.Bytes = total - rep.PrunedBytes
	v.m.episodeBytes.Set(float64(rep.Bytes))
	if rep.Pruned > 0 {
		v.mu.Lock()
		head := v.head.Number
		v.mu.Unlock()
		v.emit(Event{Kind: EventPruned, Block: head, Text: fmt.Sprintf("retention pruned %d stored episodes (%d by age, %d by size; %.1f MB), %.1f MB left",
			rep.Pruned, rep.ByAge, rep.BySize, float64(rep.PrunedBytes)/1e6, float64(rep.Bytes)/1e6)})
		v.log.Info().Int("pruned", rep.Pruned).Int("by_age", rep.ByAge).Int("by_size", rep.BySize).Int64("pruned_bytes", rep.PrunedBytes).
			Int64("episode_bytes", rep.Bytes).Msg("retention: pruned stored episodes")
	}
	if o.MaxBytes > 0 && rep.Bytes > o.MaxBytes {
		v.log.Warn().Int64("episode_bytes", rep.Bytes).Int64("max_size", o.MaxBytes).Int64("kept_by_rules", rep.Kept).
			Msg("retention: stored episodes exceed store.retention.max_size, but the rest are kept by the rules (evidence window, undecided race, current qualifying runs)")
	}
	return rep, ctx.Err()
}

// prunable is a stored episode as retention sees it: what it is, and
// whether the rules keep it whatever the limits.
type prunable struct {
	info records.EpisodeInfo
	kept bool
}

// pruneItem is an episode to delete and why.
type pruneItem struct {
	info   records.EpisodeInfo
	reason string
}

// planPrune picks the episodes to delete, oldest first (an episode with no
// start time counts as the oldest): every one the rules do not keep that
// started more than MaxAge before now, then, while the episodes left take
// more than MaxBytes, the oldest of the others. total is the bytes of all
// the episodes.
func planPrune(eps []prunable, o RetentionOptions, now time.Time) (plan []pruneItem, total int64) {
	order := slices.Clone(eps)
	slices.SortFunc(order, func(a, b prunable) int {
		return cmp.Or(a.info.Start.Compare(b.info.Start), cmp.Compare(a.info.ID, b.info.ID))
	})
	for _, e := range order {
		total += e.info.Bytes
	}
	left := total
	taken := make([]bool, len(order))
	if o.MaxAge > 0 {
		for i, e := range order {
			if !e.kept && now.Sub(e.info.Start) > o.MaxAge {
				plan, taken[i], left = append(plan, pruneItem{e.info, pruneAge}), true, left-e.info.Bytes
			}
		}
	}
	if o.MaxBytes > 0 {
		for i, e := range order {
			if left <= o.MaxBytes {
				break
			}
			if !e.kept && !taken[i] {
				plan, left = append(plan, pruneItem{e.info, pruneSize}), left-e.info.Bytes
			}
		}
	}
	return plan, total
}

// retentionGuard says which stored episodes the rules keep, as one
// transaction sees the store.
type retentionGuard struct {
	txn *badger.Txn
	rec *records.Records
	// from is the first block of the race rule's evidence window at the
	// head; state the race state (the current race, the chain era's first).
	from  uint64
	state records.RaceState
	// races caches each race's verdict (keeps' reason, "" for none).
	races map[uint64]string
	// qualifying are the episodes of miners' current qualifying runs;
	// inFlight the uids whose run is not stored whole yet.
	qualifying map[string]bool
	inFlight   map[uint16]bool
}

func (v *Validator) retentionGuard(txn *badger.Txn) (*retentionGuard, error) {
	v.mu.Lock()
	head, inFlight := v.head.Number, maps.Clone(v.qualifying)
	v.mu.Unlock()
	st, err := v.rec.GetState(txn)
	if err != nil {
		return nil, err
	}
	miners, err := v.rec.ListMiners(txn)
	if err != nil {
		return nil, err
	}
	g := &retentionGuard{txn: txn, rec: v.rec, from: v.opts.Race.EvidenceFrom(head), state: st,
		races: map[uint64]string{}, qualifying: map[string]bool{}, inFlight: inFlight}
	for _, m := range miners {
		if m.Qualifying != nil {
			for _, id := range m.Qualifying.Episodes {
				g.qualifying[id] = true
			}
		}
	}
	return g, nil
}

// keeps says why the rules keep an episode, or "" when the limits may
// take it.
func (g *retentionGuard) keeps(info records.EpisodeInfo) (string, error) {
	switch info.Kind {
	case records.Racing:
		why, ok := g.races[info.RaceID]
		if !ok {
			rc, found, err := g.rec.GetRace(g.txn, info.RaceID)
			if err != nil {
				return "", err
			}
			why = raceKeeps(rc, found, g.state, g.from)
			g.races[info.RaceID] = why
		}
		return why, nil
	case records.Qualifying:
		switch {
		case g.qualifying[info.ID]:
			return "a miner's current qualifying run", nil
		case g.inFlight[info.UID]:
			return "a qualifying run in flight", nil
		}
		return "", nil
	}
	return "an episode of unknown kind " + string(info.Kind), nil
}

// raceKeeps says why a race's episodes are kept, or "".
func raceKeeps(rc records.Race, found bool, st records.RaceState, from uint64) string {
	switch {
	case !found:
		// records.Check reports it; what it belongs to is not known.
		return "its race record is missing"
	case rc.Phase.Live() || rc.ID == st.Current:
		return "its race is not decided"
	case rc.ID >= st.FirstRace && rc.StartedBlock >= from:
		return "its race is in the evidence window"
	}
	return ""
}
