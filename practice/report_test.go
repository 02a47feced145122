package practice

import (
	"encoding/json"
	"strings"
	"testing"

	"arena/episode"
	"arena/scoring"
	"arena/scoring/judge"
)

// TestWhy: a failed answer names its most specific cause first: a made-up
// id refused not_found (which recommends nothing), then each unmet rule.
func TestWhy(t *testing.T) {
	search := episode.StepRecord{ToolCalls: []episode.ToolCall{{ID: "a", Name: "find_product", Parameters: json.RawMessage(`{"q":"x","page":1}`)}},
		Results: []episode.ToolResult{{ToolCallID: "a", Result: json.RawMessage(`[]`)}}}
	madeUp := episode.StepRecord{ToolCalls: []episode.ToolCall{{ID: "b", Name: "recommend_product", Parameters: json.RawMessage(`{"product_ids":"999"}`)}},
		Results: []episode.ToolResult{{ToolCallID: "b", Error: &episode.ToolError{Code: "not_found", Message: `recommend_product: unknown product_id "999"`}}}}
	tests := []struct {
		name  string
		traj  episode.Trajectory
		m     scoring.Metrics
		first []string // the reasons, in order, from the first
	}{
		{name: "made-up id", traj: episode.Trajectory{Steps: []episode.StepRecord{search, madeUp}, EndReason: episode.ReasonTerminated},
			first: []string{`step 1: recommend_product answered not_found: recommend_product: unknown product_id "999"`, "no product was recommended"}},
		{name: "unmet rule", traj: episode.Trajectory{Steps: []episode.StepRecord{search}, Recommended: []string{"1"}, EndReason: episode.ReasonTerminated},
			m:     scoring.Metrics{Items: []scoring.ItemScore{{Position: 1, Failed: []string{"price 620 is above 500"}}}, Reasons: []string{"ungrounded: product id(s) \"1\" never returned by a tool in this trajectory"}},
			first: []string{"item 1: price 620 is above 500", `ungrounded: product id(s) "1"`}},
		{name: "violation", traj: episode.Trajectory{EndReason: episode.ReasonStepTimeout, EndDetail: "no step 0 within 60s"},
			first: []string{"episode ended step_timeout: no step 0 within 60s", "no product was recommended"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := why(&tt.m, &tt.traj)
			if len(got) < len(tt.first) {
				t.Fatalf("why %q, want %q first", got, tt.first)
			}
			for i, w := range tt.first {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("reason %d is %q, want %q", i, got[i], w)
				}
			}
		})
	}
}

// TestMissingRung names the first gate of the ladder no think passed and
// the q it leaves.
func TestMissingRung(t *testing.T) {
	tests := []struct {
		gates judge.Gates
		want  string
	}{
		{judge.Gates{}, "q 0.3: no think names anything an earlier result returned"},
		{judge.Gates{ReferredToResults: true}, "q 0.5: no think cites"},
		{judge.Gates{ReferredToResults: true, CitedDatum: true}, "q 0.7: no think compares"},
		{judge.Gates{ReferredToResults: true, CitedDatum: true, Compared: true}, ""},
	}
	for _, tt := range tests {
		got := missingRung(tt.gates)
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("gates %+v: %q, want %q", tt.gates, got, tt.want)
		}
	}
}
