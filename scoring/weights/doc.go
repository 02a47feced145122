// Package weights turns a race outcome into the u16 weight vector a validator
// puts on chain.
//
// Why it exists: under Yuma consensus a validator's weights are only worth
// something if they agree with the other validators', and every other validator
// on a Bittensor subnet normalises its weights with the Python SDK
// (bittensor.utils.weight_utils). A Go validator that normalised "almost the
// same way" would drift by a few u16 units on some epochs and lose vtrust for
// no reason. So this package does two things, both pure and deterministic:
//
//   - Policy builds a float vector over uids from the ranked race result
//     (winner-take-all or ORO's taper, plus an optional burn fraction). It is
//     deterministic so that all validators running arena agree.
//   - ProcessWeightsForNetuid and ConvertWeightsAndUidsForEmit reproduce the
//     SDK's process_weights_for_netuid and convert_weights_and_uids_for_emit,
//     including their float32 arithmetic (numpy 2 / NEP 50 promotion rules,
//     numpy's pairwise float summation and numpy's "linear" quantile), so the
//     u16 values are the ones the SDK would send.
//
// The reproduction is checked, not argued: testdata/sdk_vectors.json.gz holds
// cases run through the SDK's own weight_utils.py (bittensor v10.2.0, numpy
// 2.2.4) by testdata/gen_vectors.py, and the tests reproduce every one bit for
// bit, intermediate float weights, quantile threshold and u16 values alike.
//
// The SDK accepts any numpy 2, and numpy changed np.quantile within 2.x:
// 2.0 to 2.3 compute the virtual index (n-1)*q in float32, 2.4 and later in
// float64. This package follows 2.0 to 2.3. The two can keep different weights
// only with a non-zero exclude quantile; the validator passes 0, for which
// every numpy version returns the smallest weight exactly.
//
// Where the SDK itself computes in float64 (the uniform branches and the
// "fewer non-zero than minAllowed" branch, which builds its array with
// np.ones(..., dtype=int64) * 1e-5) this package computes in float64 too.
// ProcessWeightsForNetuid must return float32 (its signature is fixed), which
// can in rare cases move a u16 by one unit in that branch; EmitWeightsForNetuid
// chains both steps on the exact float64 values and never loses that precision.
//
// Deliberate divergences from the SDK, all on inputs the SDK mishandles:
//   - NaN or ±Inf weights are an error (the SDK silently produces NaN).
//   - In the "fewer non-zero than minAllowed" branch the SDK places the given
//     weights at their *positions* in the input array, not at their uids; this
//     package places them at their uids. The two agree whenever uids[i] == i,
//     which is how validators call it (uids = arange(n)).
//   - Length mismatches and uids ≥ n are errors instead of IndexErrors or
//     silent truncation.
package weights
