package validator

import (
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/chain"
	"arena/validator/records"
)

// raceWindow is where the race schedule stands at a head.
type raceWindow struct {
	Window     uint64 // first block of the window the next race belongs to
	OpenNow    bool   // that window has begun and has not raced yet
	InProgress uint64 // id of the race in progress, or 0
}

// nextRaceWindow is the race schedule's rule: a window of every blocks
// races once, and only if it is newer than the last window that started a
// race (window 0, below any, never does).
func nextRaceWindow(head, every uint64, st records.RaceState) raceWindow {
	current := head / every * every
	next := (max(current, st.LastWindow)/every + 1) * every
	switch {
	case st.Current != 0:
		return raceWindow{Window: next, InProgress: st.Current}
	case current > st.LastWindow:
		return raceWindow{Window: current, OpenNow: true}
	}
	return raceWindow{Window: next}
}

// blockTimer times live heads for the one "next race window" line. The
// first live head may arrive at any point of its block, so the time runs
// from the second; backfilled heads are not timed. A devnet making blocks
// faster than one a second stamps them a second apart, so arrival times,
// not block timestamps, are measured.
type blockTimer struct {
	seen    int
	first   uint64
	firstAt time.Time
	done    bool
}

// observe takes one head and its arrival; it returns the time per block
// once, at the first live head after the second.
func (b *blockTimer) observe(h chain.Head, at time.Time) (time.Duration, bool) {
	if b.done || h.Backfilled {
		return 0, false
	}
	b.seen++
	switch {
	case b.seen == 2:
		b.first, b.firstAt = h.Number, at
	case b.seen > 2 && h.Number > b.first:
		b.done = true
		return at.Sub(b.firstAt) / time.Duration(h.Number-b.first), true
	}
	return 0, false
}

// logNextRace says once, soon after start, when the next race window
// opens.
func (v *Validator) logNextRace(h chain.Head, at time.Time) {
	v.mu.Lock()
	blockTime, ok := v.blockTimer.observe(h, at)
	v.mu.Unlock()
	if !ok {
		return
	}
	var st records.RaceState
	if err := v.opts.Store.View(func(txn *badger.Txn) (err error) { st, err = v.rec.GetState(txn); return err }); err != nil {
		v.log.Warn().Err(err).Msg("next race window: read the race state")
		return
	}
	w := nextRaceWindow(h.Number, v.opts.RaceEveryBlocks, st)
	ev := v.log.Info().Uint64("head", h.Number).Uint64("window", w.Window).Dur("block_time_ms", blockTime)
	switch {
	case w.InProgress != 0:
		ev.Uint64("race", w.InProgress).Msg("race in progress; the next window opens after it")
	case w.OpenNow:
		ev.Msg("race window open: its race starts once qualifying is done")
	default:
		eta := time.Duration(w.Window-h.Number) * blockTime
		ev.Uint64("blocks_left", w.Window-h.Number).Dur("eta_ms", eta).Str("eta", eta.Round(time.Second).String()).Msg("next race window")
	}
}
