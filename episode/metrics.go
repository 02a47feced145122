package episode

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

type runnerMetrics struct {
	episodes   *prometheus.CounterVec
	handshakes *prometheus.CounterVec
	steps      prometheus.Counter
	active     prometheus.Gauge
	minerStep  prometheus.Histogram
	overhead   prometheus.Histogram
}

func newRunnerMetrics(reg prometheus.Registerer) (*runnerMetrics, error) {
	m := &runnerMetrics{
		episodes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_episode_episodes_total",
			Help: "Episodes run by the validator, by end reason.",
		}, []string{"reason"}),
		handshakes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_episode_handshakes_total",
			Help: "Validator handshakes with miners, by outcome (ok or an end reason).",
		}, []string{"outcome"}),
		steps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_episode_steps_total",
			Help: "Agent steps received and processed.",
		}),
		active: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "arena_episode_active",
			Help: "Episodes in flight.",
		}),
		minerStep: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "arena_episode_step_miner_seconds",
			Help:    "Miner time per step: from sending the prompt to receiving the step.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}),
		overhead: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "arena_episode_step_overhead_seconds",
			Help:    "Validator time per step outside tool execution: routing, checks, encoding and sending the observation.",
			Buckets: prometheus.ExponentialBuckets(10e-6, 3, 10),
		}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.episodes, m.handshakes, m.steps, m.active, m.minerStep, m.overhead} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("episode runner: register metrics: %w", err)
			}
		}
	}
	return m, nil
}

type serverMetrics struct {
	handshakes *prometheus.CounterVec
	episodes   *prometheus.CounterVec
	steps      prometheus.Counter
}

func newServerMetrics(reg prometheus.Registerer) (*serverMetrics, error) {
	m := &serverMetrics{
		handshakes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_episode_server_handshakes_total",
			Help: "Miner-side handshakes with validators, by outcome (ok or a reason).",
		}, []string{"outcome"}),
		episodes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "arena_episode_server_episodes_total",
			Help: "Episodes served by the miner, by the reason the validator gave (or busy, disconnected).",
		}, []string{"reason"}),
		steps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_episode_server_steps_total",
			Help: "Steps sent by the miner's agent.",
		}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.handshakes, m.episodes, m.steps} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("episode server: register metrics: %w", err)
			}
		}
	}
	return m, nil
}
