// Package store is the validator's Badger database: typed keyspaces with
// codecs, the schema version, the value-log GC loop, and backup/restore.
// It holds no business rules; packages above it decide what to write and
// group related writes in one Update.
//
// # Opening
//
// Open takes Options, a zerolog.Logger and an optional
// prometheus.Registerer. Badger's own log lines go through the logger with
// component=badger (its chatty Infof at debug, Debugf at trace). Only one
// process may open a directory for writing; a second gets ErrInUse
// ("store DIR: already in use by another process"). A read-only Open (used
// by `arena backup`) cannot recover a database whose last writer crashed and
// returns ErrNeedsRecovery; a normal Open recovers it.
//
// # Key layout
//
// Every key is
//
//	prefix byte | part | part | ...
//
// The prefix byte says which keyspace (and so which value type) the key
// belongs to. All prefixes are handed out in one place, the const block in
// prefixes.go, together with the prefixNames map; a new keyspace takes the
// next free byte there. Reserved prefixes:
//
//	0x00  meta: store metadata. 0x00 "schema" holds SchemaVersion as a
//	      big-endian uint32.
//	0x21  '!': Badger's internal "!badger!" keys.
//
// Parts are encoded so that byte order of keys equals the order of their
// parts, compared left to right:
//
//	U16, U32, U64   fixed width, big-endian: U64(2) < U64(256) < U64(65536)
//	Bytes, String   each 0x00 byte written as 0x00 0xFF, then the
//	                terminator 0x00 0x01: lexicographic order, and a
//	                complete part is never a byte prefix of a longer one
//
// Because of that, Iterate over a prefix of complete parts visits exactly the
// keys that start with those parts, in order: for index keyspaces such as
// "episodes by miner" put the grouping parts first (U16(uid)) and the sort
// parts after (U64(block), U64(id)). Signed numbers and timestamps that may
// be negative need an order-preserving encoding before they become U64
// (flip the sign bit); prefer unsigned block numbers and unix seconds.
// KeyReader decodes the parts of a key returned by Iterate.
//
// # Values
//
// A Keyspace[V] marshals its values with a Codec[V]; JSON[V] is the
// default. Adding a field to a JSON value is backwards compatible (old
// records decode with the zero value); renaming or retyping one, or changing
// a key layout, is a SchemaVersion bump.
//
// # Schema version
//
// A fresh database gets SchemaVersion at first Open. Open refuses a database
// whose version differs (ErrSchemaMismatch) and a non-empty database without
// the key; the operator restores a backup made by a matching build or runs a
// matching arena.
//
// # Transactions
//
// Update runs a read-write transaction and retries it on badger.ErrConflict
// a bounded number of times; an error from the callback discards every write
// in it. View runs a read-only snapshot.
//
// # Disk space and faults
//
// A writable directory store opened with SpaceLimits runs a free-space
// guard in Run (space.go): under the soft limit Problems reports it (the
// validator starts no new work); under the hard limit, or when the
// directory vanishes, writes stop and Run returns the error, so the process
// ends before Badger writes into a memory-mapped page the disk cannot back
// (SIGBUS). Open refuses a read-only filesystem or one already under the
// soft limit. A commit the disk refuses is a *WriteError (faults.go),
// logged once per kind. Every table is verified before Badger opens it
// (verify.go), and blocks as they are read.
//
// # Backup and restore
//
// Backup streams Badger's full backup framed with a header (magic, format,
// schema version) and a footer (length, live-key count, CRC-32C); Restore
// accepts only such a file, only into a missing or empty directory, and
// removes what it wrote if anything fails. The layout is documented in
// backup.go.
package store
