// Package records declares the validator's keyspaces in the store:
// episodes (full trajectories), verdicts, the indexes by problem, miner and
// race, the race state and history, weight submissions, the chain cursor and
// miner records, plus Check, the read-only cross-reference audit behind
// `arena store check`.
//
// It is a package of its own, below package validator, so that `arena
// export` (package dataset) and the CLI read the same types without
// importing the daemon. It holds no business rules: the validator decides
// what to write and groups related writes in one transaction.
package records
