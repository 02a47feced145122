package suite

import (
	"math"
	"testing"
)

func TestEstimateCapacity(t *testing.T) {
	tests := []struct {
		name string
		in   CapacityInputs
		want Capacity
		dry  bool // runs dry within 30 days
	}{
		{"the issue's 100k catalog, no restock", CapacityInputs{Products: 100_000, UsedInStock: 400, Targets: 400, Problems: 200,
			HiddenAvailable: 100, ProblemsPerDay: 1000},
			Capacity{Days: (100 + 99_600/2.0) / 1000, UnusedProducts: 99_600, TargetsPerProblem: 2, ProblemsPerDay: 1000}, false},
		{"nearly used up", CapacityInputs{Products: 20_000, UsedInStock: 19_000, Targets: 19_000, Problems: 10_000,
			HiddenAvailable: 60, ProblemsPerDay: 1000},
			Capacity{Days: (60 + 1000/1.9) / 1000, UnusedProducts: 1000, TargetsPerProblem: 1.9, ProblemsPerDay: 1000}, true},
		{"restocks outpace the races", CapacityInputs{Products: 20_000, UsedInStock: 19_000, Targets: 19_000, Problems: 10_000,
			HiddenAvailable: 60, ProblemsPerDay: 1000, RestockPerDay: 2850},
			Capacity{Days: (60 + 1000/1.9) / 1000, UnusedProducts: 1000, TargetsPerProblem: 1.9, ProblemsPerDay: 1000, RestockCoverage: 1.5}, false},
		{"restocks fall short", CapacityInputs{Products: 20_000, UsedInStock: 19_000, Targets: 19_000, Problems: 10_000,
			ProblemsPerDay: 1000, RestockPerDay: 950},
			Capacity{Days: 1000 / 1.9 / 1000, UnusedProducts: 1000, TargetsPerProblem: 1.9, ProblemsPerDay: 1000, RestockCoverage: 0.5}, true},
		{"targets outside the catalog count per problem, not against the stock", CapacityInputs{Products: 1000, UsedInStock: 0, Targets: 300,
			Problems: 100, ProblemsPerDay: 10},
			Capacity{Days: 1000 / 3.0 / 10, UnusedProducts: 1000, TargetsPerProblem: 3, ProblemsPerDay: 10}, false},
		{"no problem stored yet", CapacityInputs{Products: 1800, ProblemsPerDay: 1000},
			Capacity{Days: 1, UnusedProducts: 1800, TargetsPerProblem: defaultTargetsPerProblem, ProblemsPerDay: 1000}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EstimateCapacity(tt.in)
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if got.UnusedProducts != tt.want.UnusedProducts || !near(got.Days, tt.want.Days) || !near(got.TargetsPerProblem, tt.want.TargetsPerProblem) ||
				!near(got.ProblemsPerDay, tt.want.ProblemsPerDay) || !near(got.RestockCoverage, tt.want.RestockCoverage) {
				t.Fatalf("EstimateCapacity = %+v, want %+v", got, tt.want)
			}
			if dry := got.RunsDryWithin(30); dry != tt.dry {
				t.Fatalf("RunsDryWithin(30) = %v, want %v", dry, tt.dry)
			}
		})
	}
}
