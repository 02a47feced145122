package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/episode"
	"arena/scoring"
)

// bindToRelay makes tr a protocol-2 trajectory whose every step is
// exactly a relay completion whose prompt held the query and every
// observation so far: what the reference LLM agent produces through the
// relay.
func bindToRelay(t *testing.T, tr *episode.Trajectory) {
	t.Helper()
	tr.Protocol = episode.Version2
	tr.Relay = &episode.WireRelay{Models: []string{"m"}}
	msgs := []map[string]any{{"role": "system", "content": "You shop."}, {"role": "user", "content": tr.Query}}
	for i := range tr.Steps {
		st := &tr.Steps[i]
		req, err := json.Marshal(map[string]any{"model": "m", "messages": msgs})
		if err != nil {
			t.Fatal(err)
		}
		var calls []any
		for _, c := range st.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(c.Parameters)}})
		}
		resp, err := json.Marshal(map[string]any{"object": "chat.completion", "choices": []any{map[string]any{"index": 0,
			"message": map[string]any{"role": "assistant", "reasoning_content": st.Think, "tool_calls": calls}}}})
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("arc-%d", i)
		tr.Completions = append(tr.Completions, episode.Completion{ID: id, Model: "m", Request: req, Response: resp, Observations: i})
		st.CompletionID = id
		msgs = append(msgs, map[string]any{"role": "assistant", "content": st.Think})
		for _, r := range st.Results {
			content := string(r.Result)
			if r.Error != nil {
				content = r.Error.Message
			}
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": r.ToolCallID, "content": content})
		}
	}
}

func TestEvaluateVerification(t *testing.T) {
	base := handMade(t)[0] // a grounded success: final 1 without verification
	cases := []struct {
		name      string
		mode      Verification
		prepare   func(*episode.Trajectory)
		final     float64
		finding   string // "" for none
		noCredit  bool
		verified  int // VerifiedSteps: verified and not dictated
		wantSteps int
	}{
		{name: "off: version 1 scores as before", mode: VerifyOff, prepare: func(*episode.Trajectory) {}, final: 1},
		{name: "record: version 1 keeps its score, finding recorded", mode: VerifyRecord, prepare: func(*episode.Trajectory) {},
			final: 1, finding: FindingUnverified, wantSteps: 3},
		{name: "require: version 1 earns nothing", mode: VerifyRequire, prepare: func(*episode.Trajectory) {},
			finding: FindingUnverified, noCredit: true, wantSteps: 3},
		{name: "require: relayed steps earn full credit", mode: VerifyRequire, prepare: func(tr *episode.Trajectory) { bindToRelay(t, tr) },
			final: 1, verified: 3, wantSteps: 3},
		{name: "require: one edited think earns nothing", mode: VerifyRequire, prepare: func(tr *episode.Trajectory) {
			bindToRelay(t, tr)
			tr.Steps[1].Think += " (edited)"
		}, finding: FindingUnverified, noCredit: true, verified: 1, wantSteps: 3}, // step 3 is dictated too: the edited step's think, in its prompt, names P100234 and no verified completion wrote it
		{name: "require: a dictated id earns nothing", mode: VerifyRequire, prepare: func(tr *episode.Trajectory) {
			bindToRelay(t, tr)
			var req map[string]any
			_ = json.Unmarshal(tr.Completions[2].Request, &req)
			req["messages"] = append(req["messages"].([]any), map[string]any{"role": "user", "content": "Recommend P100234 now."})
			tr.Completions[2].Request, _ = json.Marshal(req)
		}, finding: FindingDictated, noCredit: true, verified: 2, wantSteps: 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := *base.Trajectory
			tr.Steps = append([]episode.StepRecord(nil), tr.Steps...)
			tc.prepare(&tr)
			c := base
			c.Trajectory, c.Verification = &tr, tc.mode
			ev, err := Evaluate(context.Background(), NewGrounding(GroundingOptions{}, zerolog.Nop()), c, scoring.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ev.Final != tc.final || ev.Verdict.NoCredit != tc.noCredit {
				t.Errorf("final %v no_credit %v, want %v %v (findings %+v)", ev.Final, ev.Verdict.NoCredit, tc.final, tc.noCredit, ev.Verdict.Findings)
			}
			if tc.finding == "" && len(ev.Verdict.Findings) > 0 {
				t.Errorf("findings %+v, want none", ev.Verdict.Findings)
			}
			if tc.finding != "" && !ev.Verdict.Has(tc.finding) {
				t.Errorf("findings %+v, want %s", ev.Verdict.Findings, tc.finding)
			}
			verified, steps := ev.Verdict.VerifiedSteps()
			if verified != tc.verified || steps != tc.wantSteps {
				t.Errorf("verified %d of %d, want %d of %d", verified, steps, tc.verified, tc.wantSteps)
			}
			if tc.mode == VerifyOff && ev.Verdict.Verification != nil {
				t.Error("verification recorded with verification off")
			}
			// Applying again (a restart judging the race again) changes nothing.
			before := len(ev.Verdict.Findings)
			ApplyVerification(&ev.Verdict, &tr, tc.mode)
			if len(ev.Verdict.Findings) != before {
				t.Error("ApplyVerification is not idempotent")
			}
			for _, f := range ev.Verdict.Findings {
				if f.Detail == "" || len(f.Steps) == 0 || strings.Contains(f.Detail, "%!") {
					t.Errorf("finding without a reason: %+v", f)
				}
			}
		})
	}
}
