package relay

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"arena/episode"
)

type metrics struct {
	requests *prometheus.CounterVec
	tokens   *prometheus.CounterVec
	provider prometheus.Histogram
	overhead prometheus.Histogram
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_relay_requests_total",
			Help: "Infer requests by outcome: ok or the infer error code.",
		}, []string{"outcome"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_relay_tokens_total",
			Help: "Tokens the provider reported for relayed completions, by kind (prompt, completion).",
		}, []string{"kind"}),
		provider: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "arena_relay_provider_seconds",
			Help:    "Provider time per relayed completion.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2.5, 10),
		}),
		overhead: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "arena_relay_overhead_seconds",
			Help:    "Relay time per completion outside the provider call: checks, budget, recording.",
			Buckets: prometheus.ExponentialBuckets(10e-6, 3, 10),
		}),
	}
	// The outcomes the failure-ratio alert divides exist from the start, so
	// that increase() sees the first provider failure too.
	for _, o := range []string{"ok", episode.InferProviderError} {
		m.requests.WithLabelValues(o)
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.requests, m.tokens, m.provider, m.overhead} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("relay: register metrics: %w", err)
			}
		}
	}
	return m, nil
}
