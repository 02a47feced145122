package chain

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

type clientMetrics struct {
	rpcErrors        prometheus.Counter
	metagraphSeconds prometheus.Histogram
	txSent           *prometheus.CounterVec
	txRejected       *prometheus.CounterVec
}

func newClientMetrics(reg prometheus.Registerer) *clientMetrics {
	m := &clientMetrics{
		rpcErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_chain_rpc_errors_total", Help: "JSON-RPC calls or batches that failed.",
		}),
		metagraphSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "arena_chain_metagraph_sync_seconds", Help: "Time to read a full metagraph snapshot.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 12),
		}),
		txSent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_chain_tx_total", Help: "Weights transactions mined, by operation.",
		}, []string{"op"}),
		txRejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_chain_tx_rejected_total", Help: "Weights transactions refused, by operation and by whom (preflight or chain).",
		}, []string{"op", "by"}),
	}
	m.rpcErrors = register(reg, m.rpcErrors)
	m.metagraphSeconds = register(reg, m.metagraphSeconds)
	m.txSent = register(reg, m.txSent)
	m.txRejected = register(reg, m.txRejected)
	return m
}

type headMetrics struct {
	head       prometheus.Gauge
	gapBlocks  prometheus.Counter
	lastGap    prometheus.Gauge
	reconnects prometheus.Counter
	resets     prometheus.Counter
}

func newHeadMetrics(reg prometheus.Registerer) *headMetrics {
	m := &headMetrics{
		head: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_chain_head_block", Help: "Latest block number delivered by the head follower.",
		}),
		gapBlocks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_chain_head_gap_blocks_total", Help: "Blocks not seen live on the subscription (missed while disconnected or skipped by the node).",
		}),
		lastGap: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_chain_head_last_gap_blocks", Help: "Size of the most recent head gap.",
		}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_chain_resubscribes_total", Help: "Head subscriptions re-established after a drop.",
		}),
		resets: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_chain_resets_total", Help: "Times the node was found serving another chain (genesis changed, or the head fell far below the last).",
		}),
	}
	m.head = register(reg, m.head)
	m.gapBlocks = register(reg, m.gapBlocks)
	m.lastGap = register(reg, m.lastGap)
	m.reconnects = register(reg, m.reconnects)
	m.resets = register(reg, m.resets)
	return m
}

// register ignores a nil registerer (metrics off) and, when a collector of
// the same name is already registered (a second client in one process),
// shares the existing one so both feed the same series.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if reg == nil {
		return c
	}
	if err := reg.Register(c); err != nil {
		var dup prometheus.AlreadyRegisteredError
		if errors.As(err, &dup) {
			if existing, ok := dup.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(err) // conflicting metric definitions are a programming error
	}
	return c
}
