package chain_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/chain"
	"arena/chain/devnet"
)

// TestHeadsReportChainReset: the devnet behind the follower's URL is
// replaced by a new one (a restarted devnet). The follower reports the
// reset once, with the reason, and delivers none of the new chain's heads
// at or below the last one.
func TestHeadsReportChainReset(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	first, stopFirst := runDevnet(t, devnet.Options{Validators: 1, Miners: 1, BlockTime: 5 * time.Millisecond, Listen: addr})
	c := dial(t, first.URL())
	resets := make(chan chain.Reset, 4)
	f := c.FollowHeads(chain.HeadsOptions{ReconnectMin: 10 * time.Millisecond, ReconnectMax: 50 * time.Millisecond,
		OnReset: func(r chain.Reset) { resets <- r }})
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- f.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-runErr; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	var last uint64
	for last < 2*chain.DefaultMaxRollback {
		select {
		case h := <-f.Heads():
			last = h.Number
		case <-time.After(30 * time.Second):
			t.Fatal("no head for 30s")
		}
	}
	stopFirst()
	second, stopSecond := runDevnet(t, devnet.Options{Validators: 1, Miners: 1, BlockTime: 50 * time.Millisecond, Listen: addr})
	defer stopSecond()
	if second.URL() != first.URL() {
		t.Fatalf("second devnet at %s, first at %s", second.URL(), first.URL())
	}
	var r chain.Reset
	for r.Reason == "" {
		select {
		case r = <-resets:
		case h := <-f.Heads():
			// The old chain's next heads may still be on their way (it made
			// one every 5 ms until stopped); the new one starts at 0, far
			// below, and must never come through.
			if h.Number <= last {
				t.Fatalf("head %d of the new chain delivered after head %d of the old one", h.Number, last)
			}
			last = h.Number
		case <-time.After(30 * time.Second):
			t.Fatal("no reset reported within 30s")
		}
	}
	if !strings.Contains(r.Reason, "genesis") && !strings.Contains(r.Reason, "below the last head") {
		t.Errorf("reset reason %q", r.Reason)
	}
	t.Logf("reset: %+v", r)
	select {
	case r2 := <-resets:
		t.Errorf("a second reset reported: %+v", r2)
	case <-time.After(200 * time.Millisecond):
	}
}

// runDevnet starts a producing devnet; stop ends it (idempotent) so that
// another can take its address.
func runDevnet(t *testing.T, opts devnet.Options) (*devnet.Devnet, func()) {
	t.Helper()
	opts.Tempo, opts.Netuid = 360, 15
	dn, err := devnet.New(opts, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := dn.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dn.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("devnet run: %v", err)
			}
			dn.Close()
		})
	}
	t.Cleanup(stop)
	return dn, stop
}
