package validator

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/shop"
	"arena/shop/gen"
	"arena/suite"
)

// testSuiteSizes are the suite sizes of the harnesses that make their own
// suite: a small public set, and races of ten problems.
func testSuiteSizes() config.ValidatorConfig {
	vc := config.Default().Validator
	vc.PublicProblems, vc.QualifyingProblems, vc.RaceProblems, vc.HiddenMinClusters = 12, 3, 10, 20
	return vc
}

// fileShop is the shop of an operator's catalog file: products generated
// from seed, written as JSON Lines, loaded as OpenShop loads catalog.file.
func fileShop(t *testing.T, products int, seed uint64) *Shop {
	t.Helper()
	ctx := context.Background()
	g, err := gen.New(gen.Options{Products: products, Seed: seed}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "catalog.jsonl")
	f, err := shop.CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Write(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cc := config.Default().Catalog
	cc.File = path
	s, err := OpenShop(ctx, cc, 1<<30, zerolog.Nop(), nil, func(string, int, int) {})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const runsDryLine = "hidden pool runs dry within 30 days"

// TestCapacityReported: the capacity the status API reports is the one the
// ledger and the catalog give, the gauge shows it, and the validator warns
// exactly when the pool would run dry within 30 days: for an operator's
// catalog file, which never restocks, once it lasts less than that; for a
// generated catalog, only when its restocks do not keep up with the races.
func TestCapacityReported(t *testing.T) {
	tests := []struct {
		name        string
		shop        func(t *testing.T) *Shop
		raceEvery   uint64
		wantWarn    bool
		wantRestock bool
	}{
		{"catalog file, a race a day", func(t *testing.T) *Shop { return fileShop(t, 3000, 4) }, 7200, false, false},
		{"catalog file, races every 10 blocks", func(t *testing.T) *Shop { return fileShop(t, 3000, 4) }, 10, true, false},
		// 10 problems every 10 blocks use about 1.7 products a block.
		{"generated, restocks keep up", func(t *testing.T) *Shop {
			return testShop(t, 3000, 4, Restock{EveryBlocks: 100, Products: 400}, 0)
		}, 10, false, true},
		{"generated, restocks fall short", func(t *testing.T) *Shop {
			return testShop(t, 3000, 4, Restock{EveryBlocks: 100, Products: 100}, 0)
		}, 10, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs lockedBuffer
			vc := testSuiteSizes()
			sh := tt.shop(t)
			h := newHarness(t, harnessOptions{shop: sh, suite: vc, logs: &logs, edit: func(o *Options) { o.RaceEveryBlocks = tt.raceEvery }})
			h.v.checkCapacity(h.ctx)

			st, err := h.v.StatusNow(h.ctx)
			if err != nil {
				t.Fatal(err)
			}
			body, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Suite struct {
					CapacityDays    *float64 `json:"capacity_days"`
					Unused          int      `json:"unused_products"`
					RestockCoverage float64  `json:"restock_coverage"`
				} `json:"suite"`
			}
			if err := json.Unmarshal(body, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Suite.CapacityDays == nil {
				t.Fatalf("status has no suite.capacity_days: %s", body)
			}
			got := *doc.Suite.CapacityDays

			// The same figure worked out here from the ledger and catalog.
			use, err := h.ledger.TargetUse(h.ctx)
			if err != nil {
				t.Fatal(err)
			}
			pool, err := h.ledger.HiddenAvailable()
			if err != nil {
				t.Fatal(err)
			}
			cat := sh.Current().Tools.Catalog()
			unused := cat.Len() - len(use.Targets)
			perProblem := float64(len(use.Targets)) / float64(use.Problems)
			perDay := float64(vc.RaceProblems) * 86400 / (NominalBlockSeconds * float64(tt.raceEvery))
			want := (float64(pool) + float64(unused)/perProblem) / perDay
			if math.Abs(got-want) > 1e-9*want || doc.Suite.Unused != unused {
				t.Fatalf("suite.capacity_days %.6f with %d unused products, want %.6f with %d", got, doc.Suite.Unused, want, unused)
			}
			if gauge := h.metric("arena_suite_capacity_seconds"); math.Abs(gauge-got*86400) > 1e-9*got*86400 {
				t.Fatalf("arena_suite_capacity_seconds %.6f, the status says %.6f days", gauge, got)
			}
			if (doc.Suite.RestockCoverage > 0) != tt.wantRestock {
				t.Fatalf("restock coverage %.2f; want restocks: %v", doc.Suite.RestockCoverage, tt.wantRestock)
			}
			t.Logf("capacity %.2f days, restock coverage %.2f", got, doc.Suite.RestockCoverage)
			if warned := strings.Contains(logs.String(), runsDryLine); warned != tt.wantWarn {
				t.Fatalf("warned %v, want %v (capacity %.2f days, restock coverage %.2f)", warned, tt.wantWarn, got, doc.Suite.RestockCoverage)
			}
			// Once a day at most, however often it is checked.
			h.v.checkCapacity(h.ctx)
			if n := strings.Count(logs.String(), runsDryLine); n > 1 {
				t.Fatalf("warned %d times", n)
			}
		})
	}
}

// TestHiddenPoolNeverRunsDry races a 600-product catalog on every window,
// ten problems a race, for twice the races its own products can
// target: restocking, no window goes without a race and no draw comes up
// short; without restocks the pool runs dry, as it must.
func TestHiddenPoolNeverRunsDry(t *testing.T) {
	const windows = 75
	tests := []struct {
		name    string
		restock Restock
		wantDry bool
	}{
		// Five windows spend about 85 products; a lot of 150 covers them.
		{"restocking every five windows", Restock{EveryBlocks: 50, Products: 150}, false},
		{"never restocking", Restock{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs lockedBuffer
			sh := testShop(t, 600, 5, tt.restock, 0)
			h := newHarness(t, harnessOptions{miners: 2, shop: sh, suite: testSuiteSizes(), logs: &logs,
				edit: func(o *Options) { o.RaceEveryBlocks = 10 }})
			// A window whose draw came up short tries again at every head
			// (each a refill of the empty catalog): stop at the first.
			var dry int
			for n := uint64(1); n <= windows*10+5 && dry == 0; n++ {
				h.head(n)
				h.settle()
				if n%10 == 0 {
					dry = strings.Count(logs.String(), suite.ErrPoolExhausted.Error())
				}
			}
			started := len(h.eventsOf(EventRaceStart))
			t.Logf("%d races in %d windows; %d lots restocked, %d products; %d draws came up short",
				started, windows, sh.Current().Lots, sh.Current().Tools.Catalog().Len(), dry)
			if skipped := h.eventsOf(EventRaceSkipped); len(skipped) > 0 {
				t.Fatalf("%d windows without a qualified racer (the first at block %d); the test needs a race every window", len(skipped), skipped[0].Block)
			}
			if tt.wantDry {
				if dry == 0 || started == windows {
					t.Fatalf("%d races in %d windows without a restock: the test no longer needs restocks", started, windows)
				}
				// Each short draw is one failed start, logged and counted once.
				failed := strings.Count(logs.String(), `"phase":"start"`)
				if failed < dry || strings.Count(logs.String(), "race step failed") != failed {
					t.Errorf("%d short draws, %d start failures logged, %d race step failures logged", dry, failed, strings.Count(logs.String(), "race step failed"))
				}
				if got := h.metric("arena_validator_race_errors_total"); got != float64(failed) {
					t.Errorf("arena_validator_race_errors_total = %v, want %d", got, failed)
				}
				return
			}
			if dry > 0 || started != windows {
				t.Fatalf("%d races in %d windows, %d draws short of problems", started, windows, dry)
			}
		})
	}
}
