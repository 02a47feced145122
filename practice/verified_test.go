package practice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/episode"
	"arena/internal/llmclient/llmtest"
	"arena/miner"
	"arena/relay"
	"arena/scoring/judge"
)

// dictator decides every action with a script (firstHit) and has a model
// through the relay say it: the prompt ends "Call NAME with ARGS".
type dictator struct{}

func (dictator) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	act, _ := firstHit{}.Step(ctx, v)
	if v.Infer == nil {
		return episode.Action{}, errors.New("no relay")
	}
	msgs := []map[string]string{{"role": "system", "content": "Do as you are told."}, {"role": "user", "content": v.Query}}
	for _, turn := range v.History {
		for _, r := range turn.Results {
			msgs = append(msgs, map[string]string{"role": "tool", "content": string(r.Result)})
		}
	}
	c := act.ToolCalls[0]
	msgs = append(msgs, map[string]string{"role": "user", "content": fmt.Sprintf("Call %s with %s", c.Name, c.Parameters)})
	body, err := json.Marshal(map[string]any{"model": "m", "messages": msgs})
	if err != nil {
		return episode.Action{}, err
	}
	res, err := v.Infer(ctx, body)
	if err != nil {
		return episode.Action{}, err
	}
	st, err := episode.StepFromCompletion(res.Completion)
	if err != nil {
		return episode.Action{}, err
	}
	return episode.Action{Think: st.Think, ToolCalls: st.ToolCalls, CompletionID: res.CompletionID}, nil
}

// obedient is a model that does what the last user message says.
func obedient(req llmtest.Request) llmtest.Reply {
	name, args, ok := strings.Cut(strings.TrimPrefix(req.Last, "Call "), " with ")
	if !ok {
		return llmtest.Reply{Content: "?"}
	}
	return llmtest.Reply{Reasoning: "I was told to call " + name + ".", ToolCalls: []llmtest.ToolCall{{Name: name, Arguments: args}}}
}

// TestVerifiedPractice is the targets in practice: under
// --require-verified a scripted miner (no relay use) and a script that
// dictates each action to a model through the relay earn 0 and the
// findings say why; the reference LLM agent through the relay earns full
// verified credit.
func TestVerifiedPractice(t *testing.T) {
	tools, problems := testProblems(t, 4)
	heuristic, err := miner.NewHeuristic(miner.HeuristicOptions{Skill: 1})
	if err != nil {
		t.Fatal(err)
	}
	llm, err := miner.NewLLM(miner.LLMOptions{}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		agent      episode.Agent
		provider   func(llmtest.Request) llmtest.Reply // nil: no relay
		wantShare  float64
		wantFind   string // the finding counting the failed steps
		wantCredit bool
	}{
		{name: "heuristic without the relay", agent: heuristic, wantShare: 0, wantFind: judge.FindingUnverified},
		{name: "heuristic beside a relay it does not use", agent: heuristic, provider: llmtest.Shopper, wantShare: 0, wantFind: judge.FindingUnverified},
		{name: "script dictating to a model", agent: dictator{}, provider: obedient, wantFind: judge.FindingDictated},
		{name: "reference LLM agent through the relay", agent: llm, provider: llmtest.Shopper, wantShare: 1, wantCredit: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Tools: tools, Verification: judge.VerifyRequire}
			if tt.provider != nil {
				prov := llmtest.NewServer(t, tt.provider)
				rl, err := relay.New(relay.Options{BaseURL: prov.URL + "/v1", Models: []string{"m"}, Required: true,
					LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
				if err != nil {
					t.Fatal(err)
				}
				opts.Relay = rl
			}
			p, err := New(opts, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			addr, stop, err := Serve(t.Context(), tt.agent, 16, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			rep, err := p.Run(t.Context(), addr, problems, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.VerifiedShare == nil || rep.Steps == 0 {
				t.Fatalf("verified_share %v over %d steps", rep.VerifiedShare, rep.Steps)
			}
			if tt.wantFind == judge.FindingDictated {
				if *rep.VerifiedShare >= 1 || rep.Findings[judge.FindingDictated] == 0 {
					t.Errorf("verified_share %v, findings %v: want dictated steps", *rep.VerifiedShare, rep.Findings)
				}
			} else if *rep.VerifiedShare != tt.wantShare {
				t.Errorf("verified_share %v, want %v (findings %v)", *rep.VerifiedShare, tt.wantShare, rep.Findings)
			}
			if tt.wantFind == judge.FindingUnverified && rep.Findings[judge.FindingUnverified] != rep.Steps {
				t.Errorf("unverified %d, want every one of %d steps", rep.Findings[judge.FindingUnverified], rep.Steps)
			}
			if tt.wantCredit {
				// The fake shopper's answers are poor and its thinks one
				// template; what matters is that verification takes nothing.
				if rep.Findings[judge.FindingUnverified]+rep.Findings[judge.FindingDictated] != 0 {
					t.Errorf("findings %v: want none from verification", rep.Findings)
				}
				for _, r := range rep.Results {
					if r.NoCredit || r.Verified != r.Steps {
						t.Errorf("problem %s: no_credit %v, %d of %d steps verified", r.ProblemID, r.NoCredit, r.Verified, r.Steps)
					}
				}
				return
			}
			if rep.Score != 0 {
				t.Errorf("score %v, want 0", rep.Score)
			}
			for _, r := range rep.Results {
				if !r.NoCredit || !strings.Contains(strings.Join(r.Why, "\n"), "no credit, ") {
					t.Errorf("problem %s: no_credit %v, why %v", r.ProblemID, r.NoCredit, r.Why)
				}
			}
			b, _ := rep.JSON()
			if !strings.Contains(string(b), `"verified_share":`) {
				t.Errorf("JSON lacks verified_share: %s", b[:min(200, len(b))])
			}
		})
	}
}
