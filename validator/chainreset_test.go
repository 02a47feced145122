package validator

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/validator/records"
)

// TestChainResetHaltsAndResets: after qualifying, races and weights, the
// node's head falls far below what the data dir processed (the chain was
// reset). The validator stops all work at once, says why in /readyz, and
// keeps the store as it was, the cursor included. ResetChainState then
// starts a new chain era: cursor and genesis forgotten (kept in the meta's
// record), standing cleared, earlier races no longer evidence, unsettled
// weights failed, miners to be read again; episodes and verdicts kept. A
// validator on the new era then works again from the new chain's low blocks
// and its weights are keyed in the new era.
func TestChainResetHaltsAndResets(t *testing.T) {
	h := newHarness(t, harnessOptions{miners: 2, registered: true, hyper: weightsHyper(1, false), edit: func(o *Options) {
		o.RaceEveryBlocks, o.WeightsEveryBlocks = 20, 10
		o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
	}})
	h.run(1, 90)
	if len(h.submissions()) == 0 || h.miner(1).Qualifying == nil {
		t.Fatal("setup: no weights or no qualifying before the reset")
	}
	episodes := func() int {
		n := 0
		_ = h.store.View(func(txn *badger.Txn) error {
			return h.v.rec.Episodes.Iterate(txn, nil, func([]byte, records.Episode) error { n++; return nil })
		})
		return n
	}
	before := episodes()
	calls := len(h.chain.allCalls())

	h.head(7) // the new chain
	h.run(8, 20)
	ready, why := h.v.Ready()
	if ready || !strings.Contains(strings.Join(why, "; "), "chain reset") || !strings.Contains(strings.Join(why, "; "), "reset-chain-state") {
		t.Fatalf("Ready = %v %q, want not ready: chain reset ... reset-chain-state", ready, why)
	}
	if got := h.metric("arena_validator_chain_reset"); got != 1 {
		t.Errorf("arena_validator_chain_reset %v", got)
	}
	if n := len(h.eventsOf(EventChainReset)); n != 1 {
		t.Errorf("%d chain_reset events, want 1", n)
	}
	if got := len(h.chain.allCalls()); got != calls {
		t.Errorf("%d chain calls after the reset, want none", got-calls)
	}
	var cur records.Cursor
	_ = h.store.View(func(txn *badger.Txn) (err error) { cur, _, err = h.v.rec.GetCursor(txn); return err })
	if cur.Block != 90 {
		t.Errorf("cursor %d after the reset, want 90 (untouched)", cur.Block)
	}

	rep, err := ResetChainState(h.store, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Era != 1 || rep.Cursor != 90 || rep.Miners != 2 {
		t.Errorf("report %+v", rep)
	}
	err = h.store.View(func(txn *badger.Txn) error {
		if _, ok, err := h.v.rec.GetCursor(txn); err != nil || ok {
			t.Errorf("cursor still there (%v)", err)
		}
		m, _, err := h.v.rec.GetMeta(txn)
		if err != nil {
			return err
		}
		if m.Era != 1 || len(m.Resets) != 1 || m.Resets[0].Cursor != 90 {
			t.Errorf("meta %+v", m)
		}
		st, err := h.v.rec.GetState(txn)
		if err != nil {
			return err
		}
		if st.State.Leader != nil || st.LastWindow != 0 || st.FirstRace == 0 || st.FirstRace != st.NextRaceID {
			t.Errorf("race state %+v", st)
		}
		if _, ok, err := h.v.rec.GetMiner(txn, 1); err != nil || ok {
			t.Errorf("miner 1 still recorded (%v)", err)
		}
		subs, err := h.v.rec.ListSubmissions(txn)
		if err != nil {
			return err
		}
		for _, s := range subs {
			if s.Status == records.StatusPending || s.Status == records.StatusCommitted {
				t.Errorf("submission window %d still %s", s.Window, s.Status)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := episodes(); got != before {
		t.Errorf("%d episodes after the reset, %d before", got, before)
	}

	// A validator on the reset data dir follows the new chain, whose
	// neurons have not set weights yet.
	h.settle()
	for uid := uint16(0); uid <= 2; uid++ {
		h.chain.updateNeuron(uid, func(n *chain.Neuron) { n.LastUpdate = 0 })
	}
	reg := prometheus.NewRegistry()
	v2, err := New(h.v.opts, zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel), reg)
	if err != nil {
		t.Fatal(err)
	}
	h.v, h.reg = v2, reg
	if err := h.v.resume(); err != nil {
		t.Fatal(err)
	}
	h2 := h
	h2.run(21, 60)
	if ready, why := h2.v.Ready(); !ready {
		t.Fatalf("not ready on the new chain: %q", why)
	}
	var era1 int
	for _, s := range h2.submissions() {
		if s.Era == 1 {
			era1++
		}
	}
	if era1 == 0 {
		t.Errorf("no weights submitted in the new era: %+v", h2.submissions())
	}
	if h2.miner(1).Qualifying == nil {
		t.Error("uid 1 did not qualify again on the new chain")
	}
}

// allCalls is every recorded chain call.
func (f *fakeChain) allCalls() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}
