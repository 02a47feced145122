package devarena

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when anything an arena started (devnet,
// miners, validator, store) outlives its shutdown. The two ignored
// go-ethereum and goleveldb functions cannot be stopped from here; why each
// is safe to ignore is in chain/leak_test.go.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("github.com/ethereum/go-ethereum/core.(*txSenderCacher).cache"),
		goleak.IgnoreTopFunction("github.com/syndtr/goleveldb/leveldb.(*DB).mpoolDrain"),
	)
}
