package chain_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http/httptest"
	"strings"
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
	// metagraph, if set, answers calls to the Metagraph precompile (0x802).
	metagraph func(data []byte) (hexutil.Bytes, error)
}

type fakeEth struct{ n *fakeNode }

func (f fakeEth) ChainId() hexutil.Uint64     { return 945 }
func (f fakeEth) BlockNumber() hexutil.Uint64 { return 100 }

type callArgs struct {
	To   common.Address `json:"to"`
	Data hexutil.Bytes  `json:"data"`
}

func (f fakeEth) Call(args callArgs, block string) (hexutil.Bytes, error) {
	if args.To == chain.MetagraphAddress && f.n.metagraph != nil {
		return f.n.metagraph(args.Data)
	}
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

// twoUIDs answers the Metagraph precompile for a subnet of two uids whose every getter reads
// zero.
func twoUIDs(t *testing.T) func(data []byte) (hexutil.Bytes, error) {
	t.Helper()
	mg, err := chain.ParseABI("metagraph")
	if err != nil {
		t.Fatal(err)
	}
	return func(data []byte) (hexutil.Bytes, error) {
		m, err := mg.MethodById(data[:4])
		if err != nil {
			return nil, err
		}
		if m.Name == "getUidCount" {
			return m.Outputs.Pack(uint16(2))
		}
		// Every output of a getter is static: one zero word per field of its flattened outputs.
		words := 0
		for _, o := range m.Outputs {
			words += max(len(o.Type.TupleElems), 1)
		}
		return make(hexutil.Bytes, 32*words), nil
	}
}

// TestMetagraphRegistrationAnswers: how a metagraph snapshot treats what a node answers for
// the registration blocks, against node behaviours the devnet cannot show.
func TestMetagraphRegistrationAnswers(t *testing.T) {
	u64 := func(v uint64) hexutil.Bytes { return binary.LittleEndian.AppendUint64(nil, v) }
	uid0 := chain.ItemBlockAtRegistration.UIDKey(1, 0)
	for _, tc := range []struct {
		name    string
		answer  func(key []byte) (hexutil.Bytes, error)
		probe   func() (hexutil.Bytes, error)
		wantErr string // "": the snapshot succeeds
		known   bool
		blocks  []uint64
	}{
		{"values", func([]byte) (hexutil.Bytes, error) { return u64(7), nil }, frontierInvalidKey, "", true, []uint64{7, 7}},
		{"one entry missing, precompile there", func(key []byte) (hexutil.Bytes, error) {
			if bytes.Equal(key, uid0) {
				return u64(41273), nil
			}
			return hexutil.Bytes{}, nil
		}, frontierInvalidKey, "", true, []uint64{41273, 0}},
		{"no precompile: empty successes", func([]byte) (hexutil.Bytes, error) { return hexutil.Bytes{}, nil }, emptySuccess, "", false, []uint64{0, 0}},
		{"something else at 0x807 reverts", func([]byte) (hexutil.Bytes, error) { return nil, errors.New("execution reverted") }, frontierInvalidKey, "", false, []uint64{0, 0}},
		{"a node error fails the snapshot", func([]byte) (hexutil.Bytes, error) { return nil, errors.New("database unavailable") }, frontierInvalidKey, "database unavailable", false, nil},
		{"a u32 fails the snapshot", func([]byte) (hexutil.Bytes, error) { return hexutil.Bytes{1, 0, 0, 0}, nil }, frontierInvalidKey, "4-byte value, want 8", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := serveFake(t, &fakeNode{answer: tc.answer, probe: tc.probe, metagraph: twoUIDs(t)})
			mg, err := c.MetagraphAt(context.Background(), 1, 100)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("snapshot: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("snapshot: %v", err)
			}
			if mg.RegistrationKnown != tc.known || len(mg.Neurons) != 2 {
				t.Fatalf("RegistrationKnown %v with %d neurons, want %v with 2", mg.RegistrationKnown, len(mg.Neurons), tc.known)
			}
			for uid, want := range tc.blocks {
				if got := mg.Neurons[uid].RegisteredAt; got != want {
					t.Errorf("uid %d: RegisteredAt %d, want %d", uid, got, want)
				}
			}
		})
	}
}
