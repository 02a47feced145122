package chain_test

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/chain"
	"arena/chain/devnet"
)

// startDevnet runs a devnet with auto-mining for the test's lifetime.
func startDevnet(t testing.TB, opts devnet.Options) *devnet.Devnet {
	t.Helper()
	if opts.Tempo == 0 {
		opts.Tempo = 360
	}
	if opts.Netuid == 0 {
		opts.Netuid = 15
	}
	dn, err := devnet.New(opts, zerolog.Nop(), nil)
	if err != nil {
		t.Fatalf("devnet: %v", err)
	}
	if err := dn.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		if opts.BlockTime > 0 {
			done <- dn.Run(ctx)
			return
		}
		<-ctx.Done()
		done <- nil
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("devnet run: %v", err)
		}
		dn.Close()
	})
	return dn
}

func dial(t testing.TB, url string) *chain.Client {
	t.Helper()
	c, err := chain.Dial(context.Background(), chain.Options{URL: url, ReceiptPoll: 10 * time.Millisecond, ReceiptTimeout: 30 * time.Second}, zerolog.Nop())
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestMetagraphMatchesRegistration(t *testing.T) {
	dn := startDevnet(t, devnet.Options{Validators: 4, Miners: 60, BlockTime: 0, Seed: 7})
	ctx := context.Background()
	axons := map[uint16]chain.Axon{
		5:  {Version: 3, IP: netip.MustParseAddr("10.1.2.3"), Port: 8091, IPType: 4, Protocol: 4},
		6:  {Version: 3, IP: netip.MustParseAddr("2001:db8::42"), Port: 443, IPType: 6, Protocol: 4},
		63: {Version: 1, IP: netip.MustParseAddr("127.0.0.1"), Port: 65535, IPType: 4},
	}
	for uid, ax := range axons {
		if err := dn.SetAxon(ctx, uid, ax); err != nil {
			t.Fatal(err)
		}
	}
	if err := dn.SetStake(ctx, 10, 12345); err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{dn.URL(), dn.HTTPURL()} {
		t.Run(url[:4], func(t *testing.T) {
			c := dial(t, url)
			mg, err := c.Metagraph(ctx, dn.Netuid())
			if err != nil {
				t.Fatal(err)
			}
			if len(mg.Neurons) != 64 {
				t.Fatalf("%d neurons, want 64", len(mg.Neurons))
			}
			for _, acct := range dn.Accounts() {
				n := mg.Neurons[acct.UID]
				wantStake, wantPermit := uint64(0), false
				if acct.Role == "validator" {
					wantStake, wantPermit = 1000*devnet.TAO, true
				}
				if acct.UID == 10 {
					wantStake = 12345
				}
				if n.Hotkey != acct.Hotkey || n.Coldkey != acct.Hotkey {
					t.Errorf("uid %d hotkey %s coldkey %s, want %s", acct.UID, n.Hotkey, n.Coldkey, acct.Hotkey)
				}
				if n.Stake != wantStake || n.ValidatorPermit != wantPermit || !n.Active {
					t.Errorf("uid %d stake %d permit %v active %v, want %d %v true", acct.UID, n.Stake, n.ValidatorPermit, n.Active, wantStake, wantPermit)
				}
				want, served := axons[acct.UID]
				if served {
					got := n.Axon
					if got.IP != want.IP || got.Port != want.Port || got.IPType != want.IPType || got.Version != want.Version || got.Protocol != want.Protocol || got.Block == 0 {
						t.Errorf("uid %d axon %+v, want %+v", acct.UID, got, want)
					}
				} else if n.Axon.Served() {
					t.Errorf("uid %d has an axon nobody served: %+v", acct.UID, n.Axon)
				}
			}
			if got := mg.Neurons[6].Axon.HostPort(); got != "[2001:db8::42]:443" {
				t.Errorf("ipv6 host:port %q", got)
			}
		})
	}
}

func TestHyperparamsRoundTrip(t *testing.T) {
	want := devnet.Hyper{
		WeightsVersionKey: 42, WeightsSetRateLimit: 77, MinAllowedWeights: 3, MaxWeightLimit: 30000,
		CommitRevealEnabled: true, CommitRevealInterval: 2, ImmunityPeriod: 111, ActivityCutoff: 222,
	}
	dn := startDevnet(t, devnet.Options{Validators: 1, Miners: 2, Hyper: &want})
	c := dial(t, dn.URL())
	got, err := c.Hyperparams(context.Background(), dn.Netuid())
	if err != nil {
		t.Fatal(err)
	}
	expect := chain.Hyperparams{
		WeightsVersionKey: 42, WeightsSetRateLimit: 77, MinAllowedWeights: 3, MaxWeightLimit: 30000,
		CommitRevealEnabled: true, CommitRevealInterval: 2, ImmunityPeriod: 111, ActivityCutoff: 222,
	}
	if *got != expect {
		t.Fatalf("hyperparams %+v, want %+v", *got, expect)
	}
	if _, err := c.Hyperparams(context.Background(), 99); !errors.Is(err, chain.ErrSubnetNotFound) {
		t.Fatalf("unknown subnet: %v, want ErrSubnetNotFound", err)
	}
}

// TestSetWeightsRules checks every weight rule twice: refused by the
// client's preflight, and, with preflight bypassed, refused by the chain
// both at gas estimation and as a mined, failed transaction.
func TestSetWeightsRules(t *testing.T) {
	hyper := devnet.Hyper{WeightsVersionKey: 5, WeightsSetRateLimit: 1000, MinAllowedWeights: 2}
	dn := startDevnet(t, devnet.Options{Validators: 3, Miners: 4, BlockTime: 10 * time.Millisecond, Hyper: &hyper})
	c := dial(t, dn.URL())
	ctx := context.Background()
	netuid := dn.Netuid()
	vals, miners := dn.ByRole("validator"), dn.ByRole("miner")
	m := func(i int) uint16 { return miners[i].UID }
	good := chain.Weights{Netuid: netuid, UIDs: []uint16{m(0), m(1)}, Values: []uint16{40000, 25535}, VersionKey: 5}

	// The happy path on validator 0 also arms the rate limit for it.
	res, err := c.SetWeights(ctx, vals[0].Signer(), good, chain.TxOptions{})
	if err != nil {
		t.Fatalf("SetWeights: %v", err)
	}
	if res.Block == 0 || res.Hash == ([32]byte{}) {
		t.Fatalf("result %+v", res)
	}
	row, err := dn.Weights(ctx, vals[0].UID)
	if err != nil || len(row) != 2 || row[0].UID != m(0) || row[0].Value != 40000 {
		t.Fatalf("stored row %+v, %v", row, err)
	}
	mg, err := c.Metagraph(ctx, netuid)
	if err != nil || mg.Neurons[vals[0].UID].LastUpdate != res.Block {
		t.Fatalf("last update %d, want %d (%v)", mg.Neurons[vals[0].UID].LastUpdate, res.Block, err)
	}

	with := func(mut func(*chain.Weights)) chain.Weights {
		w := good
		w.UIDs = append([]uint16(nil), good.UIDs...)
		w.Values = append([]uint16(nil), good.Values...)
		mut(&w)
		return w
	}
	tests := []struct {
		name   string
		signer *chain.Signer
		w      chain.Weights
		want   error
	}{
		{"rate limit", vals[0].Signer(), good, chain.ErrRateLimited},
		{"version key too low", vals[1].Signer(), with(func(w *chain.Weights) { w.VersionKey = 4 }), chain.ErrVersionKeyTooLow},
		{"no permit", miners[0].Signer(), good, chain.ErrNoValidatorPermit},
		{"too few weights", vals[1].Signer(), with(func(w *chain.Weights) { w.Values[1] = 0 }), chain.ErrTooFewWeights},
		{"duplicate uids", vals[1].Signer(), with(func(w *chain.Weights) { w.UIDs[1] = w.UIDs[0] }), chain.ErrDuplicateUids},
		{"unknown uid", vals[1].Signer(), with(func(w *chain.Weights) { w.UIDs[1] = 200 }), chain.ErrUnknownUid},
		{"length mismatch", vals[1].Signer(), with(func(w *chain.Weights) { w.Values = w.Values[:1] }), chain.ErrLengthMismatch},
		{"unregistered caller", dn.Admin().Signer(), good, chain.ErrNotRegistered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []struct {
				name    string
				opts    chain.TxOptions
				onChain bool
			}{
				{"preflight", chain.TxOptions{}, false},
				{"chain estimate", chain.TxOptions{SkipPreflight: true}, true},
				{"chain mined", chain.TxOptions{SkipPreflight: true, GasLimit: 5_000_000}, true},
			} {
				_, err := c.SetWeights(ctx, tt.signer, tt.w, mode.opts)
				var rej *chain.RejectedError
				if !errors.Is(err, tt.want) || !errors.As(err, &rej) || rej.OnChain != mode.onChain {
					t.Errorf("%s: err = %v, want %v (on chain %v)", mode.name, err, tt.want, mode.onChain)
				}
			}
		})
	}

	t.Run("commit-reveal enabled refuses plain set", func(t *testing.T) {
		if err := dn.SetHyper(ctx, devnet.Hyper{CommitRevealEnabled: true}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := dn.SetHyper(ctx, devnet.Hyper{CommitRevealEnabled: false}); err != nil {
				t.Fatal(err)
			}
		}()
		for _, opts := range []chain.TxOptions{{}, {SkipPreflight: true}} {
			if _, err := c.SetWeights(ctx, vals[2].Signer(), good, opts); !errors.Is(err, chain.ErrCommitRevealEnabled) {
				t.Errorf("skip preflight %v: %v, want ErrCommitRevealEnabled", opts.SkipPreflight, err)
			}
		}
	})
	t.Run("commit refused while commit-reveal is off", func(t *testing.T) {
		for _, opts := range []chain.TxOptions{{}, {SkipPreflight: true}} {
			if _, err := c.CommitWeights(ctx, vals[2].Signer(), netuid, [32]byte{1}, opts); !errors.Is(err, chain.ErrCommitRevealOff) {
				t.Errorf("skip preflight %v: %v, want ErrCommitRevealOff", opts.SkipPreflight, err)
			}
		}
	})
}

// waitForBlock blocks until the chain head reaches n and returns the head
// as the client sees it.
func waitForBlock(t *testing.T, dn *devnet.Devnet, c *chain.Client, n uint64) uint64 {
	t.Helper()
	waitForDevnetBlock(t, dn, n)
	head, err := c.HeadNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return head
}

// waitForDevnetBlock waits for block n through the devnet's in-process
// head subscription, so it also works while the endpoint is down.
func waitForDevnetBlock(t *testing.T, dn *devnet.Devnet, n uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dn.WaitForBlock(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// waitForEpochStart waits until a new epoch has just begun, so the next
// few blocks are all in one epoch.
func waitForEpochStart(t *testing.T, dn *devnet.Devnet, c *chain.Client, netuid uint16, tempo uint64) uint64 {
	t.Helper()
	head := waitForBlock(t, dn, c, 0)
	for {
		next := head + 1
		if (next+uint64(netuid)+1)%(tempo+1) == 0 {
			waitForBlock(t, dn, c, next)
			return chain.EpochIndex(next, netuid, tempo)
		}
		head = waitForBlock(t, dn, c, next)
	}
}

func TestCommitReveal(t *testing.T) {
	// 80 blocks of 10 ms leave room for a commit and a reveal to land in
	// one epoch even on a loaded CI machine.
	const tempo = 80
	hyper := devnet.Hyper{CommitRevealEnabled: true, CommitRevealInterval: 1, WeightsSetRateLimit: 1, MinAllowedWeights: 1}
	// The legacy numbering, (block + netuid + 1) / (tempo + 1), of a runtime
	// before dynamic tempo; storage_devnet_test.go covers SubnetEpochIndex.
	dn := startDevnet(t, devnet.Options{Validators: 3, Miners: 3, Tempo: tempo, BlockTime: 10 * time.Millisecond, Hyper: &hyper,
		LegacyCommitRevealEpochs: true})
	c := dial(t, dn.URL())
	ctx := context.Background()
	netuid := dn.Netuid()
	vals, miners := dn.ByRole("validator"), dn.ByRole("miner")
	w := chain.Weights{Netuid: netuid, UIDs: []uint16{miners[0].UID, miners[1].UID}, Values: []uint16{65535, 100}}
	salt := []uint16{7, 8, 9, 10}
	commit := func(t *testing.T, v devnet.Account) uint64 {
		t.Helper()
		hash := chain.CommitHash(v.Hotkey, netuid, w.UIDs, w.Values, salt, w.VersionKey)
		res, err := c.CommitWeights(ctx, v.Signer(), netuid, hash, chain.TxOptions{})
		if err != nil {
			t.Fatalf("commit: %v", err)
		}
		return chain.EpochIndex(res.Block, netuid, tempo)
	}

	t.Run("happy path, early and wrong-salt reveals refused", func(t *testing.T) {
		v := vals[0]
		waitForEpochStart(t, dn, c, netuid, tempo)
		ce := commit(t, v)
		_, err := c.RevealWeights(ctx, v.Signer(), w, salt, chain.TxOptions{})
		if !errors.Is(err, chain.ErrRevealTooEarly) {
			t.Fatalf("immediate reveal: %v, want ErrRevealTooEarly", err)
		}
		if got := waitForEpochStart(t, dn, c, netuid, tempo); got != ce+1 {
			t.Fatalf("epoch %d, want %d", got, ce+1)
		}
		_, err = c.RevealWeights(ctx, v.Signer(), w, []uint16{7, 8, 9, 11}, chain.TxOptions{})
		if !errors.Is(err, chain.ErrCommitMismatch) {
			t.Fatalf("wrong salt: %v, want ErrCommitMismatch", err)
		}
		if _, err := c.RevealWeights(ctx, v.Signer(), w, salt, chain.TxOptions{}); err != nil {
			t.Fatalf("reveal: %v", err)
		}
		row, err := dn.Weights(ctx, v.UID)
		if err != nil || len(row) != 2 || row[0].Value != 65535 {
			t.Fatalf("revealed row %+v, %v", row, err)
		}
	})
	t.Run("late reveal refused", func(t *testing.T) {
		v := vals[1]
		waitForEpochStart(t, dn, c, netuid, tempo)
		ce := commit(t, v)
		for chain.EpochIndex(waitForBlock(t, dn, c, 0)+1, netuid, tempo) <= ce+1 {
			waitForEpochStart(t, dn, c, netuid, tempo)
		}
		if _, err := c.RevealWeights(ctx, v.Signer(), w, salt, chain.TxOptions{}); !errors.Is(err, chain.ErrRevealExpired) {
			t.Fatalf("late reveal: %v, want ErrRevealExpired", err)
		}
	})
	t.Run("reveal without commit", func(t *testing.T) {
		if _, err := c.RevealWeights(ctx, vals[2].Signer(), w, salt, chain.TxOptions{}); !errors.Is(err, chain.ErrNoCommit) {
			t.Fatalf("reveal without commit: %v, want ErrNoCommit", err)
		}
	})
}

func TestYumaMovesIncentive(t *testing.T) {
	const tempo = 10
	dn := startDevnet(t, devnet.Options{Validators: 1, Miners: 3, Tempo: tempo, BlockTime: 10 * time.Millisecond})
	c := dial(t, dn.URL())
	ctx := context.Background()
	v, target := dn.ByRole("validator")[0], dn.ByRole("miner")[1]
	res, err := c.SetWeights(ctx, v.Signer(), chain.Weights{Netuid: dn.Netuid(), UIDs: []uint16{target.UID}, Values: []uint16{65535}}, chain.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Two full epochs later the results of at least one Yuma pass that saw
	// the weights are on chain.
	waitForBlock(t, dn, c, res.Block+2*(tempo+1)+1)
	mg, err := c.Metagraph(ctx, dn.Netuid())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range mg.Neurons {
		switch n.UID {
		case target.UID:
			if n.Incentive != 65535 || n.Consensus != 65535 || n.Emission == 0 {
				t.Errorf("target uid %d incentive %d consensus %d emission %d", n.UID, n.Incentive, n.Consensus, n.Emission)
			}
		case v.UID:
			if n.Dividends != 65535 || n.Vtrust == 0 {
				t.Errorf("validator dividends %d vtrust %d", n.Dividends, n.Vtrust)
			}
		default:
			if n.Incentive != 0 {
				t.Errorf("uid %d incentive %d, want 0", n.UID, n.Incentive)
			}
		}
	}
}

// TestHeadsSurviveServerRestarts stops and restarts the devnet's websocket
// server twice under an open head subscription.
func TestHeadsSurviveServerRestarts(t *testing.T) {
	dn := startDevnet(t, devnet.Options{Validators: 1, Miners: 1, BlockTime: 10 * time.Millisecond})
	c := dial(t, dn.URL())
	var mu sync.Mutex
	var gaps []chain.Gap
	f := c.FollowHeads(chain.HeadsOptions{
		ReconnectMin: 10 * time.Millisecond, ReconnectMax: 100 * time.Millisecond,
		OnGap: func(g chain.Gap) { mu.Lock(); gaps = append(gaps, g); mu.Unlock() },
	})
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- f.Run(ctx) }()

	var seen []chain.Head
	next := func() chain.Head {
		t.Helper()
		select {
		case h, ok := <-f.Heads():
			if !ok {
				t.Fatal("heads channel closed")
			}
			seen = append(seen, h)
			return h
		case <-time.After(30 * time.Second):
			t.Fatal("no head for 30s")
		}
		return chain.Head{}
	}
	for range 2 {
		h := next()
		dn.StopServer()
		waitForDevnetBlock(t, dn, h.Number+5)
		if err := dn.StartServer(); err != nil {
			t.Fatal(err)
		}
		// Read until a live head arrives after the backfill.
		for next().Backfilled {
		}
	}
	for range 5 {
		next()
	}
	cancel()
	if err := <-runErr; err != nil {
		t.Fatalf("Run: %v", err)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Number != seen[i-1].Number+1 {
			t.Fatalf("head %d after %d: duplicate, out of order or hole", seen[i].Number, seen[i-1].Number)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(gaps) < 2 {
		t.Fatalf("%d gaps reported, want ≥ 2", len(gaps))
	}
	for _, g := range gaps {
		if g.Missed == 0 || g.To < g.From || g.Downtime <= 0 {
			t.Errorf("bad gap %+v", g)
		}
	}
}

func TestServeAxon(t *testing.T) {
	dn := startDevnet(t, devnet.Options{Validators: 1, Miners: 2, BlockTime: 10 * time.Millisecond})
	c := dial(t, dn.URL())
	ctx := context.Background()
	miner := dn.ByRole("miner")[1]
	tests := []struct {
		name    string
		axon    chain.Axon
		wantErr string
	}{
		{"ipv4", chain.Axon{Version: 7, IP: netip.MustParseAddr("127.0.0.1"), Port: 8091, Protocol: 4}, ""},
		{"ipv6", chain.Axon{Version: 8, IP: netip.MustParseAddr("::1"), Port: 9000, Protocol: 4}, ""},
		{"port zero", chain.Axon{Version: 9, IP: netip.MustParseAddr("127.0.0.1"), Port: 0}, "InvalidPort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.ServeAxon(ctx, miner.Signer(), dn.Netuid(), tt.axon)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mg, err := c.Metagraph(ctx, dn.Netuid())
			if err != nil {
				t.Fatal(err)
			}
			got := mg.Neurons[miner.UID].Axon
			if got.IP != tt.axon.IP || got.Port != tt.axon.Port || got.Version != tt.axon.Version || got.Block != res.Block {
				t.Fatalf("axon %+v, want %+v at block %d", got, tt.axon, res.Block)
			}
		})
	}
}

// TestCallsRedialAfterDrop: a call made after the node went away and came
// back succeeds without the caller re-dialling.
func TestCallsRedialAfterDrop(t *testing.T) {
	dn := startDevnet(t, devnet.Options{Validators: 1, Miners: 1})
	c := dial(t, dn.URL())
	ctx := context.Background()
	if _, err := c.Metagraph(ctx, dn.Netuid()); err != nil {
		t.Fatal(err)
	}
	// The first call after a silent drop hits the dead connection.
	dn.StopServer()
	if err := dn.StartServer(); err != nil {
		t.Fatal(err)
	}
	if mg, err := c.Metagraph(ctx, dn.Netuid()); err != nil || len(mg.Neurons) != 2 {
		t.Fatalf("metagraph after restart: %v", err)
	}
	// A call while the node is away fails, and the next one recovers.
	dn.StopServer()
	if _, err := c.HeadNumber(ctx); err == nil {
		t.Fatal("call succeeded while the endpoint was down")
	}
	if err := dn.StartServer(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.HeadNumber(ctx); err != nil {
		t.Fatalf("head after restart: %v", err)
	}
}
