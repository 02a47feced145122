package devarena

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"arena/chain"
	"arena/chain/devnet"
	"arena/config"
	"arena/episode"
	"arena/miner"
	"arena/scoring/judge"
	"arena/validator"
	"arena/web"
)

// Options configure Start.
type Options struct {
	// Config is the base configuration; Start points it at the devnet and
	// applies FastTimings unless KeepTimings is set.
	Config config.Config
	// Home, if set, is `arena dev`'s directory (its --data): Start keeps
	// the validator's data in DataDir(Home), replacing Config.DataDir, and
	// owns nothing else there (see Start).
	Home string
	// KeepTimings keeps Config's validator, episode and catalog settings.
	KeepTimings bool
	// Miners is the number of reference miners, with skills spread
	// evenly from 1 down to 0.2 (default 8).
	Miners int
	// Validators is the number of independent validators (default 1), each
	// with its own key, store, metrics listener and hidden draws. The first
	// is narrated (OnEvent, Registry); the others run quietly beside it.
	Validators int
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
	// DevnetListen is the devnet's address (default 127.0.0.1:0); tests
	// that restart a devnet under one URL set it.
	DevnetListen string
	// ChainOnly starts the devnet and the miners but no validator (tests
	// that run the validator as a separate process).
	ChainOnly bool
	// WrapAgent, if set, wraps each miner's agent (tests slow them down).
	WrapAgent func(episode.Agent) episode.Agent
	// Skills, if set, gives each miner's skill (len must equal Miners);
	// by default skills spread evenly from 1 down to 0.2.
	Skills []float64
	// BestArrivesAfter, if > 0, keeps the first miner (the best, skill 1
	// by default) off the subnet's axons for that many race windows: it
	// announces its axon at block BestArrivesAfter × race_every_blocks,
	// so the others race without it first and it must take the crown
	// from whoever leads by then.
	BestArrivesAfter int
	// Reregistered lists miners (indices into the miners, 0 the first)
	// whose uid is registered again after setup, in this order, so that on
	// chain they are the latest registered whatever their uid (tests of
	// the race's registration order).
	Reregistered []int
	// DrawSeed, if set, makes race draws deterministic (tests comparing runs).
	DrawSeed func(window uint64) uint64
	// WrapListener, if set, wraps each miner's listener (tests record
	// every byte the validator sends to miners).
	WrapListener func(uid uint16, ln net.Listener) net.Listener
	OnEvent      func(validator.Event)
	Progress     func(stage string, done, total int)
}

// DemoSkills are the skills of the demo's n reference miners: from 1 down
// to 0.2, spread quadratically so that the best are far apart (1.0, 0.79,
// 0.61, 0.46, ... for 8). Evenly spread, the top two of 8 are 0.11 apart,
// a few points of success, which the race's evidence rule rightly takes
// days, not a demo's few races, to tell apart.
func DemoSkills(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		left := 1.0
		if n > 1 {
			left = 1 - float64(i)/float64(n-1)
		}
		out[i] = 0.2 + 0.8*left*left
	}
	return out
}

// DemoTimings are FastTimings with races of 50 hidden problems, as on
// finney: with DemoSkills, `arena dev --races 3` crowns the best miner
// within its three races (docs/benchmarks.md).
func DemoTimings(cfg config.Config) config.Config {
	cfg = FastTimings(cfg)
	cfg.Validator.RaceProblems = 50
	cfg.Validator.HiddenMinClusters = 100
	return cfg
}

// DevStore gives a configuration whose free-space limits are still the
// production defaults the dev arena's smaller ones: 256 MiB soft, 64 MiB
// hard, a 32 MiB reserve and no percentages, so that a demo runs on a
// laptop's nearly full disk. Limits set explicitly are kept.
func DevStore(cfg config.Config) config.Config {
	def, sc := config.Default().Store, &cfg.Store
	if sc.MinFreeSoft == def.MinFreeSoft && sc.MinFreeSoftPercent == def.MinFreeSoftPercent &&
		sc.MinFreeHard == def.MinFreeHard && sc.MinFreeHardPercent == def.MinFreeHardPercent && sc.Reserve == def.Reserve {
		sc.MinFreeSoft, sc.MinFreeSoftPercent, sc.MinFreeHard, sc.MinFreeHardPercent, sc.Reserve = 256<<20, 0, 64<<20, 0, 32<<20
	}
	return cfg
}

// FastTimings returns cfg with the schedule, suite and limits shrunk so a
// qualifying → race → weights cycle takes seconds on a devnet.
func FastTimings(cfg config.Config) config.Config {
	cfg.Validator.SyncEveryBlocks = 4
	cfg.Validator.RaceEveryBlocks = 40
	cfg.Validator.WeightsEveryBlocks = 10
	cfg.Validator.QualifyingProblems = 6
	// Races are decided on accumulated evidence at the default confidence
	// (docs/scoring.md); 30 problems a race lets clearly different miners
	// be told apart within a few devnet races, and the window keeps the
	// same 140 races as finney's 7 days.
	cfg.Validator.RaceProblems = 30
	cfg.Validator.QualifyingConcurrency = 4
	cfg.Validator.PublicProblems = 40
	cfg.Validator.HiddenMinClusters = 60
	cfg.Race.WindowBlocks = 140 * cfg.Validator.RaceEveryBlocks
	cfg.Catalog.File, cfg.Catalog.Products = "", 20_000
	// A race a window spends up to 50 problems (DemoTimings) at about 1.8
	// targets each: 4,500 products per 2,000 blocks, which 6,000 restocked
	// products cover with room (docs/benchmarks.md, "Hidden pool capacity").
	cfg.Catalog.RestockEveryBlocks, cfg.Catalog.RestockProducts, cfg.Catalog.RestockFromBlock = 2000, 6000, 0
	cfg.Episode.StepTimeout = config.Duration{Duration: 10 * time.Second}
	cfg.Episode.EpisodeTimeout = config.Duration{Duration: 60 * time.Second}
	cfg.Race.DecayBlocks = 400
	return cfg
}

// MinerInfo describes one reference miner.
type MinerInfo struct {
	UID   uint16
	Skill float64
	// RegisteredAt is the block the miner's hotkey registered at.
	RegisteredAt uint64
	Address      string
	Endpoint     string
	// ArrivesAt is the block from which the miner's axon is on chain (0:
	// from the start; see Options.BestArrivesAfter).
	ArrivesAt uint64
}

// Arena is a running development arena: a devnet with a subnet, reference
// miners serving on loopback, and a validator.
type Arena struct {
	Devnet *devnet.Devnet
	// Stack is the first validator's, the one the live view follows;
	// Stacks holds every validator's, Stack first.
	Stack        *validator.Stack
	Stacks       []*validator.Stack
	Miners       []MinerInfo
	ValidatorUID uint16
	// ValidatorUIDs are every validator's uids, in Stacks order.
	ValidatorUIDs []uint16
	Config        config.Config
	// Replaced reports that Options.Home held an earlier run's data, which
	// this run's start deleted.
	Replaced bool

	servers []*episode.Server
	lns     []net.Listener

	closeOnce sync.Once
	closeErr  error
	late      []lateAxon
	log       zerolog.Logger
}

// lateAxon is a miner's axon announcement held back until a block.
type lateAxon struct {
	uid    uint16
	signer *chain.Signer
	axon   chain.Axon
	at     uint64
}

// Start builds the devnet, registers and serves the miners, and opens the
// validator stack. Call Run, then Close.
//
// With Options.Home, Start first checks that Home is missing, empty or an
// earlier run's home (it holds the marker file), and refuses any other
// directory. The devnet lives in memory, so each run needs a fresh
// validator data dir: an earlier run's is moved aside and deleted only
// once Start has succeeded. A start that fails (a busy port, Ctrl-C)
// moves it back and removes what it made, so it costs no data.
func Start(ctx context.Context, opts Options, log zerolog.Logger) (_ *Arena, err error) {
	if opts.Miners == 0 {
		opts.Miners = 8
	}
	if opts.Miners < 1 || opts.Miners > 200 {
		return nil, fmt.Errorf("miners %d: must be between 1 and 200", opts.Miners)
	}
	if opts.Validators == 0 {
		opts.Validators = 1
	}
	if opts.Validators < 1 || opts.Validators > 16 {
		return nil, fmt.Errorf("validators %d: must be between 1 and 16", opts.Validators)
	}
	if opts.BestArrivesAfter < 0 {
		return nil, fmt.Errorf("best miner arrives after %d race windows: must not be negative", opts.BestArrivesAfter)
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
	cfg := DevStore(opts.Config)
	if !opts.KeepTimings {
		cfg = FastTimings(cfg)
	}
	a := &Arena{log: log}
	var h *home
	defer func() {
		if err != nil {
			a.Close()
			if h != nil {
				err = errors.Join(err, h.rollback())
			}
			return
		}
		if h != nil {
			if cerr := h.commit(); cerr != nil {
				log.Warn().Err(cerr).Msg("an earlier run's data could not be deleted; delete it by hand")
			}
		}
	}()
	if opts.Home != "" {
		if h, err = openHome(opts.Home); err != nil {
			return nil, err
		}
		cfg.DataDir, a.Replaced = DataDir(opts.Home), h.aside != ""
	}
	hyper := &devnet.Hyper{WeightsSetRateLimit: opts.RateLimit, MinAllowedWeights: 1, CommitRevealEnabled: opts.CommitReveal, CommitRevealInterval: 1}
	listen := opts.DevnetListen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	a.Devnet, err = devnet.New(devnet.Options{Listen: listen, BlockTime: opts.BlockTime, Netuid: cfg.Chain.Netuid, Tempo: opts.Tempo,
		Validators: opts.Validators, Miners: opts.Miners, Seed: 7, Hyper: hyper}, log, opts.Registry)
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
	err = a.startMiners(ctx, opts, cfg.Validator.RaceEveryBlocks)
	stopBoot()
	<-bootDone
	if err != nil {
		return nil, err
	}

	vals := a.Devnet.ByRole("validator")
	a.ValidatorUID = vals[0].UID
	for _, v := range vals {
		a.ValidatorUIDs = append(a.ValidatorUIDs, v.UID)
	}
	if opts.ChainOnly {
		return a, nil
	}
	for i, val := range vals {
		vcfg, reg, onEvent, drawSeed := cfg, opts.Registry, opts.OnEvent, opts.DrawSeed
		if i > 0 {
			// Its own store and listener; its own hidden draws (a random
			// seed), as an independent validator would have.
			vcfg.DataDir = peerDataDir(cfg.DataDir, opts.Home, i)
			vcfg.Metrics.Listen, vcfg.API.Listen = "127.0.0.1:0", "127.0.0.1:0"
			if vcfg.Web.PublicListen != "" {
				vcfg.Web.PublicListen = "127.0.0.1:0"
			}
			reg, onEvent, drawSeed = prometheus.NewRegistry(), nil, nil
		}
		stack, err := validator.OpenStack(ctx, validator.StackOptions{Config: vcfg, Signer: val.Signer(), Registry: reg,
			OnEvent: onEvent, Progress: opts.Progress, DrawSeed: drawSeed, Console: web.ForStack(vcfg.Web, reg, log),
			// The view says it once (Arena.Unverified), not each validator.
			QuietUnverified: true,
			// A weights transaction is known mined within a block, not a
			// second, as on a real chain whose blocks are 12 s apart.
			ReceiptPoll: max(opts.BlockTime/2, 10*time.Millisecond)},
			log.With().Uint16("validator_uid", val.UID).Logger())
		if err != nil {
			return nil, fmt.Errorf("validator uid %d: %w", val.UID, err)
		}
		a.Stacks = append(a.Stacks, stack)
	}
	a.Stack = a.Stacks[0]
	return a, nil
}

// Unverified reports whether the arena's validators verify no step: no
// inference relay is configured (relay.base_url), the dev default.
func (a *Arena) Unverified() bool {
	return a.Stack != nil && a.Stack.Verification == judge.VerifyOff
}

// peerDataDir is the data dir of the validator at index i > 0: beside the
// first one's in a home, or beside Config.DataDir otherwise.
func peerDataDir(first, home string, i int) string {
	if home != "" {
		return peerDir(home, i)
	}
	return fmt.Sprintf("%s.validator-%d", filepath.Clean(first), i+1)
}

// startMiners serves a heuristic agent per miner account on a loopback port
// and announces it on chain with serveAxon, as `arena miner serve-axon` does.
func (a *Arena) startMiners(ctx context.Context, opts Options, raceEvery uint64) error {
	n := opts.Miners
	client, err := chain.Dial(ctx, chain.Options{URL: a.Devnet.URL(), ExpectedChainID: devnet.ChainID}, a.log)
	if err != nil {
		return err
	}
	defer client.Close()
	miners := a.Devnet.ByRole("miner")
	// A miner registered again gets a fresh key (a hotkey registers on a
	// subnet once); the admin announces its axon, since the new account
	// holds no funds for the transaction.
	fresh := map[int]*chain.Signer{}
	for _, i := range opts.Reregistered {
		if i < 0 || i >= len(miners) {
			return fmt.Errorf("re-registered miner %d: there are %d miners", i, len(miners))
		}
		key, err := crypto.GenerateKey()
		if err != nil {
			return err
		}
		fresh[i] = chain.NewSigner(key)
		if _, err := a.Devnet.ReplaceNeuron(ctx, miners[i].UID, fresh[i].Address, 0, false); err != nil {
			return fmt.Errorf("miner uid %d: register again: %w", miners[i].UID, err)
		}
	}
	for i, acct := range miners {
		signer := acct.Signer()
		if s, ok := fresh[i]; ok {
			signer = s
		}
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
		srv, err := episode.NewServer(episode.ServerOptions{Signer: signer, Agent: agent}, a.log.With().Uint16("miner_uid", acct.UID).Logger(), nil)
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
		axon := chain.Axon{IP: ap.Addr(), Port: ap.Port(), Version: episode.Version}
		registered, err := a.Devnet.RegisteredAt(ctx, acct.UID)
		if err != nil {
			return fmt.Errorf("miner uid %d: registration block: %w", acct.UID, err)
		}
		info := MinerInfo{UID: acct.UID, Skill: skill, Address: signer.Address.Hex(), Endpoint: ln.Addr().String(), RegisteredAt: registered}
		if _, ok := fresh[i]; ok {
			if err := a.Devnet.SetAxon(ctx, acct.UID, axon); err != nil {
				return fmt.Errorf("miner uid %d: set axon: %w", acct.UID, err)
			}
		} else if i == 0 && opts.BestArrivesAfter > 0 {
			info.ArrivesAt = uint64(opts.BestArrivesAfter) * raceEvery
			a.late = append(a.late, lateAxon{uid: acct.UID, signer: acct.Signer(), axon: axon, at: info.ArrivesAt})
		} else if _, err := client.ServeAxon(ctx, acct.Signer(), a.Devnet.Netuid(), axon); err != nil {
			return fmt.Errorf("miner uid %d: serve axon: %w", acct.UID, err)
		}
		a.Miners = append(a.Miners, info)
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
	for _, l := range a.late {
		g.Go(func() error { return a.arrive(gctx, l) })
	}
	if len(a.Stacks) > 0 {
		var stacks sync.WaitGroup
		for _, st := range a.Stacks {
			stacks.Add(1)
			g.Go(func() error {
				defer stacks.Done()
				return st.Run(gctx)
			})
		}
		go func() {
			stacks.Wait()
			close(validatorDone)
		}()
	} else {
		close(validatorDone)
	}
	err := g.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// arrive announces a held-back miner's axon once the chain reaches its
// block.
func (a *Arena) arrive(ctx context.Context, l lateAxon) error {
	if err := a.Devnet.WaitForBlock(ctx, l.at); err != nil {
		if ctx.Err() != nil {
			return nil // stopped before the arrival
		}
		return fmt.Errorf("miner uid %d arrives: %w", l.uid, err)
	}
	client, err := chain.Dial(ctx, chain.Options{URL: a.Devnet.URL(), ExpectedChainID: devnet.ChainID}, a.log)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("miner uid %d arrives: %w", l.uid, err)
	}
	defer client.Close()
	if _, err := client.ServeAxon(ctx, l.signer, a.Devnet.Netuid(), l.axon); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("miner uid %d arrives: serve axon: %w", l.uid, err)
	}
	a.log.Info().Uint16("uid", l.uid).Uint64("block", l.at).Msg("a held-back miner announced its axon")
	return nil
}

// Close stops everything Start opened.
func (a *Arena) Close() error {
	a.closeOnce.Do(func() {
		var errs []error
		for _, st := range a.Stacks {
			errs = append(errs, st.Close())
		}
		for _, ln := range a.lns {
			_ = ln.Close()
		}
		if a.Devnet != nil {
			_ = a.Devnet.Close()
		}
		a.closeErr = errors.Join(errs...)
	})
	return a.closeErr
}

// homeMarker marks a directory as `arena dev`'s home.
const homeMarker = ".arena-dev"

// homeData names the first validator's data dir inside a home; with
// several validators the others' are homeData-2, homeData-3, ... These
// are the parts of a home arena dev replaces on each run.
const homeData = "validator"

// replacedPrefix names an earlier run's data while a new run starts.
const replacedPrefix = homeData + ".replaced-"

// DataDir is where a dev arena with Options.Home keeps the first
// validator's data (the --data of `arena export` and `arena store check`).
func DataDir(home string) string { return filepath.Join(home, homeData) }

// peerDir is the data dir of the validator at index i > 0 in a home.
func peerDir(home string, i int) string {
	return filepath.Join(home, fmt.Sprintf("%s-%d", homeData, i+1))
}

// ownedData lists the validators' data dirs present in a home: homeData
// and homeData-N.
func ownedData(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		rest, peer := strings.CutPrefix(name, homeData+"-")
		if name == homeData || peer && rest != "" && strings.Trim(rest, "0123456789") == "" {
			out = append(out, name)
		}
	}
	return out, nil
}

// home is a directory arena dev shares with its user: it owns the marker
// file, the validators' data dirs and their replaced copies, and leaves
// everything else alone.
type home struct {
	dir     string
	created bool   // the directory did not exist
	marked  bool   // this run wrote the marker
	aside   string // where the earlier run's data waits, if there was one
	fresh   bool   // the validators' data dirs are this run's
}

// openHome accepts dir if it is missing, empty or marked, marks it, and
// moves an earlier run's data (every validator's) aside.
func openHome(dir string) (*home, error) {
	h := &home{dir: dir}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		h.created = true
	case err != nil:
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(dir, homeMarker)); err != nil {
			return nil, fmt.Errorf("data dir %s is not empty and was not made by `arena dev`; pass another --data", dir)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	marker := filepath.Join(dir, homeMarker)
	if _, err := os.Stat(marker); errors.Is(err, fs.ErrNotExist) {
		note := "made by `arena dev`: each run replaces " + homeData + "/ (and " + homeData + "-N/ with several validators) here; anything else in this directory is left alone\n"
		if err := os.WriteFile(marker, []byte(note), 0o600); err != nil {
			return nil, errors.Join(fmt.Errorf("data dir %s: %w", dir, err), h.rollback())
		}
		h.marked = true
	}
	owned, err := ownedData(dir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("data dir %s: %w", dir, err), h.rollback())
	}
	if len(owned) > 0 {
		aside := filepath.Join(dir, replacedPrefix+strconv.FormatInt(time.Now().UnixNano(), 36))
		if err := os.Mkdir(aside, 0o700); err != nil {
			return nil, errors.Join(fmt.Errorf("data dir %s: %w", dir, err), h.rollback())
		}
		h.aside = aside
		for _, name := range owned {
			if err := os.Rename(filepath.Join(dir, name), filepath.Join(aside, name)); err != nil {
				return nil, errors.Join(fmt.Errorf("data dir %s: move the earlier run's data aside: %w", dir, err), h.rollback())
			}
		}
	}
	h.fresh = true
	return h, nil
}

// commit deletes the earlier runs' data now that this run has started,
// including copies a run that was killed while starting left aside.
func (h *home) commit() error {
	old, err := filepath.Glob(filepath.Join(h.dir, replacedPrefix+"*"))
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range old {
		errs = append(errs, os.RemoveAll(p))
	}
	return errors.Join(errs...)
}

// rollback undoes openHome after a failed start: this run's data goes, the
// earlier run's comes back, and a marker or directory this run made goes.
func (h *home) rollback() error {
	if h.fresh {
		owned, err := ownedData(h.dir)
		if err != nil {
			return fmt.Errorf("data dir %s: %w", h.dir, err)
		}
		for _, name := range owned {
			if err := os.RemoveAll(filepath.Join(h.dir, name)); err != nil {
				return fmt.Errorf("data dir %s: remove this run's data: %w", h.dir, err)
			}
		}
	}
	if h.aside != "" {
		back, err := os.ReadDir(h.aside)
		if err != nil {
			return fmt.Errorf("data dir %s: the earlier run's data is in %s: %w", h.dir, h.aside, err)
		}
		for _, e := range back {
			if err := os.Rename(filepath.Join(h.aside, e.Name()), filepath.Join(h.dir, e.Name())); err != nil {
				return fmt.Errorf("data dir %s: the earlier run's data is in %s: %w", h.dir, h.aside, err)
			}
		}
		if err := os.Remove(h.aside); err != nil {
			return fmt.Errorf("data dir %s: %w", h.dir, err)
		}
	}
	if h.marked {
		if err := os.Remove(filepath.Join(h.dir, homeMarker)); err != nil {
			return fmt.Errorf("data dir %s: %w", h.dir, err)
		}
	}
	if h.created {
		// Only an empty directory goes: a file put there meanwhile stays.
		_ = os.Remove(h.dir)
	}
	return nil
}
