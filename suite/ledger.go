package suite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/store"
)

// Partition is where a leak cluster stands.
type Partition string

// Partitions. A cluster moves public→(exposure recorded) and
// hidden→retired when a race exposes it; any cluster may become
// compromised when a leak is detected. Nothing ever moves back to hidden.
const (
	Public      Partition = "public"      // qualifying problems; published, may leak
	Hidden      Partition = "hidden"      // race problems, never shown before a race
	Retired     Partition = "retired"     // exposed to miners in a race
	Compromised Partition = "compromised" // a leak was detected
)

// Partitions lists them in display order.
func Partitions() []Partition { return []Partition{Public, Hidden, Retired, Compromised} }

// ParsePartition reads a partition name.
func ParsePartition(s string) (Partition, error) {
	for _, p := range Partitions() {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown partition %q: want public, hidden, retired or compromised", s)
}

// Exposure is one showing of a cluster's problems to miners.
type Exposure struct {
	Block  uint64   `json:"block"`
	Miners []string `json:"miners"`
}

// ClusterRecord is a leak cluster as the ledger keeps it.
type ClusterRecord struct {
	ID        string    `json:"id"`
	Partition Partition `json:"partition"`
	Problems  []string  `json:"problems"` // in the order they joined
	Targets   []string  `json:"targets"`  // sorted, distinct
	// FirstExposed is the block of the first exposure (0: never exposed).
	FirstExposed uint64     `json:"first_exposed,omitempty"`
	Exposures    []Exposure `json:"exposures,omitempty"`
	Reason       string     `json:"reason,omitempty"` // why it was compromised
}

// Exposed reports whether the cluster was ever shown to a miner.
func (c *ClusterRecord) Exposed() bool { return c.FirstExposed != 0 || len(c.Exposures) > 0 }

// LedgerOptions configure NewLedger.
type LedgerOptions struct {
	// Store persists the ledger (required).
	Store *store.Store
	// Cluster tunes near-duplicate detection.
	Cluster ClusterOptions
	// ProblemsPerRace is how many hidden clusters one race uses, for
	// Stats' "races covered" (default 10).
	ProblemsPerRace int
	// MaxRefillRounds bounds Refill's generate-and-add rounds (default 8).
	MaxRefillRounds int
	// WriteBatch is how many problems Add writes per transaction, to stay
	// under Badger's transaction size (default 1000).
	WriteBatch int
}

// Ledger is the exposure ledger: problems, their leak clusters, the
// clusters' partitions and every exposure, persisted in the store. It is
// safe for concurrent use; each operation is one or more store
// transactions, and the ones that must be atomic (MarkExposed,
// MarkCompromised) are one.
type Ledger struct {
	opts     LedgerOptions
	st       *store.Store
	log      zerolog.Logger
	problems store.Keyspace[Problem]
	clusters store.Keyspace[ClusterRecord]
	targets  store.Keyspace[string]
	meta     store.Keyspace[uint64]
	// pool indexes the drawable hidden clusters, so a race draw and the
	// refill check read the pool, not every cluster ever made.
	pool store.Keyspace[uint64]

	// mu serialises Add, which reads and extends the cache.
	mu    sync.Mutex
	cache *ledgerCache

	draws    prometheus.Counter
	exposed  prometheus.Counter
	discards prometheus.Counter
}

// NewLedger opens the ledger over opts.Store. reg may be nil.
func NewLedger(opts LedgerOptions, log zerolog.Logger, reg prometheus.Registerer) (*Ledger, error) {
	if opts.Store == nil {
		return nil, errors.New("suite ledger: Store is required")
	}
	if opts.ProblemsPerRace == 0 {
		opts.ProblemsPerRace = 10
	}
	if opts.MaxRefillRounds == 0 {
		opts.MaxRefillRounds = 8
	}
	if opts.WriteBatch == 0 {
		opts.WriteBatch = 1000
	}
	if opts.ProblemsPerRace < 1 || opts.MaxRefillRounds < 1 || opts.WriteBatch < 1 {
		return nil, fmt.Errorf("suite ledger: ProblemsPerRace %d, MaxRefillRounds %d and WriteBatch %d must be positive",
			opts.ProblemsPerRace, opts.MaxRefillRounds, opts.WriteBatch)
	}
	if _, err := opts.Cluster.withDefaults(); err != nil {
		return nil, fmt.Errorf("suite ledger: %w", err)
	}
	l := &Ledger{
		opts:     opts,
		st:       opts.Store,
		log:      log.With().Str("component", "suite.ledger").Logger(),
		problems: store.NewKeyspace[Problem](store.PrefixSuiteProblems, "suite-problems", store.JSON[Problem]{}),
		clusters: store.NewKeyspace[ClusterRecord](store.PrefixSuiteClusters, "suite-clusters", store.JSON[ClusterRecord]{}),
		targets:  store.NewKeyspace[string](store.PrefixSuiteTargets, "suite-targets", store.JSON[string]{}),
		meta:     store.NewKeyspace[uint64](store.PrefixSuiteMeta, "suite-meta", store.JSON[uint64]{}),
		pool:     store.NewKeyspace[uint64](store.PrefixSuitePool, "suite-pool", store.JSON[uint64]{}),
		draws: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_suite_drawn_problems_total", Help: "Problems drawn from the suite for qualifying or races."}),
		exposed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_suite_exposed_clusters_total", Help: "Cluster exposures recorded in the ledger."}),
		discards: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "arena_suite_discarded_problems_total", Help: "New problems discarded because they fell into an existing non-hidden cluster."}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{l.draws, l.exposed, l.discards} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("suite ledger: register metrics: %w", err)
			}
		}
	}
	return l, nil
}

// ledgerCache keeps what Add needs of every stored problem (id, cluster,
// targets, query signature) in memory, so adding a batch does not decode
// and re-hash the whole ledger. The ledger is the only writer of problems
// (Badger locks the directory to one process), so the cache stays true.
type ledgerCache struct {
	problems []Problem // ID, Cluster, Targets only
	sigs     [][]uint64
	known    map[string]bool
}

func (l *Ledger) loadCache(ctx context.Context) (*ledgerCache, error) {
	if l.cache != nil {
		return l.cache, nil
	}
	all, err := l.AllProblems(ctx)
	if err != nil {
		return nil, err
	}
	opts, _ := l.opts.Cluster.withDefaults()
	sigs, err := signatures(ctx, all, 0, opts)
	if err != nil {
		return nil, err
	}
	c := &ledgerCache{sigs: sigs, known: make(map[string]bool, len(all))}
	for _, p := range all {
		c.problems = append(c.problems, Problem{ID: p.ID, Cluster: p.Cluster, Targets: p.Targets})
		c.known[p.ID] = true
	}
	l.cache = c
	return c, nil
}

// ErrPoolExhausted means a draw asked for more clusters than are available.
var ErrPoolExhausted = errors.New("not enough undrawn clusters")

// AddReport says what Add did with each problem.
type AddReport struct {
	Added       int // stored, in a new cluster or joining one of the same partition
	NewClusters int
	Joined      int // of Added, joined an existing cluster
	Known       int // already in the ledger (same content id)
	Discarded   int // fell into an existing cluster it may not join
}

// Add stores problems in partition part (public or hidden), clustering them
// with each other and with every problem already in the ledger:
//
//   - a group touching no existing cluster becomes a new cluster;
//   - a group touching exactly one existing, never-exposed cluster of the
//     same partition joins it;
//   - any other group is discarded, because its problems are
//     near-duplicates of, or share a target with, problems that were or may
//     have been seen (or would merge two clusters).
//
// Add is idempotent: problems already stored are skipped.
func (l *Ledger) Add(ctx context.Context, problems []Problem, part Partition) (AddReport, error) {
	var rep AddReport
	if part != Public && part != Hidden {
		return rep, fmt.Errorf("add problems: partition %q: new problems go to public or hidden", part)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cache, err := l.loadCache(ctx)
	if err != nil {
		return rep, err
	}
	known := map[string]bool{}
	var fresh []Problem
	for i := range problems {
		p := problems[i]
		if err := p.Finish(); err != nil {
			return rep, fmt.Errorf("add problems: problem %d (%s): %w", i, p.ID, err)
		}
		if cache.known[p.ID] || known[p.ID] {
			rep.Known++
			continue
		}
		known[p.ID] = true
		fresh = append(fresh, p)
	}
	if len(fresh) == 0 {
		return rep, nil
	}
	opts, _ := l.opts.Cluster.withDefaults()
	freshSigs, err := signatures(ctx, fresh, len(cache.problems), opts)
	if err != nil {
		return rep, err
	}
	all := append(slices.Clone(cache.problems), fresh...)
	sigs := append(slices.Clone(cache.sigs), freshSigs...)
	uf := newUnionFind(len(all))
	byTarget := map[string]int32{}
	for i := range all {
		for _, t := range all[i].Targets {
			if j, ok := byTarget[t]; ok {
				uf.union(j, int32(i))
			} else {
				byTarget[t] = int32(i)
			}
		}
	}
	cl, err := clusterSigned(ctx, all, sigs, uf, opts)
	if err != nil {
		return rep, fmt.Errorf("add problems: %w", err)
	}
	clusterOf := map[string]string{} // existing problem -> ledger cluster
	for _, p := range cache.problems {
		clusterOf[p.ID] = p.Cluster
	}
	byID := map[string]*ClusterRecord{}
	freshByID := map[string]*Problem{}
	freshIndex := map[string]int{}
	for i := range fresh {
		freshByID[fresh[i].ID] = &fresh[i]
		freshIndex[fresh[i].ID] = i
	}
	type write struct {
		rec      *ClusterRecord
		problems []*Problem
	}
	var writes []write
	for _, group := range cl.Clusters {
		var newOnes []*Problem
		touched := map[string]bool{}
		for _, id := range group.Problems {
			if p, ok := freshByID[id]; ok {
				newOnes = append(newOnes, p)
			} else {
				touched[clusterOf[id]] = true
			}
		}
		if len(newOnes) == 0 {
			continue
		}
		var rec *ClusterRecord
		switch len(touched) {
		case 0:
			ids := make([]string, len(newOnes))
			for i, p := range newOnes {
				ids[i] = p.ID
			}
			rec = &ClusterRecord{ID: ClusterID(ids), Partition: part}
			rep.NewClusters++
		case 1:
			for id := range touched {
				if rec = byID[id]; rec == nil {
					c, ok, err := l.ClusterRecord(id)
					if err != nil {
						return rep, err
					}
					if ok {
						rec = &c
						byID[id] = rec
					}
				}
			}
			if rec == nil || rec.Partition != part || rec.Exposed() {
				rec = nil
			} else {
				rep.Joined += len(newOnes)
			}
		}
		if rec == nil {
			rep.Discarded += len(newOnes)
			continue
		}
		for _, p := range newOnes {
			p.Cluster = rec.ID
			rec.Problems = append(rec.Problems, p.ID)
			rec.Targets = append(rec.Targets, p.Targets...)
		}
		rec.Targets = dedupe(rec.Targets)
		writes = append(writes, write{rec, newOnes})
		rep.Added += len(newOnes)
	}
	// Write whole groups, several per transaction: a crash between
	// transactions leaves complete groups, and a rerun skips them.
	for start := 0; start < len(writes); {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		end, n := start, 0
		for end < len(writes) && (n == 0 || n+len(writes[end].problems) <= l.opts.WriteBatch) {
			n += len(writes[end].problems)
			end++
		}
		err := l.st.Update(func(txn *badger.Txn) error {
			for _, w := range writes[start:end] {
				if err := l.clusters.Put(txn, l.clusters.Key(store.String(w.rec.ID)), *w.rec); err != nil {
					return err
				}
				if w.rec.Partition == Hidden {
					if err := l.pool.Put(txn, l.pool.Key(store.String(w.rec.ID)), 0); err != nil {
						return err
					}
				}
				for _, p := range w.problems {
					if err := l.problems.Put(txn, l.problems.Key(store.String(p.ID)), *p); err != nil {
						return err
					}
					for _, t := range p.Targets {
						if err := l.targets.Put(txn, l.targets.Key(store.String(t)), w.rec.ID); err != nil {
							return err
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			return rep, fmt.Errorf("add problems: %w", err)
		}
		for _, w := range writes[start:end] {
			for _, p := range w.problems {
				cache.problems = append(cache.problems, Problem{ID: p.ID, Cluster: p.Cluster, Targets: p.Targets})
				cache.sigs = append(cache.sigs, freshSigs[freshIndex[p.ID]])
				cache.known[p.ID] = true
			}
		}
		start = end
	}
	l.discards.Add(float64(rep.Discarded))
	l.log.Info().Str("partition", string(part)).Int("added", rep.Added).Int("new_clusters", rep.NewClusters).
		Int("joined", rep.Joined).Int("known", rep.Known).Int("discarded", rep.Discarded).Msg("problems added")
	return rep, nil
}

// AllProblems returns every stored problem, ordered by id.
func (l *Ledger) AllProblems(ctx context.Context) ([]Problem, error) {
	var out []Problem
	err := l.st.View(func(txn *badger.Txn) error {
		return l.problems.Iterate(txn, nil, func(_ []byte, p Problem) error {
			out = append(out, p)
			return ctx.Err()
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read problems: %w", err)
	}
	return out, nil
}

// Clusters returns every cluster record, ordered by id.
func (l *Ledger) Clusters(ctx context.Context) ([]ClusterRecord, error) {
	var out []ClusterRecord
	err := l.st.View(func(txn *badger.Txn) (err error) {
		out, err = l.ClustersTxn(ctx, txn)
		return err
	})
	return out, err
}

// ClustersTxn is Clusters inside the caller's transaction, for readers
// that must see the clusters and their own records at one moment.
func (l *Ledger) ClustersTxn(ctx context.Context, txn *badger.Txn) ([]ClusterRecord, error) {
	var out []ClusterRecord
	err := l.clusters.Iterate(txn, nil, func(_ []byte, c ClusterRecord) error {
		out = append(out, c)
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read clusters: %w", err)
	}
	return out, nil
}

// Problem returns one stored problem.
func (l *Ledger) Problem(id string) (Problem, bool, error) {
	var p Problem
	var ok bool
	err := l.st.View(func(txn *badger.Txn) error {
		var err error
		p, ok, err = l.problems.Get(txn, l.problems.Key(store.String(id)))
		return err
	})
	return p, ok, err
}

// ClusterRecord returns one cluster.
func (l *Ledger) ClusterRecord(id string) (ClusterRecord, bool, error) {
	var c ClusterRecord
	var ok bool
	err := l.st.View(func(txn *badger.Txn) error {
		var err error
		c, ok, err = l.clusters.Get(txn, l.clusters.Key(store.String(id)))
		return err
	})
	return c, ok, err
}

// drawable reports whether a cluster of partition part may be drawn: for
// the hidden pool, never exposed, and every target still mapped to this
// cluster (a target shared with another cluster would be a leak).
func (l *Ledger) drawable(txn *badger.Txn, c *ClusterRecord, part Partition) (bool, error) {
	if c.Partition != part || (part == Hidden && c.Exposed()) {
		return false, nil
	}
	for _, t := range c.Targets {
		owner, ok, err := l.targets.Get(txn, l.targets.Key(store.String(t)))
		if err != nil {
			return false, err
		}
		if !ok || owner != c.ID {
			return false, nil
		}
	}
	return true, nil
}

// Draw returns k problems of partition part (Hidden for a race, Public for
// qualifying) from k distinct clusters, chosen by seed. For Hidden, only
// never-exposed clusters are drawn. Drawing does not expose: call
// MarkExposed once the problems are shown.
func (l *Ledger) Draw(part Partition, k int, seed uint64) ([]Problem, error) {
	if k < 1 {
		return nil, fmt.Errorf("draw: k %d must be positive", k)
	}
	var out []Problem
	err := l.st.View(func(txn *badger.Txn) error {
		var pool []ClusterRecord
		consider := func(c ClusterRecord) error {
			ok, err := l.drawable(txn, &c, part)
			if ok {
				pool = append(pool, c)
			}
			return err
		}
		var err error
		if part == Hidden {
			err = l.pool.Iterate(txn, nil, func(key []byte, _ uint64) error {
				id := l.pool.Read(key).Str()
				c, ok, err := l.clusters.Get(txn, l.clusters.Key(store.String(id)))
				if err != nil || !ok {
					return err
				}
				return consider(c)
			})
		} else {
			err = l.clusters.Iterate(txn, nil, func(_ []byte, c ClusterRecord) error { return consider(c) })
		}
		if err != nil {
			return err
		}
		if len(pool) < k {
			return fmt.Errorf("draw %d from %s: %d clusters available: %w", k, part, len(pool), ErrPoolExhausted)
		}
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		for _, i := range r.Perm(len(pool))[:k] {
			c := pool[i]
			id := c.Problems[r.IntN(len(c.Problems))]
			p, ok, err := l.problems.Get(txn, l.problems.Key(store.String(id)))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("draw: cluster %s names missing problem %s", c.ID, id)
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.draws.Add(float64(len(out)))
	return out, nil
}

// MarkExposed records, in one transaction, that the clusters were shown to
// miners at block. Hidden clusters become retired. Either every cluster is
// recorded or, on any error (such as an unknown cluster), none is.
func (l *Ledger) MarkExposed(clusters []string, miners []string, block uint64) error {
	err := l.st.Update(func(txn *badger.Txn) error { return l.MarkExposedTxn(txn, clusters, miners, block) })
	if err != nil {
		return fmt.Errorf("mark exposed: %w", err)
	}
	l.exposed.Add(float64(len(clusters)))
	return nil
}

// MarkExposedTxn is MarkExposed inside the caller's transaction, so that a
// race can record its problems and their exposure in one commit. It does
// not count the exposures in the ledger's metrics.
func (l *Ledger) MarkExposedTxn(txn *badger.Txn, clusters []string, miners []string, block uint64) error {
	if block == 0 {
		return errors.New("block must be positive")
	}
	for _, id := range dedupe(clusters) {
		key := l.clusters.Key(store.String(id))
		c, ok, err := l.clusters.Get(txn, key)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("unknown cluster %q", id)
		}
		if c.FirstExposed == 0 || block < c.FirstExposed {
			c.FirstExposed = block
		}
		merged := false
		for i := range c.Exposures {
			if c.Exposures[i].Block == block {
				c.Exposures[i].Miners = dedupe(append(c.Exposures[i].Miners, miners...))
				merged = true
			}
		}
		if !merged {
			c.Exposures = append(c.Exposures, Exposure{Block: block, Miners: dedupe(miners)})
		}
		if c.Partition == Hidden {
			c.Partition = Retired
		}
		if err := l.clusters.Put(txn, key, c); err != nil {
			return err
		}
		if err := l.pool.Delete(txn, l.pool.Key(store.String(id))); err != nil {
			return err
		}
	}
	return nil
}

// MarkCompromised moves a cluster to the compromised partition with the
// reason (for example, an ungrounded answer naming one of its targets).
func (l *Ledger) MarkCompromised(cluster, reason string) error {
	err := l.st.Update(func(txn *badger.Txn) error {
		key := l.clusters.Key(store.String(cluster))
		c, ok, err := l.clusters.Get(txn, key)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("unknown cluster %q", cluster)
		}
		c.Partition, c.Reason = Compromised, reason
		if err := l.pool.Delete(txn, l.pool.Key(store.String(cluster))); err != nil {
			return err
		}
		return l.clusters.Put(txn, key, c)
	})
	if err != nil {
		return fmt.Errorf("mark compromised: %w", err)
	}
	l.log.Warn().Str("cluster", cluster).Str("reason", reason).Msg("cluster compromised")
	return nil
}

// PartitionStats counts one partition.
type PartitionStats struct {
	Clusters int          `json:"clusters"`
	Problems int          `json:"problems"`
	ByType   map[Type]int `json:"by_type"`
}

// Stats summarises the ledger.
type Stats struct {
	Partitions map[Partition]*PartitionStats `json:"partitions"`
	// HiddenAvailable is the number of never-exposed hidden clusters.
	HiddenAvailable int `json:"hidden_available"`
	// RacesCovered is how many races the hidden pool still covers at
	// ProblemsPerRace clusters a race.
	RacesCovered    int `json:"races_covered"`
	ProblemsPerRace int `json:"problems_per_race"`
	// Capacity is set by whoever knows the catalog and the race schedule
	// (the validator); Ledger.Stats leaves it nil.
	*Capacity
}

// Stats counts clusters and problems by partition and type.
func (l *Ledger) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Partitions: map[Partition]*PartitionStats{}, ProblemsPerRace: l.opts.ProblemsPerRace}
	for _, p := range Partitions() {
		st.Partitions[p] = &PartitionStats{ByType: map[Type]int{}}
	}
	clusters, err := l.Clusters(ctx)
	if err != nil {
		return st, err
	}
	partOf := map[string]Partition{}
	for _, c := range clusters {
		ps, ok := st.Partitions[c.Partition]
		if !ok {
			ps = &PartitionStats{ByType: map[Type]int{}}
			st.Partitions[c.Partition] = ps
		}
		ps.Clusters++
		partOf[c.ID] = c.Partition
		if c.Partition == Hidden && !c.Exposed() {
			st.HiddenAvailable++
		}
	}
	err = l.st.View(func(txn *badger.Txn) error {
		return l.problems.Iterate(txn, nil, func(_ []byte, p Problem) error {
			if ps, ok := st.Partitions[partOf[p.Cluster]]; ok {
				ps.Problems++
				ps.ByType[p.Type]++
			}
			return ctx.Err()
		})
	})
	if err != nil {
		return st, fmt.Errorf("suite stats: %w", err)
	}
	st.RacesCovered = st.HiddenAvailable / l.opts.ProblemsPerRace
	return st, nil
}

// HiddenAvailable counts the never-exposed hidden clusters (the race
// pool) without reading every cluster.
func (l *Ledger) HiddenAvailable() (int, error) {
	n := 0
	err := l.st.View(func(txn *badger.Txn) error {
		return l.pool.Iterate(txn, nil, func([]byte, uint64) error { n++; return nil })
	})
	if err != nil {
		return 0, fmt.Errorf("count hidden pool: %w", err)
	}
	return n, nil
}

// Source makes n new problems starting at slot offset, none targeting a
// product in exclude (the ledger's targets); the same offset and
// exclusions give the same problems (Generator.Generate with
// Request.Offset and Request.Exclude).
type Source func(ctx context.Context, offset uint64, n int, exclude []string) ([]Problem, error)

// GeneratorSource adapts a Generator to Source with the given mix.
func GeneratorSource(g *Generator, mix Mix) Source {
	return func(ctx context.Context, offset uint64, n int, exclude []string) ([]Problem, error) {
		ps, _, err := g.Generate(ctx, Request{Count: n, Mix: mix, Offset: offset, Exclude: exclude})
		return ps, err
	}
}

// TargetUse is what the stored problems spend of the catalog.
type TargetUse struct {
	// Problems is how many problems are stored, in every partition.
	Problems int
	// Targets are the distinct products they target: none may be a
	// target again (see Add).
	Targets []string
}

// TargetUse lists every product that is a target of a stored problem, in
// any partition: what a refill must not target again.
func (l *Ledger) TargetUse(ctx context.Context) (TargetUse, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cache, err := l.loadCache(ctx)
	if err != nil {
		return TargetUse{}, err
	}
	use := TargetUse{Problems: len(cache.problems)}
	seen := make(map[string]bool, len(cache.problems))
	for _, p := range cache.problems {
		for _, t := range p.Targets {
			if !seen[t] {
				seen[t] = true
				use.Targets = append(use.Targets, t)
			}
		}
	}
	return use, nil
}

// RefillReport sums a refill's rounds.
type RefillReport struct {
	Rounds    int
	Generated int
	AddReport
	HiddenAvailable int
}

// refillCursorKey holds the next generator slot for Refill.
const refillCursorKey = "refill-offset"

// Refill generates new hidden problems until at least minHidden
// never-exposed hidden clusters exist. New problems that fall into an
// existing non-hidden cluster are discarded (see Add). The generator
// offset is persisted, so every refill continues with fresh slots.
func (l *Ledger) Refill(ctx context.Context, minHidden int, src Source) (RefillReport, error) {
	var rep RefillReport
	cursor := l.meta.Key(store.String(refillCursorKey))
	for rep.Rounds < l.opts.MaxRefillRounds {
		avail, err := l.HiddenAvailable()
		if err != nil {
			return rep, err
		}
		rep.HiddenAvailable = avail
		need := minHidden - avail
		if need <= 0 {
			return rep, nil
		}
		rep.Rounds++
		var offset uint64
		if err := l.st.View(func(txn *badger.Txn) error {
			offset, _, err = l.meta.Get(txn, cursor)
			return err
		}); err != nil {
			return rep, fmt.Errorf("refill: %w", err)
		}
		n := need + need/4 + 1 // some will be discarded or join clusters
		// Every stored target is excluded, exposed or not: a new problem
		// sharing a target would be discarded (exposed) or join a pool
		// cluster and retire with it (unexposed), a target spent twice.
		use, err := l.TargetUse(ctx)
		if err != nil {
			return rep, fmt.Errorf("refill: %w", err)
		}
		ps, err := src(ctx, offset, n, use.Targets)
		if err != nil {
			return rep, fmt.Errorf("refill: generate: %w", err)
		}
		if err := l.st.Update(func(txn *badger.Txn) error { return l.meta.Put(txn, cursor, offset+uint64(n)) }); err != nil {
			return rep, fmt.Errorf("refill: %w", err)
		}
		rep.Generated += len(ps)
		add, err := l.Add(ctx, ps, Hidden)
		if err != nil {
			return rep, fmt.Errorf("refill: %w", err)
		}
		rep.Added += add.Added
		rep.NewClusters += add.NewClusters
		rep.Joined += add.Joined
		rep.Known += add.Known
		rep.Discarded += add.Discarded
	}
	avail, err := l.HiddenAvailable()
	if err != nil {
		return rep, err
	}
	rep.HiddenAvailable = avail
	if avail < minHidden {
		return rep, fmt.Errorf("refill: %d hidden clusters after %d rounds, want %d", avail, rep.Rounds, minHidden)
	}
	return rep, nil
}
