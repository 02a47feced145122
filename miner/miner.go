package miner

import (
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"arena/episode"
)

// Agent names accepted by NewAgent.
const (
	AgentHeuristic = "heuristic"
	AgentLLM       = "llm"
)

// AgentOptions select and configure an agent.
type AgentOptions struct {
	// Kind is AgentHeuristic or AgentLLM.
	Kind string
	// Skill is the heuristic agent's strength, 0..1.
	Skill float64
	// LLMBaseURL, LLMModel, LLMAPIKey and LLMTimeout configure the LLM
	// agent (see LLMOptions).
	LLMBaseURL string
	LLMModel   string
	LLMAPIKey  string
	LLMTimeout time.Duration
}

// NewAgent builds the agent named by opts.Kind.
func NewAgent(opts AgentOptions, log zerolog.Logger) (episode.Agent, error) {
	switch strings.ToLower(opts.Kind) {
	case AgentHeuristic, "":
		return NewHeuristic(HeuristicOptions{Skill: opts.Skill})
	case AgentLLM:
		return NewLLM(LLMOptions{BaseURL: opts.LLMBaseURL, Model: opts.LLMModel, APIKey: opts.LLMAPIKey, Timeout: opts.LLMTimeout}, log)
	}
	return nil, fmt.Errorf("unknown agent %q: want %s or %s", opts.Kind, AgentHeuristic, AgentLLM)
}
