package tsminer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/internal/llmclient/llmtest"
	"arena/relay"
	"arena/scoring/verify"
)

// relayModel is the one model the test relays allow; the miner's own
// LLM_MODEL is FakeModel, so every relayed request must switch to it.
const relayModel = "allowed-model"

// runEpisodes plays problems against the miner at endpoint with the
// validator's episode runner, offering rl (nil: no relay, protocol
// version 1 only), and returns the trajectories.
func runEpisodes(t *testing.T, endpoint string, rl episode.Relay, n int) []episode.Trajectory {
	t.Helper()
	st, _ := tools(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	r, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(key), Tools: st, Relay: rl,
		Limits: episode.Limits{StepTimeout: 5 * time.Second, EpisodeTimeout: 30 * time.Second}}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ps []episode.Problem
	for _, p := range findable(t, n) {
		ps = append(ps, episode.Problem{ID: p.ID, Query: p.Query})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return r.Run(ctx, episode.Miner{Endpoint: endpoint, AnyIdentity: true}, ps)
}

func newRelay(t *testing.T, provider *llmtest.Server, timeout time.Duration, budget relay.Budget) *relay.Relay {
	t.Helper()
	rl, err := relay.New(relay.Options{BaseURL: provider.URL + "/v1", Models: []string{relayModel}, Required: true, Timeout: timeout, Budget: budget,
		LookupEnv: func(string) (string, bool) { return "", false }}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rl
}

// shopper is llmtest.Shopper with find_product's required page, so that
// its search succeeds and an episode takes three steps: search,
// recommend, terminate.
func shopper(req llmtest.Request) llmtest.Reply {
	rep := llmtest.Shopper(req)
	for i, c := range rep.ToolCalls {
		if c.Name == "find_product" {
			rep.ToolCalls[i].Arguments = strings.TrimSuffix(c.Arguments, "}") + `,"page":1}`
		}
	}
	return rep
}

// hermes is shopper answering as a model served without a tool
// parser does: the reasoning in a <think> block and each call in Hermes
// <tool_call> tags, with arguments whose text canonical JSON keeps as
// written (1.0, spaces, keys out of order).
func hermes(req llmtest.Request) llmtest.Reply {
	rep := llmtest.Shopper(req)
	var b strings.Builder
	fmt.Fprintf(&b, "<think>\n%s\n</think>\n\n", rep.Reasoning)
	for _, c := range rep.ToolCalls {
		args := c.Arguments
		if c.Name == "find_product" {
			args = `{"page": 1.0, "q": ` + strings.TrimPrefix(c.Arguments, `{"q":`)
		}
		fmt.Fprintf(&b, "<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>\n", c.Name, args)
	}
	return llmtest.Reply{Content: b.String()}
}

// TestRelayedEpisodes runs the TypeScript miner against the validator's
// runner with its inference relay in front of providers that speak the
// chat-completions wire format: the miner negotiates version 2, its agent
// takes every completion through the relay shim (never its own endpoint,
// and with the relay's model), and each step it sends is exactly its
// completion, so scoring/verify verifies it. A provider that fails,
// stalls or answers malformed tool calls, and a spent budget, still end
// every episode with terminate; only the steps that had no completion are
// unverified.
func TestRelayedEpisodes(t *testing.T) {
	own := NewFakeLLM(t, 0, Deterministic)
	m := Launch(t, Options{LLMBaseURL: own.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey})
	// The first turn's arguments are cut short; the tool's error about
	// them is then a plain observation, and the shopper ends the episode.
	malformed := func(req llmtest.Request) llmtest.Reply {
		if msgs, _ := req.Body["messages"].([]any); len(msgs) == 2 {
			return llmtest.Reply{Reasoning: "Search.", ToolCalls: []llmtest.ToolCall{{Name: "find_product", Arguments: `{"q": "phone", "page":`}}}
		}
		return shopper(req)
	}
	tests := []struct {
		name     string
		answer   func(llmtest.Request) llmtest.Reply
		timeout  time.Duration
		budget   relay.Budget
		steps    int  // per episode; 0: any
		verified int  // verified steps per episode; -1: all
		fault    bool // the provider failed: relay_fault, never the miner's
		requests int  // provider requests per episode; 0: any
	}{
		{name: "native tool calls", answer: shopper, steps: 3, verified: -1, requests: 3},
		{name: "think block and Hermes tool calls", answer: hermes, steps: 3, verified: -1},
		{name: "malformed tool call arguments", answer: malformed, verified: -1},
		{name: "provider answers 500", answer: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: http.StatusInternalServerError} },
			steps: 1, verified: 0, fault: true},
		{name: "provider stalls past the relay timeout", answer: func(req llmtest.Request) llmtest.Reply {
			<-req.Context.Done()
			return llmtest.Reply{Status: http.StatusGatewayTimeout}
		}, timeout: time.Second, steps: 1, verified: 0, fault: true},
		// The third step's infer is refused by the miner itself (the
		// offer's max_completions), so the provider sees two and the
		// relay refuses nothing.
		{name: "two completions per episode", answer: shopper, budget: relay.Budget{Completions: 2}, steps: 3, verified: 2, requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			provider := llmtest.NewServer(t, tt.answer)
			before := own.requests.Load()
			trs := runEpisodes(t, m.Endpoint, newRelay(t, provider, tt.timeout, tt.budget), 3)
			for _, tr := range trs {
				if tr.EndReason != episode.ReasonTerminated {
					t.Errorf("episode %s ended %s (%s), want terminated", tr.EpisodeID, tr.EndReason, tr.EndDetail)
					continue
				}
				if tr.Protocol != episode.Version2 || tr.Relay == nil {
					t.Fatalf("protocol %d, relay %v: the miner did not negotiate version 2", tr.Protocol, tr.Relay)
				}
				if tt.steps > 0 && len(tr.Steps) != tt.steps {
					t.Errorf("%d steps, want %d", len(tr.Steps), tt.steps)
				}
				rep := verify.Check(&tr)
				want := tt.verified
				if want < 0 {
					want = len(tr.Steps)
				}
				if rep.Verified != want || len(rep.Dictated) > 0 {
					t.Errorf("%d of %d steps verified, want %d: unverified %+v, dictated %+v", rep.Verified, len(tr.Steps), want, rep.Unverified, rep.Dictated)
				}
				if tr.RelayFault != tt.fault {
					t.Errorf("relay_fault %v, want %v", tr.RelayFault, tt.fault)
				}
				if tr.RelayUsage == nil || tr.RelayUsage.Refused != 0 {
					t.Errorf("relay usage %+v: the relay refused a request the miner should not have sent", tr.RelayUsage)
				}
			}
			reqs := provider.Requests()
			if tt.requests > 0 && len(reqs) != tt.requests*len(trs) {
				t.Errorf("the provider saw %d requests for %d episodes, want %d each", len(reqs), len(trs), tt.requests)
			}
			for _, r := range reqs {
				if r.Model != relayModel {
					t.Errorf("the provider saw model %q, want the relay's %q", r.Model, relayModel)
				}
			}
			if n := own.requests.Load() - before; n != 0 {
				t.Errorf("the agent asked its own endpoint %d times while the validator relayed", n)
			}
		})
	}
	if err := m.Alive(); err != nil {
		t.Fatal(err)
	}
}

// TestVersionOne: where version 2 is not spoken on both sides, the miner
// behaves as a version-1 miner, with its own endpoint and steps that name
// no completion: a miner held to version 1 facing a relaying validator,
// and a version-2 miner facing a validator without a relay.
func TestVersionOne(t *testing.T) {
	tests := []struct {
		name       string
		maxVersion int
		relay      bool
	}{
		{name: "miner at --max-version 1, validator relays", maxVersion: 1, relay: true},
		{name: "validator without a relay", relay: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			own := NewFakeLLM(t, 0, Deterministic)
			m := Launch(t, Options{LLMBaseURL: own.URL(), LLMModel: FakeModel, LLMAPIKey: FakeKey, MaxVersion: tt.maxVersion})
			provider := llmtest.NewServer(t, llmtest.Shopper)
			var rl episode.Relay
			if tt.relay {
				rl = newRelay(t, provider, 0, relay.Budget{})
			}
			for _, tr := range runEpisodes(t, m.Endpoint, rl, 2) {
				if tr.EndReason != episode.ReasonTerminated || len(tr.Steps) != 3 {
					t.Errorf("episode ended %s (%s) after %d steps, want terminated after 3", tr.EndReason, tr.EndDetail, len(tr.Steps))
				}
				if tr.Protocol >= episode.Version2 {
					t.Errorf("protocol %d, want 1", tr.Protocol)
				}
				for i, st := range tr.Steps {
					if st.CompletionID != "" {
						t.Errorf("step %d names completion %q on a version-1 connection", i, st.CompletionID)
					}
				}
			}
			if n := len(provider.Requests()); n != 0 {
				t.Errorf("the relay's provider saw %d requests", n)
			}
			if own.requests.Load() == 0 {
				t.Error("the agent never asked its own endpoint")
			}
		})
	}
}

// TestNoEndpointOfItsOwn: a miner started without LLM_BASE_URL plays
// relayed episodes, and ends the others at once with terminate(failure).
func TestNoEndpointOfItsOwn(t *testing.T) {
	m := Launch(t, Options{})
	provider := llmtest.NewServer(t, shopper)
	tests := []struct {
		name  string
		relay episode.Relay
		steps int
	}{
		{name: "relayed", relay: newRelay(t, provider, 0, relay.Budget{}), steps: 3},
		{name: "not relayed", relay: nil, steps: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, tr := range runEpisodes(t, m.Endpoint, tt.relay, 2) {
				if tr.EndReason != episode.ReasonTerminated || len(tr.Steps) != tt.steps {
					t.Errorf("episode ended %s (%s) after %d steps, want terminated after %d", tr.EndReason, tr.EndDetail, len(tr.Steps), tt.steps)
				}
			}
		})
	}
}

// TestNormalisationMatchesGo feeds chat completions to the miner's
// stepFromCompletion (dist/completion.js, run by node) and to
// episode.StepFromCompletion, the validator's: both must read the same
// think, response and tool calls, with the same canonical arguments, and
// fail on the same completions. The cases are the normalisation's edges.
func TestNormalisationMatchesGo(t *testing.T) {
	Require(t)
	msg := func(m string) string {
		return `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":` + m + `}]}`
	}
	cases := []struct{ name, completion string }{
		{"native calls and reasoning_content", msg(`{"role":"assistant","content":"Let me look.","reasoning_content":"  I search first.\n","tool_calls":[{"id":"a","type":"function","function":{"name":"find_product","arguments":"{\"q\":\"black earbuds\",\"page\":1}"}}]}`)},
		{"reasoning field", msg(`{"content":"Answer text","reasoning":"Because."}`)},
		{"blank reasoning, think block", msg(`{"content":"before<think> weigh 12 vs 15 </think>after","reasoning_content":"  \n "}`)},
		{"closing think tag only", msg(`{"content":"reasoned here</think>\nThe answer."}`)},
		{"Hermes calls, arguments as written", msg(`{"content":"<think>pick</think><tool_call>{\"name\":\"find_product\",\"arguments\":{\"z\":1.0,\"q\":\"a<b & \\u00e9\",\"page\":1e2,\"n\":12345678901234567890,\"o\":{\"y\":[1.50,-0],\"b\":null}}}</tool_call> tail <tool_call>{\"name\":\"terminate\",\"arguments\":\"{\\\"status\\\": \\\"success\\\"}\"}</tool_call>"}`)},
		{"Hermes blocks that are not calls", msg(`{"content":"<tool_call>not json</tool_call><tool_call>{\"arguments\":{}}</tool_call><tool_call>[1]</tool_call><tool_call>{\"name\":\"view_product_information\"}</tool_call>left"}`)},
		{"Hermes without a closing tag", msg(`{"content":"<tool_call>{\"name\":\"terminate\",\"arguments\":{}}"}`)},
		{"a call of another type only", msg(`{"content":"text","tool_calls":[{"id":"x","type":"custom","function":{"name":"find_product","arguments":"{}"}}]}`)},
		{"arguments that are no object", msg(`{"tool_calls":[{"type":"function","function":{"name":"a","arguments":""}},{"function":{"name":"b","arguments":"[1,2]"}},{"function":{"name":"c","arguments":"{\"q\":"}},{"function":{"name":"d","arguments":" { \"q\" : 2 } "}}]}`)},
		{"null content and nothing else", msg(`{"content":null}`)},
		{"Go's white space, not JavaScript's", msg("{\"content\":\"\\u0085\\u00a0 answer \\u3000\\ufeff\"}")},
		{"keys in another case", msg(`{"Content":"shout","REASONING_CONTENT":"quiet"}`)},
		{"null choice", `{"choices":[null]}`},
		{"no choices", `{"choices":[]}`},
		{"content as parts", msg(`{"content":[{"type":"text","text":"x"}]}`)},
		{"arguments not a string", msg(`{"tool_calls":[{"function":{"name":"a","arguments":{"q":1}}}]}`)},
		{"not an object", `[1]`},
	}
	var in bytes.Buffer
	for _, c := range cases {
		in.WriteString(c.completion + "\n")
	}
	dir, _ := Dir()
	node, _ := exec.LookPath("node")
	script := `import { stepFromCompletion } from ` + fmt.Sprintf("%q", "file://"+filepath.Join(dir, "dist", "completion.js")) + `;
let text = ""; for await (const chunk of process.stdin) text += chunk;
for (const line of text.split("\n").filter(Boolean)) {
  try {
    const s = stepFromCompletion(JSON.parse(line));
    const calls = s.toolCalls.map((c) => ({ name: c.name, parameters: c.rawParameters ?? JSON.stringify(c.parameters) }));
    console.log(JSON.stringify({ ok: true, think: s.think, response: s.response, calls }));
  } catch (err) { console.log(JSON.stringify({ ok: false, error: String(err) })); }
}`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("node printed %d lines for %d completions:\n%s", len(lines), len(cases), out)
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got struct {
				OK       bool
				Error    string
				Think    string
				Response string
				Calls    []struct{ Name, Parameters string }
			}
			if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
				t.Fatalf("node line %q: %v", lines[i], err)
			}
			want, err := episode.StepFromCompletion(json.RawMessage(c.completion))
			if (err == nil) != got.OK {
				t.Fatalf("Go error %v, TypeScript ok %v (%s)", err, got.OK, got.Error)
			}
			if err != nil {
				return
			}
			if got.Think != want.Think || got.Response != want.Response {
				t.Errorf("think %q response %q; Go: think %q response %q", got.Think, got.Response, want.Think, want.Response)
			}
			if len(got.Calls) != len(want.ToolCalls) {
				t.Fatalf("%d calls %+v; Go: %d %+v", len(got.Calls), got.Calls, len(want.ToolCalls), want.ToolCalls)
			}
			// The validator compares the step as it stores it: normalised at
			// the boundary (unknown keys of a tool's parameters dropped), so
			// the miner's calls are compared after the same normalisation.
			sent := episode.Step{}
			for _, call := range got.Calls {
				sent.ToolCalls = append(sent.ToolCalls, episode.ToolCall{Name: call.Name, Parameters: episode.CanonicalArguments([]byte(call.Parameters))})
			}
			episode.NormalizeStep(&sent)
			for k, call := range got.Calls {
				w, g := want.ToolCalls[k], sent.ToolCalls[k]
				if g.Name != w.Name || string(g.Parameters) != string(w.Parameters) {
					t.Errorf("call %d: %s %s (as stored %s); Go: %s %s", k, call.Name, call.Parameters, g.Parameters, w.Name, w.Parameters)
				}
			}
		})
	}
}
