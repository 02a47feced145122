package devnet

import (
	"math"
	"testing"
)

func TestYuma(t *testing.T) {
	tests := []struct {
		name          string
		in            YumaInput
		wantIncentive []float64
		wantConsensus []float64
	}{
		{
			name: "one validator all weight on uid 2",
			in: YumaInput{
				Stake: []uint64{100, 0, 0}, Permit: []bool{true, false, false},
				Weights: [][]Weight{{{UID: 2, Value: 65535}}, nil, nil},
			},
			wantIncentive: []float64{0, 0, 1},
			wantConsensus: []float64{0, 0, 1},
		},
		{
			name: "majority stake wins, minority weight is clipped",
			in: YumaInput{
				Stake: []uint64{70, 30, 0, 0}, Permit: []bool{true, true, false, false},
				Weights: [][]Weight{
					{{UID: 2, Value: 1}},
					{{UID: 3, Value: 1}},
				},
			},
			// Column 2: the 70% validator gives 1.0 → consensus 1.0. Column 3:
			// only 30% of stake votes for it, below κ → consensus 0.
			wantIncentive: []float64{0, 0, 1, 0},
			wantConsensus: []float64{0, 0, 1, 0},
		},
		{
			name: "split weights, agreeing validators",
			in: YumaInput{
				Stake: []uint64{50, 50, 0, 0}, Permit: []bool{true, true, false, false},
				Weights: [][]Weight{
					{{UID: 2, Value: 3}, {UID: 3, Value: 1}},
					{{UID: 2, Value: 3}, {UID: 3, Value: 1}},
				},
			},
			wantIncentive: []float64{0, 0, 0.75, 0.25},
			wantConsensus: []float64{0, 0, 0.75, 0.25},
		},
		{
			name: "no permit holders: nothing moves",
			in: YumaInput{
				Stake: []uint64{10, 10}, Permit: []bool{false, false},
				Weights: [][]Weight{{{UID: 1, Value: 1}}, nil},
			},
			wantIncentive: []float64{0, 0},
			wantConsensus: []float64{0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Yuma(tt.in)
			for j := range tt.wantIncentive {
				if math.Abs(out.Incentive[j]-tt.wantIncentive[j]) > 1e-9 {
					t.Errorf("incentive[%d] = %v, want %v", j, out.Incentive[j], tt.wantIncentive[j])
				}
				if math.Abs(out.Consensus[j]-tt.wantConsensus[j]) > 1e-9 {
					t.Errorf("consensus[%d] = %v, want %v", j, out.Consensus[j], tt.wantConsensus[j])
				}
			}
		})
	}
}

func TestYumaEmissionSplits(t *testing.T) {
	out := Yuma(YumaInput{
		Stake: []uint64{100, 0}, Permit: []bool{true, false},
		Weights:  [][]Weight{{{UID: 1, Value: 1}}, nil},
		Emission: 1000,
	})
	if out.Emission[0] != 500 || out.Emission[1] != 500 {
		t.Fatalf("emission = %v, want validator 500 / miner 500", out.Emission)
	}
	if toU16(out.Incentive[1]) != 65535 {
		t.Fatalf("u16 incentive = %d", toU16(out.Incentive[1]))
	}
}
