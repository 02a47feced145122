package validator

import (
	"context"
	"time"

	"arena/suite"
)

// CapacityWarnDays is the capacity below which, when restocks do not keep
// up, the validator warns: a month leaves an operator time to restock
// faster or load a larger catalog before races stop.
const CapacityWarnDays = 30

// nominalBlockSeconds stands in for the measured block time until two
// heads have arrived: subtensor's target block time.
const nominalBlockSeconds = 12

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
	cat := v.opts.Shop.Current().Tools.Catalog()
	inStock := 0
	for _, id := range use.Targets {
		if _, ok := cat.Position(id); ok {
			inStock++
		}
	}
	v.mu.Lock()
	bs := v.blockSeconds
	v.mu.Unlock()
	if bs <= 0 {
		bs = nominalBlockSeconds
	}
	// One race a window: a validator races whenever a challenger
	// qualifies, which is the rate its pool must be ready for.
	perDay := float64(v.opts.RaceProblems) * secondsPerDay / (bs * float64(v.opts.RaceEveryBlocks))
	return suite.EstimateCapacity(suite.CapacityInputs{Products: cat.Len(), UsedInStock: inStock, Targets: len(use.Targets),
		Problems: use.Problems, HiddenAvailable: pool, ProblemsPerDay: perDay, RestockPerDay: v.opts.Shop.Restock().PerDay(bs)}), nil
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
	v.m.capacityDays.Set(c.Days)
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
