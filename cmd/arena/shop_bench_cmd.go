package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/urfave/cli/v3"

	"arena/shop"
	"arena/shop/workload"
)

func newShopBenchCommand(env *cliEnv) *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "sizing check: start time, memory and find_product latency for a catalog on this machine",
		UsageText: "arena shop bench --catalog FILE [--queries N] [--index-dir DIR] [--json]",
		Description: "Starts the shop the way the validator does (shop.OpenIndexFile: map the persisted\n" +
			"catalog and index beside the catalog, or load, index and write them when missing or stale),\n" +
			"then runs N find_product calls of the benchmark query mix through the agents' tool, one at a\n" +
			"time for latency and from every core at once for throughput. It reports:\n\n" +
			"  start_s      catalog file to a ready index (load + build + write, or map)\n" +
			"  built        true when the index was built, false when mapped from the index file\n" +
			"  rss_mb       resident memory while serving, after the queries\n" +
			"  rss_peak_mb  peak resident memory of the whole run\n" +
			"  p50_ms, p99_ms  find_product latency, one caller\n" +
			"  qps          find_product calls per second with one caller per core\n\n" +
			"Run it twice: the first run on a new catalog builds and writes the index file, the second\n" +
			"shows a restart. See docs/operations.md, \"Sizing check\".",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "catalog", Usage: "catalog `FILE` (JSON Lines, plain or gzip)", Required: true, TakesFile: true},
			&cli.IntFlag{Name: "queries", Usage: "`N` find_product calls to time", Value: 2000},
			&cli.StringFlag{Name: "index-dir", Usage: "`DIR` for the index file (default: beside the catalog, as the validator keeps it)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object instead of a table"},
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			log, err := env.logger(cmd)
			if err != nil {
				return err
			}
			n := cmd.Int("queries")
			if n < 1 {
				return fmt.Errorf("bench: --queries %d: want at least 1", n)
			}
			res, err := runShopBench(ctx, env, log, cmd.String("catalog"), cmd.String("index-dir"), n)
			if err != nil {
				return err
			}
			if cmd.Bool("json") {
				enc := json.NewEncoder(env.stdout)
				return enc.Encode(res)
			}
			return writeShopBench(env, res)
		},
	}
}

// shopBenchResult is `arena shop bench --json`'s object. The field names are
// a documented interface (docs/operations.md); keep them.
type shopBenchResult struct {
	Catalog   string  `json:"catalog"`
	IndexFile string  `json:"index_file"`
	Products  int     `json:"products"`
	Built     bool    `json:"built"`
	Persisted bool    `json:"persisted"`
	StartS    float64 `json:"start_s"`
	LoadS     float64 `json:"load_s"`
	BuildS    float64 `json:"build_s"`
	RSSMB     float64 `json:"rss_mb"`
	RSSPeakMB float64 `json:"rss_peak_mb"`
	Queries   int     `json:"queries"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	QPS       float64 `json:"qps"`
	Workers   int     `json:"workers"`
}

func runShopBench(ctx context.Context, env *cliEnv, log zerolog.Logger, catalog, dir string, n int) (shopBenchResult, error) {
	res := shopBenchResult{Catalog: catalog, Queries: n, Workers: runtime.GOMAXPROCS(0)}
	st, err := os.Stat(catalog)
	if err != nil {
		return res, fmt.Errorf("catalog: %w", err)
	}
	// The progress line labels whichever stage is running.
	loadProg := newProgressLine(env.stderr, "loading "+filepath.Base(catalog))
	buildProg := newProgressLine(env.stderr, "indexing")
	start := time.Now()
	idx, info, err := shop.OpenIndexFile(ctx, catalog, shop.IndexFileOptions{
		Dir:   dir,
		Load:  shop.LoadOptions{Progress: func(read int64) { loadProg.update(read, st.Size(), "bytes") }},
		Index: shop.IndexOptions{Progress: func(done, total int) { loadProg.finish(); buildProg.update(int64(done), int64(total), "steps") }},
	}, log)
	loadProg.finish()
	buildProg.finish()
	if err != nil {
		return res, fmt.Errorf("catalog: %w", err)
	}
	res.StartS = time.Since(start).Seconds()
	res.IndexFile, res.Built, res.Persisted = info.Path, info.Built, info.Persisted
	res.LoadS, res.BuildS = info.Load.Seconds(), info.Build.Seconds()
	cat := idx.Catalog()
	res.Products = cat.Len()
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, log, nil)
	if err != nil {
		return res, err
	}
	queries := workload.Queries(cat, n, 1)
	args := make([][]byte, len(queries))
	for i, q := range queries {
		args[i] = q.Args()
	}

	// Latency: one caller, each call timed.
	prog := newProgressLine(env.stderr, "searching")
	lat := make(workload.Latencies, 0, n)
	for i, a := range args {
		if err := ctx.Err(); err != nil {
			prog.finish()
			return res, err
		}
		t0 := time.Now()
		r := tools.Execute(ctx, shop.ToolFindProduct, a)
		lat = append(lat, time.Since(t0))
		if r.Err != nil {
			prog.finish()
			return res, fmt.Errorf("bench: find_product %s: %s", a, r.Err.Message)
		}
		prog.update(int64(i+1), int64(2*n), "calls")
	}
	res.P50Ms = workload.Millis(lat.Quantile(0.50))
	res.P99Ms = workload.Millis(lat.Quantile(0.99))

	// Throughput: one caller per core, the same calls.
	var next, done atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range res.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) || ctx.Err() != nil {
					return
				}
				tools.Execute(ctx, shop.ToolFindProduct, args[i])
				prog.update(int64(n)+done.Add(1), int64(2*n), "calls")
			}
		}()
	}
	wg.Wait()
	prog.finish()
	if err := ctx.Err(); err != nil {
		return res, err
	}
	res.QPS = float64(n) / time.Since(t0).Seconds()
	rss, peak := workload.RSS()
	if peak == 0 {
		return res, errors.New("bench: cannot read this process's memory from /proc/self/status (Linux only)")
	}
	res.RSSMB, res.RSSPeakMB = float64(rss)/(1<<20), float64(peak)/(1<<20)
	return res, nil
}

func writeShopBench(env *cliEnv, r shopBenchResult) error {
	how := "mapped from " + r.IndexFile
	if r.Built {
		how = fmt.Sprintf("built (load %.1f s, index %.1f s)", r.LoadS, r.BuildS)
		if r.Persisted {
			how += ", written to " + r.IndexFile
		} else {
			how += "; the index file could not be written (see the warning above)"
		}
	}
	_, err := fmt.Fprintf(env.stdout, "catalog      %s: %d products\n"+
		"start        %.2f s, %s\n"+
		"memory       %.0f MB serving, %.0f MB peak\n"+
		"find_product %d calls: p50 %.3f ms, p99 %.3f ms one at a time; %.0f calls/s on %d cores\n",
		r.Catalog, r.Products, r.StartS, how, r.RSSMB, r.RSSPeakMB, r.Queries, r.P50Ms, r.P99Ms, r.QPS, r.Workers)
	return err
}
