package validator

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"arena/chain"
	"arena/scoring/race"
	"arena/suite"
)

type metrics struct {
	headAge      prometheus.GaugeFunc
	blocksBehind prometheus.Gauge
	metagraph    prometheus.Gauge
	serving      prometheus.Gauge
	judgeSeconds *prometheus.HistogramVec
	verdicts     *prometheus.CounterVec
	phase        *prometheus.GaugeVec
	raceErrors   *prometheus.CounterVec
	standing     *standingCollector
	races        *prometheus.CounterVec
	submissions  *prometheus.CounterVec
	sinceWeights prometheus.Gauge
	// weightsInterval and activityCutoff put sinceWeights in scale for
	// alerts: the least blocks between two weights, and the subnet's bound
	// past which a silent validator loses its standing.
	weightsInterval, activityCutoff prometheus.Gauge
	// The chain's epoch schedule as last read (StorageQuery).
	epochIndex, tempo, nextEpochBlock prometheus.Gauge
	// The subnet's mechanisms and MinerBurned as last read.
	mechanisms, minerBurned prometheus.Gauge
	// chainReset is 1 once the node serves another chain than the data dir's.
	chainReset prometheus.Gauge
	// keyInUse is 1 once another process was seen signing with this key.
	keyInUse prometheus.Gauge
	pool     *prometheus.GaugeVec
	// The hidden pool's capacity as last estimated (capacity.go).
	capacitySeconds, restockCoverage prometheus.Gauge
	compromised                      prometheus.Counter
	hiddenUsed                       prometheus.Counter
	templated                        *prometheus.CounterVec
	void                             *prometheus.CounterVec
	// Store retention: episodes pruned, and the bytes left.
	pruned       *prometheus.CounterVec
	episodeBytes prometheus.Gauge

	lastHead func() (chain.Head, time.Time)
}

// racePhases are the values of arena_validator_race_phase's label.
var racePhases = []string{"idle", "running", "judging"}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		blocksBehind: prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_blocks_behind",
			Help: "Blocks between the chain's head and the last head the scheduler processed."}),
		metagraph: prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_metagraph_neurons",
			Help: "Neurons in the subnet's metagraph at the last sync."}),
		serving: prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_serving_miners",
			Help: "Miners with a usable axon at the last sync."}),
		judgeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "arena_validator_judge_seconds",
			Help:    "Time to score one trajectory (rule metrics and reasoning judge), by judge.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"judge"}),
		verdicts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_validator_verdicts_total",
			Help: "Trajectories judged, by judge and whether the judge fell back to grounding."}, []string{"judge", "fallback"}),
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "arena_validator_race_phase",
			Help: "1 for the race phase the validator is in (idle, running, judging), 0 for the others."}, []string{"phase"}),
		raceErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_validator_race_errors_total",
			Help: "Race steps that failed, by phase (plan, start, run, judge, apply); the step runs again on a later head."}, []string{"phase"}),
		standing: &standingCollector{
			leader: prometheus.NewDesc("arena_validator_leader_uid",
				"Uid of the current race leader, -1 when there is none.", nil, nil),
			qualifiers: prometheus.NewDesc("arena_validator_qualifiers",
				"Challengers at or above the qualifying bar at the current head: those arena status lists, who race next.", nil, nil),
		},
		races: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_validator_races_total",
			Help: "Races decided, by outcome (crowned, undecided, defended, dethroned, no_racers, void)."}, []string{"outcome"}),
		submissions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_validator_weights_submissions_total",
			Help: "Weights transactions, by operation (set, commit, reveal) and result (ok, rejected, error)."}, []string{"op", "result"}),
		sinceWeights: prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_blocks_since_weights",
			Help: "Blocks since this validator's weights last landed on chain (its last_update)."}),
		pool: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "arena_suite_pool_clusters",
			Help: "Leak clusters in the suite, by partition (public, hidden, retired, compromised)."}, []string{"partition"}),
		compromised: prometheus.NewCounter(prometheus.CounterOpts{Name: "arena_validator_compromised_clusters_total",
			Help: "Clusters marked compromised because an answer named a product the agent never observed."}),
	}
	m.capacitySeconds = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_suite_capacity_seconds",
		Help: "Time (in seconds; divide by 86400 for days) of races the hidden pool and the catalog's unused products sustain at this validator's race rate, before any further restock (an upper bound: it assumes every unused product can be a target)."})
	m.restockCoverage = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_suite_restock_coverage_ratio",
		Help: "Products the catalog's restocks add a day over those the races use a day; at 1 or more the hidden pool never runs dry (0: the catalog never restocks)."})
	m.hiddenUsed = prometheus.NewCounter(prometheus.CounterOpts{Name: "arena_validator_hidden_clusters_used_total",
		Help: "Hidden leak clusters exposed by races (one per race problem); rate() over a day is the pool's consumption."})
	m.templated = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_validator_templated_runs_total",
		Help: "Qualifying runs and racers in a race whose thinks followed one template (reasoning score capped at judge.template_cap), by kind (qualifying, race)."}, []string{"kind"})
	m.void = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_validator_void_runs_total",
		Help: "Void runs by kind: qualifying runs (qualifying) and races (race) judged while no llm judge model answered, under judge.on_unavailable: void, and qualifying runs and racers (racer) during which the relay's provider failed."}, []string{"kind"})
	m.weightsInterval = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_weights_interval_blocks",
		Help: "Least blocks between two of this validator's weights: the larger of the chain's weights rate limit and validator.weights_every_blocks."})
	m.activityCutoff = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_chain_activity_cutoff_blocks",
		Help: "The subnet's ActivityCutoff as last read: blocks without weights after which a validator no longer counts as active."})
	m.epochIndex = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_chain_epoch_index",
		Help: "The subnet's SubnetEpochIndex as last read from the chain (commit-reveal counts epochs with it); 0 when the chain has no StorageQuery precompile."})
	m.tempo = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_chain_tempo_blocks",
		Help: "The subnet's Tempo as last read from the chain."})
	m.nextEpochBlock = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_chain_next_epoch_block",
		Help: "The block the subnet's next epoch is expected at (LastEpochBlock + Tempo, or an earlier owner-triggered PendingEpochAt)."})
	m.mechanisms = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_chain_mechanisms",
		Help: "The subnet's mechanism count (MechanismCountCurrent); weights over EVM reach mechanism 0 only."})
	m.minerBurned = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_chain_miner_burned_ratio",
		Help: "The share of the subnet's last-epoch miner emission withheld from miners (MinerBurned); the subnet's emission share is weighed by 1 minus it."})
	m.keyInUse = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_key_in_use",
		Help: "1 once another process was seen signing with this validator's key; no weights are set from then on."})
	m.chainReset = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_chain_reset",
		Help: "1 when the node serves another chain than the one the data dir was built on (the validator does no work until the operator acts; docs/operations.md)."})
	m.pruned = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_validator_pruned_episodes_total",
		Help: "Stored episodes deleted by store.retention, by reason (age: older than max_age; size: the oldest while episodes took more than max_size)."}, []string{"reason"})
	m.episodeBytes = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_validator_episode_bytes",
		Help: "Bytes of stored episodes and verdicts (keys and values) after the last store.retention run; 0 until one ran."})
	for _, r := range []string{pruneAge, pruneSize} {
		m.pruned.WithLabelValues(r)
	}
	// Every series an alert or a panel selects exists from the start, so
	// that increase() sees the first event too (a series born at 1 has no
	// increase).
	for _, k := range []string{"qualifying", "race"} {
		m.templated.WithLabelValues(k)
		m.void.WithLabelValues(k)
	}
	m.void.WithLabelValues("racer")
	for _, o := range race.DecidedOutcomes() {
		m.races.WithLabelValues(string(o))
	}
	m.headAge = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "arena_validator_head_age_seconds",
		Help: "Seconds since the scheduler last received a head."}, func() float64 {
		if m.lastHead == nil {
			return 0
		}
		_, at := m.lastHead()
		if at.IsZero() {
			return 0
		}
		return time.Since(at).Seconds()
	})
	for _, p := range racePhases {
		m.phase.WithLabelValues(p).Set(0)
	}
	m.phase.WithLabelValues("idle").Set(1)
	for _, p := range raceErrorPhases {
		m.raceErrors.WithLabelValues(p)
	}
	for _, p := range suite.Partitions() {
		m.pool.WithLabelValues(string(p))
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.headAge, m.blocksBehind, m.metagraph, m.serving, m.judgeSeconds, m.verdicts,
		m.phase, m.standing, m.races, m.submissions, m.sinceWeights, m.weightsInterval, m.activityCutoff, m.pool, m.capacitySeconds, m.restockCoverage, m.compromised, m.hiddenUsed,
		m.templated, m.void, m.raceErrors, m.epochIndex, m.tempo, m.nextEpochBlock, m.mechanisms, m.minerBurned, m.chainReset, m.keyInUse,
		m.pruned, m.episodeBytes} {
		if err := reg.Register(c); err != nil {
			return nil, errors.Join(errors.New("validator metrics"), err)
		}
	}
	return m, nil
}

func (m *metrics) setPhase(phase string) {
	for _, p := range racePhases {
		v := 0.0
		if p == phase {
			v = 1
		}
		m.phase.WithLabelValues(p).Set(v)
	}
}

// standingCollector reports the leader and the qualifiers from the store
// at scrape time, through the reading arena status shows, so the two
// agree at any moment: after a restart, before the first race, and while
// qualifying runs finish between races.
type standingCollector struct {
	leader, qualifiers *prometheus.Desc
	// read returns the leader's uid (-1 for none) and the qualifiers'
	// count; on an error the series are left out of that scrape.
	read func() (leader, qualifiers int, err error)
}

func (c *standingCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.leader
	ch <- c.qualifiers
}

func (c *standingCollector) Collect(ch chan<- prometheus.Metric) {
	if c.read == nil {
		return
	}
	leader, qualifiers, err := c.read()
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.leader, prometheus.GaugeValue, float64(leader))
	ch <- prometheus.MustNewConstMetric(c.qualifiers, prometheus.GaugeValue, float64(qualifiers))
}
