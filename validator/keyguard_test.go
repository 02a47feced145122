package validator

import (
	"errors"
	"strings"
	"testing"

	"arena/chain"
)

// TestKeyInUse: another process starts signing with the validator's key,
// seen by the account's nonce or by a last_update the validator did not
// cause. The validator sets no more weights, fails /readyz with the
// reason and sets the metric; when the other signer sends again, Run is
// ended with ErrKeyInUse; so it is when the conflict outlasts three
// weights windows with the other silent (it may have stopped as well).
func TestKeyInUse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		foreign func(h *harness, round uint64)
	}{
		{"nonce", func(h *harness, round uint64) {
			h.chain.mu.Lock()
			h.chain.foreign = round
			h.chain.mu.Unlock()
		}},
		{"last_update", func(h *harness, round uint64) {
			h.chain.updateNeuron(0, func(n *chain.Neuron) { n.LastUpdate = h.chain.head + round })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := weightsHarness(t, weightsHyper(1, false), nil)
			h.run(1, 25)
			before := len(h.submissions())
			if before == 0 {
				t.Fatal("setup: no weights before the other signer")
			}
			if ready, why := h.v.Ready(); !ready {
				t.Fatalf("setup: not ready: %q", why)
			}
			tc.foreign(h, 1)
			h.run(26, 45) // under keyConflictWindows (3) windows of 10 blocks
			ready, why := h.v.Ready()
			if ready || !strings.Contains(strings.Join(why, "; "), "another process signs with this validator's key") {
				t.Fatalf("Ready = %v %q, want the key conflict", ready, why)
			}
			if got := h.metric("arena_validator_key_in_use"); got != 1 {
				t.Errorf("arena_validator_key_in_use %v", got)
			}
			if after := len(h.submissions()); after != before {
				t.Errorf("%d submissions after the conflict, %d before", after, before)
			}
			select {
			case err := <-h.v.fatal:
				t.Fatalf("fatal before the other signer sent again: %v", err)
			default:
			}
			tc.foreign(h, 2) // it keeps sending
			h.run(46, 50)
			select {
			case err := <-h.v.fatal:
				if !errors.Is(err, ErrKeyInUse) || !strings.Contains(err.Error(), "still sending") {
					t.Errorf("fatal %v, want ErrKeyInUse ... still sending", err)
				}
			default:
				t.Fatal("the other signer kept sending, but nothing ended Run")
			}
		})
	}
}

func TestKeyConflictNotResolved(t *testing.T) {
	h := weightsHarness(t, weightsHyper(1, false), nil)
	h.run(1, 25)
	h.chain.mu.Lock()
	h.chain.foreign = 1
	h.chain.mu.Unlock()
	h.run(26, 80)
	select {
	case err := <-h.v.fatal:
		if !errors.Is(err, ErrKeyInUse) || !strings.Contains(err.Error(), "not resolved within 3 weights windows") {
			t.Errorf("fatal %v", err)
		}
	default:
		t.Fatal("a conflict unresolved for 5 windows did not end Run")
	}
}

// TestRevertedWeightsAreFinal: a weights transaction that is mined but
// reverts for a reason the client cannot name (here, as when another
// process with the key tripped the rate limit) is recorded failed, not
// left pending and asked about forever; the next window sets weights.
func TestRevertedWeightsAreFinal(t *testing.T) {
	h := weightsHarness(t, weightsHyper(1, false), nil)
	h.chain.fail("setWeights", faultReverted)
	h.run(1, 25)
	subs := h.submissions()
	if len(subs) < 2 {
		t.Fatalf("submissions %+v, want the failed one and a later one", subs)
	}
	if subs[0].Status != "failed" || !strings.Contains(subs[0].Error, "failed in block") || subs[0].Block == 0 {
		t.Errorf("first submission %+v, want failed with its block", subs[0])
	}
	if last := subs[len(subs)-1]; last.Status != "set" {
		t.Errorf("last submission %+v, want set", last)
	}
}
