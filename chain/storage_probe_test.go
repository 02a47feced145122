package chain_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/rs/zerolog"

	"arena/chain"
)

// fakeNode answers eth_chainId, eth_blockNumber and eth_call the way a node with or without
// StorageQuery would; the probe key (32 zero bytes, no authorized prefix) is counted.
type fakeNode struct {
	mu     sync.Mutex
	probes int
	// answer returns eth_call's output or error for a key with an authorized prefix.
	answer func(key []byte) (hexutil.Bytes, error)
	// probe answers the probe key.
	probe func() (hexutil.Bytes, error)
}

type fakeEth struct{ n *fakeNode }

func (f fakeEth) ChainId() hexutil.Uint64     { return 945 }
func (f fakeEth) BlockNumber() hexutil.Uint64 { return 100 }

type callArgs struct {
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

func (f fakeEth) Call(args callArgs, block string) (hexutil.Bytes, error) {
	if args.To != chain.StorageQueryAddress {
		return nil, errors.New("unexpected call")
	}
	if bytes.Equal(args.Data, make([]byte, 32)) {
		f.n.mu.Lock()
		f.n.probes++
		f.n.mu.Unlock()
		return f.n.probe()
	}
	return f.n.answer(args.Data)
}

func (n *fakeNode) probeCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.probes
}

func serveFake(t *testing.T, n *fakeNode) *chain.Client {
	t.Helper()
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", fakeEth{n}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		srv.Stop()
	})
	c, err := chain.Dial(context.Background(), chain.Options{URL: hs.URL}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

var (
	// What Frontier answers for StorageQuery's PrecompileFailure::Error(Other("Invalid key")).
	frontierInvalidKey = func() (hexutil.Bytes, error) { return nil, errors.New(`evm error: Other("Invalid key")`) }
	// What any node answers for a call to an account without code.
	emptySuccess = func() (hexutil.Bytes, error) { return hexutil.Bytes{}, nil }
)

// TestStorageProbe: how the reader tells a missing entry from a missing precompile, against
// node behaviours written from subtensor's StorageQuery and Frontier.
func TestStorageProbe(t *testing.T) {
	tempo100 := func(key []byte) (hexutil.Bytes, error) {
		if bytes.Equal(key, chain.ItemTempo.Key(1)) {
			return hexutil.Bytes{0x64, 0x00}, nil
		}
		return hexutil.Bytes{}, nil
	}
	for _, tc := range []struct {
		name       string
		answer     func(key []byte) (hexutil.Bytes, error)
		probe      func() (hexutil.Bytes, error)
		wantErr    error
		tempo      uint16 // of netuid 1, stored
		reveal     uint64 // of netuid 1, never stored: the pallet's default
		wantProbes int    // after the three reads
	}{
		// The first read finds no entry and probes; the precompile is then remembered, so the
		// second missing entry needs no probe.
		{"precompile", tempo100, frontierInvalidKey, nil, 100, 1, 1},
		// Absence is not remembered: every read that finds nothing probes again.
		{"no precompile: every call is an empty success", func([]byte) (hexutil.Bytes, error) { return hexutil.Bytes{}, nil }, emptySuccess, chain.ErrNoStorageQuery, 0, 0, 3},
		{"something else at 0x807 reverts", func([]byte) (hexutil.Bytes, error) { return nil, errors.New("execution reverted") }, frontierInvalidKey, chain.ErrNoStorageQuery, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &fakeNode{answer: tc.answer, probe: tc.probe}
			c := serveFake(t, n)
			st := c.Storage()
			ctx := context.Background()
			reveal, err := st.RevealPeriodEpochs(ctx, 1)
			if !errors.Is(err, tc.wantErr) || reveal != tc.reveal {
				t.Fatalf("RevealPeriodEpochs = %d, %v; want %d, %v", reveal, err, tc.reveal, tc.wantErr)
			}
			if _, err := st.MechanismCount(ctx, 1); !errors.Is(err, tc.wantErr) {
				t.Fatalf("MechanismCount: %v, want %v", err, tc.wantErr)
			}
			tempo, err := st.Tempo(ctx, 1)
			if !errors.Is(err, tc.wantErr) || tempo != tc.tempo {
				t.Fatalf("Tempo = %d, %v; want %d, %v", tempo, err, tc.tempo, tc.wantErr)
			}
			if got := n.probeCount(); got != tc.wantProbes {
				t.Fatalf("%d probes, want %d", got, tc.wantProbes)
			}
		})
	}
}
