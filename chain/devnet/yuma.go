package devnet

import (
	"math"
	"sort"
)

// YumaInput is one subnet's state at an epoch boundary.
type YumaInput struct {
	Stake   []uint64   // per uid, rao
	Permit  []bool     // validator permits
	Weights [][]Weight // per uid, the row it last set (only permit holders count)
	Kappa   float64    // consensus majority, 0.5 on subtensor
	// Emission is what the epoch pays out in rao: half to miners by
	// incentive, half to validators by dividends.
	Emission uint64
}

// Weight is one entry of a weights row.
type Weight struct {
	UID   uint16
	Value uint16
}

// YumaOutput holds per-uid results in [0,1] and rao.
type YumaOutput struct {
	Rank, Trust, Consensus, Incentive, Dividends, Vtrust []float64
	Emission                                             []uint64
}

// Yuma is a simplified Yuma consensus, enough for the devnet to reflect
// what validators set:
//
//   - stake S is normalised over permit holders;
//   - each permit holder's row W is normalised to sum 1;
//   - consensus C_j is the stake-weighted κ-median of column j: the largest c
//     such that validators with W_ij ≥ c hold at least κ of the stake;
//   - clipped weights W'_ij = min(W_ij, C_j);
//   - rank R_j = Σ_i S_i·W'_ij, incentive I = R / ΣR, trust T_j = R_j / Σ_i S_i·W_ij;
//   - validator trust V_i = Σ_j W'_ij; dividends D_i ∝ S_i·Σ_j W'_ij·I_j.
//
// Bonds, their moving average and liquid alpha are left out.
func Yuma(in YumaInput) YumaOutput {
	n := len(in.Stake)
	out := YumaOutput{
		Rank: make([]float64, n), Trust: make([]float64, n), Consensus: make([]float64, n),
		Incentive: make([]float64, n), Dividends: make([]float64, n), Vtrust: make([]float64, n),
		Emission: make([]uint64, n),
	}
	kappa := in.Kappa
	if kappa <= 0 || kappa > 1 {
		kappa = 0.5
	}
	stake := make([]float64, n)
	var total float64
	for i := range n {
		if i < len(in.Permit) && in.Permit[i] {
			stake[i] = float64(in.Stake[i])
			total += stake[i]
		}
	}
	if total == 0 {
		return out
	}
	for i := range stake {
		stake[i] /= total
	}
	w := make([][]float64, n)
	for i := range n {
		w[i] = make([]float64, n)
		if stake[i] == 0 || i >= len(in.Weights) {
			continue
		}
		var sum float64
		for _, e := range in.Weights[i] {
			if int(e.UID) < n {
				w[i][e.UID] += float64(e.Value)
				sum += float64(e.Value)
			}
		}
		if sum > 0 {
			for j := range w[i] {
				w[i][j] /= sum
			}
		}
	}
	type vote struct{ w, s float64 }
	var preRank []float64 = make([]float64, n)
	for j := range n {
		votes := make([]vote, 0, n)
		for i := range n {
			if stake[i] > 0 {
				votes = append(votes, vote{w[i][j], stake[i]})
				preRank[j] += stake[i] * w[i][j]
			}
		}
		sort.Slice(votes, func(a, b int) bool { return votes[a].w > votes[b].w })
		var acc float64
		for _, v := range votes {
			acc += v.s
			if acc >= kappa-1e-12 {
				out.Consensus[j] = v.w
				break
			}
		}
	}
	var rankSum float64
	for i := range n {
		for j := range n {
			clipped := math.Min(w[i][j], out.Consensus[j])
			out.Rank[j] += stake[i] * clipped
			out.Vtrust[i] += clipped
		}
	}
	for j := range n {
		rankSum += out.Rank[j]
		if preRank[j] > 0 {
			out.Trust[j] = out.Rank[j] / preRank[j]
		}
	}
	if rankSum > 0 {
		for j := range n {
			out.Incentive[j] = out.Rank[j] / rankSum
		}
	}
	var divSum float64
	for i := range n {
		for j := range n {
			out.Dividends[i] += stake[i] * math.Min(w[i][j], out.Consensus[j]) * out.Incentive[j]
		}
		divSum += out.Dividends[i]
	}
	if divSum > 0 {
		for i := range n {
			out.Dividends[i] /= divSum
		}
	}
	half := float64(in.Emission) / 2
	for j := range n {
		out.Emission[j] = uint64(math.Round(half*out.Incentive[j] + half*out.Dividends[j]))
	}
	return out
}

// toU16 converts [0,1] to the chain's u16 fixed point.
func toU16(x float64) uint16 {
	return uint16(math.Round(math.Max(0, math.Min(1, x)) * 65535))
}

func toU16s(xs []float64) []uint16 {
	out := make([]uint16, len(xs))
	for i, x := range xs {
		out[i] = toU16(x)
	}
	return out
}
