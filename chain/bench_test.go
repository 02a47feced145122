package chain_test

import (
	"context"
	"testing"

	"arena/chain/devnet"
)

// BenchmarkMetagraph256 reads a full 256-uid metagraph from the devnet over
// a real websocket: one uid-count call, then 256×12 eth_calls in pinned
// JSON-RPC batches.
func BenchmarkMetagraph256(b *testing.B) {
	dn := startDevnet(b, devnet.Options{Validators: 16, Miners: 240})
	c := dial(b, dn.URL())
	ctx := context.Background()
	mg, err := c.Metagraph(ctx, dn.Netuid())
	if err != nil || len(mg.Neurons) != 256 {
		b.Fatalf("warm-up: %d neurons, %v", len(mg.Neurons), err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Metagraph(ctx, dn.Netuid()); err != nil {
			b.Fatal(err)
		}
	}
}
