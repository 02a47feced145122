package validator

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"arena/chain"
	"arena/episode"
)

// TestQualifyOnce: each serving miner is qualified once for its hotkey and
// endpoint, however many heads and syncs follow; a qualifying run started
// from a stale due list (the scheduler's snapshot predates the result)
// does nothing.
func TestQualifyOnce(t *testing.T) {
	h := newHarness(t, harnessOptions{miners: 3})
	h.run(1, 30)
	for uid := uint16(1); uid <= 3; uid++ {
		if n := len(filterUID(h.eventsOf(EventQualifyStart), uid)); n != 1 {
			t.Errorf("uid %d: %d qualifying runs started, want 1", uid, n)
		}
		if n := h.qualifyingEpisodes(uid); n != h.v.opts.QualifyingProblems {
			t.Errorf("uid %d: %d qualifying episodes stored, want %d", uid, n, h.v.opts.QualifyingProblems)
		}
		m := h.miner(uid)
		if m.Qualifying == nil || m.Qualifying.Endpoint != m.Endpoint || len(m.Qualifying.Episodes) != h.v.opts.QualifyingProblems {
			t.Errorf("uid %d: qualifying run %+v for endpoint %s", uid, m.Qualifying, m.Endpoint)
		}
	}

	// The due list a head computed before uid 1's result was stored.
	meta, _, _ := h.v.snapshot()
	n, _ := neuronByUID(meta, 1)
	h.v.qualify(h.ctx, episode.MinerFromNeuron(n), n.Hotkey.SS58(), 31)
	if runs := len(filterUID(h.eventsOf(EventQualifyStart), 1)); runs != 1 || h.qualifyingEpisodes(1) != h.v.opts.QualifyingProblems {
		t.Errorf("a stale due list qualified uid 1 again: %d runs, %d episodes", runs, h.qualifyingEpisodes(1))
	}
}

// TestRequalify: a miner is qualified afresh when its uid changes hands or
// it moves its axon, and not when the same axon is announced again.
func TestRequalify(t *testing.T) {
	tests := []struct {
		name string
		// change edits uid 1 on chain; the harness serves the new axon.
		newKey, newPort, reannounce bool
		wantRuns                    int
	}{
		{name: "new hotkey on the uid", newKey: true, newPort: true, wantRuns: 2},
		{name: "same hotkey, new endpoint", newPort: true, wantRuns: 2},
		{name: "same axon announced again", reannounce: true, wantRuns: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{miners: 1})
			h.run(1, 5)
			before := h.miner(1)
			if before.Qualifying == nil {
				t.Fatalf("uid 1 not qualified: %+v", before)
			}
			signer := h.minerKeys[1]
			if tt.newKey {
				signer = newTestSigner(t)
			}
			axon := loopbackAxon(t, before.Endpoint)
			if tt.newPort {
				axon = h.serveMiner(signer, nil)
			}
			axon.Block = 6
			h.chain.updateNeuron(1, func(n *chain.Neuron) { n.Hotkey, n.Axon = signer.Hotkey(), axon })
			h.run(6, 20)

			starts := filterUID(h.eventsOf(EventQualifyStart), 1)
			if len(starts) != tt.wantRuns {
				t.Fatalf("%d qualifying runs for uid 1, want %d: %v", len(starts), tt.wantRuns, starts)
			}
			after := h.miner(1)
			if after.Hotkey != signer.Hotkey().SS58() || after.Endpoint != axon.HostPort() || after.Qualifying == nil ||
				after.Qualifying.Endpoint != after.Endpoint {
				t.Errorf("uid 1 after the change: %+v (qualifying %+v), want hotkey %s at %s qualified there",
					after, after.Qualifying, signer.Hotkey().SS58(), axon.HostPort())
			}
			if tt.newKey && after.FirstSeen == before.FirstSeen {
				t.Errorf("new hotkey kept the old record's first_seen %d", after.FirstSeen)
			}
		})
	}
}

// TestUnreachableBackoff: an unreachable miner is retried after a back-off
// that doubles with each failure, and miners that never failed get the
// qualifying slots first, so unreachable axons at low uids do not starve
// a newcomer.
func TestUnreachableBackoff(t *testing.T) {
	const syncEvery = 2
	h := newHarness(t, harnessOptions{unreachable: 4, edit: func(o *Options) {
		o.QualifyingConcurrency, o.SyncEveryBlocks = 2, syncEvery
	}})
	h.run(1, 6)
	// The newcomer is seen at head 7's sync, when uids 1 and 2 are due for
	// their second attempt: with two slots it must get one.
	newcomer := newTestSigner(t)
	h.chain.addNeuron(chain.Neuron{UID: 5, Hotkey: newcomer.Hotkey(), Axon: h.serveMiner(newcomer, nil)})
	h.run(7, 100)

	if at := blocks(filterUID(h.eventsOf(EventQualifyStart), 5)); !slices.Equal(at, []uint64{7}) {
		t.Errorf("newcomer uid 5 started qualifying at %v, want once, at block 7 (the first head that saw it)", at)
	}
	if m := h.miner(5); m.Qualifying == nil {
		t.Errorf("newcomer uid 5 not qualified: %+v", m)
	}
	for uid := uint16(1); uid <= 4; uid++ {
		at := blocks(filterUID(h.eventsOf(EventQualifyStart), uid))
		if len(at) < 4 {
			t.Errorf("uid %d: attempts at %v, want at least 4 in 100 blocks", uid, at)
			continue
		}
		for k := 1; k < len(at); k++ {
			want := uint64(3*syncEvery) << min(k-1, 4)
			if gap := at[k] - at[k-1]; gap < want {
				t.Errorf("uid %d: attempts at %v: attempt %d came %d blocks after the previous, want at least %d", uid, at, k+1, gap, want)
			}
		}
		if m := h.miner(uid); m.Qualifying != nil || h.qualifyingEpisodes(uid) != 0 {
			t.Errorf("unreachable uid %d was scored: %+v, %d episodes", uid, m.Qualifying, h.qualifyingEpisodes(uid))
		}
	}
}

// TestQualifyingConcurrency: no more than QualifyingConcurrency miners
// qualify at once; the others wait for a slot and all are qualified.
func TestQualifyingConcurrency(t *testing.T) {
	tests := []struct{ miners, bound int }{{5, 1}, {5, 2}, {3, 4}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d miners, bound %d", tt.miners, tt.bound), func(t *testing.T) {
			gate := make(chan struct{})
			var gateOnce sync.Once
			open := func() { gateOnce.Do(func() { close(gate) }) }
			var (
				mu      sync.Mutex
				active  = map[uint16]int{}
				maxSeen int
			)
			h := newHarness(t, harnessOptions{miners: tt.miners,
				wrapAgent: func(uid uint16, a episode.Agent) episode.Agent {
					return episode.AgentFunc(func(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
						mu.Lock()
						active[uid]++
						maxSeen = max(maxSeen, len(active))
						mu.Unlock()
						defer func() {
							mu.Lock()
							if active[uid]--; active[uid] == 0 {
								delete(active, uid)
							}
							mu.Unlock()
						}()
						return gatedAgent{inner: a, gate: gate}.Step(ctx, v)
					})
				},
				edit: func(o *Options) { o.QualifyingConcurrency = tt.bound }})
			defer open()
			// While every run is held, more heads start nothing beyond the bound.
			for n := uint64(1); n <= 6; n++ {
				h.head(n)
				h.v.mu.Lock()
				inFlight := len(h.v.qualifying)
				h.v.mu.Unlock()
				if want := min(tt.bound, tt.miners); inFlight != want {
					t.Fatalf("head %d: %d qualifying runs in flight, want %d", n, inFlight, want)
				}
			}
			open()
			h.settle()
			h.run(7, 30)
			if maxSeen > tt.bound {
				t.Errorf("%d miners were running qualifying episodes at once, bound %d", maxSeen, tt.bound)
			}
			for uid := uint16(1); uid <= uint16(tt.miners); uid++ {
				if m := h.miner(uid); m.Qualifying == nil {
					t.Errorf("uid %d never qualified", uid)
				}
				if n := len(filterUID(h.eventsOf(EventQualifyStart), uid)); n != 1 {
					t.Errorf("uid %d: %d qualifying runs", uid, n)
				}
			}
		})
	}
}

func filterUID(evs []Event, uid uint16) []Event {
	return slices.DeleteFunc(slices.Clone(evs), func(e Event) bool { return e.UID != uid })
}
