package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"arena/store"
	"arena/suite"
	"arena/validator/records"
)

// BenchmarkPages measures the server time of each console page over a
// store of the size the console must stay fast at: 10,000 decided races
// of 5 racers on 20 problems each, 1,000,000 race episodes with their
// verdicts (ARENA_WEB_BENCH_RACES scales it down). Each iteration renders
// one page for a random race, episode or miner, so reads are spread over
// the whole store. Building the store takes minutes; ARENA_WEB_BENCH_DIR
// keeps it between runs (a dir with a "complete" file is reused).
//
//	go test ./web/ -run '^$' -bench BenchmarkPages -benchtime 2000x
func BenchmarkPages(b *testing.B) {
	races := 10_000
	if s := os.Getenv("ARENA_WEB_BENCH_RACES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("ARENA_WEB_BENCH_RACES=%q: want a positive integer", s)
		}
		races = n
	}
	const racers, problems = 5, 20
	dir := os.Getenv("ARENA_WEB_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	} else {
		dir = filepath.Join(dir, fmt.Sprintf("races-%d", races))
	}
	opts := arenaOptions{Races: races, Racers: racers, Problems: problems, Pool: 200, Miners: 8}
	var f *fixtureArena
	if _, err := os.Stat(filepath.Join(dir, "complete")); err == nil {
		st, ledger := openFixtureStore(b, filepath.Join(dir, "store"))
		f = reopenArena(st, ledger, opts)
	} else {
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		opts.Progress = func(done, total int) {
			if done%1000 == 0 {
				b.Logf("fixture: %d of %d races written (%s)", done, total, time.Since(start).Round(time.Second))
			}
		}
		f = buildArena(b, filepath.Join(dir, "store"), opts)
		if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Logf("fixture: %d races, %d episodes in %s", races, races*racers*problems, time.Since(start).Round(time.Second))
	}
	c, err := New(Options{Validator: f.v}, zerolog.Nop())
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := c.Refresh(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Logf("console start: race digests and suite counted in %s", time.Since(start).Round(time.Millisecond))
	h := c.Operator()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ARENA_WEB_BENCH_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	b.Logf("seed %d (ARENA_WEB_BENCH_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	pages := []struct {
		name string
		path func() string
	}{
		{"overview", func() string { return "/" }},
		{"leaderboard", func() string { return "/leaderboard" }},
		{"races", func() string { return "/races" }},
		{"races-older", func() string { return fmt.Sprintf("/races?before=%d", 1+rng.IntN(races)) }},
		{"race", func() string { return fmt.Sprintf("/races/%d", 1+rng.IntN(races)) }},
		{"episode", func() string {
			return fmt.Sprintf("/episodes/r%06d-u%02d-p%03d", 1+rng.IntN(races), 1+rng.IntN(racers), rng.IntN(problems))
		}},
		{"miner", func() string { return fmt.Sprintf("/miners/%d", 1+rng.IntN(racers)) }},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for b.Loop() {
				path := p.path()
				t0 := time.Now()
				code, body, _ := get(b, h, path)
				times = append(times, time.Since(t0))
				if code != http.StatusOK {
					b.Fatalf("%s: %d %.300s", path, code, body)
				}
			}
			slices.Sort(times)
			q := func(p float64) float64 {
				return float64(times[min(len(times)-1, int(p*float64(len(times))))].Microseconds()) / 1000
			}
			b.ReportMetric(q(0.5), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
		})
	}
}

// reopenArena is the fixture arena of a store built earlier with opts.
func reopenArena(st *store.Store, ledger *suite.Ledger, o arenaOptions) *fixtureArena {
	f := &fixtureArena{v: &fakeValidator{st: st, rec: records.New(), ledger: ledger}}
	f.v.status, f.v.board = fixtureStatus(o)
	return f
}
