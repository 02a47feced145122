package plot

import (
	"math"
	"strconv"
)

// scale is a linear axis domain [lo, hi] with its tick values.
type scale struct {
	lo, hi float64
	step   float64 // tick step; 0 when the ticks are just the ends
	ticks  []float64
}

// niceNum returns a "nice" number (1, 2 or 5 times a power of ten)
// approximately equal to x, rounding if round is set and taking the ceiling
// otherwise (Heckbert, "Nice numbers for graph labels", Graphics Gems 1990).
func niceNum(x float64, round bool) float64 {
	exp := math.Floor(math.Log10(x))
	p := math.Pow(10, exp)
	f := x / p
	var nf float64
	if round {
		switch {
		case f < 1.5:
			nf = 1
		case f < 3:
			nf = 2
		case f < 7:
			nf = 5
		default:
			nf = 10
		}
	} else {
		switch {
		case f <= 1:
			nf = 1
		case f <= 2:
			nf = 2
		case f <= 5:
			nf = 5
		default:
			nf = 10
		}
	}
	return nf * p
}

// niceScale computes a scale covering [lo, hi] with about n ticks spaced by
// a nice step. Ends that are not fixed are widened to a multiple of the
// step; fixed ends are kept and the ticks lie inside them. An empty range
// is widened around its value.
func niceScale(lo, hi float64, fixLo, fixHi bool, n int) scale {
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 1
		}
		switch {
		case fixLo && !fixHi:
			hi = lo + d
		case fixHi && !fixLo:
			lo = hi - d
		default:
			lo, hi = lo-d, hi+d
		}
		lo = math.Max(lo, -math.MaxFloat64)
		hi = math.Min(hi, math.MaxFloat64)
	}
	s := scale{lo: lo, hi: hi, ticks: []float64{lo, hi}}
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) || n < 2 {
		return s
	}
	step := niceNum(niceNum(span, false)/float64(n-1), true)
	if !(step > 0) || math.IsInf(step, 0) || span/step > 1000 ||
		math.Abs(lo/step) > 1e15 || math.Abs(hi/step) > 1e15 {
		return s
	}
	if !fixLo {
		lo = math.Floor(lo/step) * step
	}
	if !fixHi {
		hi = math.Ceil(hi/step) * step
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return s
	}
	s.lo, s.hi, s.step, s.ticks = lo, hi, step, nil
	k0 := math.Ceil(lo/step - 1e-9)
	limit := hi + step*1e-9
	if math.IsInf(limit, 0) {
		limit = hi
	}
	for i := 0; i <= 1000; i++ {
		t := (k0 + float64(i)) * step
		if t > limit || math.IsInf(t, 0) {
			break
		}
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		t = math.Min(math.Max(t, lo), hi) // absorb rounding at the ends
		s.ticks = append(s.ticks, t)
	}
	return s
}

// axisScale builds the scale for axis a over the data extent e. When tight
// is set, automatic ends stay at the data range instead of being widened to
// whole ticks.
func axisScale(a Axis, e extent, n int, tight bool) scale {
	lo, hi := e.min, e.max
	minSet := a.Min != nil && finite(*a.Min)
	maxSet := a.Max != nil && finite(*a.Max)
	if minSet {
		lo = *a.Min
	}
	if maxSet {
		hi = *a.Max
	}
	if lo > hi && minSet != maxSet {
		// One end is fixed beyond all the data: collapse onto it and let
		// the automatic side widen.
		if minSet {
			hi = lo
		} else {
			lo = hi
		}
	}
	fixLo, fixHi := minSet || tight, maxSet || tight
	if lo == hi {
		fixLo, fixHi = minSet, maxSet
	}
	return niceScale(lo, hi, fixLo, fixHi, n)
}

// tickCount returns the desired number of ticks along a length, for
// labels about every spacing units.
func tickCount(length, spacing float64) int {
	return min(max(int(length/spacing), 2), 12) + 1
}

// pos maps v onto [a, b] (a for lo, b for hi), clamped to that interval.
func (s *scale) pos(v, a, b float64) float64 {
	if !(s.hi > s.lo) {
		return (a + b) / 2
	}
	t := (v/2 - s.lo/2) / (s.hi/2 - s.lo/2)
	t = math.Min(math.Max(t, 0), 1)
	return a + t*(b-a)
}

// mapper returns a fast form of pos for many values.
func (s *scale) mapper(a, b float64) func(float64) float64 {
	if !(s.hi > s.lo) {
		m := (a + b) / 2
		return func(float64) float64 { return m }
	}
	lo, hi := math.Min(a, b), math.Max(a, b)
	k := (b - a) / (s.hi/2 - s.lo/2)
	l := s.lo / 2
	return func(v float64) float64 {
		p := a + (v/2-l)*k
		return math.Min(math.Max(p, lo), hi)
	}
}

// tickFormat returns the tick label formatter for an axis.
func (s *scale) tickFormat(a Axis) func(float64) string {
	if a.Format != nil {
		return a.Format
	}
	if s.step <= 0 {
		return func(v float64) string { return fmtSig(v, 4) }
	}
	m := math.Max(math.Abs(s.lo), math.Abs(s.hi))
	if m >= 1e15 || s.step < 1e-9 {
		return func(v float64) string { return fmtSig(v, 3) }
	}
	if s.step >= 1e5 {
		for _, u := range []struct {
			div    float64
			suffix string
		}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}} {
			if m >= u.div && s.step >= u.div/100 {
				d := decimals(s.step / u.div)
				return func(v float64) string {
					if v == 0 {
						return "0"
					}
					return trimNegZero(strconv.FormatFloat(v/u.div, 'f', d, 64)) + u.suffix
				}
			}
		}
	}
	d := decimals(s.step)
	return func(v float64) string {
		return trimNegZero(strconv.FormatFloat(v, 'f', d, 64))
	}
}

// decimals is the number of decimals needed to show multiples of step.
func decimals(step float64) int {
	d := int(-math.Floor(math.Log10(step) + 1e-9))
	return min(max(d, 0), 10)
}

func trimNegZero(s string) string {
	if len(s) > 1 && s[0] == '-' {
		for i := 1; i < len(s); i++ {
			if s[i] != '0' && s[i] != '.' {
				return s
			}
		}
		return s[1:]
	}
	return s
}

// valueFormat returns the formatter for data values shown in tooltips and
// value labels on an axis.
func valueFormat(a Axis) func(float64) string {
	if a.Format != nil {
		return a.Format
	}
	return func(v float64) string { return fmtSig(v, 6) }
}
