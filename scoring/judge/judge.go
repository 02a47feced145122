package judge

import (
	"context"

	"arena/episode"
	"arena/scoring/verify"
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
	// Unavailable: no model of the llm judge gave a verdict (every one
	// failed or was benched), so this is the fallback's verdict. A race
	// whose verdicts are all unavailable is void under
	// UnavailableVoid (Policy.Voids).
	Unavailable bool `json:"unavailable,omitempty"`
	// Findings are what the judges found beyond the gates: a template
	// shared across the miner's run (FindingTemplated), a model's
	// verdict clipped to the evidence (FindingClipped), thinks that
	// address the judge (FindingInjection).
	Findings []Finding `json:"findings,omitempty"`
	// Verification is the check of the steps against the relay's
	// completions (protocol version 2; nil when the validator runs no
	// relay).
	Verification *verify.Report `json:"verification,omitempty"`
	// NoCredit: under relay.required a step was unverified or dictated,
	// so the episode's final score is 0 whatever its answer (Credit).
	NoCredit bool `json:"no_credit,omitempty"`
}

// VerifiedSteps counts the verdict's steps that verified and were not
// dictated, and its steps (0, 0 without a verification).
func (v *Verdict) VerifiedSteps() (verified, steps int) {
	if v.Verification == nil {
		return 0, 0
	}
	return v.Verification.Verified - len(v.Verification.Dictated), v.Verification.Steps
}

// Finding names one thing a judge found, with its evidence.
type Finding struct {
	Name   string `json:"name"`
	Detail string `json:"detail"`
	// Skeleton and Share (templated): the think skeleton shared across
	// problems, ids, numbers, query words and problem-specific words
	// masked as "#", and the share of the run's thinks that match it.
	Skeleton string  `json:"skeleton,omitempty"`
	Share    float64 `json:"share,omitempty"`
	// Steps (clipped, injection): the steps concerned.
	Steps []int `json:"steps,omitempty"`
}

// Finding names.
const (
	FindingTemplated = "templated"
	FindingClipped   = "clipped"
	FindingInjection = "injection"
	// FindingUnverified and FindingDictated (package scoring/verify)
	// name steps that did not come from a relay completion, and steps
	// whose completion was told its answer by the prompt.
	FindingUnverified = verify.Unverified
	FindingDictated   = verify.Dictated
)

// Has reports whether v carries a finding named name.
func (v *Verdict) Has(name string) bool {
	for _, f := range v.Findings {
		if f.Name == name {
			return true
		}
	}
	return false
}

// FindingNames lists the names of v's findings, in order.
func (v *Verdict) FindingNames() []string {
	if len(v.Findings) == 0 {
		return nil
	}
	out := make([]string, len(v.Findings))
	for i, f := range v.Findings {
		out[i] = f.Name
	}
	return out
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

// What a race judged while the llm judge's endpoint is down is worth
// (LLMOptions.OnUnavailable, config judge.on_unavailable).
const (
	UnavailableVoid      = "void"
	UnavailableGrounding = "grounding"
)

// Policy is what a judge asks of the validator beyond the verdict of one
// trajectory: the template cap over a miner's run, and whether a race
// judged while the llm judge's endpoint was down is void.
type Policy struct {
	Templates     TemplateOptions
	OnUnavailable string // UnavailableVoid or UnavailableGrounding
}

// PolicyOf is j's policy; a judge without one gets the default template
// options and is never void.
func PolicyOf(j Judge) Policy {
	if p, ok := j.(interface{ Policy() Policy }); ok {
		return p.Policy()
	}
	return Policy{Templates: TemplateOptions{}.withDefaults(), OnUnavailable: UnavailableGrounding}
}

// Voids reports whether the verdicts of a race (or a qualifying run)
// make it void: under UnavailableVoid, when no model answered for any of
// them, the whole run was scored by the fallback, and that is not what
// the operator chose to pay on. A run with some model verdicts is
// scored, the unavailable ones by the fallback (flagged).
func (p Policy) Voids(vs []*Verdict) bool {
	if p.OnUnavailable != UnavailableVoid || len(vs) == 0 {
		return false
	}
	for _, v := range vs {
		if !v.Unavailable {
			return false
		}
	}
	return true
}
