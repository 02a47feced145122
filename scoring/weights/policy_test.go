package weights

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func assertSumsToOne(t *testing.T, w []float32) {
	t.Helper()
	var s float64
	for _, v := range w {
		if v < 0 {
			t.Fatalf("negative weight in %v", w)
		}
		s += float64(v)
	}
	if math.Abs(s-1) > 1e-6 {
		t.Fatalf("weights sum to %v, want 1: %v", s, w)
	}
}

func TestPolicyVector(t *testing.T) {
	tests := []struct {
		name   string
		policy Policy
		ranked []uint16
		n      int
		want   []float32
	}{
		{
			name: "no race yet: all to burn uid", policy: Policy{Kind: Taper, TopShare: 0.5, TailShare: 0.3},
			ranked: nil, n: 4, want: []float32{1, 0, 0, 0},
		},
		{
			name: "no race yet: configurable burn uid", policy: Policy{Kind: WinnerTakeAll, BurnUID: 2},
			ranked: nil, n: 4, want: []float32{0, 0, 1, 0},
		},
		{
			name: "winner take all", policy: Policy{Kind: WinnerTakeAll},
			ranked: []uint16{3, 1, 2}, n: 4, want: []float32{0, 0, 0, 1},
		},
		{
			// burn .25 to uid 0, the rest .75 to rank 1.
			name: "winner take all with burn", policy: Policy{Kind: WinnerTakeAll, BurnFraction: 0.25},
			ranked: []uint16{3, 1}, n: 4, want: []float32{0.25, 0, 0, 0.75},
		},
		{
			// N = 6, K = 3: rank1 (uid 6) .5; rank2 (uid 5) .3*2/3 = .2;
			// rank3 (uid 4) .3*1/3 = .1; ranks 4..6 get 0; burn 1-.5-.3 = .2.
			name: "taper N=6", policy: Policy{Kind: Taper, TopShare: 0.5, TailShare: 0.3},
			ranked: []uint16{6, 5, 4, 3, 2, 1}, n: 8, want: []float32{0.2, 0, 0, 0, 0.1, 0.2, 0.5, 0},
		},
		{
			// N = 9, K = 4: tail weights K+1-r for r=2..4 are 3,2,1 (sum 6):
			// .4*3/6=.2, .4*2/6=.1333, .4*1/6=.0667; top .6; burn 0.
			name: "taper N=9", policy: Policy{Kind: Taper, TopShare: 0.6, TailShare: 0.4},
			ranked: []uint16{1, 2, 3, 4, 5, 6, 7, 8, 9}, n: 10,
			want: []float32{0, 0.6, 0.2, 0.4 * 2 / 6, 0.4 / 6, 0, 0, 0, 0, 0},
		},
		{
			// N = 3, K = 1: no tail ranks, so the tail share .3 goes to burn too.
			name: "taper N=3 no tail", policy: Policy{Kind: Taper, TopShare: 0.5, TailShare: 0.3},
			ranked: []uint16{2, 1, 3}, n: 4, want: []float32{0.5, 0, 0.5, 0},
		},
		{
			// burn .2 first; the remaining .8 is split as in "taper N=6":
			// uid6 .4, uid5 .16, uid4 .08, burn .2 + .8*.2 = .36.
			name: "taper with burn fraction", policy: Policy{Kind: Taper, TopShare: 0.5, TailShare: 0.3, BurnFraction: 0.2},
			ranked: []uint16{6, 5, 4, 3, 2, 1}, n: 7, want: []float32{0.36, 0, 0, 0, 0.08, 0.16, 0.4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.policy.Vector(tt.ranked, tt.n)
			if err != nil {
				t.Fatalf("Vector: %v", err)
			}
			assertClose(t, got, tt.want, 1e-6)
			assertSumsToOne(t, got)
			again, err := tt.policy.Vector(slices.Clone(tt.ranked), tt.n)
			if err != nil || !slices.Equal(got, again) {
				t.Fatalf("not deterministic: %v then %v (%v)", got, again, err)
			}
		})
	}
}

func TestPolicySumsToOneForAllSizes(t *testing.T) {
	policies := []Policy{
		{Kind: WinnerTakeAll},
		{Kind: WinnerTakeAll, BurnFraction: 0.37},
		{Kind: Taper, TopShare: 0.7, TailShare: 0.3},
		{Kind: Taper, TopShare: 0.45, TailShare: 0.35, BurnFraction: 0.1, BurnUID: 255},
	}
	for _, p := range policies {
		t.Run(string(p.Kind), func(t *testing.T) {
			for n := 0; n <= 256; n++ {
				ranked := make([]uint16, n)
				for i := range ranked {
					ranked[i] = uint16((i*37 + 11) % 256) // a permutation of 0..255
				}
				w, err := p.Vector(ranked, 256)
				if err != nil {
					t.Fatalf("N=%d: %v", n, err)
				}
				assertSumsToOne(t, w)
			}
		})
	}
}

func TestPolicyErrors(t *testing.T) {
	tests := []struct {
		name    string
		policy  Policy
		ranked  []uint16
		n       int
		wantErr string
	}{
		{"unknown kind", Policy{Kind: "lottery"}, nil, 4, "unknown kind"},
		{"shares exceed one", Policy{Kind: Taper, TopShare: 0.8, TailShare: 0.3}, nil, 4, "exceeds 1"},
		{"negative burn", Policy{Kind: WinnerTakeAll, BurnFraction: -0.1}, nil, 4, "burn_fraction"},
		{"burn uid out of range", Policy{Kind: WinnerTakeAll, BurnUID: 9}, nil, 4, "burn uid 9"},
		{"ranked uid out of range", Policy{Kind: WinnerTakeAll}, []uint16{4}, 4, "uid 4 out of range"},
		{"duplicate", Policy{Kind: WinnerTakeAll}, []uint16{1, 1}, 4, "ranked twice"},
		{"empty subnet", Policy{Kind: WinnerTakeAll}, nil, 0, "subnet size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.policy.Vector(tt.ranked, tt.n)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}
