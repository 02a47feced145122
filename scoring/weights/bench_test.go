package weights

import (
	"slices"
	"testing"
)

// The validator's per-epoch weights call on a 256-uid subnet
// (validator/weights.go): the policy vector over every uid, the subnet's min
// allowed weights, the chain's u16 max weight limit passed as
// float32(raw/65535), and exclude quantile 0, which is what the validator
// passes. The main branch computes the quantile threshold (a sort) whatever
// its value.
const (
	benchN               = 256
	benchMinAllowed      = 8
	benchMaxWeightLimit  = 26214 // ≈ 0.4, below rank 1's 0.475: the cap binds
	benchExcludeQuantile = 0
)

// benchRace is a taper policy with a burn and a race result over every uid
// but the burn uid, best first.
func benchRace() (Policy, []uint16) {
	ranked := make([]uint16, benchN-1)
	for i := range ranked {
		ranked[i] = uint16(benchN - 1 - i)
	}
	return Policy{Kind: Taper, TopShare: 0.5, TailShare: 0.4, BurnFraction: 0.05}, ranked
}

// BenchmarkEmitWeightsForNetuid256 times EmitWeightsForNetuid as the validator
// calls it, on the policy vector it would pass.
func BenchmarkEmitWeightsForNetuid256(b *testing.B) {
	policy, ranked := benchRace()
	vec, err := policy.Vector(ranked, benchN)
	if err != nil {
		b.Fatal(err)
	}
	uids := seq(benchN)
	lim := limit(benchMaxWeightLimit)
	if top := slices.Max(vec); top <= lim {
		b.Fatalf("rank 1 has %v, under the cap %v: the cap would not bind", top, lim)
	}
	_, pw, err := processWeights(uids, vec, benchN, benchMinAllowed, lim, benchExcludeQuantile)
	if err != nil {
		b.Fatal(err)
	}
	if got := slices.Max(pw); got > float64(lim) {
		b.Fatalf("largest weight %v after normalisation exceeds the cap %v", got, lim)
	}
	for b.Loop() {
		if _, _, err := EmitWeightsForNetuid(uids, vec, benchN, benchMinAllowed, lim, benchExcludeQuantile); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWeights256 is the whole per-epoch weights path of the validator on
// the same subnet: the policy vector from the race result, then
// EmitWeightsForNetuid.
func BenchmarkWeights256(b *testing.B) {
	policy, ranked := benchRace()
	uids := seq(benchN)
	lim := limit(benchMaxWeightLimit)
	for b.Loop() {
		vec, err := policy.Vector(ranked, benchN)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := EmitWeightsForNetuid(uids, vec, benchN, benchMinAllowed, lim, benchExcludeQuantile); err != nil {
			b.Fatal(err)
		}
	}
}
