package dataset_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/dataset/datasettest"
	"arena/store"
	"arena/suite"
)

// BenchmarkExportSFT exports 10,005 stored 30-step episodes (667 problems
// of each type, 5 racers each) as SFT JSONL and reports rows/s and the
// peak Go heap seen during the export (base-heap-MB is the heap in use
// before it: the open store's caches). The fixture is built once, outside
// the timer. Run:
//
//	go test ./dataset/ -run '^$' -bench ExportSFT -benchtime 3x
func BenchmarkExportSFT(b *testing.B) {
	fx := datasettest.Build(b, filepath.Join(b.TempDir(), "data"), datasettest.Options{ProblemsPerType: 667, Racers: 5, Steps: 14})
	st, err := store.Open(store.Options{Dir: fx.Dir, ReadOnly: true}, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ledger, err := suite.NewLedger(suite.LedgerOptions{Store: st}, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, parquet := range []bool{false, true} {
		b.Run(fmt.Sprintf("parquet=%v", parquet), func(b *testing.B) {
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			var peak atomic.Uint64
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				var ms runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			}()
			rows := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rep, err := dataset.Export(context.Background(), dataset.Options{
					Store: st, Ledger: ledger, Format: dataset.FormatSFT, EvalFraction: 0.1, Parquet: parquet,
					Out: filepath.Join(b.TempDir(), "out"),
				}, zerolog.Nop())
				if err != nil {
					b.Fatal(err)
				}
				rows += rep.Rows[dataset.SplitTrain] + rep.Rows[dataset.SplitEval]
			}
			b.StopTimer()
			close(stop)
			<-done
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(base.HeapInuse)/(1<<20), "base-heap-MB")
		})
	}
}
