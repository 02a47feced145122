package weights

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func seq(n int) []uint16 {
	out := make([]uint16, n)
	for i := range out {
		out[i] = uint16(i)
	}
	return out
}

func assertClose(t *testing.T, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d weights %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range got {
		if math.Abs(float64(got[i])-float64(want[i])) > tol {
			t.Fatalf("weight %d: got %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

// limit returns the float32 fraction the chain's u16 max_weight_limit maps to.
func limit(raw uint16) float32 { return float32(float64(raw) / U16Max) }

func TestProcessWeightsForNetuid(t *testing.T) {
	tests := []struct {
		name       string
		uids       []uint16
		w          []float32
		n, minAllw int
		lim        float32
		quantile   uint16
		wantUIDs   []uint16
		wantW      []float32
		wantU16    []uint16 // after EmitWeightsForNetuid, over wantUIDs
	}{
		{
			// No w > 0: SDK returns arange(n) with np.ones(n)/n.
			name: "all zeros", uids: seq(4), w: []float32{0, 0, 0, 0}, n: 4, minAllw: 1, lim: 1,
			wantUIDs: seq(4), wantW: []float32{0.25, 0.25, 0.25, 0.25},
			wantU16: []uint16{65535, 65535, 65535, 65535},
		},
		{
			// Negative entries are not "w > 0", so this is the all-zero branch too.
			name: "only negatives", uids: seq(3), w: []float32{-1, 0, -0.5}, n: 3, minAllw: 1, lim: 1,
			wantUIDs: seq(3), wantW: []float32{1.0 / 3, 1.0 / 3, 1.0 / 3},
			wantU16: []uint16{65535, 65535, 65535},
		},
		{
			// n = 3 < min_allowed = 8: uniform 1/3 regardless of the weights.
			name: "n below minAllowed", uids: seq(3), w: []float32{0.5, 0.3, 0.2}, n: 3, minAllw: 8, lim: 1,
			wantUIDs: seq(3), wantW: []float32{1.0 / 3, 1.0 / 3, 1.0 / 3},
			wantU16: []uint16{65535, 65535, 65535},
		},
		{
			// 2 non-zero < min_allowed 3: x = 1e-5 + w = [1e-5, .50001, 1e-5, .50001],
			// sum 1.00004, max share .49999 <= limit 1, so x/sum:
			// [9.9996e-6, .49999, 9.9996e-6, .49999]; u16: 1e-5/.50001*65535 = 1.31 -> 1.
			name: "fewer non-zero than minAllowed", uids: seq(4), w: []float32{0, 0.5, 0, 0.5}, n: 4, minAllw: 3, lim: 1,
			wantUIDs: seq(4), wantW: []float32{9.9996e-6, 0.49999, 9.9996e-6, 0.49999},
			wantU16: []uint16{1, 65535, 1, 65535},
		},
		{
			// Same branch, fill plus cap: x = [1e-5, 1e-5, 1e-5, 1+1e-5], limit
			// L = 32768/65535 = .50000763. Shares e = x/1.00004; positions 0..2 give
			// e/(4e) = .25 < L, position 3 gives ~1 -> n_values = 3,
			// cutoff_scale = (L*2.99988e-5 - 1e-7)/(1 - L) = 2.97997e-5,
			// cutoff = 2.97997e-5*1.00004 = 2.98009e-5: the big entry is clipped to
			// it, sum 5.98009e-5, so [1e-5 x3, 2.98009e-5]/5.98009e-5 =
			// [.16722 x3, .49834].
			name: "fewer non-zero than minAllowed with cap", uids: seq(4), w: []float32{0, 0, 0, 1}, n: 4, minAllw: 2, lim: limit(32768),
			wantUIDs: seq(4), wantW: []float32{0.16722, 0.16722, 0.16722, 0.49834},
		},
		{
			// q = 32767/65535 = .499992 (max_exclude (5-1)/5 = .8 does not bind).
			// Virtual index 4*.499992 = 1.99997 -> between .2 and .3 with t = .99997:
			// .3 - .1*(1-t) ≈ .299997, so .1 and .2 go; [.3,.4,.5]/1.2.
			// u16: [.25,.3333,.41667]/.41667*65535 = [39321, 52428, 65535].
			name: "exclude quantile", uids: seq(5), w: []float32{0.1, 0.2, 0.3, 0.4, 0.5}, n: 5, minAllw: 1, lim: 1, quantile: 32767,
			wantUIDs: []uint16{2, 3, 4}, wantW: []float32{0.25, 1.0 / 3, 5.0 / 12},
			wantU16: []uint16{39321, 52428, 65535},
		},
		{
			// q = 65535/65535 = 1 but max_exclude = (5-4)/5 = .2 binds: index .8
			// between .1 and .2 -> .2 - .1*.2 = .18, so only .1 goes; order kept.
			name: "exclude quantile capped by minAllowed", uids: seq(5), w: []float32{0.5, 0.4, 0.3, 0.2, 0.1}, n: 5, minAllw: 4, lim: 1, quantile: 65535,
			wantUIDs: []uint16{0, 1, 2, 3}, wantW: []float32{0.5 / 1.4, 0.4 / 1.4, 0.3 / 1.4, 0.2 / 1.4},
			wantU16: []uint16{65535, 52428, 39321, 26214},
		},
		{
			// q = 0 keeps everything; the exact minimum is kept (>=).
			name: "exclude quantile zero", uids: []uint16{3, 1, 2}, w: []float32{2, 1, 1}, n: 4, minAllw: 1, lim: 1,
			wantUIDs: []uint16{3, 1, 2}, wantW: []float32{0.5, 0.25, 0.25},
			wantU16: []uint16{65535, 32768, 32768}, // .5*65535 = 32767.5 -> even 32768
		},
		{
			// Cap .30000763 (u16 19661). Shares [1,1,1,1,10]/14; a single
			// "clip to .3 then renormalise" would leave the top at .3/(4/14+.3) = .51,
			// so the cutoff must account for the renormalisation: positions 0..3
			// give e/(5e) = .2 < .3, position 4 fails -> n_values = 4,
			// cutoff_scale = (.3*4/14 - 1e-7)/(1 - .3) = .12245, cutoff = 1.7143,
			// weights [1,1,1,1,1.7143]/5.7143 = [.175 x4, .3].
			// u16: .175/.3*65535 = 38227.
			name: "max weight cap", uids: seq(5), w: []float32{1, 1, 1, 1, 10}, n: 5, minAllw: 1, lim: limit(19661),
			wantUIDs: seq(5), wantW: []float32{0.175, 0.175, 0.175, 0.175, 0.3},
			wantU16: []uint16{38227, 38227, 38227, 38227, 65535},
		},
		{
			// Two entries over the cap .25 (u16 16384): sorted [1 x6, 10, 20]/36.
			// Positions 0..5: e/(8e) = .125 < .25; 10/36/(10/36+16/36) = .385 and
			// 20/36/1 = .556 fail -> n_values = 6, cutoff_scale = (.25*6/36)/(1-.25*2)
			// = .08333, cutoff = 3: both clipped to 3 -> [1/12 x6, .25, .25].
			// u16 of 1/12: (1/12)/(.25)*65535 = 21845 minus the ε and the
			// .2500038 limit -> 21844.4 -> 21844.
			name: "max weight cap two capped", uids: seq(8), w: []float32{1, 20, 1, 1, 10, 1, 1, 1}, n: 8, minAllw: 1, lim: limit(16384),
			wantUIDs: seq(8), wantW: []float32{1.0 / 12, 0.25, 1.0 / 12, 1.0 / 12, 0.25, 1.0 / 12, 1.0 / 12, 1.0 / 12},
			wantU16: []uint16{21844, 65535, 21844, 21844, 65535, 21844, 21844, 21844},
		},
		{
			// n * limit = 3 * .25 <= 1: the cap cannot be met, uniform 1/3.
			name: "cap unreachable", uids: seq(3), w: []float32{1, 2, 3}, n: 3, minAllw: 1, lim: 0.25,
			wantUIDs: seq(3), wantW: []float32{1.0 / 3, 1.0 / 3, 1.0 / 3},
			wantU16: []uint16{65535, 65535, 65535},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotU, gotW, err := ProcessWeightsForNetuid(tt.uids, tt.w, tt.n, tt.minAllw, tt.lim, tt.quantile)
			if err != nil {
				t.Fatalf("ProcessWeightsForNetuid: %v", err)
			}
			if !slices.Equal(gotU, tt.wantUIDs) {
				t.Fatalf("uids: got %v, want %v", gotU, tt.wantUIDs)
			}
			assertClose(t, gotW, tt.wantW, 2e-5)
			if tt.wantU16 == nil {
				return
			}
			eu, ev, err := EmitWeightsForNetuid(tt.uids, tt.w, tt.n, tt.minAllw, tt.lim, tt.quantile)
			if err != nil {
				t.Fatalf("EmitWeightsForNetuid: %v", err)
			}
			if !slices.Equal(eu, tt.wantUIDs) || !slices.Equal(ev, tt.wantU16) {
				t.Fatalf("emit: got %v %v, want %v %v", eu, ev, tt.wantUIDs, tt.wantU16)
			}
			cu, cv, err := ConvertWeightsAndUidsForEmit(gotU, gotW)
			if err != nil {
				t.Fatalf("ConvertWeightsAndUidsForEmit: %v", err)
			}
			if !slices.Equal(cu, eu) || !slices.Equal(cv, ev) {
				t.Fatalf("convert of float32 result %v %v differs from emit %v %v", cu, cv, eu, ev)
			}
		})
	}
}

func TestProcessWeightsForNetuidErrors(t *testing.T) {
	tests := []struct {
		name    string
		uids    []uint16
		w       []float32
		n       int
		lim     float32
		wantErr string
	}{
		{name: "length mismatch", uids: seq(3), w: []float32{1, 2}, n: 3, lim: 1, wantErr: "3 uids but 2 weights"},
		{name: "uid out of range", uids: []uint16{0, 5}, w: []float32{1, 2}, n: 3, lim: 1, wantErr: "uid 5 out of range"},
		{name: "NaN weight", uids: seq(2), w: []float32{1, float32(math.NaN())}, n: 2, lim: 1, wantErr: "is NaN"},
		{name: "Inf weight", uids: seq(2), w: []float32{float32(math.Inf(1)), 1}, n: 2, lim: 1, wantErr: "+Inf"},
		{name: "negative n", uids: nil, w: nil, n: -1, lim: 1, wantErr: "negative subnet size"},
		{name: "limit above 1", uids: seq(2), w: []float32{1, 1}, n: 2, lim: 1.5, wantErr: "not a fraction"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ProcessWeightsForNetuid(tt.uids, tt.w, tt.n, 1, tt.lim, 0)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestConvertWeightsAndUidsForEmit(t *testing.T) {
	tests := []struct {
		name     string
		uids     []uint16
		w        []float32
		wantUIDs []uint16
		wantW    []uint16
		wantErr  string
	}{
		// 1/2 * 65535 = 32767.5 -> half to even 32768 (half-up agrees here).
		{name: "half rounds up to even", uids: seq(2), w: []float32{2, 1}, wantUIDs: seq(2), wantW: []uint16{65535, 32768}},
		// float64(0.5)/3 = 0.1666…6 and ×65535 rounds to exactly 10922.5 in
		// float64 -> half to even 10922 (half-away-from-zero would give 10923).
		{name: "half rounds down to even", uids: seq(2), w: []float32{3, 0.5}, wantUIDs: seq(2), wantW: []uint16{65535, 10922}},
		// 1.5/5*65535 = 19660.5 exactly in float64 -> 19660.
		{name: "half rounds down to even 2", uids: []uint16{7, 9}, w: []float32{1.5, 5}, wantUIDs: []uint16{7, 9}, wantW: []uint16{19660, 65535}},
		// 2.5/3*65535 = 54612.5 -> 54612.
		{name: "half rounds down to even 3", uids: seq(2), w: []float32{2.5, 3}, wantUIDs: seq(2), wantW: []uint16{54612, 65535}},
		// 1e-6/1*65535 = .066 -> 0 and dropped; an explicit 0 too.
		{name: "zeros dropped", uids: seq(3), w: []float32{1, 1e-6, 0}, wantUIDs: []uint16{0}, wantW: []uint16{65535}},
		{name: "zero sum gives empty", uids: seq(2), w: []float32{0, 0}, wantUIDs: []uint16{}, wantW: []uint16{}},
		{name: "negative weight", uids: seq(2), w: []float32{1, -0.1}, wantErr: "negative"},
		{name: "length mismatch", uids: seq(3), w: []float32{1, 1}, wantErr: "same length, got 3 and 2"},
		{name: "NaN", uids: seq(1), w: []float32{float32(math.NaN())}, wantErr: "NaN"},
		{name: "empty", uids: nil, w: nil, wantErr: "no weights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotU, gotW, err := ConvertWeightsAndUidsForEmit(tt.uids, tt.w)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !slices.Equal(gotU, tt.wantUIDs) || !slices.Equal(gotW, tt.wantW) {
				t.Fatalf("got %v %v, want %v %v", gotU, gotW, tt.wantUIDs, tt.wantW)
			}
		})
	}
}

func TestPairwiseSumMatchesNumpyBlocking(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{{"short", 5}, {"one block", 100}, {"split", 300}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := make([]float64, tt.n)
			for i := range a {
				a[i] = float64(i%7) + 0.25
			}
			var want float64
			for _, v := range a {
				want += v
			}
			// All partial sums are exact here, so any summation order agrees.
			if got := pairwiseSum(a); got != want {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

func TestLimitFromFraction(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want float64
	}{
		{"u16 grid", limit(19661), 19661.0 / 65535},
		{"one", 1, 1},
		{"off grid", 0.123456789, float64(float32(0.123456789))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := limitFromFraction(tt.in); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
