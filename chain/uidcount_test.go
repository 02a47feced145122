package chain

import (
	"context"
	"encoding/hex"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/rs/zerolog"
)

// fakeEth is a hostile JSON-RPC node: getUidCount returns whatever count
// says, StorageQuery a u64 zero, every other eth_call zero words. It counts
// the per-uid calls so a test can tell whether the client believed the count.
type fakeEth struct {
	count    uint16
	selector string // hex selector of getUidCount
	perUID   atomic.Int64
}

func (f *fakeEth) ChainId() *hexutil.Big { return (*hexutil.Big)(hexutil.MustDecodeBig("0x539")) }

func (f *fakeEth) BlockNumber() hexutil.Uint64 { return 100 }

func (f *fakeEth) Call(args map[string]any, block string) (hexutil.Bytes, error) {
	data, _ := args["data"].(string)
	if data == "" {
		data, _ = args["input"].(string)
	}
	if strings.HasPrefix(strings.TrimPrefix(data, "0x"), f.selector) {
		out := make([]byte, 32)
		out[30], out[31] = byte(f.count>>8), byte(f.count)
		return out, nil
	}
	f.perUID.Add(1)
	if to, _ := args["to"].(string); strings.EqualFold(to, StorageQueryAddress.Hex()) {
		return make([]byte, 8), nil // BlockAtRegistration
	}
	return make([]byte, 6*32), nil // wide enough for getAxon's tuple
}

// TestMetagraphUIDCountBound proves a uid count from the chain is validated
// before it sizes allocations and RPC batches: above MaxUIDs the metagraph
// read fails with one clear error and no per-uid call is made; at or below
// it the read proceeds.
func TestMetagraphUIDCountBound(t *testing.T) {
	abis, err := loadABIs()
	if err != nil {
		t.Fatal(err)
	}
	sel := hex.EncodeToString(abis.metagraph.Methods["getUidCount"].ID)
	tests := []struct {
		name       string
		count      uint16
		wantErr    string
		wantPerUID int64
	}{
		{"small", 3, "", 3 * 13},
		{"zero", 0, "", 0},
		{"above bound", MaxUIDs + 1, "more than the 4096", 0},
		{"u16 max", 65535, "node reports 65535 uids", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeEth{count: tt.count, selector: sel}
			srv := rpc.NewServer()
			if err := srv.RegisterName("eth", fake); err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			t.Cleanup(func() { hs.Close(); srv.Stop() })
			c, err := Dial(context.Background(), Options{URL: hs.URL}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			mg, err := c.MetagraphAt(context.Background(), 15, 100)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if len(mg.Neurons) != int(tt.count) {
				t.Fatalf("%d neurons, want %d", len(mg.Neurons), tt.count)
			}
			// Per uid: 11 scalar getters, getAxon and BlockAtRegistration.
			if got := fake.perUID.Load(); got != tt.wantPerUID {
				t.Fatalf("%d per-uid eth_calls, want %d", got, tt.wantPerUID)
			}
		})
	}
}
