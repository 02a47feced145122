package episode

import (
	"context"
	"encoding/json"
	"time"
)

// Relay is the validator's inference relay as the runner sees it
// (implemented by package relay). A Runner with a Relay offers protocol
// version 2; on a version-2 connection every episode opens a session.
type Relay interface {
	// Open starts one episode's session: its budget, and the completions
	// it will hand back. miner is the miner's verified address.
	Open(miner string, episodeID string) RelaySession
}

// RelaySession is one episode's use of the relay. Infer may be called
// concurrently with itself; Close is called once, after the last Infer
// has returned.
type RelaySession interface {
	// Offer is what episode_start announces.
	Offer() WireRelay
	// Infer answers one infer. The result carries the request's
	// episode_id and request_id. rec is the record to keep with the
	// episode (nil for a request refused before it reached the provider).
	Infer(ctx context.Context, req *Infer) (res *InferResult, rec *Completion)
	// Close ends the session and returns the episode's metered usage.
	Close() RelayUsage
}

// Completion is the validator's record of one relayed chat completion:
// what went to the provider, what came back, and when, relative to the
// episode's observations. Verification (package scoring/verify) and the
// completions export read it.
type Completion struct {
	// ID is the relay's completion_id, unique per validator.
	ID string `json:"id"`
	// RequestID is the miner's request_id.
	RequestID string `json:"request_id"`
	Model     string `json:"model"`
	// Request is the body forwarded to the provider, byte for byte.
	Request json.RawMessage `json:"request"`
	// Response is the provider's body, byte for byte (empty on error).
	Response json.RawMessage `json:"response,omitempty"`
	Usage    Usage           `json:"usage"`
	// Observations is the number of observations the validator had sent
	// in this episode when the infer arrived: a completion may back only
	// the step that follows observation Observations-1 (or, at 0, the
	// first step).
	Observations int       `json:"observations"`
	TRequested   time.Time `json:"t_requested"`
	TAnswered    time.Time `json:"t_answered"`
	// ProviderTime is the time the provider call took.
	ProviderTime time.Duration `json:"provider_ns"`
	// Error is the infer error code when the provider call failed
	// (provider_error); such a record has no Response.
	Error string `json:"error,omitempty"`
}

// RelayUsage is an episode's metered relay use.
type RelayUsage struct {
	Completions      int   `json:"completions"`
	Refused          int   `json:"refused,omitempty"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// ProviderFailures counts provider errors (never the miner's fault).
	ProviderFailures int `json:"provider_failures,omitempty"`
	// ProviderTime is the summed provider time.
	ProviderTime time.Duration `json:"provider_ns"`
}

// CompletionByID finds a completion of the trajectory.
func (t *Trajectory) CompletionByID(id string) (*Completion, bool) {
	if id == "" {
		return nil, false
	}
	for i := range t.Completions {
		if t.Completions[i].ID == id {
			return &t.Completions[i], true
		}
	}
	return nil, false
}
