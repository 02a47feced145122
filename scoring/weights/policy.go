package weights

import (
	"fmt"
	"math"
)

// Kind selects how the ranked race result is turned into weights.
type Kind string

const (
	// WinnerTakeAll gives everything (after the burn fraction) to rank 1.
	WinnerTakeAll Kind = "winner_take_all"
	// Taper is ORO's taper: rank 1 gets TopShare, ranks 2..K (K = ⌊N/2⌋) share
	// TailShare linearly by K+1−rank, and the rest goes to the burn uid.
	Taper Kind = "taper"
)

// Policy is the deterministic weights policy. All validators running arena
// with the same Policy and the same race result produce the same vector,
// which is what Yuma consensus rewards.
type Policy struct {
	Kind Kind `json:"kind" yaml:"kind"`
	// TopShare and TailShare are used by Taper only; both in [0, 1] with
	// TopShare + TailShare <= 1.
	TopShare  float64 `json:"top_share" yaml:"top_share"`
	TailShare float64 `json:"tail_share" yaml:"tail_share"`
	// BurnFraction in [0, 1] is taken off the top and given to BurnUID
	// before the policy splits the rest.
	BurnFraction float64 `json:"burn_fraction" yaml:"burn_fraction"`
	// BurnUID receives the burn fraction, the taper's remainder and, before
	// any race has completed, everything. The zero value is uid 0, the
	// subnet owner's burn uid.
	BurnUID uint16 `json:"burn_uid" yaml:"burn_uid"`
}

// Validate reports the first invalid field.
func (p Policy) Validate() error {
	frac := func(name string, v float64) error {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return fmt.Errorf("weights policy: %s %v is not in [0, 1]", name, v)
		}
		return nil
	}
	if err := frac("burn_fraction", p.BurnFraction); err != nil {
		return err
	}
	switch p.Kind {
	case WinnerTakeAll:
	case Taper:
		if err := frac("top_share", p.TopShare); err != nil {
			return err
		}
		if err := frac("tail_share", p.TailShare); err != nil {
			return err
		}
		if p.TopShare+p.TailShare > 1+1e-12 {
			return fmt.Errorf("weights policy: top_share %v + tail_share %v exceeds 1", p.TopShare, p.TailShare)
		}
	default:
		return fmt.Errorf("weights policy: unknown kind %q (want %q or %q)", p.Kind, WinnerTakeAll, Taper)
	}
	return nil
}

// Vector returns a weight per uid 0..n-1 (n is the subnet size) that sums to
// 1. ranked holds the ranked miners' uids, rank 1 first; N = len(ranked). An
// empty ranked list means no race has completed yet: all weight goes to the
// burn uid. Shares are computed in float64 and rounded to float32 once.
//
// Taper example, N = 6 (K = 3), top 0.5, tail 0.3, no burn: rank 1 gets 0.5;
// ranks 2 and 3 get 0.3·2/3 = 0.2 and 0.3·1/3 = 0.1 (weights K+1−rank = 2, 1
// over their sum K(K−1)/2 = 3); ranks 4..6 get 0; the burn uid gets
// 1 − 0.5 − 0.3 = 0.2. With K < 2 there is no tail rank and the tail share
// goes to the burn uid.
func (p Policy) Vector(ranked []uint16, n int) ([]float32, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("weights policy: subnet size %d must be positive", n)
	}
	if int(p.BurnUID) >= n {
		return nil, fmt.Errorf("weights policy: burn uid %d out of range for subnet size %d", p.BurnUID, n)
	}
	seen := make(map[uint16]struct{}, len(ranked))
	for i, u := range ranked {
		if int(u) >= n {
			return nil, fmt.Errorf("weights policy: rank %d uid %d out of range for subnet size %d", i+1, u, n)
		}
		if _, dup := seen[u]; dup {
			return nil, fmt.Errorf("weights policy: uid %d ranked twice", u)
		}
		seen[u] = struct{}{}
	}

	w := make([]float64, n)
	if len(ranked) == 0 {
		w[p.BurnUID] = 1
		return toFloat32(w), nil
	}
	keep := 1 - p.BurnFraction
	w[p.BurnUID] += p.BurnFraction

	switch p.Kind {
	case WinnerTakeAll:
		w[ranked[0]] += keep
	case Taper:
		// The float64 conversions round each product before the sum: without
		// them the compiler may fuse them into one FMA on some architectures
		// (arm64 does), and validators on different machines could disagree.
		w[ranked[0]] += float64(keep * p.TopShare)
		given := p.TopShare
		k := len(ranked) / 2
		if k >= 2 {
			denom := float64(k * (k - 1) / 2)
			for r := 2; r <= k; r++ {
				w[ranked[r-1]] += keep * p.TailShare * float64(k+1-r) / denom
			}
			given += p.TailShare
		}
		w[p.BurnUID] += float64(keep * max(0, 1-given))
	}
	return toFloat32(w), nil
}

func toFloat32(w []float64) []float32 {
	out := make([]float32, len(w))
	for i, v := range w {
		out[i] = float32(v)
	}
	return out
}
