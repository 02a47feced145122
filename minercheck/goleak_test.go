package minercheck

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine the checker, a
// reference miner or a hostile miner started outlives its test: every
// reader and episode must end with its connection.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
