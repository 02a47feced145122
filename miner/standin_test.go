package miner

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/relay"
	"arena/relay/standin"
)

// TestStandIn: the stand-in plays the llm agent's path offline and says
// in every think that it is no model; a relay whose provider is the
// stand-in refuses its answers, so a validator never verifies them.
func TestStandIn(t *testing.T) {
	tools, cat := llmTools(t)
	target := cat.At(11)
	standIn, err := NewStandIn(zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	prov := httptest.NewServer(standIn)
	t.Cleanup(prov.Close)
	rl, err := relay.New(relay.Options{BaseURL: prov.URL + "/v1", Models: []string{"m"},
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		relay     episode.Relay
		agentURL  string
		wantFault bool
		wantThink string
	}{
		{name: "offline demo, no relay", agentURL: StandInURL, wantThink: standin.Prefix},
		{name: "a relay refuses it as its provider", relay: rl, wantFault: true, wantThink: "The validator's inference relay failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vkey, _ := crypto.GenerateKey()
			r, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(vkey), Tools: tools, Relay: tt.relay,
				Limits: episode.Limits{StepTimeout: 5 * time.Second, EpisodeTimeout: 20 * time.Second}}, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			agent, err := NewAgent(AgentOptions{Kind: AgentLLM, LLMBaseURL: tt.agentURL, LLMModel: "m"}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			mkey, _ := crypto.GenerateKey()
			signer := chain.NewSigner(mkey)
			addr := serve(t, signer, agent)
			tr := r.Run(context.Background(), episode.Miner{UID: 2, Hotkey: chain.Mirror(signer.Address), Endpoint: addr},
				[]episode.Problem{{ID: "p1", Query: "I want " + target.Title}})[0]
			if tr.EndReason != episode.ReasonTerminated || tr.RelayFault != tt.wantFault || len(tr.Steps) == 0 {
				t.Fatalf("ended %s (%s), relay fault %v, %d steps", tr.EndReason, tr.EndDetail, tr.RelayFault, len(tr.Steps))
			}
			for i, st := range tr.Steps {
				if !strings.HasPrefix(st.Think, tt.wantThink) {
					t.Errorf("step %d think %q, want %q first", i+1, st.Think, tt.wantThink)
				}
			}
			if !tt.wantFault && (len(tr.Recommended) == 0 || tr.TerminateStatus != "success") {
				t.Errorf("the stand-in recommended %v and ended %q", tr.Recommended, tr.TerminateStatus)
			}
		})
	}
}
