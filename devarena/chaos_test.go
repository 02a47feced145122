package devarena

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
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
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
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
	return total
}

// TestChaosChainDrops stops and restarts the devnet's websocket server 10
// times at random points during a multi-race run. Every race that starts
// completes, weights keep landing once the chain is back, no weights
// transaction is sent twice for a window, and the head gaps show in the
// logs and the metrics.
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
	cfg.Metrics.Listen = "127.0.0.1:0"
	cfg.Chain.ReconnectMin = config.Duration{Duration: 50 * time.Millisecond}
	cfg.Chain.ReconnectMax = config.Duration{Duration: 500 * time.Millisecond}
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

	// The drops: 10 outages of 0.3–1.5 s at random points, 0.5–3 s apart.
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
	dropsDone := make(chan struct{})
	go func() {
		defer close(dropsDone)
		for i := 0; i < 10; i++ {
			select {
			case <-time.After(time.Duration(500+r.IntN(2500)) * time.Millisecond):
			case <-ctx.Done():
				return
			}
			a.Devnet.StopServer()
			select {
			case <-time.After(time.Duration(300+r.IntN(1200)) * time.Millisecond):
			case <-ctx.Done():
			}
			if err := a.Devnet.StartServer(); err != nil {
				t.Errorf("restart the devnet server: %v", err)
				return
			}
		}
	}()

	started, finished := map[uint64]bool{}, map[uint64]bool{}
	var weightsAfterDrops int
	drops := dropsDone
	deadline := time.After(4 * time.Minute)
	for drops != nil || weightsAfterDrops < 2 || len(finished) < 3 || len(finished) < len(started) {
		select {
		case e := <-events:
			switch e.Kind {
			case validator.EventRaceStart:
				started[e.RaceID] = true
			case validator.EventRaceDone:
				finished[e.RaceID] = true
			case validator.EventWeightsSet:
				if drops == nil {
					weightsAfterDrops++
				}
			}
		case <-drops:
			drops = nil
			t.Logf("10 drops done; %d races started, %d finished", len(started), len(finished))
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
		t.Error("arena_chain_head_gap_blocks_total is 0 after 10 drops")
	}
	if n := counterValue(t, reg, "arena_chain_resubscribes_total"); n < 5 {
		t.Errorf("arena_chain_resubscribes_total = %v after 10 drops", n)
	}
	if !strings.Contains(logs.String(), "head gap") {
		t.Error("no head gap in the logs")
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
