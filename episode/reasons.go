package episode

// EndReason names why an episode ended. It is recorded in the Trajectory
// and sent to the miner in episode_end. Only ReasonTerminated, and
// ReasonMaxSteps (a recommendation may still have been made), are normal
// endings; every other reason is a violation or failure that the scorer
// turns into a zero score for the episode.
type EndReason string

// End reasons. The strings are part of the wire protocol (docs/protocol.md).
const (
	// ReasonTerminated: the agent called terminate.
	ReasonTerminated EndReason = "terminated"
	// ReasonMaxSteps: the step budget ran out before terminate.
	ReasonMaxSteps EndReason = "max_steps"

	// Miner violations.
	ReasonMalformed        EndReason = "malformed"          // not JSON, missing field, wrong type, invalid value
	ReasonUnknownType      EndReason = "unknown_type"       // a "type" the protocol does not define
	ReasonUnexpected       EndReason = "unexpected_message" // a known type at the wrong time or direction, or a step before its observation
	ReasonOversized        EndReason = "oversized"          // a frame above max_frame_bytes
	ReasonTooManyCalls     EndReason = "too_many_calls"     // more than max_tool_calls in one step
	ReasonThinkTooLong     EndReason = "think_too_long"     // think above max_think_bytes
	ReasonEpisodeTooLarge  EndReason = "episode_too_large"  // the episode's steps would store more than max_episode_bytes
	ReasonStepTimeout      EndReason = "step_timeout"       // no step within step_timeout
	ReasonEpisodeTimeout   EndReason = "episode_timeout"    // the episode outlived episode_timeout
	ReasonDisconnected     EndReason = "disconnected"       // the connection closed or broke
	ReasonBadSignature     EndReason = "bad_signature"      // hello_ack signature does not recover miner_address
	ReasonReplay           EndReason = "replay"             // hello_ack for another nonce, or a stale timestamp
	ReasonIdentityMismatch EndReason = "identity_mismatch"  // mirror(miner_address) is not the uid's hotkey
	ReasonVersionMismatch  EndReason = "version_mismatch"   // the miner speaks another protocol version
	ReasonHandshakeTimeout EndReason = "handshake_timeout"  // no hello_ack in time
	ReasonDialFailed       EndReason = "dial_failed"        // the axon could not be reached
	ReasonAborted          EndReason = "aborted"            // the validator stopped (shutdown); not the miner's fault
	ReasonInternal         EndReason = "internal"           // a validator bug; not the miner's fault
)

// MinerFault reports whether the reason is the miner's responsibility.
// Aborted and internal endings are the validator's and should not be
// scored at all; every other non-normal ending scores zero.
func (r EndReason) MinerFault() bool {
	switch r {
	case ReasonTerminated, ReasonMaxSteps, ReasonAborted, ReasonInternal:
		return false
	}
	return true
}

// Normal reports an episode that ended by the rules (terminate or the step
// budget) rather than by a violation or failure.
func (r EndReason) Normal() bool { return r == ReasonTerminated || r == ReasonMaxSteps }
