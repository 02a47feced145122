// Package minercheck tests a miner endpoint against the episode protocol
// (docs/protocol.md), clause by clause, the way a miner author wants to
// know it before registering: does the handshake verify, are replayed,
// stale, forged and wrong-version hellos refused with the documented close
// frame, do concurrent episodes progress on one connection, does the agent
// keep to one step per prompt, to the limits it was announced, to the step
// timeout, call only the offered tools, and go on after an error result.
//
// The checker plays the validator at the wire level with the episode
// package's messages, encoder, decoder and handshake functions, and runs
// the agent's tool calls on the real shop tools over a small generated
// catalog, so observations are what a validator would send. It is not
// scoring: it never judges the answers, only the conduct.
//
// Every clause opens its own connections, so one clause's violation (an
// oversized frame closes a connection) cannot hide another's result. A
// violation counts against the clause whose episode it ended and against
// the clause it breaks (a step timeout in the concurrency clause fails
// both concurrency and timeouts), so the report names what went wrong
// wherever it happened. `arena miner check` is the command.
package minercheck
