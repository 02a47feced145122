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
	OnGap      func(Gap)
	Registerer prometheus.Registerer
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
}

// FollowHeads prepares a follower; call Run to start it.
func (c *Client) FollowHeads(opts HeadsOptions) *HeadFollower {
	if opts.Buffer <= 0 {
		opts.Buffer = 64
	}
	if opts.MaxBackfill == 0 {
		opts.MaxBackfill = 256
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
