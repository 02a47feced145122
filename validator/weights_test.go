package validator

import (
	"context"
	"encoding/hex"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"arena/chain"
	"arena/validator/records"
)

// TestSettleContext: a weights transaction's context survives the
// shutdown signal by the grace period, and no longer.
func TestSettleContext(t *testing.T) {
	tests := []struct {
		name       string
		grace      time.Duration
		callCancel bool
		wantDone   bool // done once the parent is cancelled (and cancel called if callCancel)
	}{
		{name: "long grace keeps it alive", grace: time.Hour, wantDone: false},
		{name: "grace elapses", grace: time.Millisecond, wantDone: true},
		{name: "cancel ends it at once", grace: time.Hour, callCancel: true, wantDone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent, stopParent := context.WithCancel(context.Background())
			ctx, cancel := settleContext(parent, tt.grace)
			defer cancel()
			if ctx.Err() != nil {
				t.Fatal("done before the parent was cancelled")
			}
			stopParent()
			if tt.callCancel {
				cancel()
			}
			if !tt.wantDone {
				// The grace timer only starts after the parent's
				// AfterFunc runs; an hour cannot have passed either way.
				select {
				case <-ctx.Done():
					t.Fatal("cancelled with the parent despite the grace period")
				default:
				}
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("not cancelled after the grace period")
			}
		})
	}
}

// weightsHyper is a subnet's weights settings for the tests.
func weightsHyper(rateLimit uint64, commitReveal bool) chain.Hyperparams {
	return chain.Hyperparams{WeightsSetRateLimit: rateLimit, MinAllowedWeights: 1, MaxWeightLimit: 65535,
		CommitRevealEnabled: commitReveal, CommitRevealInterval: 1}
}

// weightsHarness is a registered validator (uid 0) with no miners: its
// weights go to the burn uid, and only the weights path is exercised.
func weightsHarness(t *testing.T, hyper chain.Hyperparams, edit func(*Options)) *harness {
	t.Helper()
	return newHarness(t, harnessOptions{registered: true, hyper: hyper, edit: func(o *Options) {
		o.WeightsEveryBlocks = 10
		if edit != nil {
			edit(o)
		}
	}})
}

// heads lists the chain heads at which calls were made.
func heads(calls []fakeCall) []uint64 {
	var out []uint64
	for _, c := range calls {
		out = append(out, c.head)
	}
	return out
}

// minedBlocks lists the blocks of mined transactions.
func minedBlocks(txs []minedTx) []uint64 {
	var out []uint64
	for _, m := range txs {
		out = append(out, m.block)
	}
	return out
}

// checkSubmissions: one submission per window, each settled with its
// transaction on chain.
func checkSubmissions(t *testing.T, h *harness, want records.SubmissionStatus) []records.Submission {
	t.Helper()
	subs := h.submissions()
	seen := map[uint64]bool{}
	for _, s := range subs {
		if seen[s.Window] {
			t.Errorf("window %d submitted twice", s.Window)
		}
		seen[s.Window] = true
		if s.Status != want || s.RawTx != "" || s.Block == 0 {
			t.Errorf("window %d: status %s (error %q), block %d, raw tx kept %v; want %s with its block", s.Window, s.Status, s.Error, s.Block, s.RawTx != "", want)
		}
	}
	return subs
}

// TestWeightsRateLimit: one submission per window at most, and never
// sooner than the larger of the subnet's rate limit and the weights
// interval after the last: the chain refuses none.
func TestWeightsRateLimit(t *testing.T) {
	tests := []struct {
		name      string
		rateLimit uint64
		want      []uint64 // blocks setWeights landed in
	}{
		{"rate limit below the interval", 5, []uint64{1, 11, 21, 31, 41, 51}},
		{"rate limit equal to the interval", 10, []uint64{1, 11, 21, 31, 41, 51}},
		{"rate limit above the interval", 25, []uint64{1, 26, 51}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := weightsHarness(t, weightsHyper(tt.rateLimit, false), nil)
			h.run(1, 60)
			for _, c := range h.chain.callsOf("setWeights") {
				if c.err != nil {
					t.Errorf("head %d: setWeights refused: %v", c.head, c.err)
				}
			}
			if got := minedBlocks(h.chain.onChain("setWeights")); !slices.Equal(got, tt.want) {
				t.Errorf("setWeights landed in blocks %v, want %v", got, tt.want)
			}
			if subs := checkSubmissions(t, h, records.StatusSet); len(subs) != len(tt.want) {
				t.Errorf("%d submissions, want %d", len(subs), len(tt.want))
			}
		})
	}
}

// TestWeightsPaths: with commit-reveal off the validator sets weights;
// with it on it commits, then reveals the same weights and salt in the
// reveal epoch (the fake chain checks the hash and the epoch), one commit
// at a time.
func TestWeightsPaths(t *testing.T) {
	tests := []struct {
		name         string
		commitReveal bool
		wantOps      map[string]int // mined transactions by op, over blocks 1..100
	}{
		{"commit-reveal off", false, map[string]int{"setWeights": 10}},
		// Epochs are 21 blocks (tempo 20, netuid 15: epoch 1 starts at
		// block 5); each commit waits for its reveal in the next epoch, and
		// the sixth is still waiting at block 100.
		{"commit-reveal on", true, map[string]int{"commitWeights": 6, "revealWeights": 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := weightsHarness(t, weightsHyper(5, tt.commitReveal), nil)
			h.run(1, 100)
			for _, op := range []string{"setWeights", "commitWeights", "revealWeights"} {
				for _, c := range h.chain.callsOf(op) {
					if c.err != nil {
						t.Errorf("head %d: %s refused: %v", c.head, op, c.err)
					}
				}
				if got := len(h.chain.onChain(op)); got != tt.wantOps[op] {
					t.Errorf("%d %s on chain, want %d", got, op, tt.wantOps[op])
				}
			}
			if !tt.commitReveal {
				checkSubmissions(t, h, records.StatusSet)
				return
			}
			commits, reveals := h.chain.onChain("commitWeights"), h.chain.onChain("revealWeights")
			// While the last commit waits for its reveal epoch, the age of
			// the weights on chain still counts up (alerts read it).
			if got, want := testutil.ToFloat64(h.v.m.sinceWeights), float64(100-reveals[len(reveals)-1].block); got != want {
				t.Errorf("arena_validator_blocks_since_weights %v at block 100 with a commit waiting, want %v", got, want)
			}
			epoch := func(b uint64) uint64 { return chain.EpochIndex(b, h.chain.netuid, h.chain.tempo) }
			subs := h.submissions()
			for i, s := range subs {
				if i == len(subs)-1 && s.Status == records.StatusCommitted && s.RevealEpoch > epoch(100) {
					continue // its reveal epoch is yet to come
				}
				if s.Op != "commit" || s.Status != records.StatusRevealed || i >= len(commits) || i >= len(reveals) {
					t.Errorf("submission %d: %+v, want a revealed commit", i, s)
					continue
				}
				c, r := commits[i], reveals[i]
				if c.tx.Commit.Hex() != s.CommitHash || r.block != s.RevealBlock || epoch(r.block) != epoch(c.block)+1 {
					t.Errorf("window %d: commit %s in block %d, reveal in block %d; record %+v", s.Window, c.tx.Commit.Hex(), c.block, r.block, s)
				}
				if i+1 < len(commits) && commits[i+1].block < r.block {
					t.Errorf("commit in block %d before the reveal of the previous one (block %d)", commits[i+1].block, r.block)
				}
			}
		})
	}
}

// TestWeightsSettled: a weights transaction whose outcome the validator
// did not learn (the node failed after the broadcast, or before it) is
// settled from the chain or sent again, once; chain errors are retried at
// the next head; nothing lands twice in a window.
func TestWeightsSettled(t *testing.T) {
	tests := []struct {
		name         string
		commitReveal bool
		faults       map[string][]fault
		syncEvery    uint64
		// otherUpdate, if set, moves our last_update on chain at that
		// block behind the validator's back (another process with our key).
		otherUpdate uint64
		heads       uint64
		// wantSent are the heads at which op was sent; wantResumed those
		// at which ResumeTx was called; wantMined the blocks op landed in.
		op                               string
		wantSent, wantResumed, wantMined []uint64
		wantStatus                       records.SubmissionStatus
	}{
		{name: "setWeights: node unreachable before the broadcast", faults: map[string][]fault{"setWeights": {faultUnreachable}},
			heads: 5, op: "setWeights", wantSent: []uint64{1, 2}, wantMined: []uint64{2}, wantStatus: records.StatusSet},
		{name: "setWeights: receipt lost after the broadcast", faults: map[string][]fault{"setWeights": {faultReceiptLost}},
			heads: 5, op: "setWeights", wantSent: []uint64{1}, wantResumed: []uint64{2}, wantMined: []uint64{1}, wantStatus: records.StatusSet},
		{name: "setWeights: receipt lost, then the node is unreachable", faults: map[string][]fault{"setWeights": {faultReceiptLost}, "resumeTx": {faultUnreachable, faultUnreachable}},
			heads: 5, op: "setWeights", wantSent: []uint64{1}, wantResumed: []uint64{2, 3, 4}, wantMined: []uint64{1}, wantStatus: records.StatusSet},
		{name: "commitWeights: receipt lost after the broadcast", commitReveal: true, faults: map[string][]fault{"commitWeights": {faultReceiptLost}},
			heads: 4, op: "commitWeights", wantSent: []uint64{1}, wantResumed: []uint64{2}, wantMined: []uint64{1}, wantStatus: records.StatusCommitted},
		{name: "commitWeights: node unreachable before the broadcast", commitReveal: true, faults: map[string][]fault{"commitWeights": {faultUnreachable, faultUnreachable}},
			heads: 4, op: "commitWeights", wantSent: []uint64{1, 2, 3}, wantMined: []uint64{3}, wantStatus: records.StatusCommitted},
		// The commit lands in epoch 0 (blocks 0..4); the reveal is due in
		// epoch 1 (blocks 5..25).
		{name: "revealWeights: node unreachable in the reveal epoch", commitReveal: true, faults: map[string][]fault{"revealWeights": {faultUnreachable, faultUnreachable}},
			heads: 10, op: "revealWeights", wantSent: []uint64{5, 6, 7}, wantMined: []uint64{7}, wantStatus: records.StatusRevealed},
		// Our last update moved to 15 elsewhere: the chain refuses until
		// 15 + 25; the refusal is not sent, so the validator tries again at
		// each head until it lands.
		{name: "setWeights: rate limited by the chain", syncEvery: 1000, otherUpdate: 15, heads: 45, op: "setWeights",
			wantSent: append([]uint64{1}, seq(26, 40)...), wantMined: []uint64{1, 40}, wantStatus: records.StatusSet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rateLimit := uint64(5)
			if tt.otherUpdate != 0 {
				rateLimit = 25
			}
			h := weightsHarness(t, weightsHyper(rateLimit, tt.commitReveal), func(o *Options) {
				if tt.syncEvery != 0 {
					o.SyncEveryBlocks = tt.syncEvery
				}
				if tt.commitReveal {
					o.WeightsEveryBlocks = 1000 // one commit, then its reveal
				}
			})
			for op, fs := range tt.faults {
				h.chain.fail(op, fs...)
			}
			for n := uint64(1); n <= tt.heads; n++ {
				if n == tt.otherUpdate {
					h.chain.updateNeuron(0, func(nr *chain.Neuron) { nr.LastUpdate = n })
				}
				h.run(n, n)
			}
			if got := heads(h.chain.callsOf(tt.op)); !slices.Equal(got, tt.wantSent) {
				t.Errorf("%s sent at heads %v, want %v", tt.op, got, tt.wantSent)
			}
			if got := heads(h.chain.callsOf("resumeTx")); !slices.Equal(got, tt.wantResumed) {
				t.Errorf("ResumeTx at heads %v, want %v", got, tt.wantResumed)
			}
			if got := minedBlocks(h.chain.onChain(tt.op)); !slices.Equal(got, tt.wantMined) {
				t.Errorf("%s landed in blocks %v, want %v", tt.op, got, tt.wantMined)
			}
			subs := checkSubmissions(t, h, tt.wantStatus)
			if len(subs) == 0 {
				t.Fatal("no submission recorded")
			}
			if last := subs[len(subs)-1]; tt.op != "revealWeights" && last.Block != tt.wantMined[len(tt.wantMined)-1] {
				t.Errorf("the last submission records block %d, want %d", last.Block, tt.wantMined[len(tt.wantMined)-1])
			}
		})
	}
}

// TestWeightsUnusablePending: a pending submission whose stored
// transaction the chain cannot settle is marked failed once, not retried
// at every head, and the next window submits afresh.
func TestWeightsUnusablePending(t *testing.T) {
	for _, raw := range []string{"zz", hex.EncodeToString([]byte(`{"op":"setWeights","nonce":99}`))} {
		t.Run(raw[:2], func(t *testing.T) {
			h := weightsHarness(t, weightsHyper(5, false), nil)
			if err := h.v.putSubmission(&records.Submission{Window: 0, Op: "set", Status: records.StatusPending, UIDs: []uint16{0},
				Values: []uint16{65535}, CreatedBlock: 1, TxHash: "0x01", RawTx: raw}); err != nil {
				t.Fatal(err)
			}
			h.run(1, 15)
			subs := h.submissions()
			if len(subs) != 2 || subs[0].Status != records.StatusFailed || subs[1].Status != records.StatusSet || subs[1].Window != 1 {
				t.Fatalf("submissions %+v; want window 0 failed and window 1 set", subs)
			}
			if n := len(h.chain.callsOf("resumeTx")); n > 1 {
				t.Errorf("ResumeTx called %d times for one unusable record", n)
			}
		})
	}
}

func seq(from, to uint64) []uint64 {
	var out []uint64
	for n := from; n <= to; n++ {
		out = append(out, n)
	}
	return out
}
