package validator

import (
	"context"
	"io"
	"math/big"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/config"
	"arena/episode"
	"arena/miner"
	"arena/scoring/judge"
	"arena/shop"
	"arena/shop/gen"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// testSuite is the catalog, its tools and the problems every harness
// loads into its own ledger; building them is the slow part, so it is done
// once per test binary.
type testSuite struct {
	index          *shop.Index
	tools          *shop.Tools
	public, hidden []suite.Problem
}

var (
	suiteOnce   sync.Once
	sharedSuite testSuite
	suiteErr    error
)

func loadTestSuite(t *testing.T) testSuite {
	t.Helper()
	suiteOnce.Do(func() { sharedSuite, suiteErr = buildTestSuite() })
	if suiteErr != nil {
		t.Fatal(suiteErr)
	}
	return sharedSuite
}

func buildTestSuite() (testSuite, error) {
	ctx := context.Background()
	g, err := gen.New(gen.Options{Products: 3000, Seed: 21}, zerolog.Nop())
	if err != nil {
		return testSuite{}, err
	}
	ps, err := g.Products(ctx)
	if err != nil {
		return testSuite{}, err
	}
	cat, err := shop.NewCatalog(ps)
	if err != nil {
		return testSuite{}, err
	}
	idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{Workers: 2}, zerolog.Nop())
	if err != nil {
		return testSuite{}, err
	}
	s := testSuite{index: idx}
	if s.tools, err = shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil); err != nil {
		return testSuite{}, err
	}
	// Public and hidden problems from two streams, as prepareSuite draws them.
	for _, part := range []struct {
		seed uint64
		dst  *[]suite.Problem
	}{{1, &s.public}, {1 ^ 0x9e3779b97f4a7c15, &s.hidden}} {
		sg, err := suite.NewGenerator(suite.GeneratorOptions{Index: idx, Seed: part.seed}, zerolog.Nop())
		if err != nil {
			return testSuite{}, err
		}
		if *part.dst, _, err = sg.Generate(ctx, suite.Request{Count: 24}); err != nil {
			return testSuite{}, err
		}
	}
	return s, nil
}

// harnessOptions shape one validator under test.
// externalMiner is a miner the test started itself.
type externalMiner struct {
	hotkey   chain.AccountID
	endpoint string // HOST:PORT on loopback
}

type harnessOptions struct {
	// miners are honest reference miners on loopback (uids 1..), then
	// unreachable axons that close every connection.
	miners, unreachable int
	hyper               chain.Hyperparams
	// registered puts the validator itself in the metagraph (uid 0).
	registered bool
	// external are miners served outside the harness (another process),
	// registered after the others with the hotkey their key mirrors to.
	external []externalMiner
	// wrapAgent, if set, wraps each honest miner's agent.
	wrapAgent func(uid uint16, a episode.Agent) episode.Agent
	// headBuffer is the capacity of the head channel Run reads (feed).
	headBuffer int
	// edit adjusts the validator's options.
	edit func(*Options)
	// storeFaults is passed to the store (write-fault tests).
	storeFaults store.WriteFaults
	// logs, if set, also receives the validator's log lines (all levels).
	logs io.Writer
	// shop, if set, replaces the shared test suite: the validator serves
	// it, restocking on its schedule, and prepareSuite makes the public
	// set and the hidden pool from it with suite's sizes (which also set
	// the qualifying and race sizes).
	shop  *Shop
	suite config.ValidatorConfig
}

// harness is a validator on a fake chain with a real store, ledger,
// tools, judge and loopback miners. Tests drive the scheduler one head at
// a time (head) and wait for the work it started (settle).
type harness struct {
	t      *testing.T
	v      *Validator
	chain  *fakeChain
	heads  *fakeHeads
	store  *store.Store
	ledger *suite.Ledger
	reg    *prometheus.Registry
	signer *chain.Signer
	ctx    context.Context

	mu     sync.Mutex
	events []Event

	// minerKeys are the honest miners' signers, by uid.
	minerKeys map[uint16]*chain.Signer
}

func newHarness(t *testing.T, ho harnessOptions) *harness {
	t.Helper()
	ts := loadTestSuite(t)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(store.Options{Dir: t.TempDir(), WriteFaults: ho.storeFaults}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, chain: newFakeChain(15, 20, ho.hyper), heads: &fakeHeads{ch: make(chan chain.Head, ho.headBuffer)},
		store: st, reg: prometheus.NewRegistry(),
		signer: newTestSigner(t), ctx: ctx, minerKeys: map[uint16]*chain.Signer{}}
	// Cleanups run last in, first out: the miners registered later stop
	// before this one stops the validator's work and closes the store.
	t.Cleanup(func() {
		cancel()
		if h.v != nil {
			h.v.work.Wait()
		}
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	if h.ledger, err = suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil); err != nil {
		t.Fatal(err)
	}
	var refill RefillSource
	if ho.shop != nil {
		if refill, err = prepareSuite(ctx, h.ledger, generatorInputs{stock: ho.shop.Current(), mix: suite.DefaultMix()}, 1, ho.suite,
			zerolog.Nop(), func(string, int, int) {}); err != nil {
			t.Fatal(err)
		}
	} else {
		for part, ps := range map[suite.Partition][]suite.Problem{suite.Public: ts.public, suite.Hidden: ts.hidden} {
			if _, err := h.ledger.Add(ctx, ps, part); err != nil {
				t.Fatal(err)
			}
		}
	}

	var neurons []chain.Neuron
	if ho.registered {
		neurons = append(neurons, chain.Neuron{UID: 0, Hotkey: h.signer.Hotkey(), ValidatorPermit: true, Stake: 1e12})
	} else {
		// The uid is someone else's: the validator runs miners but sets
		// no weights.
		neurons = append(neurons, chain.Neuron{UID: 0, Hotkey: newTestSigner(t).Hotkey()})
	}
	for i := range ho.miners + ho.unreachable {
		uid := uint16(i + 1)
		signer := newTestSigner(t)
		var axon chain.Axon
		if i < ho.miners {
			h.minerKeys[uid] = signer
			var wrap func(episode.Agent) episode.Agent
			if ho.wrapAgent != nil {
				wrap = func(a episode.Agent) episode.Agent { return ho.wrapAgent(uid, a) }
			}
			axon = h.serveMiner(signer, wrap)
		} else {
			axon = h.serveRefusing()
		}
		neurons = append(neurons, chain.Neuron{UID: uid, Hotkey: signer.Hotkey(), Axon: axon})
	}
	for _, x := range ho.external {
		neurons = append(neurons, chain.Neuron{UID: uint16(len(neurons)), Hotkey: x.hotkey, Axon: loopbackAxon(t, x.endpoint)})
	}
	h.chain.setNeurons(neurons)

	def := config.Default()
	opts := Options{
		Chain: h.chain, FollowHeads: func(chain.HeadsOptions) HeadSource { return h.heads },
		Signer: h.signer, Store: st, Ledger: h.ledger, Tools: ts.tools, Judge: judge.NewGrounding(judge.GroundingOptions{}, zerolog.Nop()),
		Netuid: h.chain.netuid, Tempo: h.chain.tempo,
		SyncEveryBlocks: 2, RaceEveryBlocks: 1000, WeightsEveryBlocks: 1000,
		QualifyingProblems: 2, RaceProblems: 3, QualifyingConcurrency: 4, QualifyingSeed: 1,
		Race: RaceParams(def.Race), Weights: WeightsPolicy(def.Weights),
		Limits:            episode.Limits{StepTimeout: 10 * time.Second, EpisodeTimeout: 30 * time.Second},
		AllowPrivateAxons: true,
		DrawSeed:          func(w uint64) uint64 { return w },
		OnEvent: func(e Event) {
			h.mu.Lock()
			h.events = append(h.events, e)
			h.mu.Unlock()
		},
	}
	if ho.shop != nil {
		opts.Shop, opts.Tools, opts.Refill = ho.shop, nil, refill
		opts.QualifyingProblems, opts.RaceProblems, opts.HiddenMinClusters = ho.suite.QualifyingProblems, ho.suite.RaceProblems, ho.suite.HiddenMinClusters
	}
	if ho.edit != nil {
		ho.edit(&opts)
	}
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.ErrorLevel)
	if ho.logs != nil {
		log = zerolog.New(zerolog.MultiLevelWriter(ho.logs, zerolog.NewTestWriter(t)))
	}
	if h.v, err = New(opts, log, h.reg); err != nil {
		t.Fatal(err)
	}
	return h
}

func newTestSigner(t *testing.T) *chain.Signer {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return chain.NewSigner(key)
}

func loopbackAxon(t *testing.T, addr string) chain.Axon {
	t.Helper()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return chain.Axon{IP: ap.Addr(), Port: ap.Port(), Version: episode.Version, Block: 1}
}

// serveMiner serves an honest reference miner (skill 1, its agent wrapped
// by wrap if set) for signer on a new loopback port until the test ends,
// and returns its axon.
func (h *harness) serveMiner(signer *chain.Signer, wrap func(episode.Agent) episode.Agent) chain.Axon {
	h.t.Helper()
	agent, err := miner.NewAgent(miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: 1}, zerolog.Nop())
	if err != nil {
		h.t.Fatal(err)
	}
	if wrap != nil {
		agent = wrap(agent)
	}
	srv, err := episode.NewServer(episode.ServerOptions{Signer: signer, Agent: agent}, zerolog.Nop(), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.serve(func(ctx context.Context, ln net.Listener) { _ = srv.Serve(ctx, ln) })
}

// serveRefusing serves an axon that accepts and closes every connection:
// one the validator can dial but never talk to.
func (h *harness) serveRefusing() chain.Axon {
	h.t.Helper()
	return h.serve(func(ctx context.Context, ln net.Listener) {
		stop := context.AfterFunc(ctx, func() { ln.Close() })
		defer stop()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	})
}

// serve runs fn on a new loopback listener until the test ends.
func (h *harness) serve(fn func(context.Context, net.Listener)) chain.Axon {
	h.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(ctx, ln)
	}()
	h.t.Cleanup(func() {
		cancel()
		<-done
	})
	return loopbackAxon(h.t, ln.Addr().String())
}

// head feeds block n to the scheduler, as the head loop of Run does, and
// returns once the scheduler has acted on it (the work it started may
// still run; see settle).
func (h *harness) head(n uint64) {
	h.t.Helper()
	h.chain.setHead(n)
	h.v.onHead(h.ctx, chain.Head{Number: n, Hash: common.BigToHash(new(big.Int).SetUint64(n))})
}

// feed sends block n to a running validator (Run).
func (h *harness) feed(n uint64) {
	h.t.Helper()
	h.chain.setHead(n)
	select {
	case h.heads.ch <- chain.Head{Number: n, Hash: common.BigToHash(new(big.Int).SetUint64(n))}:
	case <-time.After(time.Minute):
		h.t.Fatalf("head %d: the validator took no head for a minute", n)
	}
}

// settle waits for every qualifying run, race and weights step the fed
// heads started.
func (h *harness) settle() { h.v.work.Wait() }

// run feeds heads from..to, settling after each.
func (h *harness) run(from, to uint64) {
	h.t.Helper()
	for n := from; n <= to; n++ {
		h.head(n)
		h.settle()
	}
}

// metric is the value of the gauge or counter name (summed over its
// series), as /metrics would report it.
func (h *harness) metric(name string) float64 {
	h.t.Helper()
	mfs, err := h.reg.Gather()
	if err != nil {
		h.t.Fatal(err)
	}
	total, found := 0.0, false
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			found = true
			total += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	if !found {
		h.t.Fatalf("metric %s not gathered", name)
	}
	return total
}

// eventsOf returns the events of the given kinds, in order.
func (h *harness) eventsOf(kinds ...EventKind) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		for _, k := range kinds {
			if e.Kind == k {
				out = append(out, e)
			}
		}
	}
	return out
}

// miner reads one miner record.
func (h *harness) miner(uid uint16) records.Miner {
	h.t.Helper()
	var m records.Miner
	if err := h.store.View(func(txn *badger.Txn) (err error) { m, _, err = h.v.rec.GetMiner(txn, uid); return err }); err != nil {
		h.t.Fatal(err)
	}
	return m
}

// submissions reads the weights submissions, by window.
func (h *harness) submissions() []records.Submission {
	h.t.Helper()
	var subs []records.Submission
	if err := h.store.View(func(txn *badger.Txn) (err error) { subs, err = h.v.rec.ListSubmissions(txn); return err }); err != nil {
		h.t.Fatal(err)
	}
	return subs
}

// qualifyingEpisodes counts the qualifying episodes stored for uid.
func (h *harness) qualifyingEpisodes(uid uint16) int {
	h.t.Helper()
	n := 0
	err := h.store.View(func(txn *badger.Txn) error {
		ids, err := h.v.rec.MinerEpisodes(txn, uid)
		if err != nil {
			return err
		}
		for _, id := range ids {
			e, _, err := h.v.rec.GetEpisode(txn, id)
			if err != nil {
				return err
			}
			if e.Kind == records.Qualifying {
				n++
			}
		}
		return nil
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}
