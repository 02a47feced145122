package shop_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
	"arena/shop/internal/workload"
)

// BenchmarkFindProduct measures find_product on the real code path (JSON
// arguments in, Tools.Execute, JSON result out) over generated catalogs,
// with the mixed query set of package workload. It reports, besides ns/op:
//
//	gen-s       catalog generation (in memory)
//	build-s     search index build (BuildIndex, GOMAXPROCS workers)
//	p50-ms      median find_product latency, one caller
//	p99-ms      99th percentile latency, one caller
//	rss-MB      process RSS after the build, once garbage is returned
//	peak-MB     peak RSS of the process so far
//
// The 1M size is the acceptance benchmark; run it alone, e.g.
//
//	go test ./shop -run '^$' -bench 'FindProduct/products=1000000' -benchtime 20000x -timeout 30m
func BenchmarkFindProduct(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("products=%d", n), func(b *testing.B) { benchFind(b, n) })
	}
}

func benchFind(b *testing.B, n int) {
	ctx := context.Background()
	start := time.Now()
	g, err := gen.New(gen.Options{Products: n, Seed: 1}, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	products, err := g.Products(ctx)
	if err != nil {
		b.Fatal(err)
	}
	genTime := time.Since(start)
	queries := workload.Queries(products, 20000, 1)
	cat, err := shop.NewCatalog(products)
	if err != nil {
		b.Fatal(err)
	}
	products = nil
	start = time.Now()
	idx, err := shop.BuildIndex(ctx, cat, shop.IndexOptions{}, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	buildTime := time.Since(start)
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	rss, _ := workload.RSS()
	st := idx.Stats()
	b.Logf("%d products, %d terms, %d postings, index ~%.0f MB; generated in %v, index built in %v",
		st.Docs, st.Terms, st.Postings, float64(st.Bytes)/1e6, genTime.Round(time.Millisecond), buildTime.Round(time.Millisecond))

	args := make([][]byte, len(queries))
	for i, q := range queries {
		args[i] = q.Args()
	}
	// Warm up caches and the scratch pools.
	for i := range min(2000, len(args)) {
		tools.Execute(ctx, shop.ToolFindProduct, args[i])
	}
	b.Run("sequential", func(b *testing.B) {
		lat := make(workload.Latencies, 0, 1<<16)
		errs, empty := 0, 0
		i := 0
		for b.Loop() {
			t0 := time.Now()
			res := tools.Execute(ctx, shop.ToolFindProduct, args[i%len(args)])
			lat = append(lat, time.Since(t0))
			if !res.OK() {
				errs++
			} else if len(res.Output) == 2 {
				empty++
			}
			i++
		}
		if errs > 0 {
			b.Fatalf("%d of %d calls failed", errs, i)
		}
		_, peak := workload.RSS()
		b.ReportMetric(workload.Millis(lat.Quantile(0.50)), "p50-ms")
		b.ReportMetric(workload.Millis(lat.Quantile(0.99)), "p99-ms")
		b.ReportMetric(genTime.Seconds(), "gen-s")
		b.ReportMetric(buildTime.Seconds(), "build-s")
		b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		b.Logf("%d calls: p50 %v p90 %v p99 %v max %v; %d empty pages", len(lat), lat.Quantile(0.5), lat.Quantile(0.9),
			lat.Quantile(0.99), lat.Quantile(1), empty)
	})
	// A hostile agent: many very common words and a price filter nothing
	// passes, so no pruning is possible and every posting is visited.
	// Hostile agents: many very common words, with filters that almost
	// nothing passes, or with no filter at all. A fixed number of calls
	// whatever -benchtime asks for: 300 are enough for the percentiles.
	for _, adv := range []struct{ name, args string }{
		{"adversarial-filtered", `{"q": "black white original premium new sale high quality usb waterproof portable korean style set", "page": 5, "price": "0.01-0.02", "service": "official,flashsale"}`},
		{"adversarial-words", `{"q": "black white blue pink grey original premium new sale high quality usb waterproof portable korean style set stainless steel cotton plastic free gift trending ready stock best seller authentic local", "page": 5}`},
	} {
		b.Run(adv.name, func(b *testing.B) {
			lat := make(workload.Latencies, 0, 300)
			var total time.Duration
			for range 300 {
				t0 := time.Now()
				if res := tools.Execute(ctx, shop.ToolFindProduct, []byte(adv.args)); !res.OK() {
					b.Fatal(res.Err.Message)
				}
				d := time.Since(t0)
				lat = append(lat, d)
				total += d
			}
			b.ReportMetric(float64(total.Nanoseconds())/300, "ns/op")
			b.ReportMetric(workload.Millis(lat.Quantile(0.5)), "p50-ms")
			b.ReportMetric(workload.Millis(lat.Quantile(0.99)), "p99-ms")
		})
	}
	// Many miners at once: throughput and tail latency with every core busy.
	b.Run("parallel", func(b *testing.B) {
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				tools.Execute(ctx, shop.ToolFindProduct, args[i%len(args)])
				i += 7
			}
		})
	})
}
