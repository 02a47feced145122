package store

// Prefix registry. Every key in the database starts with exactly one byte
// from this list; the list is the single place where prefixes are handed out.
// A business keyspace added later takes the next free byte here, adds a line
// to prefixNames, and declares itself with NewKeyspace(prefixX, "x", ...).
//
// Never reuse or renumber a prefix that has shipped: data written by earlier
// builds would be read as the wrong type. Retire a prefix by leaving its
// constant in place with a "retired" comment; a layout change that cannot be
// read by the previous code is a SchemaVersion bump.
const (
	// prefixMeta (0x00) holds store-level metadata such as the schema
	// version. It is reserved: NewKeyspace refuses it.
	prefixMeta byte = 0x00

	// prefixBadger ('!', 0x21) is reserved because Badger keeps internal
	// keys under "!badger!" and rejects user keys that start with it.
	prefixBadger byte = '!'

	// Business keyspaces register here, from 0x10 upwards, for example:
	//   prefixProblems byte = 0x10 // problems by id

	// Suite keyspaces (package suite), exported because the keyspaces are
	// declared in that package. They start at 0x40 because the store's
	// and the CLI's tests declare throwaway keyspaces at 0x10, 0x11, 0x20,
	// 0x22 and 0x30.
	PrefixSuiteProblems byte = 0x40 // problems by id
	PrefixSuiteClusters byte = 0x41 // leak clusters by id: partition, members, exposures
	PrefixSuiteTargets  byte = 0x42 // target product id -> cluster id
	PrefixSuiteMeta     byte = 0x43 // suite bookkeeping (refill cursor)
	PrefixSuitePool     byte = 0x44 // never-exposed hidden cluster ids: the race pool

	// Validator keyspaces (package validator/records).
	PrefixEpisodes      byte = 0x50 // episode id -> stored trajectory
	PrefixVerdicts      byte = 0x51 // episode id -> rule metrics, judge verdict, final
	PrefixByProblem     byte = 0x52 // problem id, episode id -> ()
	PrefixByMiner       byte = 0x53 // uid, episode id -> ()
	PrefixByRace        byte = 0x54 // race id, episode id -> miner uid and problem id
	PrefixRaceState     byte = 0x55 // singleton: race state machine and scheduler cursor
	PrefixRaces         byte = 0x56 // race id -> race record (history)
	PrefixSubmissions   byte = 0x57 // weights window -> submission
	PrefixChainCursor   byte = 0x58 // singleton: last processed head
	PrefixMiners        byte = 0x59 // uid -> miner record
	PrefixValidatorMeta byte = 0x5A // singleton: suite seed and other start-up facts
)

// prefixNames names every allocated prefix, reserved ones included, so a
// programming error that hands one byte to two keyspaces fails loudly at
// start-up (see NewKeyspace) instead of mixing their data.
var prefixNames = map[byte]string{
	prefixMeta:   "meta",
	prefixBadger: "badger-internal",

	PrefixSuiteProblems: "suite-problems",
	PrefixSuiteClusters: "suite-clusters",
	PrefixSuiteTargets:  "suite-targets",
	PrefixSuiteMeta:     "suite-meta",
	PrefixSuitePool:     "suite-pool",

	PrefixEpisodes:      "episodes",
	PrefixVerdicts:      "verdicts",
	PrefixByProblem:     "episodes-by-problem",
	PrefixByMiner:       "episodes-by-miner",
	PrefixByRace:        "episodes-by-race",
	PrefixRaceState:     "race-state",
	PrefixRaces:         "races",
	PrefixSubmissions:   "weight-submissions",
	PrefixChainCursor:   "chain-cursor",
	PrefixMiners:        "miners",
	PrefixValidatorMeta: "validator-meta",
}

// reservedPrefix reports whether p may not be used by a Keyspace.
func reservedPrefix(p byte) bool { return p == prefixMeta || p == prefixBadger }

// Keys under prefixMeta.
var (
	// schemaKey holds SchemaVersion as a big-endian uint32.
	schemaKey = []byte{prefixMeta, 's', 'c', 'h', 'e', 'm', 'a'}
)
