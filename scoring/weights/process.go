package weights

import (
	"errors"
	"fmt"
	"math"
)

// U16Max is the u16 scale weights are expressed in on chain (U16_MAX in the SDK).
const U16Max = 65535

// limitFromFraction recovers the float64 value the SDK uses for the max weight
// limit. The chain stores it as a u16 and the SDK turns it into the Python float
// raw/65535 (u16_normalized_float); callers of ProcessWeightsForNetuid pass that
// fraction as float32. float32(raw/65535) is injective over u16 (grid points are
// 1.5e-5 apart, float32 resolves 6e-8 below 1), so the nearest grid point is
// the only candidate, and it is the limit exactly when it rounds back to l.
// Rounding l*65535 to the nearest integer finds it: the float32 rounding moves
// l by at most 3e-8, which is 2e-3 grid units, far from the 0.5 that would pick
// the wrong neighbour. A value off the grid is used as given.
func limitFromFraction(l float32) float64 {
	raw := math.Round(float64(l) * U16Max)
	if raw >= 0 && raw <= U16Max && float32(raw/U16Max) == l {
		return raw / U16Max
	}
	return float64(l)
}

// ProcessWeightsForNetuid is the SDK's process_weights_for_netuid with the
// subnet parameters passed in: n is the subnet size (metagraph.n), minAllowed
// the subnet's min_allowed_weights, maxWeightLimit its max_weight_limit as a
// fraction of 1, excludeQuantile the u16 exclude quantile (fraction ×65535).
//
// Branches, as in the SDK:
//   - keep only entries with w > 0;
//   - none left, or n < minAllowed: return uids 0..n-1 with uniform 1/n;
//   - fewer non-zero than minAllowed: start from 1e-5 for every uid 0..n-1,
//     add the given weights, apply normalize_max_weight and return all n uids
//     (computed in float64, as the SDK does);
//   - otherwise: exclude quantile q = min(excludeQuantile/65535,
//     max(0, nz-minAllowed)/nz), drop weights below np.quantile(nz, q)
//     (linear interpolation), apply normalize_max_weight in float32 and return
//     the surviving uids in input order.
func ProcessWeightsForNetuid(uids []uint16, weights []float32, n int, minAllowed int, maxWeightLimit float32, excludeQuantile uint16) ([]uint16, []float32, error) {
	outUIDs, w64, err := processWeights(uids, weights, n, minAllowed, maxWeightLimit, excludeQuantile)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float32, len(w64))
	for i, v := range w64 {
		out[i] = float32(v)
	}
	return outUIDs, out, nil
}

// EmitWeightsForNetuid chains ProcessWeightsForNetuid and
// ConvertWeightsAndUidsForEmit without rounding the intermediate weights to
// float32, so it matches the SDK's u16 output bit for bit also in the branches
// where the SDK works in float64. This is what the validator should call.
func EmitWeightsForNetuid(uids []uint16, weights []float32, n int, minAllowed int, maxWeightLimit float32, excludeQuantile uint16) ([]uint16, []uint16, error) {
	pu, pw, err := processWeights(uids, weights, n, minAllowed, maxWeightLimit, excludeQuantile)
	if err != nil {
		return nil, nil, err
	}
	return convert(pu, pw)
}

// processWeights returns the SDK's result with every value held exactly in
// float64 (float32 results are promoted exactly).
func processWeights(uids []uint16, weights []float32, n int, minAllowed int, maxWeightLimit float32, excludeQuantile uint16) ([]uint16, []float64, error) {
	if len(uids) != len(weights) {
		return nil, nil, fmt.Errorf("process weights: %d uids but %d weights", len(uids), len(weights))
	}
	if n < 0 {
		return nil, nil, fmt.Errorf("process weights: negative subnet size %d", n)
	}
	if minAllowed < 0 {
		return nil, nil, fmt.Errorf("process weights: negative min allowed weights %d", minAllowed)
	}
	if math.IsNaN(float64(maxWeightLimit)) || maxWeightLimit < 0 || maxWeightLimit > 1 {
		return nil, nil, fmt.Errorf("process weights: max weight limit %v is not a fraction in [0, 1]", maxWeightLimit)
	}
	for i, w := range weights {
		if math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
			return nil, nil, fmt.Errorf("process weights: weight %d (uid %d) is %v", i, uids[i], w)
		}
		if int(uids[i]) >= n {
			return nil, nil, fmt.Errorf("process weights: uid %d out of range for subnet size %d", uids[i], n)
		}
	}
	limit := limitFromFraction(maxWeightLimit)

	nzUIDs, nz := nonZero(uids, weights)

	// SDK: np.ones(n, dtype=int64) / n, a float64 array, with uids arange(n).
	if len(nz) == 0 || n < minAllowed {
		outU := make([]uint16, n)
		outW := make([]float64, n)
		for i := range n {
			outU[i] = uint16(i)
			outW[i] = 1 / float64(n)
		}
		return outU, outW, nil
	}

	// SDK: np.ones(n, dtype=int64) * 1e-5, then += the non-zero weights: float64.
	if len(nz) < minAllowed {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1e-5
		}
		for i, u := range nzUIDs {
			x[u] += float64(nz[i])
		}
		outU := make([]uint16, n)
		for i := range n {
			outU[i] = uint16(i)
		}
		return outU, normalizeMaxWeight(x, limit), nil
	}

	_, lowest := excludeThreshold(nz, minAllowed, excludeQuantile)

	keptU := make([]uint16, 0, len(nz))
	kept := make([]float32, 0, len(nz))
	for i, w := range nz {
		if lowest <= w {
			keptU = append(keptU, nzUIDs[i])
			kept = append(kept, w)
		}
	}
	norm := normalizeMaxWeight(kept, limit)
	out := make([]float64, len(norm))
	for i, v := range norm {
		out[i] = float64(v)
	}
	return keptU, out, nil
}

// nonZero keeps the entries with w > 0, in input order (negative weights are
// dropped like zeros, as in the SDK).
func nonZero(uids []uint16, weights []float32) ([]uint16, []float32) {
	var nzUIDs []uint16
	var nz []float32
	for i, w := range weights {
		if w > 0 {
			nzUIDs = append(nzUIDs, uids[i])
			nz = append(nz, w)
		}
	}
	return nzUIDs, nz
}

// excludeThreshold returns the quantile q the SDK passes to np.quantile and the
// threshold it gets back: weights below the threshold are dropped. The u16
// exclude quantile is capped so that at least minAllowed weights survive. nz
// must be non-empty.
func excludeThreshold(nz []float32, minAllowed int, excludeQuantile uint16) (q float64, lowest float32) {
	quantile := float64(excludeQuantile) / U16Max
	maxExclude := float64(max(0, len(nz)-minAllowed)) / float64(len(nz))
	q = min(quantile, maxExclude)
	return q, quantileLinear(nz, q)
}

// ConvertWeightsAndUidsForEmit is the SDK's convert_weights_and_uids_for_emit:
// it rejects negative weights and length mismatches, returns empty slices when
// the weights sum to zero, otherwise divides every weight by the maximum,
// scales by 65535, rounds half to even (Python's round) and drops the entries
// that round to 0. As in the SDK the arithmetic is float64 (Python floats) on
// the given values. uids are uint16 so they cannot be negative or exceed the
// chain's range; duplicates are left for the chain to reject, as in the SDK.
func ConvertWeightsAndUidsForEmit(uids []uint16, weights []float32) ([]uint16, []uint16, error) {
	w := make([]float64, len(weights))
	for i, v := range weights {
		w[i] = float64(v)
	}
	if len(uids) != len(weights) {
		return nil, nil, fmt.Errorf("convert weights: uids and weights must have the same length, got %d and %d", len(uids), len(weights))
	}
	return convert(uids, w)
}

func convert(uids []uint16, weights []float64) ([]uint16, []uint16, error) {
	if len(uids) != len(weights) {
		return nil, nil, fmt.Errorf("convert weights: uids and weights must have the same length, got %d and %d", len(uids), len(weights))
	}
	if len(weights) == 0 {
		// The SDK raises here (min() of an empty list).
		return nil, nil, errors.New("convert weights: no weights given")
	}
	var sum, maxW float64
	for i, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, nil, fmt.Errorf("convert weights: weight for uid %d is %v", uids[i], w)
		}
		if w < 0 {
			return nil, nil, fmt.Errorf("convert weights: weight %v for uid %d is negative and cannot exist on chain", w, uids[i])
		}
		sum += w
		maxW = max(maxW, w)
	}
	if sum == 0 {
		return []uint16{}, []uint16{}, nil
	}
	outU := make([]uint16, 0, len(uids))
	outW := make([]uint16, 0, len(uids))
	for i, w := range weights {
		v := math.RoundToEven(float64(w/maxW) * U16Max)
		if v != 0 {
			outU = append(outU, uids[i])
			outW = append(outW, uint16(v))
		}
	}
	return outU, outW, nil
}
