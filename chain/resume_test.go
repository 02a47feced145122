package chain_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"arena/chain"
	"arena/chain/devnet"
)

// TestResumeTx: a transaction signed and persisted before a crash is
// settled from its stored bytes, whatever point the crash came at: before
// the broadcast, after it was mined, after another transaction took its
// nonce, or with a transaction the chain refuses.
func TestResumeTx(t *testing.T) {
	hyper := devnet.Hyper{MinAllowedWeights: 1}
	dn := startDevnet(t, devnet.Options{Validators: 4, Miners: 3, BlockTime: 10 * time.Millisecond, Hyper: &hyper})
	c := dial(t, dn.URL())
	ctx := context.Background()
	netuid := dn.Netuid()
	vals, miners := dn.ByRole("validator"), dn.ByRole("miner")
	weights := func(a, b uint16) chain.Weights {
		return chain.Weights{Netuid: netuid, UIDs: []uint16{miners[0].UID, miners[1].UID}, Values: []uint16{a, b}}
	}
	errCrash := errors.New("crash before the broadcast")
	// signed sends w and returns the signed bytes; with crash, nothing is
	// broadcast.
	signed := func(t *testing.T, signer *chain.Signer, w chain.Weights, crash bool, opts chain.TxOptions) ([]byte, *chain.TxResult) {
		t.Helper()
		var raw []byte
		opts.BeforeSend = func(_ common.Hash, b []byte) error {
			raw = b
			if crash {
				return errCrash
			}
			return nil
		}
		res, err := c.SetWeights(ctx, signer, w, opts)
		if crash != errors.Is(err, errCrash) || (!crash && err != nil) {
			t.Fatalf("SetWeights: %v", err)
		}
		if raw == nil {
			t.Fatal("BeforeSend was not called")
		}
		return raw, res
	}
	nonce := func(t *testing.T, signer *chain.Signer) uint64 {
		t.Helper()
		n, err := c.Eth().NonceAt(ctx, signer.Address, nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	row := func(t *testing.T, uid uint16) []devnet.Weight {
		t.Helper()
		r, err := dn.Weights(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	tests := []struct {
		name string
		run  func(t *testing.T, v devnet.Account)
	}{
		{"crashed before the broadcast: sent now", func(t *testing.T, v devnet.Account) {
			raw, _ := signed(t, v.Signer(), weights(40000, 25535), true, chain.TxOptions{})
			if r := row(t, v.UID); len(r) != 0 {
				t.Fatalf("weights on chain before the resume: %+v", r)
			}
			res, err := c.ResumeTx(ctx, "setWeights", raw)
			if err != nil {
				t.Fatal(err)
			}
			if r := row(t, v.UID); len(r) != 2 || r[0].Value != 40000 || res.Block == 0 {
				t.Fatalf("after the resume: row %+v, result %+v", r, res)
			}
		}},
		{"crashed after it was mined: not sent again", func(t *testing.T, v devnet.Account) {
			raw, first := signed(t, v.Signer(), weights(30000, 35535), false, chain.TxOptions{})
			before := nonce(t, v.Signer())
			res, err := c.ResumeTx(ctx, "setWeights", raw)
			if err != nil {
				t.Fatal(err)
			}
			if res.Hash != first.Hash || res.Block != first.Block {
				t.Fatalf("resumed %+v, sent %+v", res, first)
			}
			if after := nonce(t, v.Signer()); after != before {
				t.Fatalf("nonce moved from %d to %d", before, after)
			}
		}},
		{"nonce taken by a later transaction: dropped", func(t *testing.T, v devnet.Account) {
			raw, _ := signed(t, v.Signer(), weights(20000, 45535), true, chain.TxOptions{})
			if _, err := c.SetWeights(ctx, v.Signer(), weights(10000, 55535), chain.TxOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.ResumeTx(ctx, "setWeights", raw); !errors.Is(err, chain.ErrTxDropped) {
				t.Fatalf("err = %v, want ErrTxDropped", err)
			}
			if r := row(t, v.UID); len(r) != 2 || r[0].Value != 10000 {
				t.Fatalf("row %+v: the later weights should stand", r)
			}
		}},
		{"refused by the chain: its reason", func(t *testing.T, v devnet.Account) {
			dup := weights(1, 2)
			dup.UIDs[1] = dup.UIDs[0]
			raw, _ := signed(t, v.Signer(), dup, true, chain.TxOptions{SkipPreflight: true, GasLimit: 500_000})
			if _, err := c.ResumeTx(ctx, "setWeights", raw); !errors.Is(err, chain.ErrDuplicateUids) {
				t.Fatalf("err = %v, want ErrDuplicateUids", err)
			}
		}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, vals[i]) })
	}

	to := chain.NeuronAddress
	otherChain, err := types.SignNewTx(vals[0].Signer().PrivateKey(), types.LatestSignerForChainID(big.NewInt(999)),
		&types.DynamicFeeTx{ChainID: big.NewInt(999), Gas: 100_000, To: &to})
	if err != nil {
		t.Fatal(err)
	}
	otherRaw, err := otherChain.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		raw  []byte
	}{
		{"not a transaction", []byte("garbage")},
		{"signed for another chain", otherRaw},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.ResumeTx(ctx, "setWeights", tt.raw); !errors.Is(err, chain.ErrTxUnusable) {
				t.Fatalf("err = %v, want ErrTxUnusable", err)
			}
		})
	}
}
