// Package episode is the validator↔miner wire protocol of arena: the
// messages and their validation, the signed handshake, the limits, the
// validator-side Runner and the miner-side Server library.
//
// The validator drives every episode and executes every tool call itself
// (through shop.Tools), so the Trajectory a Runner returns is verified
// evidence: observations and timestamps come from the validator, and only
// the agent's own words (think, response) are untrusted input. Those words
// and the agent's tool calls are normalised as they arrive (valid UTF-8, no
// control characters, only the arguments a tool names), and what one
// episode may store is bounded (Limits.MaxEpisodeBytes).
//
// One websocket connection per miner (path Path, protocol Version) carries
// the handshake and then any number of concurrent episodes, multiplexed by
// episode_id. A violation by the miner ends the affected episode (or, when
// the frame cannot be attributed to an episode, every episode on that
// connection) with a named EndReason; it never affects other miners,
// because each miner has its own connection, goroutines and deadlines.
//
// The normative description for miner authors in other languages is
// docs/protocol.md; this package is its reference implementation.
//
// The package does not score: it records what happened and why it ended.
package episode
