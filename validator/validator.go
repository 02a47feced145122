package validator

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"arena/chain"
	"arena/episode"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/scoring/race"
	"arena/scoring/weights"
	"arena/shop"
	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// Options configure New. Every component is built by the caller (main) and
// injected, so the validator can be tested with a devnet, an in-memory
// store and loopback miners.
type Options struct {
	Chain Chain
	// FollowHeads starts following the chain's heads (ClientHeads for a
	// *chain.Client).
	FollowHeads func(chain.HeadsOptions) HeadSource
	Signer      *chain.Signer
	Store       *store.Store
	Ledger      *suite.Ledger
	// Refill generates new hidden problems when the pool runs low, from
	// the stock the race runs on; nil disables refilling.
	Refill RefillSource
	// Shop serves the agents' tools and restocks (OpenShop). Without it,
	// Tools serve every episode and the shop never restocks.
	Shop  *Shop
	Tools *shop.Tools
	Judge judge.Judge
	// Titles matches title phrases in the rule metrics; nil is lexical.
	Titles scoring.TitleMatcher

	Netuid uint16
	Tempo  uint64

	SyncEveryBlocks       uint64
	RaceEveryBlocks       uint64
	WeightsEveryBlocks    uint64
	QualifyingProblems    int
	RaceProblems          int
	QualifyingConcurrency int
	HiddenMinClusters     int
	// QualifyingSeed picks the public qualifying set; every miner runs the
	// same problems.
	QualifyingSeed uint64

	Race    race.Params
	Weights weights.Policy
	Limits  episode.Limits

	// Relay is the inference relay miners' agents take completions
	// through (protocol version 2); nil runs version 1 only.
	Relay episode.Relay
	// Verification is what scoring does with the steps' relay
	// completions (judge.VerifyRequire: relay.required). Requiring it
	// without a Relay is refused: every step would score 0.
	Verification judge.Verification

	// AllowPrivateAxons lets the validator dial loopback and private
	// addresses (a devnet); otherwise such axons are skipped.
	AllowPrivateAxons bool
	// OperatorListen are the operator listeners' addresses (metrics and
	// API); a miner whose axon points at one is skipped.
	OperatorListen []string

	ReconnectMin, ReconnectMax time.Duration

	// DrawSeed, if set, seeds each race's hidden-problem draw from its
	// window (tests that compare two runs); by default the seed is random.
	DrawSeed func(window uint64) uint64

	// OnEvent, if set, receives progress events (arena dev's live view).
	// It is called synchronously and must not block.
	OnEvent func(Event)

	// Retention prunes old stored episodes (store.retention); the zero
	// value keeps every one.
	Retention RetentionOptions
}

func (o *Options) validate() error {
	var errs []error
	if o.Chain == nil || o.FollowHeads == nil || o.Signer == nil || o.Store == nil || o.Ledger == nil || (o.Shop == nil && o.Tools == nil) || o.Judge == nil {
		errs = append(errs, errors.New("chain, heads, signer, store, ledger, shop or tools, and judge are required"))
	}
	if o.Tempo == 0 || o.SyncEveryBlocks == 0 || o.RaceEveryBlocks == 0 || o.WeightsEveryBlocks == 0 {
		errs = append(errs, errors.New("tempo and the sync, race and weights intervals must be positive"))
	}
	if o.QualifyingProblems < 1 || o.RaceProblems < 1 || o.QualifyingConcurrency < 1 {
		errs = append(errs, errors.New("qualifying problems, race problems and qualifying concurrency must be at least 1"))
	}
	if err := o.Race.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Weights.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Limits.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.Retention.MaxAge < 0 || o.Retention.MaxBytes < 0 || o.Retention.Every < 0 {
		errs = append(errs, errors.New("retention limits and interval must not be negative"))
	}
	switch o.Verification {
	case judge.VerifyOff, judge.VerifyRecord:
	case judge.VerifyRequire:
		if o.Relay == nil {
			errs = append(errs, errors.New("verification is required (relay.required) but no relay is configured (relay.base_url): every step would score 0"))
		}
	default:
		errs = append(errs, fmt.Errorf("verification %q: must be off, record or require", o.Verification))
	}
	return errors.Join(errs...)
}

// staleHead is how long without a new head makes the validator unready:
// ten of finney's 12 s blocks.
const staleHead = 2 * time.Minute

// Validator is the daemon: it follows heads and, block by block, syncs the
// metagraph, qualifies miners, runs races, judges and sets weights.
type Validator struct {
	opts   Options
	log    zerolog.Logger
	rec    *records.Records
	runner *episode.Runner
	m      *metrics
	// policy is the judge's policy over a miner's whole run: the
	// template cap and whether a run judged without a model is void.
	policy judge.Policy
	reg    prometheus.Registerer

	mu         sync.Mutex
	meta       *chain.Metagraph
	hyper      *chain.Hyperparams
	selfUID    int // -1 when our hotkey is not registered
	lastSync   uint64
	qualifying map[uint16]bool       // uids with a qualifying run in flight
	retry      map[uint16]retryState // unreachable miners' back-off
	raceBusy   bool
	weightBusy bool
	head       chain.Head
	headSeen   time.Time
	// blockSeconds is a moving average of the wall-clock seconds per block
	// between heads (0 until two heads were seen), for "next race in ~".
	blockSeconds float64
	blockTimer   blockTimer
	// capacityWarned is when the capacity warning was last logged.
	capacityWarned time.Time

	synced     atomic.Bool
	subscribed atomic.Bool
	readyOnce  sync.Once
	readyC     chan struct{}
	work       sync.WaitGroup
	qualifySem chan struct{}

	// legacyEpochsOnce gates the warning that epochs come from chain.tempo.
	legacyEpochsOnce sync.Once
	// share is the subnet's mechanism count and MinerBurned as last read
	// (nil: not read); guarded by mu.
	share                    *chain.SubnetShare
	mechanismsOnce, burnOnce sync.Once

	// cursor is the last head processed before this start (guarded by mu).
	cursor uint64
	// resetReason, once set, says why the chain no longer matches the data
	// dir; the scheduler then does nothing more.
	resetReason atomic.Pointer[string]
	// era is the data dir's chain era (records.Meta.Era), read at start.
	era uint64

	// Another signer with this key (keyguard.go); fatal carries the error
	// that ends Run when it keeps sending.
	keyConflict        atomic.Pointer[keyConflict]
	keyFatalOnce       atomic.Bool
	fatal              chan error
	lastUpdateBaseline uint64
	baselineOnce       sync.Once
	// schedule is the chain's epoch schedule as last read (guarded by mu).
	schedule *chain.EpochSchedule
	// raceCache keeps the race rule's paired counts from one race to the
	// next (used only by finishRace, which one goroutine runs at a time).
	raceCache *race.Cache
}

// New builds a validator. reg receives its metrics (and the episode
// runner's); nil registers none.
func New(opts Options, log zerolog.Logger, reg prometheus.Registerer) (*Validator, error) {
	opts.Limits = opts.Limits.WithDefaults()
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("validator: %w", err)
	}
	log = log.With().Str("component", "validator").Logger()
	if opts.Shop == nil {
		var err error
		if opts.Shop, err = NewShop(ShopOptions{Stock: &Stock{Tools: opts.Tools}}, log, nil); err != nil {
			return nil, fmt.Errorf("validator: %w", err)
		}
	}
	runner, err := episode.NewRunner(episode.RunnerOptions{Signer: opts.Signer, Tools: opts.Shop.Current().Tools, Limits: opts.Limits, Relay: opts.Relay}, log, reg)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	v := &Validator{
		opts: opts, log: log, rec: records.New(), runner: runner, m: m, reg: reg, policy: judge.PolicyOf(opts.Judge),
		selfUID: -1, qualifying: map[uint16]bool{}, retry: map[uint16]retryState{},
		qualifySem: make(chan struct{}, opts.QualifyingConcurrency),
		readyC:     make(chan struct{}),
		fatal:      make(chan error, 1),
	}
	m.standing.read = v.standing
	m.lastHead = func() (chain.Head, time.Time) {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.head, v.headSeen
	}
	return v, nil
}

// Records exposes the validator's keyspaces (for the API, the web console
// and tests).
func (v *Validator) Records() *records.Records { return v.rec }

// Store is the validator's store (the web console reads it).
func (v *Validator) Store() *store.Store { return v.opts.Store }

// Ledger is the validator's suite ledger (the web console reads it).
func (v *Validator) Ledger() *suite.Ledger { return v.opts.Ledger }

// Ready reports whether the validator is ready: the store is open, the
// chain is subscribed and the first sync is done.
func (v *Validator) Ready() (bool, []string) {
	var why []string
	v.mu.Lock()
	seen := v.headSeen
	v.mu.Unlock()
	switch {
	case !v.subscribed.Load():
		why = append(why, "no head received from the chain yet")
	case time.Since(seen) > staleHead:
		why = append(why, fmt.Sprintf("no new head for %s: the chain subscription is down or the node is stalled", time.Since(seen).Round(time.Second)))
	}
	if !v.synced.Load() {
		why = append(why, "first metagraph sync not done")
	}
	if c := v.keyConflict.Load(); c != nil {
		why = append(why, "another process signs with this validator's key: "+c.reason)
	}
	if r := v.resetReason.Load(); r != nil {
		why = append(why, "chain reset: "+*r+"; stop the validator, then run `arena store reset-chain-state` (docs/operations.md)")
	}
	why = append(why, v.opts.Store.Problems()...)
	return len(why) == 0, why
}

// storeBlocksNewWork reports whether the store has a problem (free space
// under the soft limit, failing writes) that holds back new races and
// qualifying runs; the store logs the problem itself when it starts and
// ends. Work in flight goes on.
func (v *Validator) storeBlocksNewWork() bool {
	return len(v.opts.Store.Problems()) > 0
}

// storeError logs a failed store operation. A disk failure the store has
// already logged (once per kind) is logged at debug only, so that a full
// disk does not add an error line per block.
func storeError(log zerolog.Logger, err error, what string) {
	ev := log.Error()
	if store.IsWriteError(err) {
		ev = log.Debug()
	}
	ev.Err(err).Msg(what)
}

// ReadyC is closed once the validator is first ready (see Ready).
func (v *Validator) ReadyC() <-chan struct{} { return v.readyC }

// Run follows the chain until ctx ends. Work in flight (episodes, judging,
// a weights transaction) is given ctx too: episodes end "aborted", and
// whatever completed is already persisted. It returns nil on a clean
// shutdown.
func (v *Validator) Run(ctx context.Context) error {
	if err := v.resume(); err != nil {
		return err
	}
	v.checkCapacity(ctx)
	follower := v.opts.FollowHeads(chain.HeadsOptions{
		ReconnectMin: v.opts.ReconnectMin, ReconnectMax: v.opts.ReconnectMax, Registerer: v.reg,
		OnReset: func(r chain.Reset) { v.chainReset(r.Reason) },
		OnGap: func(g chain.Gap) {
			v.log.Warn().Uint64("from", g.From).Uint64("to", g.To).Uint64("missed", g.Missed).Dur("downtime_ms", g.Downtime).Msg("head gap: blocks not seen live")
			v.emit(Event{Kind: EventGap, Block: g.To, Text: fmt.Sprintf("chain gap of %d blocks (downtime %s)", g.Missed, g.Downtime.Round(time.Millisecond))})
		},
	})
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return follower.Run(gctx) })
	g.Go(func() error {
		select {
		case <-gctx.Done():
			return nil
		case err := <-v.fatal:
			return err
		}
	})
	if v.opts.Retention.Enabled() {
		g.Go(func() error { v.runRetention(gctx); return nil })
	}
	g.Go(func() error {
		for {
			select {
			case <-gctx.Done():
				return nil
			case h := <-follower.Heads():
				// When the scheduler fell behind (a slow store, a busy
				// machine), act on the newest head only: every decision
				// depends on the latest block, and a reveal that waits
				// for stale heads could miss its epoch.
				behind := len(follower.Heads())
				v.m.blocksBehind.Set(float64(behind))
				for ; behind > 0; behind-- {
					h = <-follower.Heads()
				}
				v.onHead(gctx, h)
			}
		}
	})
	err := g.Wait()
	v.work.Wait()
	if ctx.Err() != nil {
		v.log.Info().Msg("validator stopped")
		return nil
	}
	return err
}

// onHead is the block-driven scheduler: everything it starts that takes
// longer than a block runs in its own goroutine, tracked by v.work.
func (v *Validator) onHead(ctx context.Context, h chain.Head) {
	v.subscribed.Store(true)
	if v.resetReason.Load() != nil {
		return // the data dir belongs to another chain: no work, the cursor kept
	}
	v.mu.Lock()
	below := v.cursor
	if v.head.Number > below {
		below = v.head.Number
	}
	v.mu.Unlock()
	if h.Number+chain.DefaultMaxRollback < below {
		v.chainReset(fmt.Sprintf("the chain's head %d is %d blocks below block %d, which this data dir already processed", h.Number, below-h.Number, below))
		return
	}
	v.mu.Lock()
	now := time.Now()
	if prev := v.head.Number; !v.headSeen.IsZero() && h.Number > prev {
		per := now.Sub(v.headSeen).Seconds() / float64(h.Number-prev)
		if v.blockSeconds == 0 {
			v.blockSeconds = per
		} else {
			v.blockSeconds += (per - v.blockSeconds) / 8
		}
	}
	v.head, v.headSeen = h, now
	needSync := v.meta == nil || h.Number >= v.lastSync+v.opts.SyncEveryBlocks
	v.mu.Unlock()
	v.logNextRace(h, now)
	if err := v.opts.Store.Update(func(txn *badger.Txn) error {
		return v.rec.PutCursor(txn, records.Cursor{Block: h.Number, Hash: h.Hash.Hex()})
	}); err != nil {
		storeError(v.log, err, "store: write chain cursor")
	}
	if needSync {
		if err := v.sync(ctx, h.Number); err != nil {
			if ctx.Err() == nil {
				ev := v.log.Warn()
				if store.IsWriteError(err) {
					ev = v.log.Debug() // the store logged the disk fault once
				}
				ev.Err(err).Uint64("block", h.Number).Msg("metagraph sync failed; retrying next block")
			}
			return
		}
	}
	v.scheduleQualifying(ctx, h.Number)
	v.scheduleRace(ctx, h.Number)
	v.scheduleWeights(ctx, h.Number)
}

// sync refreshes the metagraph and hyperparameters and the miner records.
func (v *Validator) sync(ctx context.Context, block uint64) error {
	meta, err := v.opts.Chain.Metagraph(ctx, v.opts.Netuid)
	if err != nil {
		return fmt.Errorf("metagraph: %w", err)
	}
	hyper, err := v.opts.Chain.Hyperparams(ctx, v.opts.Netuid)
	if err != nil {
		return fmt.Errorf("hyperparameters: %w", err)
	}
	self := -1
	if n, ok := meta.ByHotkey(v.opts.Signer.Hotkey()); ok {
		self = int(n.UID)
	}
	serving := 0
	err = v.opts.Store.Update(func(txn *badger.Txn) error {
		for _, n := range meta.Neurons {
			if int(n.UID) == self {
				continue
			}
			m, ok, err := v.rec.GetMiner(txn, n.UID)
			if err != nil {
				return err
			}
			hotkey := n.Hotkey.SS58()
			if !ok || m.Hotkey != hotkey {
				// A new hotkey on the uid starts from scratch.
				m = records.Miner{UID: n.UID, Hotkey: hotkey, FirstSeen: block}
			}
			m.LastSeen = block
			m.RegisteredAt = n.RegisteredAt
			m.Endpoint, m.Skipped = "", ""
			if reason := v.axonProblem(n.Axon); reason != "" {
				m.Skipped = reason
			} else {
				m.Endpoint = n.Axon.HostPort()
				serving++
			}
			if err := v.rec.PutMiner(txn, &m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	v.noteShare(ctx, block)
	first := !v.synced.Load()
	v.mu.Lock()
	v.meta, v.hyper, v.selfUID, v.lastSync = meta, hyper, self, block
	v.mu.Unlock()
	v.m.metagraph.Set(float64(len(meta.Neurons)))
	v.m.serving.Set(float64(serving))
	v.synced.Store(true)
	v.readyOnce.Do(func() { close(v.readyC) })
	if first {
		if self < 0 {
			v.log.Warn().Str("hotkey", v.opts.Signer.Hotkey().SS58()).Str("address", v.opts.Signer.Address.Hex()).
				Msg("this validator's hotkey is not registered on the subnet: it will run miners but cannot set weights")
		}
		v.log.Info().Uint64("block", block).Int("neurons", len(meta.Neurons)).Int("serving", serving).Int("uid", self).
			Bool("commit_reveal", hyper.CommitRevealEnabled).Uint64("rate_limit", hyper.WeightsSetRateLimit).Msg("first sync done; ready")
		v.emit(Event{Kind: EventSync, Block: block, Text: fmt.Sprintf("synced: %d neurons, %d miners serving, our uid %d", len(meta.Neurons), serving, self)})
	}
	if first {
		v.updatePoolMetrics(ctx)
	}
	return nil
}

// axonProblem says why an axon must not be dialled, or "". Chain data is
// untrusted: a miner could point the validator at its own operator port or
// at a privileged service.
func (v *Validator) axonProblem(a chain.Axon) string {
	if !a.Served() {
		return "not serving (no axon announced)"
	}
	ip := a.IP.Unmap()
	switch {
	case !ip.IsValid() || ip.IsUnspecified() || ip.IsMulticast():
		return fmt.Sprintf("axon ip %s is not a unicast address", a.IP)
	case a.Port < 1024:
		return fmt.Sprintf("axon port %d is below 1024", a.Port)
	case slices.ContainsFunc(v.opts.OperatorListen, func(l string) bool { return isOperatorAddr(a, l) }):
		return fmt.Sprintf("axon %s is this validator's operator listener", a.HostPort())
	case !v.opts.AllowPrivateAxons && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast()):
		return fmt.Sprintf("axon ip %s is loopback or private (validator.allow_private_axons is off)", ip)
	}
	return ""
}

func isOperatorAddr(a chain.Axon, listen string) bool {
	ap, err := netip.ParseAddrPort(listen)
	if err != nil {
		return false
	}
	if ap.Port() != a.Port {
		return false
	}
	ip := a.IP.Unmap()
	return ap.Addr().Unmap() == ip || ap.Addr().IsUnspecified() || ip.IsLoopback() && ap.Addr().IsLoopback()
}

// go runs fn as tracked background work.
func (v *Validator) spawn(fn func()) {
	v.work.Add(1)
	go func() {
		defer v.work.Done()
		fn()
	}()
}

// snapshot returns the current metagraph and hyperparameters.
func (v *Validator) snapshot() (*chain.Metagraph, *chain.Hyperparams, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.meta, v.hyper, v.selfUID
}

func (v *Validator) emit(e Event) {
	if v.opts.OnEvent != nil {
		v.opts.OnEvent(e)
	}
}

// resume repairs state left by a crash or a stop: a race that was running
// is aborted (its problems are exposed, so it is re-run on fresh ones); a
// race being judged is finished by the scheduler; pending weights are
// reconciled by the weights loop.
func (v *Validator) resume() error {
	return v.opts.Store.Update(func(txn *badger.Txn) error {
		if c, ok, err := v.rec.GetCursor(txn); err != nil {
			return err
		} else if ok {
			v.log.Info().Uint64("block", c.Block).Str("hash", c.Hash).Msg("resuming: last head processed before the stop")
			v.mu.Lock()
			v.cursor = c.Block
			v.mu.Unlock()
		}
		if m, ok, err := v.rec.GetMeta(txn); err != nil {
			return err
		} else if ok {
			v.era = m.Era
		}
		st, err := v.rec.GetState(txn)
		if err != nil {
			return err
		}
		if st.Current == 0 {
			return nil
		}
		rc, ok, err := v.rec.GetRace(txn, st.Current)
		if err != nil {
			return err
		}
		if !ok {
			v.log.Error().Uint64("race", st.Current).Msg("race state names a race that is not stored; clearing it")
			st.Current = 0
			return v.rec.PutState(txn, st)
		}
		if rc.Phase == records.PhaseRunning {
			rc.Phase = records.PhaseAborted
			rc.AbortReason = "the validator stopped while episodes were in flight; re-run on fresh hidden problems"
			if err := v.rec.PutRace(txn, &rc); err != nil {
				return err
			}
			st.Current = 0
			if st.LastWindow >= rc.Window {
				st.LastWindow = rc.Window - 1 // the window may race again, on new problems
			}
			v.log.Warn().Uint64("race", rc.ID).Msg("race interrupted mid-episodes: aborted; a new race will be drawn")
			return v.rec.PutState(txn, st)
		}
		v.log.Info().Uint64("race", rc.ID).Str("phase", string(rc.Phase)).Msg("resuming race")
		return nil
	})
}

// chainReset stops all work on a data dir whose chain is gone: the node
// now serves another chain (a restarted devnet or testnet). Nothing in the
// store changes, the cursor included; the operator decides, by pointing
// chain.url back at the old chain or by resetting the data dir's chain
// state.
func (v *Validator) chainReset(reason string) {
	if !v.resetReason.CompareAndSwap(nil, &reason) {
		return
	}
	v.m.chainReset.Set(1)
	v.log.Error().Str("reason", reason).Str("data_dir", v.opts.Store.Dir()).
		Msg("chain reset: the node serves another chain than this data dir's; the validator does no more work on it (the store is untouched). Stop it, then point chain.url back at that chain, or run `arena store reset-chain-state --data DIR` to follow the new chain: episodes, verdicts, races and the suite are kept")
	v.emit(Event{Kind: EventChainReset, Text: "chain reset: " + reason})
}
