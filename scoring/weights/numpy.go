package weights

import (
	"math"
	"slices"
)

// float is the set of element types numpy arrays take in the SDK code paths.
type float interface{ ~float32 | ~float64 }

// pairwiseSum reproduces numpy's add.reduce over a contiguous 1-D float array
// (numpy/_core/src/umath/loops_utils.h.src:81 at v2.2.0). numpy does not sum
// left to right: below 8 elements it does, up to 128 elements it keeps eight
// interleaved partial sums and combines them as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
// before adding the tail, and above 128 it splits in two halves (the first
// half rounded down to a multiple of 8) and recurses. The accumulator has the
// element type, so float32 arrays are summed in float32. The reduction starts
// from the additive identity 0, which does not change the result.
func pairwiseSum[F float](a []F) F {
	n := len(a)
	switch {
	case n < 8:
		var res F
		for _, v := range a {
			res = F(res + v)
		}
		return res
	case n <= 128:
		var r [8]F
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range 8 {
				r[j] = F(r[j] + a[i+j])
			}
		}
		res := F(F(F(r[0]+r[1])+F(r[2]+r[3])) + F(F(r[4]+r[5])+F(r[6]+r[7])))
		for ; i < n; i++ {
			res = F(res + a[i])
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return F(pairwiseSum(a[:n2]) + pairwiseSum(a[n2:]))
	}
}

// cumsum is numpy's add.accumulate: a plain left-to-right running sum in the
// element type.
func cumsum[F float](a []F) []F {
	out := make([]F, len(a))
	var acc F
	for i, v := range a {
		acc = F(acc + v)
		out[i] = acc
	}
	return out
}

// quantileLinear is np.quantile(a, q) with the default method "linear" for a
// float32 array and a Python-float q, as numpy 2.0 to 2.3 compute it
// (numpy/lib/_function_base_impl.py:4517 and :4639 at v2.2.0): q is first cast
// to the array dtype ("use dtype of array if possible"), the virtual index is
// (n-1)*q in float32, gamma is its fractional part (kept in float32), and the
// interpolation is numpy's _lerp, which computes a + (b-a)*t for t < 0.5 and
// b - (b-a)*(1-t) for t >= 0.5 (so that t = 1 returns b exactly). An index at
// or beyond the last element returns the last element. a must be non-empty.
func quantileLinear(a []float32, q float64) float32 {
	s := slices.Clone(a)
	slices.Sort(s)
	n := len(s)
	q32 := float32(q)
	vi := float32(float32(n-1) * q32)
	if vi >= float32(n-1) {
		return s[n-1]
	}
	if vi < 0 {
		return s[0]
	}
	prev := int(math.Floor(float64(vi)))
	next := prev + 1
	t := float32(vi - float32(prev))
	lo, hi := s[prev], s[next]
	diff := float32(hi - lo)
	if t >= 0.5 {
		return float32(hi - float32(diff*float32(1-t)))
	}
	return float32(lo + float32(diff*t))
}

// normalizeMaxWeight reproduces bittensor.utils.weight_utils.normalize_max_weight
// for a float32 array (F = float32) or a float64 array (F = float64).
//
// The algorithm: normalise x to sum 1 and cap every entry at limit, moving
// the excess proportionally onto the uncapped entries, in one pass instead of
// iterating "cap, renormalise, cap again":
//
//  1. If sum(x) == 0 or len(x)*limit <= 1 (the cap cannot be met), return the
//     uniform vector 1/len.
//  2. Sort ascending into values; estimation = values / sum(values). If
//     max(estimation) <= limit, return x / sum(x).
//  3. cumsum = running sum of estimation. For each sorted position i, the
//     entry stays uncapped if, when all entries above it were cut down to its
//     size, its share would still be below the limit:
//     estimation[i] / ((len-i-1)*estimation[i] + cumsum[i] + ε) < limit.
//     n_values counts those positions (ε = 1e-7).
//  4. The cutoff c solves c = limit * (cumsum[n_values-1] + (len-n_values)*c)
//     (in normalised units), with ε subtracted for stability:
//     cutoff_scale = (limit*cumsum[n_values-1] - ε) / (1 - limit*(len-n_values)),
//     rescaled to the raw values by multiplying by sum(values).
//  5. Clip every raw entry above the cutoff to the cutoff, then divide by the
//     new sum.
//
// Types follow numpy 2 (NEP 50): the Python float limit and ε are "weak" and
// take the array's dtype inside array expressions, but limit*(len-n_values)
// multiplies a numpy int64, so the denominator and therefore cutoff_scale and
// cutoff are float64; the comparison weights > cutoff is done in float64 and
// the assignment rounds the cutoff back to the array dtype. Python indexing
// cumsum[n_values-1] with n_values == 0 reads the last element; that is
// reproduced although it cannot happen when len*limit > 1.
func normalizeMaxWeight[F float](x []F, limit float64) []F {
	const epsilon = 1e-7
	n := len(x)
	w := slices.Clone(x)
	if n == 0 {
		return w
	}
	values := slices.Clone(x)
	slices.Sort(values)

	if pairwiseSum(x) == 0 || float64(n)*limit <= 1 {
		for i := range w {
			w[i] = F(F(1) / F(n))
		}
		return w
	}
	limitF := F(limit)
	epsF := F(epsilon)

	vsum := pairwiseSum(values)
	estimation := make([]F, n)
	maxEst := F(math.Inf(-1))
	for i, v := range values {
		estimation[i] = F(v / vsum)
		maxEst = max(maxEst, estimation[i])
	}
	if maxEst <= limitF {
		s := pairwiseSum(w)
		for i := range w {
			w[i] = F(w[i] / s)
		}
		return w
	}

	cs := cumsum(estimation)
	nValues := 0
	for i := range estimation {
		estSum := F(F(n-i-1) * estimation[i])
		den := F(F(estSum+cs[i]) + epsF)
		if F(estimation[i]/den) < limitF {
			nValues++
		}
	}
	idx := nValues - 1
	if idx < 0 {
		idx = n - 1 // Python's cumsum[-1]
	}
	num := F(F(limitF*cs[idx]) - epsF)
	// The explicit conversion keeps Go from fusing this into an FMA: numpy
	// rounds the product before subtracting.
	den := 1 - float64(limit*float64(n-nValues))
	cutoffScale := float64(num) / den
	cutoff := cutoffScale * float64(vsum)

	for i := range w {
		if float64(w[i]) > cutoff {
			w[i] = F(cutoff)
		}
	}
	s := pairwiseSum(w)
	for i := range w {
		w[i] = F(w[i] / s)
	}
	return w
}
