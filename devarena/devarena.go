package devarena

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"arena/chain"
	"arena/chain/devnet"
	"arena/config"
	"arena/episode"
	"arena/miner"
	"arena/validator"
)

// Options configure Start.
type Options struct {
	// Config is the base configuration; Start points it at the devnet and
	// applies FastTimings unless KeepTimings is set.
	Config config.Config
	// KeepTimings keeps Config's validator, episode and catalog settings.
	KeepTimings bool
	// Miners is the number of reference miners, with skills spread from 1
	// down to 0.2 (default 8).
	Miners int
	// BlockTime is the devnet's block interval (default 250ms).
	BlockTime time.Duration
	// Tempo is the devnet's epoch length in blocks (default 20).
	Tempo uint64
	// CommitReveal turns the subnet's commit-reveal on (interval 1 epoch).
	CommitReveal bool
	// RateLimit is the subnet's weights rate limit in blocks (default 5).
	RateLimit uint64
	// Registry receives all metrics; nil makes a fresh one.
	Registry *prometheus.Registry
	// ChainOnly starts the devnet and the miners but no validator (tests
	// that run the validator as a separate process).
	ChainOnly bool
	// WrapAgent, if set, wraps each miner's agent (tests slow them down).
	WrapAgent func(episode.Agent) episode.Agent
	// Skills, if set, gives each miner's skill (len must equal Miners);
	// by default skills spread from 1 down to 0.2.
	Skills []float64
	// DrawSeed, if set, makes race draws deterministic (tests comparing runs).
	DrawSeed func(window uint64) uint64
	// WrapListener, if set, wraps each miner's listener (tests record
	// every byte the validator sends to miners).
	WrapListener func(uid uint16, ln net.Listener) net.Listener
	OnEvent      func(validator.Event)
	Progress     func(stage string, done, total int)
}

// FastTimings returns cfg with the schedule, suite and limits shrunk so a
// qualifying → race → weights cycle takes seconds on a devnet.
func FastTimings(cfg config.Config) config.Config {
	cfg.Validator.SyncEveryBlocks = 4
	cfg.Validator.RaceEveryBlocks = 40
	cfg.Validator.WeightsEveryBlocks = 10
	cfg.Validator.QualifyingProblems = 6
	cfg.Validator.RaceProblems = 8
	cfg.Validator.QualifyingConcurrency = 4
	cfg.Validator.PublicProblems = 40
	cfg.Validator.HiddenMinClusters = 24
	cfg.Catalog.File, cfg.Catalog.Products = "", 20_000
	cfg.Episode.StepTimeout = config.Duration{Duration: 10 * time.Second}
	cfg.Episode.EpisodeTimeout = config.Duration{Duration: 60 * time.Second}
	cfg.Race.DecayBlocks = 400
	return cfg
}

// MinerInfo describes one reference miner.
type MinerInfo struct {
	UID      uint16
	Skill    float64
	Address  string
	Endpoint string
}

// Arena is a running development arena: a devnet with a subnet, reference
// miners serving on loopback, and a validator.
type Arena struct {
	Devnet       *devnet.Devnet
	Stack        *validator.Stack
	Miners       []MinerInfo
	ValidatorUID uint16
	Config       config.Config

	servers []*episode.Server
	lns     []net.Listener
	log     zerolog.Logger
}

// Start builds the devnet, registers and serves the miners, and opens the
// validator stack. Call Run, then Close.
func Start(ctx context.Context, opts Options, log zerolog.Logger) (_ *Arena, err error) {
	if opts.Miners == 0 {
		opts.Miners = 8
	}
	if opts.Miners < 1 || opts.Miners > 200 {
		return nil, fmt.Errorf("miners %d: must be between 1 and 200", opts.Miners)
	}
	if opts.BlockTime == 0 {
		opts.BlockTime = 250 * time.Millisecond
	}
	if opts.Tempo == 0 {
		opts.Tempo = 20
	}
	if opts.RateLimit == 0 {
		opts.RateLimit = 5
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	cfg := opts.Config
	if !opts.KeepTimings {
		cfg = FastTimings(cfg)
	}
	a := &Arena{log: log}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	hyper := &devnet.Hyper{WeightsSetRateLimit: opts.RateLimit, MinAllowedWeights: 1, CommitRevealEnabled: opts.CommitReveal, CommitRevealInterval: 1}
	a.Devnet, err = devnet.New(devnet.Options{Listen: "127.0.0.1:0", BlockTime: opts.BlockTime, Netuid: cfg.Chain.Netuid, Tempo: opts.Tempo,
		Validators: 1, Miners: opts.Miners, Seed: 7, Hyper: hyper}, log, opts.Registry)
	if err != nil {
		return nil, fmt.Errorf("devnet: %w", err)
	}
	if err := a.Devnet.Start(); err != nil {
		return nil, fmt.Errorf("devnet: %w", err)
	}
	cfg.Chain.URL, cfg.Chain.ChainID, cfg.Chain.Netuid, cfg.Chain.Tempo = a.Devnet.URL(), devnet.ChainID, a.Devnet.Netuid(), a.Devnet.Tempo()
	cfg.Validator.AllowPrivateAxons = true
	a.Config = cfg

	// The devnet makes blocks by itself only inside Run; the miners' axon
	// transactions need blocks now, so blocks are committed by hand until
	// they are mined.
	boot, stopBoot := context.WithCancel(ctx)
	bootDone := make(chan struct{})
	go func() {
		defer close(bootDone)
		t := time.NewTicker(opts.BlockTime)
		defer t.Stop()
		for {
			select {
			case <-boot.Done():
				return
			case <-t.C:
				a.Devnet.Commit()
			}
		}
	}()
	err = a.startMiners(ctx, opts)
	stopBoot()
	<-bootDone
	if err != nil {
		return nil, err
	}

	val := a.Devnet.ByRole("validator")[0]
	a.ValidatorUID = val.UID
	if opts.ChainOnly {
		return a, nil
	}
	a.Stack, err = validator.OpenStack(ctx, validator.StackOptions{Config: cfg, Signer: val.Signer(), Registry: opts.Registry,
		OnEvent: opts.OnEvent, Progress: opts.Progress, DrawSeed: opts.DrawSeed}, log)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// startMiners serves a heuristic agent per miner account on a loopback port
// and announces it on chain with serveAxon, as `arena miner serve-axon` does.
func (a *Arena) startMiners(ctx context.Context, opts Options) error {
	n := opts.Miners
	client, err := chain.Dial(ctx, chain.Options{URL: a.Devnet.URL(), ExpectedChainID: devnet.ChainID}, a.log)
	if err != nil {
		return err
	}
	defer client.Close()
	for i, acct := range a.Devnet.ByRole("miner") {
		skill := 1.0
		switch {
		case len(opts.Skills) > 0:
			if len(opts.Skills) != n {
				return fmt.Errorf("%d skills for %d miners", len(opts.Skills), n)
			}
			skill = opts.Skills[i]
		case n > 1:
			skill = 1 - 0.8*float64(i)/float64(n-1)
		}
		agent, err := miner.NewAgent(miner.AgentOptions{Kind: miner.AgentHeuristic, Skill: skill}, a.log)
		if err != nil {
			return err
		}
		if opts.WrapAgent != nil {
			agent = opts.WrapAgent(agent)
		}
		srv, err := episode.NewServer(episode.ServerOptions{Signer: acct.Signer(), Agent: agent}, a.log.With().Uint16("miner_uid", acct.UID).Logger(), nil)
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		if opts.WrapListener != nil {
			ln = opts.WrapListener(acct.UID, ln)
		}
		a.servers, a.lns = append(a.servers, srv), append(a.lns, ln)
		ap := netip.MustParseAddrPort(ln.Addr().String())
		if _, err := client.ServeAxon(ctx, acct.Signer(), a.Devnet.Netuid(), chain.Axon{IP: ap.Addr(), Port: ap.Port(), Version: episode.Version}); err != nil {
			return fmt.Errorf("miner uid %d: serve axon: %w", acct.UID, err)
		}
		a.Miners = append(a.Miners, MinerInfo{UID: acct.UID, Skill: skill, Address: acct.Address.Hex(), Endpoint: ln.Addr().String()})
	}
	return nil
}

// Run runs the devnet's blocks, the miners and the validator until ctx
// ends or one of them fails.
func (a *Arena) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	// The chain keeps making blocks until the validator has stopped: a
	// weights transaction in flight at Ctrl-C is allowed to settle, and it
	// would wait in vain on a chain that stopped first.
	chainCtx, stopChain := context.WithCancel(context.WithoutCancel(ctx))
	defer stopChain()
	validatorDone := make(chan struct{})
	g.Go(func() error { return a.Devnet.Run(chainCtx) })
	g.Go(func() error {
		<-gctx.Done()
		<-validatorDone
		stopChain()
		return nil
	})
	for i, srv := range a.servers {
		g.Go(func() error { return srv.Serve(gctx, a.lns[i]) })
	}
	if a.Stack != nil {
		g.Go(func() error {
			defer close(validatorDone)
			return a.Stack.Run(gctx)
		})
	} else {
		close(validatorDone)
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// Close stops everything Start opened.
func (a *Arena) Close() {
	if a.Stack != nil {
		a.Stack.Close()
	}
	for _, ln := range a.lns {
		_ = ln.Close()
	}
	if a.Devnet != nil {
		_ = a.Devnet.Close()
	}
}
