package main

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/devarena"
)

// TestRestartedDevnet: a devnet is restarted under the URL an `arena run`
// follows (the new chain near block 10, the data dir's cursor past 160). The validator
// says so in one line and in /readyz, and does no more work; after a stop,
// `arena store reset-chain-state` lets it start again on the new chain,
// where it is ready and sets weights, its history kept.
func TestRestartedDevnet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts validator processes")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	first, stopFirst := startChainAt(t, addr)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cfgPath := writeRunConfig(t, first, dir, data, "race: {floor: 0, ratio_start: 0, ratio_floor: 0}\n")
	p := startValidator(t, cfgPath)
	metrics, _ := p.waitFor(t, "operator endpoints: /metrics /livez /readyz", time.Minute, nil)["listen"].(string)
	p.waitFor(t, "weights set", 3*time.Minute, nil)
	head, err := first.Devnet.Head(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if head < 160 {
		if err := first.Devnet.WaitForBlock(context.Background(), 160); err != nil {
			t.Fatal(err)
		}
	}

	stopFirst()
	startChainAt(t, addr) // the same keys and subnet, from block 0
	p.waitLine(t, "the chain reset line", time.Minute, func(m map[string]any) bool {
		msg, _ := m["message"].(string)
		return strings.HasPrefix(msg, "chain reset: the node serves another chain")
	})
	waitReadyz(t, metrics, http.StatusServiceUnavailable, "chain reset")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, lines := p.exit(t, time.Minute); code != 0 {
		t.Fatalf("exit %d after SIGTERM: %v", code, lines)
	}

	code, out, errOut := runCLI(t, nil, "store", "reset-chain-state", "--data", data)
	if code != 0 || !strings.Contains(out, "chain era 1") {
		t.Fatalf("reset-chain-state: exit %d\n%s%s", code, out, errOut)
	}
	p = startValidator(t, cfgPath)
	metrics, _ = p.waitFor(t, "operator endpoints: /metrics /livez /readyz", time.Minute, nil)["listen"].(string)
	p.waitFor(t, "weights set", 3*time.Minute, nil)
	waitReadyz(t, metrics, http.StatusOK, "")
}

// startChainAt runs a chain-only dev arena whose devnet listens on addr;
// stop ends it so another can take the address.
func startChainAt(t *testing.T, addr string) (*devarena.Arena, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := devarena.Start(ctx, devarena.Options{Config: config.Default(), Miners: 3, BlockTime: 100 * time.Millisecond,
		ChainOnly: true, DevnetListen: addr}, zerolog.Nop())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		<-runDone
		_ = a.Close()
	}
	t.Cleanup(stop)
	return a, stop
}
