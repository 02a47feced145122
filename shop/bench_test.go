package shop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/shop"
	"arena/shop/gen"
	"arena/shop/workload"
)

// BenchmarkFindProduct measures find_product on the real code path (JSON
// arguments in, Tools.Execute, JSON result out) over generated catalogs.
// Each query set is its own sub-benchmark, run by one caller:
//
//	mix                  the acceptance query mix of package workload
//	adversarial-words    20 to 32 of the catalog's commonest words
//	adversarial-long     queries near the 1,000-byte cap
//	adversarial-filters  common words, filters almost nothing passes
//	parallel             the mix from 8 goroutines per core
//
// Every sequential sub-benchmark reports, over all of its b.N calls:
//
//	p50-ms, p99-ms           wall-clock latency percentiles (nearest rank)
//	cpu-p50-ms, cpu-p99-ms   the same in CPU time of the calling thread,
//	                         which other load on the machine disturbs less
//
// and mix also reports the fixture's costs:
//
//	gen-s       catalog generation (in memory)
//	build-s     search index build (BuildIndex, GOMAXPROCS workers)
//	rss-MB      process RSS after the build, once garbage is returned
//	peak-MB     peak RSS of the process so far
//
// The 1M size is the acceptance benchmark. Every sub-benchmark shares one
// catalog and index per run, so pick the sets and their call counts with
// -bench and -benchtime, e.g.
//
//	go test ./shop -run '^$' -bench 'FindProduct/products=1000000/mix$' -benchtime 20000x -timeout 30m
//	go test ./shop -run '^$' -bench 'FindProduct/products=1000000/adversarial' -benchtime 3000x -timeout 30m
func BenchmarkFindProduct(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("products=%d", n), func(b *testing.B) { benchFind(b, n, false) })
	}
}

// BenchmarkFindProductMapped is BenchmarkFindProduct served the way the
// validator serves a catalog file: the catalog is written to a file, its
// index file built and written (shop.OpenIndexFile), and then mapped again
// as at a restart. It adds to mix's metrics:
//
//	first-s     the first OpenIndexFile: load, index, write, map
//	map-s       the second: check and map the index file
//	file-MB     the index file's size
//
// and rss-MB is measured after the mapping. The sizes are 1M and 2.5M
// (ShoppingBench's catalog size), e.g.
//
//	go test ./shop -run '^$' -bench 'FindProductMapped/products=2500000$/mix$' -benchtime 20000x -timeout 30m
func BenchmarkFindProductMapped(b *testing.B) {
	for _, n := range []int{1_000_000, 2_500_000} {
		b.Run(fmt.Sprintf("products=%d", n), func(b *testing.B) { benchFind(b, n, true) })
	}
}

func benchFind(b *testing.B, n int, mapped bool) {
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
	type querySet struct {
		name    string
		queries []workload.Query
	}
	sets := []querySet{{"mix", workload.Queries(workload.Slice(products), 20000, 1)}}
	for _, kind := range workload.AdversarialKinds {
		sets = append(sets, querySet{string(kind), workload.Adversarial(workload.Slice(products), kind, 2000, 1)})
	}
	var idx *shop.Index
	var buildTime, mapTime time.Duration
	var fileMB float64
	if mapped {
		path := filepath.Join(b.TempDir(), "catalog.jsonl")
		writeCatalogFile(b, path, products)
		products = nil
		start = time.Now()
		// The first open's index is dropped: a restart is what is served.
		_, info, err := shop.OpenIndexFile(ctx, path, shop.IndexFileOptions{}, zerolog.Nop())
		if err != nil || !info.Persisted {
			b.Fatalf("first open: %v, %+v", err, info)
		}
		buildTime = time.Since(start)
		runtime.GC()
		debug.FreeOSMemory()
		start = time.Now()
		idx, info, err = shop.OpenIndexFile(ctx, path, shop.IndexFileOptions{}, zerolog.Nop())
		if err != nil || info.Built {
			b.Fatalf("second open: %v, %+v", err, info)
		}
		mapTime = time.Since(start)
		if st, err := os.Stat(info.Path); err == nil {
			fileMB = float64(st.Size()) / (1 << 20)
		}
	} else {
		cat, err := shop.NewCatalog(products)
		if err != nil {
			b.Fatal(err)
		}
		products = nil
		start = time.Now()
		if idx, err = shop.BuildIndex(ctx, cat, shop.IndexOptions{}, zerolog.Nop()); err != nil {
			b.Fatal(err)
		}
		buildTime = time.Since(start)
	}
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

	for _, set := range sets {
		b.Run(set.name, func(b *testing.B) {
			rec := benchSequential(b, tools, set.queries)
			if set.name == "mix" {
				_, peak := workload.RSS()
				b.ReportMetric(genTime.Seconds(), "gen-s")
				if mapped {
					b.ReportMetric(buildTime.Seconds(), "first-s")
					b.ReportMetric(mapTime.Seconds(), "map-s")
					b.ReportMetric(fileMB, "file-MB")
				} else {
					b.ReportMetric(buildTime.Seconds(), "build-s")
				}
				b.ReportMetric(float64(rss)/(1<<20), "rss-MB")
				b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
				logKinds(b, set.queries, rec)
			}
		})
	}
	// Many miners at once: throughput with every core busy.
	args := argsOf(sets[0].queries)
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

// benchSequential times b.N find_product calls over queries, cycling, from
// one goroutine held on its thread so that thread CPU time is its own. It
// warms the index's scratch buffers first, outside the measurement.
func benchSequential(b *testing.B, tools *shop.Tools, queries []workload.Query) *workload.Recorder {
	b.Helper()
	ctx := context.Background()
	args := argsOf(queries)
	for i := range min(len(args), 500) {
		tools.Execute(ctx, shop.ToolFindProduct, args[i])
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rec := &workload.Recorder{}
	var failed []string
	empty, i := 0, 0
	for b.Loop() {
		var res shop.Result
		rec.Time(func() { res = tools.Execute(ctx, shop.ToolFindProduct, args[i%len(args)]) })
		if !res.OK() {
			failed = append(failed, fmt.Sprintf("%s: %s", args[i%len(args)], res.Err.Message))
		} else if len(res.Output) == 2 {
			empty++
		}
		i++
	}
	if len(failed) > 0 {
		b.Fatalf("%d of %d calls failed, first %s", len(failed), i, failed[0])
	}
	rec.Report(b)
	b.Logf("%d calls: p50 %v p90 %v p99 %v max %v; CPU p50 %v p99 %v max %v; %d empty pages", i,
		rec.Wall.Quantile(0.5), rec.Wall.Quantile(0.9), rec.Wall.Quantile(0.99), rec.Wall.Quantile(1),
		rec.CPU.Quantile(0.5), rec.CPU.Quantile(0.99), rec.CPU.Quantile(1), empty)
	return rec
}

// logKinds logs the percentiles of each query kind of a mix run.
func logKinds(b *testing.B, queries []workload.Query, rec *workload.Recorder) {
	b.Helper()
	byKind := map[workload.Kind]workload.Latencies{}
	for i, d := range rec.Wall {
		k := queries[i%len(queries)].Kind
		byKind[k] = append(byKind[k], d)
	}
	kinds := make([]workload.Kind, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		l := byKind[k]
		b.Logf("%-10s %6d calls: p50 %v p99 %v", k, len(l), l.Quantile(0.5), l.Quantile(0.99))
	}
}

func argsOf(queries []workload.Query) [][]byte {
	args := make([][]byte, len(queries))
	for i, q := range queries {
		args[i] = q.Args()
	}
	return args
}
