package validator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"arena/chain"
	"arena/config"
	"arena/episode"
	"arena/internal/secretfile"
	"arena/knowledge"
	"arena/relay"
	"arena/scoring/judge"
	"arena/shop"
	"arena/shop/gen"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// StackOptions configure OpenStack.
type StackOptions struct {
	// Config is the validated configuration.
	Config config.Config
	// Signer is the validator's unlocked key.
	Signer *chain.Signer
	// Registry receives every component's metrics and serves /metrics.
	Registry *prometheus.Registry
	// OnEvent receives the validator's progress events (optional).
	OnEvent func(Event)
	// Progress reports long start-up stages (catalog, index, suite) with
	// a stage name and done/total; optional.
	Progress func(stage string, done, total int)
	// Store, if set, is used instead of opening Config.DataDir (tests).
	Store *store.Store
	// WriteFaults is passed to the store Config.DataDir opens (tests).
	WriteFaults store.WriteFaults
	// DrawSeed is passed to Options.DrawSeed (tests).
	DrawSeed func(window uint64) uint64
	// ReceiptPoll, if set, is how often the chain client asks for a sent
	// transaction's receipt (default 1 s; a devnet making a block every
	// 100 ms wants it near its block time).
	ReceiptPoll time.Duration
	// Console, if set, builds the web console over the validator: its
	// operator pages go on the API listener, its public pages on
	// web.public_listen (package web provides it; the stack only serves).
	Console func(v *Validator) (Console, error)
	// QuietUnverified leaves out the warning that a validator without a
	// relay verifies no step: the caller tells its user itself (arena dev
	// says it once in its view, however many validators it runs).
	QuietUnverified bool
}

// UnverifiedNotice says what running without an inference relay means.
const UnverifiedNotice = "no inference relay (relay.base_url is empty): miners' steps are not verified, and scripted steps score like a model's (docs/scoring.md, \"Verified inference\")"

// Console is a web console the stack serves and runs.
type Console interface {
	// Operator serves the operator pages (everything).
	Operator() http.Handler
	// Public serves the public pages only.
	Public() http.Handler
	// Run keeps the console's caches fresh until ctx ends.
	Run(ctx context.Context) error
}

// Stack is a whole validator process: store, chain client, catalog and
// tools, suite ledger, validator and operator server.
type Stack struct {
	Store *store.Store
	Chain *chain.Client
	// Shop serves the tools, restocking on the catalog's schedule.
	Shop      *Shop
	Ledger    *suite.Ledger
	Validator *Validator
	// Server is the metrics listener; API the JSON API's.
	Server *Server
	API    *Server
	// Public is the public web listener (nil unless web.public_listen and
	// a Console are set); Console the console behind it and the API's pages.
	Public  *Server
	Console Console
	// Verification is what scoring does with verified inference (off
	// without a relay).
	Verification judge.Verification

	ownStore            bool
	ln, apiLn, publicLn net.Listener
	log                 zerolog.Logger
}

// OpenStack builds every component from the configuration, in the order
// that lets a bad setting fail before anything long starts: the operator
// listener and the store first, then the chain, then the catalog and suite.
func OpenStack(ctx context.Context, opts StackOptions, log zerolog.Logger) (_ *Stack, err error) {
	cfg := opts.Config
	reg := opts.Registry
	s := &Stack{log: log}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	mix, err := suite.ParseMix(cfg.Validator.ProblemMix)
	if err != nil {
		return nil, fmt.Errorf("validator.problem_mix: %w", err)
	}

	apiToken := ""
	if cfg.API.TokenFile != "" {
		if apiToken, err = secretfile.ReadLine("api token file", cfg.API.TokenFile); err != nil {
			return nil, err
		}
	}
	ln, err := Listen(cfg.Metrics.Listen, "metrics.listen")
	if err != nil {
		return nil, err
	}
	s.ln = ln
	if s.apiLn, err = Listen(cfg.API.Listen, "api.listen"); err != nil {
		return nil, err
	}
	if opts.Console != nil && cfg.Web.PublicListen != "" {
		if s.publicLn, err = Listen(cfg.Web.PublicListen, "web.public_listen"); err != nil {
			return nil, err
		}
	}
	if opts.Store != nil {
		s.Store = opts.Store
	} else {
		so := StoreOptions(cfg)
		so.WriteFaults = opts.WriteFaults
		s.Store, err = store.Open(so, log, reg)
		var space *store.SpaceError
		if errors.As(err, &space) {
			return nil, fmt.Errorf("%w: free space or move data_dir (limits: store.min_free_soft and store.min_free_soft_percent)", err)
		}
		if err != nil {
			return nil, err
		}
		s.ownStore = true
	}

	s.Chain, err = chain.Dial(ctx, chain.Options{URL: cfg.Chain.URL, ExpectedChainID: cfg.Chain.ChainID,
		DialTimeout: cfg.Chain.DialTimeout.Duration, CallTimeout: cfg.Chain.CallTimeout.Duration,
		ReceiptTimeout: cfg.Chain.ReceiptTimeout.Duration, ReceiptPoll: opts.ReceiptPoll, Registerer: reg}, log)
	if err != nil {
		return nil, err
	}

	// The shop is the stock of the chain's head: a restarted validator
	// serves the restocks every other validator serves at this block.
	head, err := s.Chain.Eth().BlockNumber(ctx)
	if err != nil {
		return nil, fmt.Errorf("chain: read the head block: %w", err)
	}
	if s.Shop, err = OpenShop(ctx, cfg.Catalog, head, log, reg, progress); err != nil {
		return nil, err
	}
	stock := s.Shop.Current()

	genesis, err := s.Chain.Eth().HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		return nil, fmt.Errorf("chain: read the genesis block: %w", err)
	}
	rec := records.New()
	seed, err := checkMeta(s.Store, rec, cfg, genesis.Hash().Hex())
	if err != nil {
		return nil, err
	}
	s.Ledger, err = suite.NewLedger(suite.LedgerOptions{Store: s.Store, ProblemsPerRace: cfg.Validator.RaceProblems}, log, reg)
	if err != nil {
		return nil, err
	}
	gi := generatorInputs{stock: stock, mix: mix}
	if pc := cfg.Suite.Paraphrase; pc.BaseURL != "" {
		gi.paraphraser, err = suite.NewParaphraser(suite.ParaphraseOptions{BaseURL: pc.BaseURL, Model: pc.Model, APIKey: pc.APIKey.Reveal(),
			Timeout: pc.Timeout.Duration, Catalog: stock.Index.Catalog(), Registerer: reg}, log)
		if err != nil {
			return nil, err
		}
	}
	refill, err := prepareSuite(ctx, s.Ledger, gi, seed, cfg.Validator, log, progress)
	if err != nil {
		return nil, err
	}

	// The relay policy depends on the chain reached, not only on
	// chain.chain_id: chain_id 0 accepts any chain, finney included.
	rl, verification, err := NewRelay(cfg, s.Chain.ChainID().Uint64(), log, reg)
	if err != nil {
		return nil, err
	}
	s.Verification = verification
	if rl == nil && !opts.QuietUnverified {
		log.Warn().Msg(UnverifiedNotice)
	}
	jdg, err := NewJudge(cfg, log, reg)
	if err != nil {
		return nil, err
	}
	ec := cfg.Episode
	s.Validator, err = New(Options{
		Chain: s.Chain, FollowHeads: ClientHeads(s.Chain), Signer: opts.Signer, Store: s.Store, Ledger: s.Ledger, Refill: refill, Shop: s.Shop, Judge: jdg,
		Netuid: cfg.Chain.Netuid, Tempo: cfg.Chain.Tempo,
		SyncEveryBlocks: cfg.Validator.SyncEveryBlocks, RaceEveryBlocks: cfg.Validator.RaceEveryBlocks,
		WeightsEveryBlocks: cfg.Validator.WeightsEveryBlocks, QualifyingProblems: cfg.Validator.QualifyingProblems,
		RaceProblems: cfg.Validator.RaceProblems, QualifyingConcurrency: cfg.Validator.QualifyingConcurrency,
		HiddenMinClusters: cfg.Validator.HiddenMinClusters, QualifyingSeed: seed,
		Race: RaceParams(cfg.Race), Weights: WeightsPolicy(cfg.Weights),
		Limits: EpisodeLimits(ec),
		Relay:  rl, Verification: verification,
		AllowPrivateAxons: cfg.Validator.AllowPrivateAxons, OperatorListen: []string{cfg.Metrics.Listen, cfg.API.Listen},
		ReconnectMin: cfg.Chain.ReconnectMin.Duration, ReconnectMax: cfg.Chain.ReconnectMax.Duration,
		OnEvent: opts.OnEvent, DrawSeed: opts.DrawSeed, Retention: Retention(cfg.Store.Retention),
	}, log, reg)
	if err != nil {
		return nil, err
	}
	s.Server, err = NewServer(ServerOptions{Listen: cfg.Metrics.Listen, Listener: ln, Gatherer: reg, Validator: s.Validator}, log)
	if err != nil {
		return nil, err
	}
	apiOpts := APIServerOptions{Listen: cfg.API.Listen, Listener: s.apiLn, Validator: s.Validator, Token: apiToken, AllowedHosts: cfg.API.Hosts(), Pprof: cfg.API.Pprof}
	if opts.Console != nil {
		if s.Console, err = opts.Console(s.Validator); err != nil {
			return nil, fmt.Errorf("web console: %w", err)
		}
		apiOpts.Pages = s.Console.Operator()
		if s.publicLn != nil {
			if s.Public, err = NewPublicServer(PublicServerOptions{Listen: cfg.Web.PublicListen, Listener: s.publicLn, Pages: s.Console.Public()}, log); err != nil {
				return nil, err
			}
		}
	}
	s.API, err = NewAPIServer(apiOpts, log, reg)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Run runs the store's GC loop, the validator and the operator server
// until ctx ends or one of them fails.
func (s *Stack) Run(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return s.Store.Run(gctx) })
	g.Go(func() error { return s.Server.Run(gctx) })
	g.Go(func() error { return s.API.Run(gctx) })
	if s.Console != nil {
		g.Go(func() error { return s.Console.Run(gctx) })
	}
	if s.Public != nil {
		g.Go(func() error { return s.Public.Run(gctx) })
	}
	g.Go(func() error { return s.Validator.Run(gctx) })
	return g.Wait()
}

// StoreOptions are the options the validator's store opens with: the data
// dir, GC and the free-space guard's limits.
func StoreOptions(cfg config.Config) store.Options {
	sc := cfg.Store
	return store.Options{Dir: cfg.DataDir, GCInterval: sc.GCInterval.Duration, GCDiscardRatio: sc.GCDiscardRatio,
		Space: store.SpaceLimits{
			SoftBytes: uint64(sc.MinFreeSoft), SoftPercent: sc.MinFreeSoftPercent,
			HardBytes: uint64(sc.MinFreeHard), HardPercent: sc.MinFreeHardPercent,
			Reserve: uint64(sc.Reserve),
		}}
}

// Close releases the chain connection and the store (if the stack opened
// it). It is safe on a partly built stack. Its error is the store's: a
// close that failed (the caller should exit non-zero).
func (s *Stack) Close() error {
	for _, ln := range []net.Listener{s.ln, s.apiLn, s.publicLn} {
		if ln != nil {
			_ = ln.Close()
		}
	}
	if s.Chain != nil {
		s.Chain.Close()
	}
	if s.ownStore && s.Store != nil {
		if err := s.Store.Close(); err != nil {
			s.log.Error().Err(err).Msg("close store")
			return err
		}
	}
	return nil
}

// LoadShop reads or generates the catalog and returns its search index and
// the offline web behind web_search, which is derived from the catalog so
// that every validator with the same catalog serves the same pages. A
// catalog file's compact catalog and index, and the web's derivation, are
// persisted beside it (shop.OpenIndexFile, knowledge.OpenFile): the first
// start builds and writes them, later starts map and read them in a second
// or two, and a changed or damaged file is rebuilt. A generated catalog is
// built in memory at every start, with the restock lots due at block
// (catalog.restock_*): it is made from code that may change between
// versions, which a persisted copy would hide.
func LoadShop(ctx context.Context, cc config.CatalogConfig, block uint64, log zerolog.Logger, progress func(string, int, int)) (*shop.Index, *knowledge.Corpus, error) {
	start := time.Now()
	indexOpts := shop.IndexOptions{Progress: func(d, t int) { progress("indexing catalog", d, t) }}
	if cc.File != "" {
		idx, info, err := shop.OpenIndexFile(ctx, cc.File, shop.IndexFileOptions{Dir: cc.IndexDir, Index: indexOpts}, log)
		if err != nil {
			return nil, nil, fmt.Errorf("catalog.file: %w", err)
		}
		web, winfo, err := knowledge.OpenFile(ctx, idx.Catalog(), info.Path+knowledge.FileSuffix, info.Identity, knowledge.Options{}, log)
		if err != nil {
			return nil, nil, fmt.Errorf("catalog.file: knowledge corpus: %w", err)
		}
		log.Info().Int("products", idx.Catalog().Len()).Bool("built", info.Built).Str("index_file", info.Path).
			Bool("knowledge_built", winfo.Built).Dur("took_ms", time.Since(start).Round(time.Millisecond)).Msg("catalog ready")
		return idx, web, nil
	}
	g, err := gen.New(gen.Options{Products: cc.Products, Seed: cc.Seed, Progress: func(d, t int) { progress("generating catalog", d, t) }}, log)
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: %w", err)
	}
	rs := RestockOf(cc)
	lots := rs.Lots(block)
	if restocked := lots * rs.Products; restocked > 10*cc.Products {
		log.Warn().Int("lots", lots).Int("restocked_products", restocked).Uint64("block", block).Uint64("restock_from_block", rs.FromBlock).
			Msg("catalog: many restocks are due since catalog.restock_from_block; if the subnet's validators count from a later block, set it (every validator must use the same)")
	}
	idx, web, err := generatedStock(ctx, g, lots, rs.Products, indexOpts, log)
	if err != nil {
		return nil, nil, err
	}
	log.Info().Int("products", idx.Catalog().Len()).Int("restock_lots", lots).Dur("took_ms", time.Since(start).Round(time.Millisecond)).Msg("catalog ready")
	return idx, web, nil
}

// OpenShop loads the shop as it stands at block (LoadShop) with its tools,
// ready to restock on the catalog's schedule. reg receives the tools' and
// the shop's metrics.
func OpenShop(ctx context.Context, cc config.CatalogConfig, block uint64, log zerolog.Logger, reg prometheus.Registerer, progress func(string, int, int)) (*Shop, error) {
	idx, web, err := LoadShop(ctx, cc, block, log, progress)
	if err != nil {
		return nil, err
	}
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx, Web: web}, log, reg)
	if err != nil {
		return nil, err
	}
	opts := ShopOptions{Stock: &Stock{Index: idx, Web: web, Tools: tools}, Restock: RestockOf(cc)}
	if opts.Restock.EveryBlocks > 0 {
		opts.Stock.Lots = opts.Restock.Lots(block)
		if opts.Generator, err = gen.New(gen.Options{Products: cc.Products, Seed: cc.Seed}, log); err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
	}
	return NewShop(opts, log, reg)
}

// ErrOtherChain is returned when the data dir was built against a chain
// with another genesis block.
var ErrOtherChain = errors.New("data dir belongs to another chain")

// checkMeta checks that the data dir belongs to this chain and returns the
// persisted generator seed. On first start it records the chain's genesis
// hash and the configured (or a random) seed, so the suite keeps growing
// from the same stream across restarts.
func checkMeta(st *store.Store, rec *records.Records, cfg config.Config, genesis string) (uint64, error) {
	var seed uint64
	err := st.Update(func(txn *badger.Txn) error {
		m, ok, err := rec.GetMeta(txn)
		if err != nil {
			return err
		}
		if ok && m.Genesis != "" && m.Genesis != genesis {
			return fmt.Errorf("%w: it was built on the chain with genesis %s, but %s has genesis %s; point chain.url at that chain, use another data_dir, or, if that chain was reset (a devnet or testnet), run `arena store reset-chain-state --data %s` to follow the new one",
				ErrOtherChain, m.Genesis, cfg.Chain.URL, genesis, cfg.DataDir)
		}
		if ok && m.SuiteSeed != 0 {
			if cfg.Validator.SuiteSeed != 0 && cfg.Validator.SuiteSeed != m.SuiteSeed {
				return fmt.Errorf("validator.suite_seed %d differs from the seed %d this data dir was built with; use that seed or a new data dir",
					cfg.Validator.SuiteSeed, m.SuiteSeed)
			}
			seed = m.SuiteSeed
		} else {
			seed = cfg.Validator.SuiteSeed
			for seed == 0 {
				seed = randomSeed()
			}
		}
		m.SuiteSeed, m.Genesis = seed, genesis
		return rec.PutMeta(txn, m)
	})
	return seed, err
}

// generatorInputs are what the validator's problem generators draw on.
type generatorInputs struct {
	// stock is the shop the public set is made from.
	stock *Stock
	mix   suite.Mix
	// paraphraser, when set, rewrites generated queries.
	paraphraser *suite.Paraphraser
}

// RefillSource makes the hidden pool's new problems from a stock of the
// shop: the one the race they are drawn for runs on.
type RefillSource func(*Stock) suite.Source

// prepareSuite fills an empty ledger with the public qualifying set and
// makes sure the hidden pool can cover a race. It returns the refill
// source for the hidden pool.
func prepareSuite(ctx context.Context, ledger *suite.Ledger, gi generatorInputs, seed uint64,
	vc config.ValidatorConfig, log zerolog.Logger, progress func(string, int, int)) (RefillSource, error) {
	stats, err := ledger.Stats(ctx)
	if err != nil {
		return nil, err
	}
	public := stats.Partitions[suite.Public]
	if public == nil || public.Clusters < vc.QualifyingProblems {
		g, err := suite.NewGenerator(suite.GeneratorOptions{Index: gi.stock.Index, Seed: seed, Knowledge: gi.stock.Web}, log)
		if err != nil {
			return nil, err
		}
		ps, _, err := g.Generate(ctx, suite.Request{Count: vc.PublicProblems, Mix: gi.mix, Progress: func(d, t int) { progress("generating public problems", d, t) }})
		if err != nil {
			return nil, fmt.Errorf("public suite: %w", err)
		}
		if gi.paraphraser != nil {
			if _, err := gi.paraphraser.Apply(ctx, ps, func(d, t int) { progress("paraphrasing public problems", d, t) }); err != nil {
				return nil, fmt.Errorf("public suite: %w", err)
			}
		}
		rep, err := ledger.Add(ctx, ps, suite.Public)
		if err != nil {
			return nil, fmt.Errorf("public suite: %w", err)
		}
		log.Info().Int("added", rep.Added).Msg("public qualifying set generated")
	}
	// Hidden problems come from another stream of the same seed, so they
	// never repeat public ones (and the ledger drops any that share a
	// target with them).
	// The generator reads the whole catalog when it is made (11 s for 2.5M
	// products on 2 cores), so it is made the first time the pool needs
	// problems from a stock: a restart whose pool is full does not wait
	// for it, and a restock makes a new one over the new products.
	var (
		mu       sync.Mutex
		madeFor  *Stock
		generate suite.Source
	)
	refill := func(st *Stock) suite.Source {
		hidden := func(ctx context.Context, offset uint64, n int, exclude []string) ([]suite.Problem, error) {
			mu.Lock()
			if madeFor != st {
				hg, err := suite.NewGenerator(suite.GeneratorOptions{Index: st.Index, Seed: seed ^ 0x9e3779b97f4a7c15, Knowledge: st.Web}, log)
				if err != nil {
					mu.Unlock()
					return nil, err
				}
				madeFor, generate = st, suite.GeneratorSource(hg, gi.mix)
			}
			g := generate
			mu.Unlock()
			return g(ctx, offset, n, exclude)
		}
		if gi.paraphraser == nil {
			return hidden
		}
		return suite.ParaphraseSource(hidden, gi.paraphraser.WithCatalog(st.Index.Catalog()))
	}
	progress("generating hidden problems", 0, 1)
	rep, err := ledger.Refill(ctx, max(vc.HiddenMinClusters, vc.RaceProblems), refill(gi.stock))
	if err != nil {
		return nil, fmt.Errorf("hidden pool: %w", err)
	}
	progress("generating hidden problems", 1, 1)
	stats, err = ledger.Stats(ctx)
	if err != nil {
		return nil, err
	}
	if p := stats.Partitions[suite.Public]; p == nil || p.Clusters < vc.QualifyingProblems {
		return nil, fmt.Errorf("public suite has %d clusters, fewer than validator.qualifying_problems (%d); raise validator.public_problems or the catalog size",
			clusters(p), vc.QualifyingProblems)
	}
	log.Info().Int("public_clusters", clusters(stats.Partitions[suite.Public])).Int("hidden_available", rep.HiddenAvailable).Msg("suite ready")
	return refill, nil
}

func clusters(p *suite.PartitionStats) int {
	if p == nil {
		return 0
	}
	return p.Clusters
}

// NewRelay builds the inference relay from relay.* for the chain whose
// id is chainID, and says what scoring does with verification: require
// under relay.required (auto: on finney and testnet), record when a relay
// runs without it, off with no relay. On a public chain with no relay it
// refuses (config.ValidateRelayForChain) unless relay.required is false.
func NewRelay(cfg config.Config, chainID uint64, log zerolog.Logger, reg prometheus.Registerer) (episode.Relay, judge.Verification, error) {
	if err := cfg.ValidateRelayForChain(chainID); err != nil {
		return nil, "", err
	}
	rc := cfg.Relay
	if rc.BaseURL == "" {
		return nil, judge.VerifyOff, nil
	}
	required := rc.RelayRequired(chainID)
	key := rc.APIKey.Reveal()
	rl, err := relay.New(relay.Options{BaseURL: rc.BaseURL, Models: rc.ModelList(), Required: required, Timeout: rc.Timeout.Duration,
		Budget: relay.Budget{Completions: rc.MaxCompletions, PromptTokens: int64(rc.MaxPromptTokens), CompletionTokens: int64(rc.MaxCompletionTokens),
			WallTime: rc.MaxWallTime.Duration, MaxTokens: int64(rc.MaxTokens)},
		Daily:     relay.DailyBudget{Completions: rc.DailyCompletions, Tokens: int64(rc.DailyTokens)},
		LookupEnv: func(string) (string, bool) { return key, key != "" }}, log, reg)
	if err != nil {
		return nil, "", err
	}
	if required {
		return rl, judge.VerifyRequire, nil
	}
	return rl, judge.VerifyRecord, nil
}

// NewJudge builds the configured reasoning judge (judge.kind), with the
// configured template cap.
func NewJudge(cfg config.Config, log zerolog.Logger, reg prometheus.Registerer) (judge.Judge, error) {
	grounding := judge.NewGrounding(judge.GroundingOptions{Templates: judge.TemplateOptions{Cap: cfg.Judge.TemplateCap}}, log)
	switch cfg.Judge.Kind {
	case "", "grounding":
		return grounding, nil
	case "llm":
		var models []string
		for _, m := range strings.Split(cfg.Judge.Models, ",") {
			if m = strings.TrimSpace(m); m != "" {
				models = append(models, m)
			}
		}
		return judge.NewLLM(judge.LLMOptions{BaseURL: cfg.LLM.BaseURL, APIKey: cfg.LLM.APIKey.Reveal(), Models: models,
			Timeout: cfg.LLM.Timeout.Duration, Fallback: grounding, OnUnavailable: cfg.Judge.OnUnavailable, Registerer: reg}, log)
	}
	return nil, errors.New("judge.kind must be grounding or llm")
}
