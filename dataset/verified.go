package dataset

import (
	"arena/episode"
	"arena/scoring/verify"
	"arena/validator/records"
)

// verification is which steps of an episode count as verified inference:
// the step verified against the validator's relay completion and was not
// dictated (package scoring/verify).
type verification struct {
	ok []bool
	// all: the episode has steps and every one is ok.
	all bool
}

// verificationOf reads the verdict's verification: what the validator
// scored. A verdict without one (a validator that checked nothing) is
// checked here from the trajectory's own completions, with the same pure
// function; an episode with no completions (protocol version 1, or no
// relay) has no verified step.
func verificationOf(tr *episode.Trajectory, v *records.Verdict) verification {
	rep := v.Judge.Verification
	if rep == nil {
		if len(tr.Completions) == 0 {
			return verification{}
		}
		r := verify.Check(tr)
		rep = &r
	}
	vf := verification{ok: make([]bool, len(tr.Steps))}
	for i := range vf.ok {
		vf.ok[i] = true
	}
	for _, issues := range [][]verify.Issue{rep.Unverified, rep.Dictated} {
		for _, is := range issues {
			if is.Step >= 0 && is.Step < len(vf.ok) {
				vf.ok[is.Step] = false
			}
		}
	}
	vf.all = len(vf.ok) > 0
	for _, ok := range vf.ok {
		vf.all = vf.all && ok
	}
	return vf
}

// step reports whether step i is verified.
func (vf verification) step(i int) bool { return i >= 0 && i < len(vf.ok) && vf.ok[i] }

// any reports whether some step is verified.
func (vf verification) any() bool {
	for _, ok := range vf.ok {
		if ok {
			return true
		}
	}
	return false
}

// completionRows calls fn with the row of each verified step: the relay's
// record of the completion the step names.
func completionRows(tr *episode.Trajectory, vf verification, meta func(step int) *Meta, fn func(*CompletionRow) error) error {
	for i := range tr.Steps {
		if !vf.step(i) {
			continue
		}
		c, ok := tr.CompletionByID(tr.Steps[i].CompletionID)
		if !ok {
			// A verified step names a recorded completion by definition;
			// a verdict that says otherwise is not trusted here.
			continue
		}
		row := &CompletionRow{CompletionID: c.ID, Model: c.Model, Request: c.Request, Response: c.Response,
			Usage: Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens, TotalTokens: c.Usage.TotalTokens},
			Meta:  meta(i)}
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}
