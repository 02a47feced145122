package validator

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/internal/llmclient/llmtest"
	"arena/miner"
	"arena/relay"
	"arena/scoring/judge"
	"arena/validator/records"
)

// TestProviderFaults runs the reference LLM agent's qualifying through the
// relay, under relay.required, against providers that speak the chat wire
// format and misbehave. Each misbehaviour reaches the miner as a relay
// error (its agent says so in its last think). A provider failure is
// never held against the miner: the run is void and the miner is not
// scored. Malformed tool-call arguments are the model's own output: the
// steps verify and the run is scored. A budget refusal is the miner's to
// avoid: the run is scored, and the steps it could not take through the
// relay are unverified.
func TestProviderFaults(t *testing.T) {
	malformed := func(r llmtest.Request) llmtest.Reply {
		msgs, _ := r.Body["messages"].([]any)
		if last, _ := msgs[len(msgs)-1].(map[string]any); last["role"] == "user" {
			return llmtest.Reply{Reasoning: "Search first.", ToolCalls: []llmtest.ToolCall{{Name: "find_product", Arguments: `{"q": "shoes"`}}}
		}
		return llmtest.Reply{Reasoning: "Nothing usable came back; I stop.", ToolCalls: []llmtest.ToolCall{{Name: "terminate", Arguments: `{"status":"failure"}`}}}
	}
	stall := func(r llmtest.Request) llmtest.Reply {
		<-r.Context.Done()
		return llmtest.Reply{Status: http.StatusGatewayTimeout}
	}
	status := func(code int) func(llmtest.Request) llmtest.Reply {
		return func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: code} }
	}
	tests := []struct {
		name     string
		answer   func(llmtest.Request) llmtest.Reply
		opts     relay.Options
		wantCode string // the relay error the miner saw ("" none)
		wantVoid bool   // the run is void: provider's fault
	}{
		{name: "stall", answer: stall, opts: relay.Options{Timeout: 300 * time.Millisecond}, wantCode: episode.InferProviderError, wantVoid: true},
		{name: "429", answer: status(http.StatusTooManyRequests), wantCode: episode.InferProviderError, wantVoid: true},
		{name: "500", answer: status(http.StatusInternalServerError), wantCode: episode.InferProviderError, wantVoid: true},
		{name: "malformed tool calls", answer: malformed},
		// The shopper takes at least two completions an episode (a search,
		// then an answer), so one completion leaves every episode a refusal.
		{name: "episode budget", answer: llmtest.Shopper, opts: relay.Options{Budget: relay.Budget{Completions: 1}}, wantCode: episode.InferBudgetExceeded},
		{name: "miner's daily budget", answer: llmtest.Shopper, opts: relay.Options{Daily: relay.DailyBudget{Completions: 1}}, wantCode: episode.InferBudgetExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov := llmtest.NewServer(t, tt.answer)
			ro := tt.opts
			ro.BaseURL, ro.Models, ro.Required = prov.URL+"/v1", []string{"m"}, true
			ro.LookupEnv = func(string) (string, bool) { return "", false }
			rl, err := relay.New(ro, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			llm, err := miner.NewLLM(miner.LLMOptions{}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, harnessOptions{miners: 1,
				wrapAgent: func(uint16, episode.Agent) episode.Agent { return llm },
				edit:      func(o *Options) { o.Relay, o.Verification = rl, judge.VerifyRequire }})
			h.run(1, 3)

			eps := h.episodesOf(1)
			if len(eps) != h.v.opts.QualifyingProblems {
				t.Fatalf("%d qualifying episodes stored, want %d", len(eps), h.v.opts.QualifyingProblems)
			}
			saw, fault, malformedCall := false, false, false
			for _, e := range eps {
				tr := &e.Trajectory
				if tr.EndReason != episode.ReasonTerminated {
					t.Errorf("episode %s ended %s (%s): a relay error is no violation", tr.EpisodeID, tr.EndReason, tr.EndDetail)
				}
				fault = fault || tr.RelayFault
				for _, st := range tr.Steps {
					saw = saw || tt.wantCode != "" && strings.Contains(st.Think, tt.wantCode)
					for _, c := range st.ToolCalls {
						// Arguments that are not a JSON object are read as {}.
						malformedCall = malformedCall || c.Name == "find_product" && string(c.Parameters) == "{}"
					}
				}
			}
			if tt.wantCode != "" && !saw {
				t.Errorf("no step says the miner got %s", tt.wantCode)
			}
			if tt.name == "malformed tool calls" && !malformedCall {
				t.Error("no step carries the malformed call")
			}
			if fault != tt.wantVoid {
				t.Errorf("relay fault %v, want %v", fault, tt.wantVoid)
			}
			q := h.miner(1).Qualifying
			if (q == nil) != tt.wantVoid {
				t.Fatalf("qualified %+v; want the run void: %v", q, tt.wantVoid)
			}
			wantVoids := 0.0
			if tt.wantVoid {
				wantVoids = 1
			}
			if got := h.metric("arena_validator_void_runs_total"); got != wantVoids {
				t.Errorf("arena_validator_void_runs_total %v, want %v", got, wantVoids)
			}
			for _, vd := range h.verdictsOf(1, records.Qualifying) {
				unverified := vd.Judge.Has(judge.FindingUnverified)
				switch {
				case tt.name == "malformed tool calls" && (unverified || vd.Judge.NoCredit):
					t.Errorf("episode %s: findings %v: the model's malformed arguments are still its completion", vd.EpisodeID, vd.Judge.FindingNames())
				case tt.wantCode == episode.InferBudgetExceeded && (!unverified || !vd.Judge.NoCredit):
					t.Errorf("episode %s: findings %v, no credit %v: a step past the budget has no completion", vd.EpisodeID, vd.Judge.FindingNames(), vd.Judge.NoCredit)
				}
			}
		})
	}
}

// episodesOf reads uid's stored episodes.
func (h *harness) episodesOf(uid uint16) []records.Episode {
	h.t.Helper()
	var out []records.Episode
	if err := h.store.View(func(txn *badger.Txn) error {
		ids, err := h.v.rec.MinerEpisodes(txn, uid)
		if err != nil {
			return err
		}
		for _, id := range ids {
			e, _, err := h.v.rec.GetEpisode(txn, id)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	}); err != nil {
		h.t.Fatal(err)
	}
	return out
}
