package suite

import (
	"context"
	"errors"
	"testing"

	"github.com/rs/zerolog"

	"arena/store"
)

// BenchmarkGenerate10kFrom100k is issue 4's generation benchmark: 10,000
// problems (default mix) from a 100k-product catalog. Catalog and index
// building are outside the timer.
func BenchmarkGenerate10kFrom100k(b *testing.B) {
	g := testGenerator(b, 100_000, 7)
	b.ResetTimer()
	for range b.N {
		ps, _, err := g.Generate(context.Background(), Request{Count: 10_000})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(ps)), "problems")
	}
}

// BenchmarkClusterGenerated10k clusters a real generated suite.
func BenchmarkClusterGenerated10k(b *testing.B) {
	ps, _, err := testGenerator(b, 100_000, 7).Generate(context.Background(), Request{Count: 10_000})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := Cluster(context.Background(), ps, ClusterOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRaceUntilDry20k races a 20k-product catalog that never
// restocks, 50 hidden problems a race, refilling as the validator does,
// until a draw comes up short. It reports the races run, the share of the
// catalog's products that became targets and the targets a problem took:
// what a catalog's products are worth in races (docs/benchmarks.md,
// "Hidden pool capacity"). Minutes on 2 cores.
func BenchmarkRaceUntilDry20k(b *testing.B) {
	const products, perRace = 20_000, 50
	g := testGenerator(b, products, 77)
	for range b.N {
		ctx := context.Background()
		st, err := store.Open(store.Options{Dir: b.TempDir()}, zerolog.Nop(), nil)
		if err != nil {
			b.Fatal(err)
		}
		l, err := NewLedger(LedgerOptions{Store: st, ProblemsPerRace: perRace}, zerolog.Nop(), nil)
		if err != nil {
			b.Fatal(err)
		}
		src := GeneratorSource(g, DefaultMix())
		races, shortRefills := 0, 0
		for ; ; races++ {
			if _, err := l.Refill(ctx, 2*perRace, src); err != nil {
				shortRefills++
			}
			ps, err := l.Draw(Hidden, perRace, uint64(races))
			if errors.Is(err, ErrPoolExhausted) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			clusters := make([]string, len(ps))
			for i, p := range ps {
				clusters[i] = p.Cluster
			}
			if err := l.MarkExposed(clusters, []string{"racer"}, uint64(races+1)); err != nil {
				b.Fatal(err)
			}
		}
		use, err := l.TargetUse(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(races), "races")
		b.ReportMetric(float64(shortRefills), "short-refills")
		b.ReportMetric(100*float64(len(use.Targets))/products, "%products-targeted")
		b.ReportMetric(float64(len(use.Targets))/float64(use.Problems), "targets/problem")
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
