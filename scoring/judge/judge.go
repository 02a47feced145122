package judge

import (
	"context"

	"arena/episode"
)

// Judge scores the reasoning of one trajectory. Implementations never
// panic on bad input: a nil or empty trajectory gets the lowest rung.
type Judge interface {
	Judge(ctx context.Context, t *episode.Trajectory) (Verdict, error)
}

// Gates are the rungs of the ladder (docs/design.md, "Reasoning judge").
type Gates struct {
	// ReferredToResults: the thinking mentions something an earlier
	// observation returned.
	ReferredToResults bool `json:"referred_to_results"`
	// CitedDatum: it names an id, price, shop_id or attribute value that
	// an earlier observation returned.
	CitedDatum bool `json:"cited_datum"`
	// Compared: it names at least two observed candidates with a reason.
	Compared bool `json:"compared"`
}

// StepScore is one step's score and why.
type StepScore struct {
	Step   int     `json:"step"`
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}

// Verdict is a judge's result for one trajectory.
type Verdict struct {
	Score         float64     `json:"score"`
	Gates         Gates       `json:"gates"`
	PerStep       []StepScore `json:"per_step"`
	Judge         string      `json:"judge"`
	Model         string      `json:"model,omitempty"`
	PromptVersion string      `json:"prompt_version,omitempty"`
	Raw           string      `json:"raw,omitempty"`
	Fallback      bool        `json:"fallback"`
}

// The rungs of the ladder.
const (
	ScoreNoReference = 0.3
	ScoreNoDatum     = 0.5
	ScoreNoCompare   = 0.7
	ScoreCompared    = 0.9
)

// Ladder maps gates to the ladder's score (docs/design.md, "Reasoning
// judge"). Each rung requires the previous ones.
func Ladder(g Gates) float64 {
	switch {
	case !g.ReferredToResults:
		return ScoreNoReference
	case !g.CitedDatum:
		return ScoreNoDatum
	case !g.Compared:
		return ScoreNoCompare
	default:
		return ScoreCompared
	}
}

// Judge names recorded in Verdict.Judge.
const (
	NameGrounding = "grounding"
	NameLLM       = "llm"
)
