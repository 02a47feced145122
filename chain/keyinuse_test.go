package chain_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"arena/chain"
	"arena/chain/devnet"
)

// TestCheckSigner: two clients (two processes) sign with one validator key
// over the devnet's websocket. Each sees nothing wrong until it has sent
// its own transaction; then a transaction from the other moves the
// account's nonce past the one it would use next, and CheckSigner says so.
func TestCheckSigner(t *testing.T) {
	hyper := devnet.Hyper{WeightsSetRateLimit: 1, MinAllowedWeights: 1}
	dn := startDevnet(t, devnet.Options{Validators: 1, Miners: 2, BlockTime: 10 * time.Millisecond, Hyper: &hyper})
	ctx := context.Background()
	first, second := dial(t, dn.URL()), dial(t, dn.URL())
	val, miners := dn.ByRole("validator")[0], dn.ByRole("miner")
	w := chain.Weights{Netuid: dn.Netuid(), UIDs: []uint16{miners[0].UID}, Values: []uint16{65535}}
	set := func(c *chain.Client) {
		t.Helper()
		if _, err := c.SetWeights(ctx, val.Signer(), w, chain.TxOptions{}); err != nil {
			t.Fatal(err)
		}
		head, err := dn.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waitForDevnetBlock(t, dn, head+2) // past the rate limit
	}
	for _, c := range []*chain.Client{first, second} {
		if err := c.CheckSigner(ctx, val.Signer()); err != nil {
			t.Fatalf("before sending: %v", err)
		}
	}
	set(first)
	if err := first.CheckSigner(ctx, val.Signer()); err != nil {
		t.Fatalf("after its own transaction: %v", err)
	}
	set(second)
	err := first.CheckSigner(ctx, val.Signer())
	var kiu *chain.KeyInUseError
	if !errors.As(err, &kiu) || !errors.Is(err, chain.ErrKeyInUse) || kiu.Mined != kiu.Next+1 {
		t.Fatalf("after the other's transaction: %v (%+v), want KeyInUseError one nonce ahead", err, kiu)
	}
	if err := second.CheckSigner(ctx, val.Signer()); err != nil {
		t.Errorf("the last sender sees its own nonce: %v", err)
	}
}
