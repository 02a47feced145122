package plot

import (
	"math"
	"strings"
	"testing"
)

func TestNiceScale(t *testing.T) {
	tests := []struct {
		name         string
		lo, hi       float64
		fixLo, fixHi bool
		n            int
		wantLo       float64
		wantHi       float64
		ticks        []float64
	}{
		{"unit", 0, 1, false, false, 6, 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{"hundred", 0, 100, false, false, 6, 0, 100, []float64{0, 20, 40, 60, 80, 100}},
		{"negative to positive", -3.2, 7.9, false, false, 6, -5, 10, []float64{-5, 0, 5, 10}},
		{"millions", 1e6, 5e6, false, false, 5, 1e6, 5e6, []float64{1e6, 2e6, 3e6, 4e6, 5e6}},
		{"small", 0.001, 0.0034, false, false, 6, 0.001, 0.004, []float64{0.001, 0.002, 0.003, 0.004}},
		{"all negative", -0.9, -0.15, false, false, 5, -1, 0, []float64{-1, -0.8, -0.6, -0.4, -0.2, 0}},
		{"blocks", 4512345, 4512987, false, false, 8, 4512300, 4513000,
			[]float64{4512300, 4512400, 4512500, 4512600, 4512700, 4512800, 4512900, 4513000}},
		{"equal", 5, 5, false, false, 6, 4.4, 5.6, []float64{4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6}},
		{"equal zero", 0, 0, false, false, 6, -1, 1, []float64{-1, -0.5, 0, 0.5, 1}},
		{"equal, min fixed", 0, 0, true, false, 6, 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{"fixed ends", 0.5, 9.5, true, true, 6, 0.5, 9.5, []float64{2, 4, 6, 8}},
		{"reversed", 10, 0, false, false, 6, 0, 10, []float64{0, 2, 4, 6, 8, 10}},
		{"overflowing span", -math.MaxFloat64, math.MaxFloat64, false, false, 6, -math.MaxFloat64, math.MaxFloat64,
			[]float64{-math.MaxFloat64, math.MaxFloat64}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := niceScale(tc.lo, tc.hi, tc.fixLo, tc.fixHi, tc.n)
			if !near(s.lo, tc.wantLo) || !near(s.hi, tc.wantHi) {
				t.Errorf("domain [%v, %v], want [%v, %v]", s.lo, s.hi, tc.wantLo, tc.wantHi)
			}
			if len(s.ticks) != len(tc.ticks) {
				t.Fatalf("ticks %v, want %v", s.ticks, tc.ticks)
			}
			for i := range s.ticks {
				if !near(s.ticks[i], tc.ticks[i]) {
					t.Fatalf("ticks %v, want %v", s.ticks, tc.ticks)
				}
				if s.ticks[i] < s.lo || s.ticks[i] > s.hi {
					t.Errorf("tick %v outside [%v, %v]", s.ticks[i], s.lo, s.hi)
				}
			}
		})
	}
}

func TestNiceScaleExtreme(t *testing.T) {
	big := math.MaxFloat64
	for _, r := range [][2]float64{
		{0, 5e-324}, {-big, big}, {big, big}, {-big, -big}, {1, 1 + 1e-15}, {1e20, 1e20 + 1e5},
		{1e300, 1e301}, {-1e-300, 1e-300}, {0.1, 0.30000000000000004},
	} {
		for _, fix := range []bool{false, true} {
			s := niceScale(r[0], r[1], fix, fix, 6)
			if !finite(s.lo) || !finite(s.hi) || s.lo > r[0] || s.hi < r[1] || !(s.hi > s.lo) {
				t.Errorf("%v fixed=%v: domain [%v, %v]", r, fix, s.lo, s.hi)
			}
			if len(s.ticks) < 2 && !(s.hi > s.lo) || len(s.ticks) > 100 {
				t.Errorf("%v fixed=%v: %d ticks", r, fix, len(s.ticks))
			}
			for _, v := range s.ticks {
				if !finite(v) || v < s.lo || v > s.hi {
					t.Errorf("%v fixed=%v: tick %v outside [%v, %v]", r, fix, v, s.lo, s.hi)
				}
			}
		}
	}
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func TestNiceNum(t *testing.T) {
	for _, tc := range []struct {
		x     float64
		round bool
		want  float64
	}{
		{x: 1.2, round: true, want: 1}, {x: 2.9, round: true, want: 2}, {x: 4, round: true, want: 5},
		{x: 8, round: true, want: 10}, {x: 0.031, round: true, want: 0.05}, {x: 0.029, round: true, want: 0.02}, {x: 1.2, want: 2},
		{x: 450, want: 500}, {x: 5000, want: 5000}, {x: 0.7, want: 1},
	} {
		if got := niceNum(tc.x, tc.round); !near(got, tc.want) {
			t.Errorf("niceNum(%v, %v) = %v, want %v", tc.x, tc.round, got, tc.want)
		}
	}
}

func TestAxisScale(t *testing.T) {
	e := extent{min: 3, max: 7, n: 2}
	tests := []struct {
		name   string
		a      Axis
		tight  bool
		lo, hi float64
	}{
		{"auto", Axis{}, false, 3, 7},
		{"tight", Axis{}, true, 3, 7},
		{"min fixed", Axis{Min: Fixed(0)}, false, 0, 7},
		{"max fixed", Axis{Max: Fixed(100)}, false, 3, 100},
		{"min beyond data", Axis{Min: Fixed(10)}, false, 10, 11},
		{"max below data", Axis{Max: Fixed(-1)}, false, -1.1, -1},
		{"NaN bound ignored", Axis{Min: Fixed(math.NaN())}, false, 3, 7},
	}
	for _, tc := range tests {
		s := axisScale(tc.a, e, 6, tc.tight)
		if s.lo > tc.lo || s.hi < tc.hi {
			t.Errorf("%s: domain [%v, %v] does not cover [%v, %v]", tc.name, s.lo, s.hi, tc.lo, tc.hi)
		}
		if tc.tight && (s.lo != tc.lo || s.hi != tc.hi) {
			t.Errorf("%s: tight domain [%v, %v], want [%v, %v]", tc.name, s.lo, s.hi, tc.lo, tc.hi)
		}
		if tc.a.Min != nil && finite(*tc.a.Min) && s.lo != *tc.a.Min {
			t.Errorf("%s: lo %v, want fixed %v", tc.name, s.lo, *tc.a.Min)
		}
		if tc.a.Max != nil && s.hi != *tc.a.Max {
			t.Errorf("%s: hi %v, want fixed %v", tc.name, s.hi, *tc.a.Max)
		}
	}
}

func TestTickLabels(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0, 1, 6, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 100, 6, "0 20 40 60 80 100"},
		{-3.2, 7.9, 6, "-5 0 5 10"},
		{-0.3, 0.3, 6, "-0.4 -0.2 0.0 0.2 0.4"},
		{0, 5e6, 6, "0 1M 2M 3M 4M 5M"},
		{0, 2.5e9, 6, "0 1G 2G 3G"},
		{0, 2.5e6, 11, "0 0.5M 1.0M 1.5M 2.0M 2.5M"},
		{4512345, 4512987, 8, "4512300 4512400 4512500 4512600 4512700 4512800 4512900 4513000"},
		{0.001, 0.0034, 6, "0.001 0.002 0.003 0.004"},
		{0, 3e16, 4, "0 2e+16 4e+16"},
	}
	for _, tc := range tests {
		s := niceScale(tc.lo, tc.hi, false, false, tc.n)
		f := s.tickFormat(Axis{})
		var got []string
		for _, v := range s.ticks {
			got = append(got, f(v))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("[%v, %v]: labels %q, want %q", tc.lo, tc.hi, g, tc.want)
		}
	}
	cs := niceScale(0, 1, false, false, 3)
	custom := cs.tickFormat(Axis{Format: func(v float64) string { return "x" }})
	if custom(0.5) != "x" {
		t.Error("custom format not used")
	}
}
