package miner

import (
	"time"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/relay/standin"
)

// StandInURL, given as the LLM agent's base URL (--llm-base-url
// stand-in), serves the agent's own completions from the offline
// stand-in (package standin) in process: offline demos of the llm agent's
// path. A validator's relay is still asked first when it offers one.
const StandInURL = config.StandInURL

// NewStandIn is the offline stand-in playing this package's heuristic at
// full skill.
func NewStandIn(log zerolog.Logger) (*standin.StandIn, error) {
	h, err := NewHeuristic(HeuristicOptions{Skill: 1})
	if err != nil {
		return nil, err
	}
	return standin.New(standin.Options{Agent: h}, log)
}

// newStandInLLM is the LLM agent with the stand-in as its endpoint,
// reached in process (no listener).
func newStandInLLM(timeout time.Duration, log zerolog.Logger) (*LLM, error) {
	s, err := NewStandIn(log)
	if err != nil {
		return nil, err
	}
	return NewLLM(LLMOptions{BaseURL: standin.BaseURL, Model: standin.Model, Timeout: timeout, MaxRetries: -1,
		HTTPClient: s.Client()}, log)
}
