package suite

import (
	"context"
	"testing"
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
