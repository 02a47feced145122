package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Head is one block as delivered by HeadFollower.
type Head struct {
	Number uint64
	Hash   common.Hash
	Time   uint64
	// Backfilled heads were not seen live on the subscription: they were
	// read back after a reconnect or a jump so the sequence has no holes.
	Backfilled bool
}

// Gap reports heads the subscription did not deliver live.
type Gap struct {
	From, To uint64        // inclusive range of missed block numbers
	Missed   uint64        // To - From + 1
	Skipped  uint64        // how many of them were too old to backfill
	Downtime time.Duration // time since the subscription dropped (0 if it did not)
}

// Reset reports that the node now serves another chain than the one the
// follower started on: its genesis block changed (a devnet or testnet
// restarted under the same URL), or its head fell further below the last
// delivered head than any reorg goes.
type Reset struct {
	Last, Head uint64 // the last delivered head and the node's head now
	Reason     string
}

// DefaultMaxRollback is how far below the last delivered head the node's
// head may fall (a reorg, a node catching up behind a load balancer)
// before it is taken for another chain.
const DefaultMaxRollback = 64

// HeadsOptions configures a HeadFollower.
type HeadsOptions struct {
	// Buffer is the capacity of the Heads channel; default 64.
	Buffer int
	// MaxBackfill caps how many missed heads are read back after a gap;
	// older ones are reported as skipped. Default 256.
	MaxBackfill uint64
	// ReconnectMin/Max bound the capped exponential backoff between
	// resubscribe attempts; defaults 500ms and 30s.
	ReconnectMin, ReconnectMax time.Duration
	// OnGap, if set, is called synchronously for every gap.
	OnGap func(Gap)
	// OnReset, if set, is called synchronously, once, when the node is
	// found serving another chain (Reset). Heads of that chain at or below
	// the last delivered number are never delivered.
	OnReset func(Reset)
	// MaxRollback is how far the head may fall below the last delivered
	// one before that counts as a reset; default DefaultMaxRollback.
	MaxRollback uint64
	Registerer  prometheus.Registerer
}

// HeadFollower delivers new heads in strictly increasing order without
// duplicates, surviving websocket drops: on error it resubscribes with capped
// exponential backoff, re-reads the head, and backfills what it missed.
type HeadFollower struct {
	client  *Client
	opts    HeadsOptions
	log     zerolog.Logger
	out     chan Head
	metrics *headMetrics

	last      uint64
	haveLast  bool
	droppedAt time.Time
	// genesis is the hash of block 0 at the first subscription.
	genesis    common.Hash
	resetFired bool
}

// FollowHeads prepares a follower; call Run to start it.
func (c *Client) FollowHeads(opts HeadsOptions) *HeadFollower {
	if opts.Buffer <= 0 {
		opts.Buffer = 64
	}
	if opts.MaxBackfill == 0 {
		opts.MaxBackfill = 256
	}
	if opts.MaxRollback == 0 {
		opts.MaxRollback = DefaultMaxRollback
	}
	if opts.ReconnectMin <= 0 {
		opts.ReconnectMin = 500 * time.Millisecond
	}
	if opts.ReconnectMax < opts.ReconnectMin {
		opts.ReconnectMax = max(30*time.Second, opts.ReconnectMin)
	}
	return &HeadFollower{
		client:  c,
		opts:    opts,
		log:     c.log.With().Str("component", "chain.heads").Logger(),
		out:     make(chan Head, opts.Buffer),
		metrics: newHeadMetrics(opts.Registerer),
	}
}

// Heads is closed when Run returns.
func (f *HeadFollower) Heads() <-chan Head { return f.out }

// Run follows heads until ctx ends. It returns nil on cancellation; it never
// gives up on a reachable-again node.
func (f *HeadFollower) Run(ctx context.Context) error {
	defer close(f.out)
	backoff := f.opts.ReconnectMin
	for {
		err := f.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if f.droppedAt.IsZero() {
			f.droppedAt = time.Now()
		}
		wait := jitter(backoff)
		f.log.Warn().Err(err).Dur("retry_in_ms", wait).Msg("head subscription lost")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		if errors.Is(err, errSubscribed) {
			backoff = f.opts.ReconnectMin
		} else {
			backoff = min(backoff*2, f.opts.ReconnectMax)
		}
	}
}

// errSubscribed marks a failure after a subscription had been established,
// which resets the backoff.
var errSubscribed = errors.New("subscription dropped")

func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// follow subscribes once and pumps heads until the subscription fails.
func (f *HeadFollower) follow(ctx context.Context) error {
	ch := make(chan *types.Header, f.opts.Buffer)
	sub, err := f.client.eth.SubscribeNewHead(ctx, ch)
	if err != nil {
		return fmt.Errorf("eth_subscribe newHeads: %w", err)
	}
	defer sub.Unsubscribe()
	if f.haveLast {
		f.metrics.reconnects.Inc()
		f.log.Info().Uint64("last_head", f.last).Msg("head subscription re-established")
	}
	// A subscription only carries heads from now on: read the current head
	// so a gap while we were away is noticed even if no block comes soon.
	callCtx, cancel := context.WithTimeout(ctx, f.client.opts.CallTimeout)
	latest, err := f.client.eth.HeaderByNumber(callCtx, nil)
	cancel()
	if err != nil {
		return fmt.Errorf("read head after subscribing: %w", err)
	}
	// The node behind the URL may have been replaced by another chain
	// while the subscription was down.
	callCtx, cancel = context.WithTimeout(ctx, f.client.opts.CallTimeout)
	genesis, err := f.client.eth.HeaderByNumber(callCtx, big.NewInt(0))
	cancel()
	if err != nil {
		return fmt.Errorf("read the genesis block after subscribing: %w", err)
	}
	switch {
	case f.genesis == (common.Hash{}):
		f.genesis = genesis.Hash()
	case genesis.Hash() != f.genesis:
		f.signalReset(Reset{Last: f.last, Head: latest.Number.Uint64(),
			Reason: fmt.Sprintf("the node's genesis block changed from %s to %s", f.genesis.Hex(), genesis.Hash().Hex())})
	}
	if err := f.deliver(ctx, latest); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-sub.Err():
			if err == nil {
				err = rpc.ErrClientQuit
			}
			return fmt.Errorf("%w: %v", errSubscribed, err)
		case h := <-ch:
			if err := f.deliver(ctx, h); err != nil {
				return err
			}
		}
	}
}

// deliver emits h after backfilling any hole since the last delivered head.
// Heads at or below the last delivered number are dropped (duplicates from
// a resubscribe, or an old head re-announced).
func (f *HeadFollower) deliver(ctx context.Context, h *types.Header) error {
	n := h.Number.Uint64()
	if f.haveLast && n+f.opts.MaxRollback < f.last {
		f.signalReset(Reset{Last: f.last, Head: n,
			Reason: fmt.Sprintf("the node's head %d is %d blocks below the last head %d, more than any reorg", n, f.last-n, f.last)})
	}
	if f.haveLast && n <= f.last {
		return nil
	}
	if f.haveLast && n > f.last+1 {
		gap := Gap{From: f.last + 1, To: n - 1}
		gap.Missed = gap.To - gap.From + 1
		if !f.droppedAt.IsZero() {
			gap.Downtime = time.Since(f.droppedAt)
		}
		start := gap.From
		if gap.Missed > f.opts.MaxBackfill {
			gap.Skipped = gap.Missed - f.opts.MaxBackfill
			start = gap.To - f.opts.MaxBackfill + 1
		}
		f.reportGap(gap)
		for num := start; num <= gap.To; num++ {
			callCtx, cancel := context.WithTimeout(ctx, f.client.opts.CallTimeout)
			missed, err := f.client.eth.HeaderByNumber(callCtx, new(big.Int).SetUint64(num))
			cancel()
			if err != nil {
				return fmt.Errorf("backfill head %d: %w", num, err)
			}
			if err := f.emit(ctx, missed, true); err != nil {
				return err
			}
		}
	}
	f.droppedAt = time.Time{}
	return f.emit(ctx, h, false)
}

func (f *HeadFollower) signalReset(r Reset) {
	if f.resetFired {
		return
	}
	f.resetFired = true
	f.metrics.resets.Inc()
	f.log.Error().Uint64("last_head", r.Last).Uint64("head", r.Head).Str("reason", r.Reason).Msg("chain reset: the node serves another chain")
	if f.opts.OnReset != nil {
		f.opts.OnReset(r)
	}
}

func (f *HeadFollower) reportGap(g Gap) {
	f.metrics.gapBlocks.Add(float64(g.Missed))
	f.metrics.lastGap.Set(float64(g.Missed))
	f.log.Warn().Uint64("from", g.From).Uint64("to", g.To).Uint64("missed", g.Missed).
		Uint64("skipped", g.Skipped).Dur("downtime_ms", g.Downtime).Msg("head gap")
	if f.opts.OnGap != nil {
		f.opts.OnGap(g)
	}
}

func (f *HeadFollower) emit(ctx context.Context, h *types.Header, backfilled bool) error {
	head := Head{Number: h.Number.Uint64(), Hash: h.Hash(), Time: h.Time, Backfilled: backfilled}
	select {
	case f.out <- head:
	case <-ctx.Done():
		return ctx.Err()
	}
	f.last, f.haveLast = head.Number, true
	f.metrics.head.Set(float64(head.Number))
	return nil
}
