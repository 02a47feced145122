package miner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/relay"
	"arena/scoring/verify"
)

// TestLLMAgentThroughRelay plays the reference LLM agent with no endpoint
// of its own against a runner whose relay forwards to a fake provider:
// every step must verify, and a failing provider must end the episode as
// a relay fault, not the miner's.
func TestLLMAgentThroughRelay(t *testing.T) {
	tools, cat := llmTools(t)
	target := cat.At(7)
	tests := []struct {
		name      string
		status    int
		model     string // the agent's --llm-model; the relay allows "allowed-model"
		wantSteps int
		wantFault bool
		wantThink string
	}{
		{name: "verified episode", model: "allowed-model", wantSteps: 3},
		{name: "model not allowed falls back to the relay's first", model: "other-model", wantSteps: 3},
		{name: "provider error", status: http.StatusInternalServerError, model: "allowed-model", wantSteps: 1, wantFault: true,
			wantThink: "The validator's inference relay failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeChat{status: tt.status}
			api := httptest.NewServer(fake)
			t.Cleanup(api.Close)
			rl, err := relay.New(relay.Options{BaseURL: api.URL + "/v1", Models: []string{"allowed-model"}, Required: true,
				LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			vkey, _ := crypto.GenerateKey()
			r, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(vkey), Tools: tools, Relay: rl,
				Limits: episode.Limits{StepTimeout: 5 * time.Second, EpisodeTimeout: 20 * time.Second}}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			agent, err := NewLLM(LLMOptions{Model: tt.model}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			mkey, _ := crypto.GenerateKey()
			signer := chain.NewSigner(mkey)
			addr := serve(t, signer, agent)
			tr := r.Run(context.Background(), episode.Miner{UID: 2, Hotkey: chain.Mirror(signer.Address), Endpoint: addr},
				[]episode.Problem{{ID: "p1", Query: "I want " + target.Title}})[0]
			if tr.EndReason != episode.ReasonTerminated || len(tr.Steps) != tt.wantSteps || tr.RelayFault != tt.wantFault {
				t.Fatalf("ended %s (%s) after %d steps, relay fault %v; want terminated after %d, fault %v",
					tr.EndReason, tr.EndDetail, len(tr.Steps), tr.RelayFault, tt.wantSteps, tt.wantFault)
			}
			if tt.wantThink != "" {
				if !strings.HasPrefix(tr.Steps[0].Think, tt.wantThink) {
					t.Errorf("think %q, want %q", tr.Steps[0].Think, tt.wantThink)
				}
				return
			}
			if rep := verify.Check(&tr); !rep.OK() || rep.Verified != tt.wantSteps {
				t.Errorf("verification %+v, want every step verified", rep)
			}
			for _, req := range fake.requests {
				if req.Model != "allowed-model" {
					t.Errorf("provider saw model %q", req.Model)
				}
			}
			if tr.RelayUsage == nil || tr.RelayUsage.Completions != tt.wantSteps || tr.RelayUsage.PromptTokens != int64(10*tt.wantSteps) {
				t.Errorf("usage %+v", tr.RelayUsage)
			}
		})
	}
}
