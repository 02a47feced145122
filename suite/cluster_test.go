package suite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func mkProblem(t testing.TB, query string, targets ...string) Problem {
	t.Helper()
	p := Problem{Type: TypeShop, Query: query, Reward: Reward{List: true}}
	for _, id := range targets {
		p.Reward.Items = append(p.Reward.Items, Item{ProductID: id, Title: []string{"x"}})
	}
	if err := p.Finish(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCluster(t *testing.T) {
	base := "Looking for a stainless steel thermos bottle 500ml with a bamboo lid in matte black, priced under 600 pesos"
	for _, tc := range []struct {
		name     string
		problems func(t *testing.T) []Problem
		together [][2]int
		apart    [][2]int
	}{
		{"shared target", func(t *testing.T) []Problem {
			return []Problem{mkProblem(t, "red ceramic mug", "1", "2"), mkProblem(t, "blue denim jacket", "2", "3"), mkProblem(t, "garden hose", "4")}
		}, [][2]int{{0, 1}}, [][2]int{{0, 2}}},
		{"near duplicate query", func(t *testing.T) []Problem {
			return []Problem{
				mkProblem(t, base, "1"),
				mkProblem(t, base+" and with free shipping", "2"),
				mkProblem(t, "Show me a wooden chess board set with magnetic pieces for kids travel", "3"),
			}
		}, [][2]int{{0, 1}}, [][2]int{{0, 2}, {1, 2}}},
		{"same template different products", func(t *testing.T) []Problem {
			return []Problem{
				mkProblem(t, "I'm looking for a Graize Q8 bike pump priced between 300 and 700 pesos with free shipping.", "1"),
				mkProblem(t, "I'm looking for a Rezem SA28 noise cancelling earbuds priced between 300 and 700 pesos with free shipping.", "2"),
			}
		}, nil, [][2]int{{0, 1}}},
		{"transitive", func(t *testing.T) []Problem {
			return []Problem{mkProblem(t, "a", "1"), mkProblem(t, "b", "1", "2"), mkProblem(t, "c", "2", "3"), mkProblem(t, "d", "3")}
		}, [][2]int{{0, 3}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := tc.problems(t)
			cl, err := Cluster(context.Background(), ps, ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range tc.together {
				if cl.Of[ps[pr[0]].ID] != cl.Of[ps[pr[1]].ID] {
					t.Errorf("problems %d and %d are in different clusters", pr[0], pr[1])
				}
			}
			for _, pr := range tc.apart {
				if cl.Of[ps[pr[0]].ID] == cl.Of[ps[pr[1]].ID] {
					t.Errorf("problems %d and %d share a cluster", pr[0], pr[1])
				}
			}
			// Ids do not depend on input order.
			rev := slices.Clone(ps)
			slices.Reverse(rev)
			cl2, err := Cluster(context.Background(), rev, ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for id, c := range cl.Of {
				if cl2.Of[id] != c {
					t.Errorf("problem %s: cluster %s, %s after reordering", id, c, cl2.Of[id])
				}
			}
		})
	}
	if _, err := Cluster(context.Background(), nil, ClusterOptions{Threshold: 2}); err == nil {
		t.Error("threshold 2 accepted")
	}
}

func TestClusterGeneratedSuite(t *testing.T) {
	ps, _, err := testGenerator(t, 20_000, 5).Generate(context.Background(), Request{Count: 1000})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := Cluster(context.Background(), ps, ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Template words are ignored, so distinct targets stay apart: clusters
	// come from shared targets and the rare true near-duplicate.
	if len(cl.Clusters) < 800 || len(cl.Clusters[0].Problems) > 20 {
		t.Errorf("%d clusters, largest %d: %v", len(cl.Clusters), len(cl.Clusters[0].Problems), cl.Sizes())
	}
	seen := map[string]string{}
	for _, c := range cl.Clusters {
		for _, target := range c.Targets {
			if other, ok := seen[target]; ok {
				t.Fatalf("target %s in clusters %s and %s", target, other, c.ID)
			}
			seen[target] = c.ID
		}
	}
}

// syntheticProblems makes n problems with random word queries and random
// targets from a pool, for clustering at scale.
func syntheticProblems(tb testing.TB, n int, seed uint64) []Problem {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%x", r.Uint32())
	}
	ps := make([]Problem, n)
	for i := range ps {
		words := make([]byte, 0, 128)
		for j := range 8 + r.IntN(12) {
			if j > 0 {
				words = append(words, ' ')
			}
			words = append(words, vocab[r.IntN(len(vocab))]...)
		}
		ps[i] = mkProblem(tb, "Looking for "+string(words), fmt.Sprint(r.IntN(4*n)))
	}
	return ps
}

func BenchmarkCluster100k(b *testing.B) {
	ps := syntheticProblems(b, 100_000, 1)
	b.ResetTimer()
	for range b.N {
		if _, err := Cluster(context.Background(), ps, ClusterOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
