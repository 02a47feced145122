// Package testseed gives random tests their seed: ARENATEST_SEED when set,
// otherwise a fresh one, logged either way so that a failure can be
// replayed.
package testseed

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// Seed returns the test's seed and logs it.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("ARENATEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ARENATEST_SEED %q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with ARENATEST_SEED=%d)", seed, seed)
	return seed
}
