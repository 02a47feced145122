package validator

import (
	"context"
	"time"

	"arena/shop"
	"arena/suite"
)

// CapacityWarnDays is the capacity below which, when restocks do not keep
// up, the validator warns: a month leaves an operator time to restock
// faster or load a larger catalog before races stop.
const CapacityWarnDays = 30

// NominalBlockSeconds stands in for the measured block time until two
// heads have arrived: subtensor's target block time.
const NominalBlockSeconds = 12

// Capacity estimates how many days of races the hidden pool and the
// unused products of the newest stock sustain (suite.Capacity).
func (v *Validator) Capacity(ctx context.Context) (suite.Capacity, error) {
	use, err := v.opts.Ledger.TargetUse(ctx)
	if err != nil {
		return suite.Capacity{}, err
	}
	pool, err := v.opts.Ledger.HiddenAvailable()
	if err != nil {
		return suite.Capacity{}, err
	}
	v.mu.Lock()
	bs := v.blockSeconds
	v.mu.Unlock()
	return CapacityOf(CapacityOptions{Use: use, HiddenAvailable: pool, Catalog: v.opts.Shop.Current().Tools.Catalog(),
		RaceProblems: v.opts.RaceProblems, RaceEveryBlocks: v.opts.RaceEveryBlocks, Restock: v.opts.Shop.Restock(), BlockSeconds: bs}), nil
}

// CapacityOptions describe a suite, its shop and its races for CapacityOf.
type CapacityOptions struct {
	// Use is what the stored problems spend (suite.Ledger.TargetUse);
	// HiddenAvailable the never-exposed hidden clusters.
	Use             suite.TargetUse
	HiddenAvailable int
	// Catalog is the shop's newest stock.
	Catalog *shop.Catalog
	// RaceProblems are raced every RaceEveryBlocks blocks.
	RaceProblems    int
	RaceEveryBlocks uint64
	Restock         Restock
	// BlockSeconds is the time a block takes; 0 takes
	// NominalBlockSeconds.
	BlockSeconds float64
}

// CapacityOf estimates the capacity of a suite (suite.EstimateCapacity),
// as the validator reports it and `arena suite capacity` works it out
// before a validator starts.
func CapacityOf(o CapacityOptions) suite.Capacity {
	inStock := 0
	for _, id := range o.Use.Targets {
		if _, ok := o.Catalog.Position(id); ok {
			inStock++
		}
	}
	bs := o.BlockSeconds
	if bs <= 0 {
		bs = NominalBlockSeconds
	}
	// One race a window: a validator races whenever a challenger
	// qualifies, which is the rate its pool must be ready for.
	perDay := float64(o.RaceProblems) * secondsPerDay / (bs * float64(o.RaceEveryBlocks))
	return suite.EstimateCapacity(suite.CapacityInputs{Products: o.Catalog.Len(), UsedInStock: inStock, Targets: len(o.Use.Targets),
		Problems: o.Use.Problems, HiddenAvailable: o.HiddenAvailable, ProblemsPerDay: perDay, RestockPerDay: o.Restock.PerDay(bs)})
}

// checkCapacity estimates the capacity, sets its gauges and warns, at most
// once a day, while the pool would run dry within CapacityWarnDays.
func (v *Validator) checkCapacity(ctx context.Context) {
	c, err := v.Capacity(ctx)
	if err != nil {
		if ctx.Err() == nil {
			v.log.Error().Err(err).Msg("suite: estimate the hidden pool's capacity")
		}
		return
	}
	v.m.capacitySeconds.Set(c.Days * 86400)
	v.m.restockCoverage.Set(c.RestockCoverage)
	if !c.RunsDryWithin(CapacityWarnDays) {
		return
	}
	v.mu.Lock()
	due := v.capacityWarned.IsZero() || time.Since(v.capacityWarned) >= 24*time.Hour
	if due {
		v.capacityWarned = time.Now()
	}
	v.mu.Unlock()
	if due {
		v.log.Warn().Float64("capacity_days", c.Days).Int("unused_products", c.UnusedProducts).
			Float64("targets_per_problem", c.TargetsPerProblem).Float64("problems_per_day", c.ProblemsPerDay).
			Float64("restock_coverage", c.RestockCoverage).
			Msg("hidden pool runs dry within 30 days: races stop when no product is left to target; restock faster (catalog.restock_products), load a larger catalog, or race fewer problems")
	}
}
