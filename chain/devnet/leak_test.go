package devnet

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a relay or its pipes outlive
// them. Tests here build no backend, so go-ethereum's background goroutines
// (see chain/leak_test.go) do not appear and nothing is ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
