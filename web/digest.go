package web

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/scoring/race"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// RaceRow is the digest of one race: what lists and plots show of it.
type RaceRow struct {
	ID            uint64        `json:"id"`
	Window        uint64        `json:"window"`
	Phase         records.Phase `json:"phase"`
	StartedBlock  uint64        `json:"started_block"`
	FinishedBlock uint64        `json:"finished_block,omitempty"`
	StartedAt     time.Time     `json:"started_at,omitzero"`
	Problems      int           `json:"problems"`
	Racers        []RacerRow    `json:"racers"`
	// Outcome, Leader (after the race) and Margin (the winner's mean
	// score minus the runner-up's) are set once the race is decided.
	Outcome     race.Outcome `json:"outcome,omitempty"`
	Leader      *race.Leader `json:"leader,omitempty"`
	Margin      *float64     `json:"margin,omitempty"`
	HiddenLeft  *int         `json:"hidden_left,omitempty"`
	AbortReason string       `json:"abort_reason,omitempty"`
}

// RacerRow is one racer in a race digest, best score first once decided.
type RacerRow struct {
	UID       uint16   `json:"uid"`
	Hotkey    string   `json:"hotkey"`
	Incumbent bool     `json:"incumbent,omitempty"`
	Score     *float64 `json:"score,omitempty"`
	// Void: the validator's relay provider failed during this racer's
	// episodes, so the race is no evidence for or against it.
	Void bool `json:"void,omitempty"`
}

// Decided reports whether the race's results may be shown.
func (r RaceRow) Decided() bool { return !r.Phase.Live() }

// Winner is the best-scoring racer of a decided race, or nil.
func (r RaceRow) Winner() *RacerRow {
	if len(r.Racers) == 0 || r.Racers[0].Score == nil {
		return nil
	}
	return &r.Racers[0]
}

func digestOf(rc *records.Race) RaceRow {
	row := RaceRow{ID: rc.ID, Window: rc.Window, Phase: rc.Phase, StartedBlock: rc.StartedBlock, FinishedBlock: rc.FinishedBlock,
		StartedAt: rc.StartedAt, Problems: len(rc.Problems), HiddenLeft: rc.HiddenLeft, AbortReason: rc.AbortReason}
	scores := map[uint16]float64{}
	if !rc.Phase.Live() {
		for _, r := range rc.Results {
			scores[r.UID] = r.Score
		}
		if rc.Output != nil {
			row.Outcome, row.Leader = rc.Output.Outcome, rc.Output.Leader
		}
	}
	for _, r := range rc.Racers {
		rr := RacerRow{UID: r.UID, Hotkey: r.Hotkey, Incumbent: r.Incumbent, Void: !rc.Phase.Live() && slices.Contains(rc.VoidRacers, r.UID)}
		if sc, ok := scores[r.UID]; ok {
			rr.Score = &sc
		}
		row.Racers = append(row.Racers, rr)
	}
	val := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	sort.SliceStable(row.Racers, func(i, j int) bool {
		a, b := row.Racers[i], row.Racers[j]
		if val(a.Score) != val(b.Score) {
			return val(a.Score) > val(b.Score)
		}
		return a.UID < b.UID
	})
	if len(row.Racers) >= 2 && row.Racers[1].Score != nil {
		m := *row.Racers[0].Score - *row.Racers[1].Score
		row.Margin = &m
	}
	return row
}

// liveDigest is the row of a race not decided yet: what records.LiveRace
// lets be shown, its racers in uid order.
func liveDigest(lr *records.LiveRace) RaceRow {
	row := RaceRow{ID: lr.ID, Window: lr.Window, Phase: lr.Phase, StartedBlock: lr.StartedBlock, StartedAt: lr.StartedAt,
		Problems: lr.Problems, HiddenLeft: lr.HiddenLeft}
	for _, r := range lr.Racers {
		row.Racers = append(row.Racers, RacerRow{UID: r.UID, Hotkey: r.Hotkey, Incumbent: r.Incumbent})
	}
	slices.SortStableFunc(row.Racers, func(a, b RacerRow) int { return cmp.Compare(a.UID, b.UID) })
	return row
}

// digests keeps a RaceRow per race, oldest first. A decided race never
// changes, so it is read once; the races above the last decided one in an
// unbroken run from the start are read again at each refresh.
type digests struct {
	mu     sync.RWMutex
	rows   []RaceRow // ascending id
	stable uint64    // every race with id <= stable is decided and in rows
	loaded bool
}

// refresh reads the races the cache does not hold for good.
func (d *digests) refresh(st *store.Store, rec *records.Records) error {
	d.mu.RLock()
	stable := d.stable
	d.mu.RUnlock()
	var fresh []RaceRow
	err := st.View(func(txn *badger.Txn) error {
		return rec.ForEachRaceBack(txn, func(rc *records.Race) error {
			if rc.ID <= stable {
				return store.ErrStop
			}
			fresh = append(fresh, digestOf(rc))
			return nil
		})
	})
	if err != nil {
		return err
	}
	slices.Reverse(fresh)
	d.mu.Lock()
	defer d.mu.Unlock()
	keep := sort.Search(len(d.rows), func(i int) bool { return d.rows[i].ID > stable })
	d.rows = append(d.rows[:keep], fresh...)
	for i := keep; i < len(d.rows) && d.rows[i].Decided(); i++ {
		d.stable = d.rows[i].ID
	}
	d.loaded = true
	return nil
}

// snapshot is the rows at this moment (the slice must not be modified).
func (d *digests) snapshot() []RaceRow {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.rows[:len(d.rows):len(d.rows)]
}

// suiteCache holds the suite's statistics, which read every cluster.
type suiteCache struct {
	mu    sync.RWMutex
	stats *suite.Stats
	at    time.Time
	err   error
}

func (s *suiteCache) refresh(ctx context.Context, l *suite.Ledger) {
	st, err := l.Stats(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at, s.err = time.Now(), err
	if err == nil {
		s.stats = &st
	}
}

func (s *suiteCache) get() (*suite.Stats, time.Time, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.stats, s.at, s.err
}
