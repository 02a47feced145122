package validator

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/validator/records"
)

// TestSyncCadence: the metagraph is read at the first head and then every
// SyncEveryBlocks; a failed read is retried at the next head, and the
// cadence counts from the last sync that succeeded.
func TestSyncCadence(t *testing.T) {
	tests := []struct {
		name  string
		every uint64
		fail  int // metagraph reads that fail first
		want  []uint64
	}{
		{"every block", 1, 0, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{"every 3 blocks", 3, 0, []uint64{1, 4, 7, 10}},
		{"every 5 blocks", 5, 0, []uint64{1, 6, 11}},
		{"a failed first read retries at the next head", 5, 1, []uint64{1, 2, 7, 12}},
		{"two failed reads", 3, 2, []uint64{1, 2, 3, 6, 9, 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{edit: func(o *Options) { o.SyncEveryBlocks = tt.every }})
			for range tt.fail {
				h.chain.fail("metagraph", faultUnreachable)
			}
			h.run(1, 12)
			var got []uint64
			for _, c := range h.chain.callsOf("metagraph") {
				got = append(got, c.head)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("metagraph read at heads %v, want %v", got, tt.want)
			}
			if ready, why := h.v.Ready(); !ready {
				t.Errorf("not ready after the syncs: %v", why)
			}
		})
	}
}

// TestRaceWindows: the scheduler decides once per race window, at its
// first head (a race, or a skip when nobody qualified), never twice in a
// window; while qualifying runs are in flight it waits up to half a window
// for them.
func TestRaceWindows(t *testing.T) {
	tests := []struct {
		name   string
		miners int
		// hold keeps the first miner's qualifying run in flight until
		// release (a block number).
		hold    bool
		release uint64
		heads   uint64
		// want are the blocks at which a race started or was skipped.
		wantStart, wantSkip []uint64
	}{
		{name: "nobody qualified", heads: 45, wantSkip: []uint64{10, 20, 30, 40}},
		// Crowned in its first race, it then has no challenger: no race
		// spends hidden clusters on a lone leader.
		{name: "one qualified miner is crowned, then has no challenger", miners: 1, heads: 35, wantStart: []uint64{10}, wantSkip: []uint64{20, 30}},
		{name: "qualifying in flight delays the race half a window", miners: 1, hold: true, release: 17, heads: 25,
			wantSkip: []uint64{15}, wantStart: []uint64{20}},
		{name: "qualifying done before half the window races it", miners: 1, hold: true, release: 12, heads: 25,
			wantStart: []uint64{12}, wantSkip: []uint64{20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gate := make(chan struct{})
			var release sync.Once
			ho := harnessOptions{miners: tt.miners, edit: func(o *Options) { o.RaceEveryBlocks = 10 }}
			if tt.hold {
				ho.wrapAgent = func(_ uint16, a episode.Agent) episode.Agent { return gatedAgent{inner: a, gate: gate} }
			}
			h := newHarness(t, ho)
			defer release.Do(func() { close(gate) })
			for n := uint64(1); n <= tt.heads; n++ {
				if tt.hold && n == tt.release {
					release.Do(func() { close(gate) })
					h.settle()
				}
				h.head(n)
				if !tt.hold || n >= tt.release {
					h.settle()
				}
			}
			h.settle()
			if got := blocks(h.eventsOf(EventRaceStart)); !slices.Equal(got, tt.wantStart) {
				t.Errorf("races started at %v, want %v", got, tt.wantStart)
			}
			if got := blocks(h.eventsOf(EventRaceSkipped)); !slices.Equal(got, tt.wantSkip) {
				t.Errorf("races skipped at %v, want %v", got, tt.wantSkip)
			}
			if n, want := len(h.eventsOf(EventRaceDone)), len(tt.wantStart); n != want {
				t.Errorf("%d races done, want %d", n, want)
			}
		})
	}
}

// TestNewestHead: when heads queue up behind a slow step, the scheduler
// acts on the newest one only, and reports how far behind it was.
func TestNewestHead(t *testing.T) {
	h := newHarness(t, harnessOptions{headBuffer: 8, edit: func(o *Options) { o.SyncEveryBlocks = 1 }})
	h.start()
	entered, release := h.chain.gateMetagraph()
	h.feed(1)
	<-entered // the scheduler is inside head 1's sync
	for n := uint64(2); n <= 5; n++ {
		h.feed(n)
	}
	release()
	h.until("the cursor reaches head 5", func() bool { return h.cursor() == 5 })

	var synced []uint64
	for _, c := range h.chain.callsOf("metagraph") {
		synced = append(synced, c.head)
	}
	// A sync at every head acted on: 1, then 5 (2..4 skipped).
	if len(synced) != 2 {
		t.Errorf("%d syncs (at chain heads %v), want 2 (heads 1 and 5)", len(synced), synced)
	}
	if got := h.metric("arena_validator_blocks_behind"); got != 3 {
		t.Errorf("blocks behind = %v, want 3 (heads 3, 4 and 5 queued when 2 was taken)", got)
	}
}

// start runs the validator (Run) until the test ends.
func (h *harness) start() {
	h.t.Helper()
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() { done <- h.v.Run(ctx) }()
	h.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Errorf("Run: %v", err)
		}
	})
}

// cursor is the last head the scheduler stored.
func (h *harness) cursor() uint64 {
	h.t.Helper()
	var c records.Cursor
	if err := h.store.View(func(txn *badger.Txn) (err error) { c, _, err = h.v.rec.GetCursor(txn); return err }); err != nil {
		h.t.Fatal(err)
	}
	return c.Block
}

// until waits for cond, which work in flight makes true.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// gatedAgent holds every step until gate is closed; with hold set, only
// the steps taken while *hold is true.
type gatedAgent struct {
	inner episode.Agent
	gate  <-chan struct{}
	hold  *atomic.Bool
}

func (g gatedAgent) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	if g.hold == nil || g.hold.Load() {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return episode.Action{}, ctx.Err()
		}
	}
	return g.inner.Step(ctx, v)
}

func blocks(evs []Event) []uint64 {
	var out []uint64
	for _, e := range evs {
		out = append(out, e.Block)
	}
	return out
}
