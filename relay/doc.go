// Package relay is the validator's inference relay (protocol version 2):
// a miner's agent asks for chat completions over its episode connection,
// and the relay forwards each request, after checking it, to the
// operator's OpenAI-compatible provider through internal/llmclient.
//
// The relay enforces, before forwarding: the model allowlist
// (relay.models), the sampling bounds, and the budgets per episode
// (completions, prompt tokens, completion tokens, provider wall time) and
// per miner per UTC day (completions, tokens). It meters usage in
// prometheus metrics and returns, for each completion, the record the
// validator stores with the episode (episode.Completion): the body it
// forwarded and the provider's body, byte for byte, with the usage and
// the time. Package scoring/verify checks steps against those records.
//
// A provider failure (timeout, 429, 5xx, an unusable answer) is answered
// provider_error and flags the episode (Trajectory.RelayFault); it is
// never the miner's fault. A request the provider rejects as invalid
// (400, 404, 413, 422) is the miner's bad_request.
//
// The API key is read only from the environment (ARENA_RELAY_API_KEY).
package relay
