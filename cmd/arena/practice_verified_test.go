package main

import (
	"encoding/json"
	"strings"
	"testing"

	"arena/internal/llmclient/llmtest"
)

// TestPracticeVerified is the acceptance, run as a user would:
// the heuristic under --require-verified has verified_share 0 and one
// unverified finding per step played; the reference LLM agent through
// the relay to an OpenAI-compatible server has verified_share 1; a
// provider that fails is a relay fault, never a step the miner is blamed
// for.
func TestPracticeVerified(t *testing.T) {
	shopper := llmtest.NewServer(t, llmtest.Shopper)
	down := llmtest.NewServer(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: 500} })
	tests := []struct {
		name      string
		args      []string
		wantShare float64
		wantUnver bool // unverified == steps
		wantFault bool
	}{
		{name: "heuristic", args: []string{"--agent", "heuristic"}, wantShare: 0, wantUnver: true},
		{name: "llm through the relay", args: []string{"--agent", "llm", "--relay-base-url", shopper.URL + "/v1", "--relay-models", "M"}, wantShare: 1},
		{name: "provider down", args: []string{"--agent", "llm", "--relay-base-url", down.URL + "/v1", "--relay-models", "M"}, wantShare: 0, wantFault: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"practice", "--problems", "4", "--require-verified", "--json"}, tt.args...)
			code, out, errOut := runCLI(t, practiceEnv, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep struct {
				Steps         int            `json:"steps"`
				VerifiedShare *float64       `json:"verified_share"`
				Findings      map[string]int `json:"findings"`
				Results       []struct {
					RelayFault bool `json:"relay_fault"`
				} `json:"results"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("--json: %v\n%s", err, out)
			}
			if rep.VerifiedShare == nil || *rep.VerifiedShare != tt.wantShare || rep.Steps == 0 {
				t.Fatalf("verified_share %v over %d steps, want %v (findings %v)", rep.VerifiedShare, rep.Steps, tt.wantShare, rep.Findings)
			}
			if !strings.Contains(out, `"verified_share": `) {
				t.Errorf("output lacks the verified_share line")
			}
			if tt.wantUnver && rep.Findings["unverified"] != rep.Steps {
				t.Errorf("unverified %d, want %d (the steps played)", rep.Findings["unverified"], rep.Steps)
			}
			for _, r := range rep.Results {
				if r.RelayFault != tt.wantFault {
					t.Errorf("relay_fault %v, want %v", r.RelayFault, tt.wantFault)
				}
			}
		})
	}
}
