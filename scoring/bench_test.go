package scoring_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"arena/scoring"
	"arena/scoring/scoringtest"
)

// BenchmarkRules10k: one op is the rule metrics (grounding set, format,
// length, gt, rule, shop, budget, ASR) of 10,000 recorded 30-step
// trajectories.
func BenchmarkRules10k(b *testing.B) {
	cases := scoringtest.Episodes(10000, 30, 28)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		success := 0
		for i := range cases {
			c := &cases[i]
			ids := make([]string, len(c.Answers))
			for j, a := range c.Answers {
				ids[j] = a.ID
			}
			m, err := scoring.Rules(ctx, scoring.Input{Problem: c.Problem, Answers: c.Answers, Trajectory: c.Trajectory, Observed: scoring.ObservedAmong(c.Trajectory, ids)}, scoring.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if m.Success {
				success++
			}
		}
		if success == 0 {
			b.Fatal("no successes: the synthetic data is wrong")
		}
	}
}

// TestSyntheticCasesScore checks the benchmark data means something:
// answers are grounded and score as designed.
func TestSyntheticCasesScore(t *testing.T) {
	for i, c := range scoringtest.Episodes(6, 30, 28) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			m, err := scoring.Rules(context.Background(), scoring.Input{Problem: c.Problem, Answers: c.Answers, Trajectory: c.Trajectory, Observed: scoring.ObservedIDs(c.Trajectory)}, scoring.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Ungrounded) != 0 || m.Format != 1 || math.Abs(m.Length-1.0/30) > 1e-9 || m.Rule != 1 || !m.Success {
				t.Fatalf("synthetic case: %+v", m)
			}
		})
	}
}
