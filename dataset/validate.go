package dataset

import (
	"fmt"
	"unicode/utf8"

	"arena/episode"
)

// A training pipeline decodes each row and encodes its strings as UTF-8
// again; encoding/json would instead replace what is not valid UTF-8
// without a word. So an export refuses, with one error naming the episode
// and the field, a trajectory whose emitted text is not valid UTF-8, or
// whose tool-call arguments hold a lone surrogate or a control character
// other than newline and tab. A validator normalises miner input before it
// stores it (docs/security.md, "Miner text"); only a store written before
// that, or edited by hand, can fail here.

// checkText reports the first string of tr an export would emit corrupt.
// completions adds the relay records the completions format emits.
func checkText(tr *episode.Trajectory, completions bool) error {
	fail := func(field, problem string) error {
		return fmt.Errorf("episode %s: %s: %s; the export does not emit it (see docs/dataset.md, \"Text\")", tr.EpisodeID, field, problem)
	}
	const invalid = "not valid UTF-8"
	if !utf8.ValidString(tr.Query) {
		return fail("query", invalid)
	}
	for si := range tr.Steps {
		st := &tr.Steps[si]
		at := fmt.Sprintf("step %d", si+1)
		if !utf8.ValidString(st.Think) {
			return fail(at+" think", invalid)
		}
		if st.Response != nil && !utf8.ValidString(*st.Response) {
			return fail(at+" response", invalid)
		}
		for ci, c := range st.ToolCalls {
			call := fmt.Sprintf("%s tool call %d", at, ci+1)
			if !utf8.ValidString(c.ID) || !utf8.ValidString(c.Name) {
				return fail(call+" id or name", invalid)
			}
			if p := episode.JSONTextProblem(c.Parameters); p != "" {
				return fail(call+" arguments", p)
			}
		}
		for ri, r := range st.Results {
			res := fmt.Sprintf("%s result %d", at, ri+1)
			if p := episode.JSONEncodingProblem(r.Result); p != "" {
				return fail(res, p)
			}
			if r.Error != nil && !utf8.ValidString(r.Error.Message) {
				return fail(res+" error", invalid)
			}
		}
	}
	if completions {
		for _, c := range tr.Completions {
			if p := episode.JSONEncodingProblem(c.Request); p != "" {
				return fail("completion "+c.ID+" request", p)
			}
			if p := episode.JSONEncodingProblem(c.Response); p != "" {
				return fail("completion "+c.ID+" response", p)
			}
		}
	}
	return nil
}
