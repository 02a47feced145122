package chain

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a client, head subscription or
// devnet outlives them. The ignored functions belong to go-ethereum and the
// devnet's node and cannot be stopped from here:
//   - core.(*txSenderCacher).cache: a process-wide sender cache started
//     once (sync.OnceValue) and never shut down, go-ethereum
//     core/sender_cacher.go:27-34 and :58-76.
//   - leveldb.(*DB).mpoolDrain: after Close of the node's in-memory peer
//     database it waits up to a second for a pooled memtable, goleveldb
//     leveldb/db_state.go:98-117, longer than goleak retries. A devnet left
//     open still shows its p2p, RPC and blockchain goroutines.
//   - filters.(*Subscription).Unsubscribe.func1: a newHeads subscription
//     whose websocket closes after its node's event loop has stopped waits
//     for that loop forever (go-ethereum eth/filters/filter_system.go:264-
//     285, api.go:271-279). Only TestHeadsReportChainReset closes a devnet
//     under a live subscription, on purpose: the follower must see the
//     node replaced.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("github.com/ethereum/go-ethereum/core.(*txSenderCacher).cache"),
		goleak.IgnoreTopFunction("github.com/syndtr/goleveldb/leveldb.(*DB).mpoolDrain"),
		goleak.IgnoreTopFunction("github.com/ethereum/go-ethereum/eth/filters.(*Subscription).Unsubscribe.func1"),
	)
}
