package devarena

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
	"arena/internal/testseed"
	"arena/validator"
	"arena/validator/records"
)

// lockedBuffer is a log sink safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	v, err := metricSum(reg, name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// metricSum adds up every series of the counter or gauge name.
func metricSum(reg *prometheus.Registry, name string) (float64, error) {
	mfs, err := reg.Gather()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return total, nil
}

// TestChaosChainDrops stops and restarts the devnet's websocket server 10
// times at random points during a multi-race run (seeded: replay with
// ARENATEST_SEED). Each drop is seen to cut the validator's head
// subscription and the validator to resubscribe before the next one.
// Every race that starts completes, weights keep landing once the chain is
// back, no weights transaction is sent twice for a window, and the head
// gaps show in the logs and the metrics.
func TestChaosChainDrops(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run")
	}
	logs := &lockedBuffer{}
	log := zerolog.New(logs).Level(zerolog.InfoLevel)
	reg := prometheus.NewRegistry()
	events := make(chan validator.Event, 4096)
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Metrics.Listen, cfg.API.Listen = "127.0.0.1:0", "127.0.0.1:0"
	cfg.Chain.ReconnectMin = config.Duration{Duration: 50 * time.Millisecond}
	cfg.Chain.ReconnectMax = config.Duration{Duration: 500 * time.Millisecond}
	// Every miner qualifies, so every window has a challenger and races
	// keep coming (the skill-0.6 miner can score under the 0.2 floor on
	// 6 qualifying problems).
	cfg.Race.Floor, cfg.Race.RatioStart, cfg.Race.RatioFloor = 0, 0, 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := Start(ctx, Options{Config: cfg, Miners: 3, BlockTime: 100 * time.Millisecond, Registry: reg,
		OnEvent: func(e validator.Event) {
			select {
			case events <- e:
			default:
			}
		}}, log)
	if err != nil {
		t.Fatal(err)
	}
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(ctx) }()
	defer a.Close()

	// The drops: 10 outages of 0.3–1.5 s at random points, each 0.5–3 s
	// after the validator resubscribed following the previous one (two
	// outages closer than its reconnect back-off would count as one).
	r := rand.New(rand.NewPCG(testSeed(t), 9))
	const drops = 10
	dropsDone := make(chan struct{})
	var dropErr error
	go func() {
		defer close(dropsDone)
		// A resubscribe counts only once a subscription has delivered heads.
		select {
		case <-a.Stack.Validator.ReadyC():
		case <-ctx.Done():
			return
		}
		for i := range drops {
			select {
			case <-time.After(time.Duration(500+r.IntN(2500)) * time.Millisecond):
			case <-ctx.Done():
				return
			}
			before, err := metricSum(reg, "arena_chain_resubscribes_total")
			if err != nil {
				dropErr = err
				return
			}
			a.Devnet.StopServer()
			select {
			case <-time.After(time.Duration(300+r.IntN(1200)) * time.Millisecond):
			case <-ctx.Done():
			}
			if err := a.Devnet.StartServer(); err != nil {
				dropErr = fmt.Errorf("restart the devnet server: %w", err)
				return
			}
			if err := waitResubscribed(ctx, reg, before); err != nil {
				dropErr = fmt.Errorf("drop %d: %w", i+1, err)
				return
			}
		}
	}()

	started, finished := map[uint64]bool{}, map[uint64]bool{}
	var weightsAfterDrops int
	dropping := dropsDone
	deadline := time.After(4 * time.Minute)
	for dropping != nil || weightsAfterDrops < 2 || len(finished) < 3 || len(finished) < len(started) {
		select {
		case e := <-events:
			switch e.Kind {
			case validator.EventRaceStart:
				started[e.RaceID] = true
			case validator.EventRaceDone:
				finished[e.RaceID] = true
			case validator.EventWeightsSet:
				if dropping == nil {
					weightsAfterDrops++
				}
			}
		case <-dropping:
			dropping = nil
			if dropErr != nil {
				t.Fatal(dropErr)
			}
			t.Logf("%d drops done; %d races started, %d finished", drops, len(started), len(finished))
		case <-deadline:
			t.Fatalf("after 4 minutes: %d races started, %d finished, %d weights after the drops; logs:\n%s",
				len(started), len(finished), weightsAfterDrops, tail(logs.String(), 40))
		}
	}
	cancel()
	if err := <-runDone; err != nil {
		t.Fatalf("arena run: %v", err)
	}

	// Every race that started was decided; no race was aborted.
	rec := a.Stack.Validator.Records()
	var subs []records.Submission
	err = a.Stack.Store.View(func(txn *badger.Txn) error {
		races, err := rec.ListRaces(txn, 0)
		if err != nil {
			return err
		}
		for _, rc := range races {
			if rc.Phase != records.PhaseDone {
				t.Errorf("race %d ended %s", rc.ID, rc.Phase)
			}
		}
		subs, err = rec.ListSubmissions(txn)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// Outages delay submissions but lose none: each one landed.
	setOK := 0
	for _, s := range subs {
		if s.Status == records.StatusSet {
			setOK++
		} else {
			t.Errorf("weights window %d ended %s: %s", s.Window, s.Status, s.Error)
		}
	}

	// Each set submission is one WeightsSet event on chain from our uid:
	// nothing was sent twice. (Run's end took the endpoint down.)
	if err := a.Devnet.StartServer(); err != nil {
		t.Fatal(err)
	}
	onChain, err := a.Devnet.WeightEvents(context.Background(), a.ValidatorUID)
	if err != nil {
		t.Fatal(err)
	}
	ours := onChain.Set
	if ours != setOK {
		t.Errorf("%d WeightsSet events on chain from uid %d, but %d submissions recorded as set: %+v", ours, a.ValidatorUID, setOK, subs)
	}
	t.Logf("%d races, %d weights sets (%d after the drops), %d submissions", len(finished), setOK, weightsAfterDrops, len(subs))

	// The gaps are visible to the operator.
	if gaps := counterValue(t, reg, "arena_chain_head_gap_blocks_total"); gaps == 0 {
		t.Errorf("arena_chain_head_gap_blocks_total is 0 after %d drops", drops)
	}
	if n := counterValue(t, reg, "arena_chain_resubscribes_total"); n < drops {
		t.Errorf("arena_chain_resubscribes_total = %v after %d drops, want at least one per drop", n, drops)
	}
	if !strings.Contains(logs.String(), "head gap") {
		t.Error("no head gap in the logs")
	}
}

// waitResubscribed waits until the validator's head subscription has been
// re-established since it was before.
func waitResubscribed(ctx context.Context, reg *prometheus.Registry, before float64) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := metricSum(reg, "arena_chain_resubscribes_total")
		switch {
		case err != nil:
			return err
		case n > before:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("the validator did not resubscribe within 30 s of the server coming back (%v resubscribes in all)", n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// testSeed is the seed of a random test (testseed.Seed: ARENATEST_SEED
// replays one).
func testSeed(t *testing.T) uint64 {
	t.Helper()
	return testseed.Seed(t)
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
