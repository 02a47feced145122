package judge

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestPlainIntegerMatchesFormatFloat: normNumber's shortcut for plain
// integers gives exactly what parsing and FormatFloat give.
func TestPlainIntegerMatchesFormatFloat(t *testing.T) {
	slow := func(w string) (string, bool) {
		f, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return "", false
		}
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	cases := []string{"0", "-0", "00", "007", "10", "-10", "999999999999999", "9999999999999999", "1.5", "1e3", "-", "12a", "1200"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := r.Int64N(1e16)
		if r.IntN(2) == 0 {
			n = -n
		}
		cases = append(cases, strconv.FormatInt(n, 10))
	}
	for _, w := range cases {
		if !plainInteger(w) {
			continue
		}
		if got, ok := slow(w); !ok || got != w {
			t.Errorf("plainInteger(%q) but FormatFloat gives %q", w, got)
		}
	}
	for _, w := range []string{"-0", "00", "007", "9999999999999999", "1.5", "-", "12a"} {
		if plainInteger(w) {
			t.Errorf("plainInteger(%q) = true", w)
		}
	}
}
