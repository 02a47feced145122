package episode

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when any goroutine a Runner or Server
// started is still running once they are done: every episode, reader and
// listener must end with its context or connection.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
