package episode

import (
	"time"
)

// Trajectory is the validator's record of one episode. Everything except
// Think and Response in each step was produced or observed by the
// validator itself.
type Trajectory struct {
	EpisodeID        string `json:"episode_id"`
	ProblemID        string `json:"problem_id"`
	Query            string `json:"query"`
	MinerUID         uint16 `json:"miner_uid"`
	MinerAddress     string `json:"miner_address,omitempty"` // empty when the handshake failed before it was known
	ValidatorAddress string `json:"validator_address"`

	Steps []StepRecord `json:"steps"`

	// Recommended is the accepted recommend_product ids, in order.
	Recommended []string `json:"recommended,omitempty"`
	// TerminateStatus is terminate's status ("success"/"failure"), if called.
	TerminateStatus string    `json:"terminate_status,omitempty"`
	EndReason       EndReason `json:"end_reason"`
	EndDetail       string    `json:"end_detail,omitempty"`

	Timings Timings `json:"timings"`

	// Protocol is the negotiated protocol version (0 or 1: version 1).
	Protocol int `json:"protocol,omitempty"`
	// Relay is what episode_start offered (v2 with the relay on).
	Relay *WireRelay `json:"relay,omitempty"`
	// Completions are the relay's records of this episode, in order of
	// arrival (v2 with the relay on).
	Completions []Completion `json:"completions,omitempty"`
	// RelayUsage is the metered use of the relay.
	RelayUsage *RelayUsage `json:"relay_usage,omitempty"`
	// RelayFault: the provider failed at least once for this episode. It
	// is never the miner's fault; a race voids the episode's racer
	// (docs/scoring.md).
	RelayFault bool `json:"relay_fault,omitempty"`
}

// StepRecord is one agent step with the validator's observation of it.
type StepRecord struct {
	Think     string       `json:"think"`
	ToolCalls []ToolCall   `json:"tool_calls"`
	Results   []ToolResult `json:"results"`
	Response  *string      `json:"response,omitempty"`
	// TSent is when the validator began sending the message this step
	// answers (episode_start or the previous observation); TReceived is
	// when the step's frame had fully arrived. TReceived−TSent is the
	// miner's time, network included.
	TSent     time.Time `json:"t_sent"`
	TReceived time.Time `json:"t_received"`
	// TObserved is when the observation for this step had been written
	// (zero if it was not, for example after a violation in this step).
	TObserved time.Time `json:"t_observed,omitzero"`
	// ToolTime is the time spent executing this step's tool calls.
	ToolTime time.Duration `json:"tool_time_ns"`
	// CompletionID (v2) is the relay completion the step names.
	CompletionID string `json:"completion_id,omitempty"`
}

// Timings are validator-side times for the whole episode.
type Timings struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Miner is the sum of the steps' TReceived−TSent.
	Miner time.Duration `json:"miner_ns"`
	// Tools is the sum of the steps' ToolTime.
	Tools time.Duration `json:"tools_ns"`
}

// Duration is the episode's wall time.
func (t Timings) Duration() time.Duration { return t.End.Sub(t.Start) }
