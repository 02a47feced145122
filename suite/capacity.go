package suite

// Capacity is how long a validator can keep racing on its suite: how many
// days of races its hidden pool and its catalog's unused products sustain.
// A product is spent once it is a target: no problem targeting it may be
// raced again after any problem targeting it was exposed (see Ledger.Add),
// so the products no stored problem targets are what future problems can
// be made of.
type Capacity struct {
	// Days is how many days of races the hidden pool and the unused
	// products in stock sustain at ProblemsPerDay, before any further
	// restock. It assumes every unused product can be a target, so it is
	// an upper bound; on generated catalogs 98% of products could be
	// (docs/benchmarks.md, "Hidden pool capacity").
	Days float64 `json:"capacity_days"`
	// UnusedProducts are the products in stock that no stored problem
	// targets.
	UnusedProducts int `json:"unused_products"`
	// TargetsPerProblem is the distinct targets per stored problem.
	TargetsPerProblem float64 `json:"targets_per_problem"`
	// ProblemsPerDay is how many hidden problems a day of races uses: one
	// race a window, RaceProblems each.
	ProblemsPerDay float64 `json:"problems_per_day"`
	// RestockCoverage is how many products the catalog's restocks add a
	// day over how many the races use a day (0: it never restocks). At 1
	// or more the pool never runs dry, whatever Days says.
	RestockCoverage float64 `json:"restock_coverage"`
}

// CapacityInputs are what EstimateCapacity works from.
type CapacityInputs struct {
	// Products is the catalog's size now; UsedInStock how many of its
	// products stored problems target.
	Products, UsedInStock int
	// Targets is the distinct targets of the Problems stored, in or out of
	// the catalog (an imported suite may name others).
	Targets, Problems int
	// HiddenAvailable is the never-exposed hidden clusters: each is one
	// race problem already made.
	HiddenAvailable int
	// ProblemsPerDay is the races' use (see Capacity.ProblemsPerDay).
	ProblemsPerDay float64
	// RestockPerDay is the products restocks add a day (0: none).
	RestockPerDay float64
}

// defaultTargetsPerProblem stands in before any problem is stored: the
// default mix's average on a fresh generated catalog (docs/benchmarks.md,
// "Hidden pool capacity").
const defaultTargetsPerProblem = 1.8

// EstimateCapacity works out the capacity from a ledger's and a catalog's
// counts.
func EstimateCapacity(in CapacityInputs) Capacity {
	c := Capacity{UnusedProducts: max(in.Products-in.UsedInStock, 0), TargetsPerProblem: defaultTargetsPerProblem,
		ProblemsPerDay: in.ProblemsPerDay}
	if in.Problems > 0 && in.Targets > 0 {
		c.TargetsPerProblem = float64(in.Targets) / float64(in.Problems)
	}
	if in.ProblemsPerDay <= 0 {
		return c
	}
	c.Days = (float64(in.HiddenAvailable) + float64(c.UnusedProducts)/c.TargetsPerProblem) / in.ProblemsPerDay
	c.RestockCoverage = in.RestockPerDay / (in.ProblemsPerDay * c.TargetsPerProblem)
	return c
}

// RunsDryWithin reports whether races stop for lack of problems within
// days: the stock lasts less and restocks do not keep up.
func (c Capacity) RunsDryWithin(days float64) bool { return c.Days < days && c.RestockCoverage < 1 }
