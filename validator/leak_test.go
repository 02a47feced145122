package validator

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a scheduler loop, operator
// server, store GC loop or episode outlives its validator's shutdown.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
