package miner

import (
	"fmt"
	"strings"

	"arena/episode"
)

// Agent names accepted by NewAgent.
const (
	AgentHeuristic = "heuristic"
	AgentLLM       = "llm"
)

// AgentOptions select and configure an agent.
type AgentOptions struct {
	// Kind is AgentHeuristic (AgentLLM is not built yet: it needs an
	// OpenAI-compatible client module the build does not include).
	Kind string
	// Skill is the heuristic agent's strength, 0..1.
	Skill float64
}

// NewAgent builds the agent named by opts.Kind.
func NewAgent(opts AgentOptions) (episode.Agent, error) {
	switch strings.ToLower(opts.Kind) {
	case AgentHeuristic, "":
		return NewHeuristic(HeuristicOptions{Skill: opts.Skill})
	case AgentLLM:
		return nil, fmt.Errorf("agent %q is not available in this build yet; use %q", AgentLLM, AgentHeuristic)
	}
	return nil, fmt.Errorf("unknown agent %q: want %s", opts.Kind, AgentHeuristic)
}
