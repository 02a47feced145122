package validator

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"arena/chain"
)

// lockedBuffer is a log sink safe for the validator's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSubnetShare: the subnet's mechanism count and MinerBurned are read at
// every sync into the metrics and the status; a subnet with several
// mechanisms and a policy that burns each get one warning, however many
// syncs follow; a chain without the StorageQuery precompile says nothing
// and shows no subnet section.
func TestSubnetShare(t *testing.T) {
	for _, tc := range []struct {
		name     string
		share    *chain.SubnetShare
		burn     float64
		warnings []string
	}{
		{"two mechanisms and a burn", &chain.SubnetShare{Mechanisms: 2, MinerBurned: 0.25}, 0.3,
			[]string{"weights set over EVM reach mechanism 0 only", "weights.burn_fraction sends 30% of miner emission"}},
		{"one mechanism, no burn", &chain.SubnetShare{Mechanisms: 1}, 0, nil},
		{"no StorageQuery precompile", nil, 0.3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs lockedBuffer
			h := newHarness(t, harnessOptions{miners: 1, logs: &logs, edit: func(o *Options) { o.Weights.BurnFraction = tc.burn }})
			h.chain.mu.Lock()
			h.chain.share = tc.share
			h.chain.mu.Unlock()
			h.run(1, 7) // several syncs (every 2 blocks)
			out := logs.String()
			for _, w := range []string{"weights set over EVM reach mechanism 0 only", "weights.burn_fraction sends"} {
				want := 0
				for _, x := range tc.warnings {
					if strings.Contains(x, w) {
						want = 1
					}
				}
				if got := strings.Count(out, w); got != want {
					t.Errorf("%q logged %d times, want %d", w, got, want)
				}
			}
			st, err := h.v.StatusNow(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tc.share == nil {
				if st.Subnet != nil {
					t.Errorf("status subnet %+v without the precompile", st.Subnet)
				}
				return
			}
			if st.Subnet == nil || *st.Subnet != *tc.share {
				t.Errorf("status subnet %+v, want %+v", st.Subnet, tc.share)
			}
			if got := h.metric("arena_chain_mechanisms"); got != float64(tc.share.Mechanisms) {
				t.Errorf("arena_chain_mechanisms %v", got)
			}
			if got := h.metric("arena_chain_miner_burned_ratio"); got != tc.share.MinerBurned {
				t.Errorf("arena_chain_miner_burned_ratio %v", got)
			}
		})
	}
}
