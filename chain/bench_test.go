package chain_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/chain"
	"arena/chain/devnet"
)

// BenchmarkMetagraph256 reads a full 256-uid metagraph from the devnet over
// a real websocket: one uid-count call, then 256×12 eth_calls in JSON-RPC
// batches pinned to one block. The default sub-benchmark is what the
// client ships with; the others show why.
func BenchmarkMetagraph256(b *testing.B) {
	dn := startDevnet(b, devnet.Options{Validators: 16, Miners: 240})
	ctx := context.Background()
	for _, cfg := range []struct{ size, parallel int }{{500, 4}, {250, 8}, {128, 16}, {64, 32}, {1000, 2}} {
		name := fmt.Sprintf("batch=%d/parallel=%d", cfg.size, cfg.parallel)
		if cfg.size == 500 && cfg.parallel == 4 {
			name = "default/" + name
		}
		b.Run(name, func(b *testing.B) {
			c, err := chain.Dial(ctx, chain.Options{URL: dn.URL(), BatchSize: cfg.size, BatchParallelism: cfg.parallel,
				CallTimeout: time.Minute}, zerolog.Nop())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			mg, err := c.Metagraph(ctx, dn.Netuid())
			if err != nil || len(mg.Neurons) != 256 {
				b.Fatalf("warm-up: %v", err)
			}
			for b.Loop() {
				if _, err := c.Metagraph(ctx, dn.Netuid()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
