package dataset

import "arena/store"

// Export's memory bounds. An export reads the store once, front to back:
// Badger's default 256 MB block cache would only hold blocks that are never
// read again, and the Go heap's default growth doubles whatever is live.
const (
	// BlockCacheSize is the Badger block cache an export opens with.
	BlockCacheSize = 16 << 20
	// MemoryLimit is the soft Go memory limit `arena export` sets when the
	// operator has not set GOMEMLIMIT: the garbage collector works harder
	// instead of letting the heap double.
	MemoryLimit = 320 << 20
)

// StoreOptions opens a data dir read-only for an export.
func StoreOptions(dir string) store.Options {
	return store.Options{Dir: dir, ReadOnly: true, BlockCacheSize: BlockCacheSize}
}
