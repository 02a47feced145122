package gen

import "math"

// rng is a small deterministic generator (SplitMix64). The generator does
// not use math/rand because its output must stay byte-identical across Go
// releases, and math/rand/v2 does not promise stable streams for its
// helper methods.
type rng struct{ s uint64 }

// mix is the SplitMix64 finaliser; it turns structured inputs (seed,
// family number) into independent-looking streams.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// newRNG derives a stream from a seed and any number of labels.
func newRNG(seed uint64, labels ...uint64) *rng {
	s := mix(seed ^ 0x9e3779b97f4a7c15)
	for _, l := range labels {
		s = mix(s ^ mix(l+0x632be59bd9b4e019))
	}
	return &rng{s: s}
}

func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix(r.s)
}

// intn returns a uniform integer in [0, n); n must be positive.
func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	// Lemire's multiply-shift with rejection, so small n are unbiased.
	bound := uint64(n)
	for {
		x := r.u64()
		hi, lo := mul64(x, bound)
		if lo >= bound || lo >= (-bound)%bound {
			return int(hi)
		}
	}
}

func mul64(a, b uint64) (hi, lo uint64) {
	const mask32 = 1<<32 - 1
	a0, a1 := a&mask32, a>>32
	b0, b1 := b&mask32, b>>32
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&mask32 + a0*b1
	hi = a1*b1 + t>>32 + w1>>32
	lo = a * b
	return
}

// float returns a uniform float64 in [0, 1).
func (r *rng) float() float64 { return float64(r.u64()>>11) / (1 << 53) }

// chance returns true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// normal returns a standard normal variate (Box–Muller).
func (r *rng) normal() float64 {
	u := 1 - r.float() // (0, 1]
	v := r.float()
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*v)
}

// pareto returns x >= 0 with a power-law tail of exponent alpha.
func (r *rng) pareto(alpha float64) float64 {
	return math.Pow(1-r.float(), -1/alpha) - 1
}

// pick returns a uniformly chosen element.
func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// shuffle permutes xs in place (Fisher–Yates).
func shuffle[T any](r *rng, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// sample returns k distinct elements of xs in random order (or all of them
// if k >= len(xs)).
func sample[T any](r *rng, xs []T, k int) []T {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	k = min(k, len(xs))
	for i := range k {
		j := i + r.intn(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	out := make([]T, k)
	for i := range k {
		out[i] = xs[idx[i]]
	}
	return out
}

// permutation is a keyed bijection on [0, limit), built from a balanced
// Feistel network on 2·half bits with cycle walking. It gives unique,
// random-looking ids without remembering which were used.
type permutation struct {
	keys  [4]uint64
	half  uint
	limit uint64
}

func newPermutation(seed uint64, label uint64, half uint, limit uint64) permutation {
	p := permutation{half: half, limit: limit}
	r := newRNG(seed, label)
	for i := range p.keys {
		p.keys[i] = r.u64()
	}
	return p
}

func (p permutation) apply(x uint64) uint64 {
	mask := uint64(1)<<p.half - 1
	for {
		l, r := x>>p.half, x&mask
		for _, k := range p.keys {
			l, r = r, l^(mix(r^k)&mask)
		}
		x = l<<p.half | r
		if x < p.limit {
			return x
		}
	}
}
