package suite

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	"arena/shop/index"
)

// ClusterOptions tune leak clustering. Zero values take the defaults.
type ClusterOptions struct {
	// Threshold is the estimated Jaccard similarity of query shingles at
	// or above which two problems are near-duplicates (default 0.5).
	Threshold float64
	// Shingle is the number of consecutive content words in a shingle
	// (default 2).
	Shingle int
	// Bands and Rows shape the MinHash LSH: Bands*Rows hashes, and two
	// problems are compared when all Rows of some band agree (default 32
	// bands of 4 rows: pairs at Jaccard 0.5 are compared with probability
	// 0.87, at 0.7 with probability 0.9999).
	Bands, Rows int
	// MaxBucket bounds how many earlier members of one LSH bucket a problem
	// is compared with, so a pathological bucket cannot make clustering
	// quadratic (default 256).
	MaxBucket int
}

func (o ClusterOptions) withDefaults() (ClusterOptions, error) {
	if o.Threshold == 0 {
		o.Threshold = 0.5
	}
	if o.Shingle == 0 {
		o.Shingle = 2
	}
	if o.Bands == 0 {
		o.Bands = 32
	}
	if o.Rows == 0 {
		o.Rows = 4
	}
	if o.MaxBucket == 0 {
		o.MaxBucket = 256
	}
	if o.Threshold <= 0 || o.Threshold > 1 || o.Shingle < 1 || o.Bands < 1 || o.Rows < 1 || o.MaxBucket < 1 {
		return o, fmt.Errorf("cluster options: threshold %v must be in (0,1]; shingle %d, bands %d, rows %d and max bucket %d must be positive",
			o.Threshold, o.Shingle, o.Bands, o.Rows, o.MaxBucket)
	}
	return o, nil
}

// ClusterInfo is one leak cluster.
type ClusterInfo struct {
	ID       string   `json:"id"`
	Problems []string `json:"problems"` // sorted ids
	Targets  []string `json:"targets"`  // sorted, distinct
}

// Clustering is the result of Cluster.
type Clustering struct {
	// Clusters, largest first, then by id.
	Clusters []ClusterInfo
	// Of maps a problem id to its cluster id.
	Of map[string]string
}

// Apply sets each problem's Cluster field.
func (c *Clustering) Apply(problems []Problem) {
	for i := range problems {
		problems[i].Cluster = c.Of[problems[i].ID]
	}
}

// Sizes returns how many clusters have each size.
func (c *Clustering) Sizes() map[int]int {
	out := map[int]int{}
	for _, cl := range c.Clusters {
		out[len(cl.Problems)]++
	}
	return out
}

// ClusterID is the deterministic id of a cluster with these members: a
// hash of the sorted problem ids, so the same problems always form the
// same cluster id, whatever order they came in.
func ClusterID(problemIDs []string) string {
	ids := slices.Clone(problemIDs)
	slices.Sort(ids)
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return "c" + hex.EncodeToString(h.Sum(nil)[:8])
}

// unionFind is a disjoint-set forest with path halving and union by size.
type unionFind struct{ parent, size []int32 }

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range u.parent {
		u.parent[i], u.size[i] = int32(i), 1
	}
	return u
}

func (u *unionFind) find(x int32) int32 {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) union(a, b int32) {
	a, b = u.find(a), u.find(b)
	if a == b {
		return
	}
	if u.size[a] < u.size[b] {
		a, b = b, a
	}
	u.parent[b] = a
	u.size[a] += u.size[b]
}

// tokens are the normalised words of s, as the search index sees them
// (lowercased, stop words dropped, plurals folded).
func tokens(s string) []string { return index.Terms(s) }

// shingler turns queries into shingle hash sets, ignoring the words the
// phrasing templates contribute.
type shingler struct {
	k       int
	ignored map[string]bool
}

func (s *shingler) shingles(query string) []uint64 {
	var words []string
	for _, w := range tokens(query) {
		if !s.ignored[w] {
			words = append(words, w)
		}
	}
	var out []uint64
	add := func(ws []string) {
		h := fnv.New64a()
		h.Write([]byte(strings.Join(ws, " ")))
		out = append(out, h.Sum64())
	}
	if len(words) <= s.k {
		if len(words) > 0 {
			add(words)
		}
	} else {
		for i := 0; i+s.k <= len(words); i++ {
			add(words[i : i+s.k])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// signature is the MinHash signature of a shingle set. An empty set gets
// a signature of distinct random-looking values derived from salt, so
// empty queries do not all collide.
func signature(shingles []uint64, n int, salt uint64) []uint64 {
	sig := make([]uint64, n)
	for h := range sig {
		seed := mix64(uint64(h+1) * 0x9e3779b97f4a7c15)
		best := ^uint64(0)
		for _, s := range shingles {
			if v := mix64(s ^ seed); v < best {
				best = v
			}
		}
		if len(shingles) == 0 {
			best = mix64(salt ^ seed)
		}
		sig[h] = best
	}
	return sig
}

func similarity(a, b []uint64) float64 {
	eq := 0
	for i := range a {
		if a[i] == b[i] {
			eq++
		}
	}
	return float64(eq) / float64(len(a))
}

// Cluster groups problems into leak clusters: problems that share a target
// product, or whose queries are near-duplicates (MinHash estimate of the
// Jaccard similarity of word shingles at or above the threshold), end up
// in one cluster, transitively (union-find). Problems must have ids.
func Cluster(ctx context.Context, problems []Problem, opts ClusterOptions) (*Clustering, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	n := len(problems)
	uf := newUnionFind(n)
	byTarget := map[string]int32{}
	for i := range problems {
		if problems[i].ID == "" {
			return nil, fmt.Errorf("cluster: problem %d has no id", i)
		}
		for _, t := range problems[i].Targets {
			if j, ok := byTarget[t]; ok {
				uf.union(j, int32(i))
			} else {
				byTarget[t] = int32(i)
			}
		}
	}
	sigs, err := signatures(ctx, problems, 0, opts)
	if err != nil {
		return nil, err
	}
	return clusterSigned(ctx, problems, sigs, uf, opts)
}

// signatures computes the MinHash signatures of the problems' queries;
// base offsets the salt of empty queries.
func signatures(ctx context.Context, problems []Problem, base int, opts ClusterOptions) ([][]uint64, error) {
	sh := shingler{k: opts.Shingle, ignored: ignoredWords()}
	hashes := opts.Bands * opts.Rows
	sigs := make([][]uint64, len(problems))
	for i := range problems {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		sigs[i] = signature(sh.shingles(problems[i].Query), hashes, uint64(base+i))
	}
	return sigs, nil
}

// clusterSigned finishes Cluster with precomputed signatures and a
// union-find already holding the shared-target unions.
func clusterSigned(ctx context.Context, problems []Problem, sigs [][]uint64, uf *unionFind, opts ClusterOptions) (*Clustering, error) {
	n := len(problems)
	buf := make([]byte, 8*opts.Rows)
	for b := range opts.Bands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		buckets := map[uint64][]int32{}
		for i := range n {
			for r := range opts.Rows {
				binary.LittleEndian.PutUint64(buf[8*r:], sigs[i][b*opts.Rows+r])
			}
			h := fnv.New64a()
			h.Write(buf)
			key := h.Sum64()
			members := buckets[key]
			start := max(0, len(members)-opts.MaxBucket)
			for _, j := range members[start:] {
				if uf.find(j) == uf.find(int32(i)) {
					continue
				}
				if similarity(sigs[i], sigs[j]) >= opts.Threshold {
					uf.union(j, int32(i))
				}
			}
			buckets[key] = append(members, int32(i))
		}
	}
	groups := map[int32][]int{}
	for i := range n {
		root := uf.find(int32(i))
		groups[root] = append(groups[root], i)
	}
	out := &Clustering{Of: make(map[string]string, n)}
	for _, members := range groups {
		var ids, targets []string
		for _, i := range members {
			ids = append(ids, problems[i].ID)
			targets = append(targets, problems[i].Targets...)
		}
		ids, targets = dedupe(ids), dedupe(targets)
		cl := ClusterInfo{ID: ClusterID(ids), Problems: ids, Targets: targets}
		for _, id := range ids {
			out.Of[id] = cl.ID
		}
		out.Clusters = append(out.Clusters, cl)
	}
	sort.Slice(out.Clusters, func(i, j int) bool {
		a, b := out.Clusters[i], out.Clusters[j]
		if len(a.Problems) != len(b.Problems) {
			return len(a.Problems) > len(b.Problems)
		}
		return a.ID < b.ID
	})
	return out, nil
}
