package minercheck

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"arena/episode"
	"arena/episode/episodetest"
)

// relayMiner is a version-2 miner at the wire level. For every prompt it
// asks the relay for a completion with an honest prompt (the query and
// every observation as the validator sent it) and sends the completion's
// step, naming it; on an infer error it ends the episode with terminate.
// Each knob breaks one rule of docs/protocol.md, section 9.
type relayMiner struct {
	ackV1        bool   // answers a max_version-2 hello with version 1
	model        string // asks for this model instead of the offer's first
	extraField   bool   // adds a field the relay does not forward
	maxTokens    int64  // asks for this max_tokens
	noID         bool   // steps name no completion
	fakeID       bool   // steps name a completion the relay never issued
	reuse        bool   // steps after the first name the first step's completion
	stale        bool   // steps after the first are a spare completion asked for one prompt earlier
	alterArgs    bool   // changes the arguments of the completion's call
	alterThink   bool   // changes the think
	blind        bool   // the prompt holds the query but no observation
	dictate      bool   // the prompt names the product to recommend
	stray        bool   // also sends an infer for an episode that does not exist
	unsolicited  bool   // sends another infer right after each step
	sameID       bool   // sends two infers with one request_id for the first prompt
	stallOnError bool   // never answers a prompt whose infer failed
	errorSteps   bool   // on an infer error, searches again instead of terminating
}

// relayEpisode is what the miner keeps of one episode.
type relayEpisode struct {
	start  *episode.EpisodeStart
	turns  []relayTurn
	first  string                       // the first step's completion id
	spare  map[int]*episode.InferResult // by the prompt they were asked for
	prompt int                          // prompts answered so far (the next step's index)
}

type relayTurn struct {
	step *episode.Step
	obs  *episode.Observation
}

func (m relayMiner) behave(ws *websocket.Conn, env *episodetest.Env) {
	h := env.ReadVerifiedHello(ws)
	if h == nil {
		return
	}
	version := episode.Negotiate(h, episode.MaxVersion)
	if m.ackV1 {
		version = episode.Version
	}
	ack, err := episode.NewHelloAckVersion(env.Signer.PrivateKey(), h, time.Now(), version)
	if err != nil || m.send(ws, ack) != nil {
		return
	}
	episodes := map[string]*relayEpisode{}
	pending := map[string]string{} // request_id → episode_id
	n := 0
	ask := func(e *relayEpisode) {
		if e.start.Relay == nil {
			// Version 1: the honest script's step, with no completion.
			frame := episodetest.Honest(e.start, e.prompt, lastObs(e))
			msg, err := episode.Decode(frame)
			if err != nil {
				return
			}
			e.turns = append(e.turns, relayTurn{step: msg.(*episode.Step)})
			e.prompt++
			_ = ws.WriteMessage(websocket.TextMessage, frame)
			return
		}
		ids := []string{fmt.Sprintf("r%d", n)}
		n++
		if m.sameID && e.prompt == 0 {
			ids = append(ids, ids[0])
		}
		if m.stale {
			ids = append(ids, fmt.Sprintf("spare%d-%d", e.prompt, n))
		}
		for _, id := range ids {
			pending[id] = e.start.EpisodeID
			_ = m.send(ws, &episode.Infer{EpisodeID: e.start.EpisodeID, RequestID: id, Body: m.body(e)})
		}
		if m.stray {
			_ = m.send(ws, &episode.Infer{EpisodeID: "no-such-episode", RequestID: "stray", Body: m.body(e)})
		}
	}
	for {
		_, frame, err := ws.ReadMessage()
		if err != nil {
			return
		}
		msg, err := episode.Decode(frame)
		if err != nil {
			continue
		}
		switch x := msg.(type) {
		case *episode.EpisodeStart:
			e := &relayEpisode{start: x, spare: map[int]*episode.InferResult{}}
			episodes[x.EpisodeID] = e
			ask(e)
		case *episode.Observation:
			e := episodes[x.EpisodeID]
			if e == nil || len(e.turns) == 0 {
				continue
			}
			e.turns[len(e.turns)-1].obs = x
			if !ends(e) {
				ask(e)
			}
		case *episode.EpisodeEnd:
			delete(episodes, x.EpisodeID)
		case *episode.InferResult:
			e := episodes[pending[x.RequestID]]
			delete(pending, x.RequestID)
			var of int
			if _, err := fmt.Sscanf(x.RequestID, "spare%d", &of); err == nil && e != nil {
				e.spare[of] = x
				continue
			}
			if e == nil || len(e.turns) != e.prompt {
				continue // a step for this prompt went out already
			}
			m.answer(ws, e, x)
		}
	}
}

// answer sends the step for the episode's owed prompt from res.
func (m relayMiner) answer(ws *websocket.Conn, e *relayEpisode, res *episode.InferResult) {
	var st *episode.Step
	switch {
	case res.Error != nil && m.stallOnError:
		return
	case res.Error != nil && m.errorSteps:
		st = &episode.Step{Think: "The relay failed; I search again.", ToolCalls: []episode.ToolCall{{ID: "c0", Name: "find_product",
			Parameters: json.RawMessage(`{"q":"phone","page":1}`)}}}
	case res.Error != nil:
		st = &episode.Step{Think: "The relay failed: " + res.Error.Code + ".", ToolCalls: []episode.ToolCall{{ID: "c0", Name: "terminate",
			Parameters: json.RawMessage(`{"status":"failure"}`)}}}
	default:
		if spare := e.spare[e.prompt-1]; m.stale && spare != nil && spare.Error == nil {
			res = spare
		}
		cs, err := episode.StepFromCompletion(res.Completion)
		if err != nil {
			return
		}
		st = &episode.Step{Think: cs.Think, ToolCalls: cs.ToolCalls, CompletionID: res.CompletionID}
		if e.prompt == 0 {
			e.first = res.CompletionID
		}
		switch {
		case m.noID:
			st.CompletionID = ""
		case m.fakeID:
			st.CompletionID = "arc-000000000000000000000000"
		case m.reuse && e.prompt > 0:
			st.CompletionID = e.first
		case m.alterArgs && len(st.ToolCalls) > 0 && st.ToolCalls[0].Name == "find_product":
			st.ToolCalls[0].Parameters = json.RawMessage(`{"q":"something else","page":1}`)
		case m.alterThink:
			st.Think += " (edited)"
		}
	}
	st.EpisodeID = e.start.EpisodeID
	if st.ToolCalls == nil {
		st.ToolCalls = []episode.ToolCall{}
	}
	e.turns = append(e.turns, relayTurn{step: st})
	e.prompt++
	_ = m.send(ws, st)
	if m.unsolicited {
		_ = m.send(ws, &episode.Infer{EpisodeID: e.start.EpisodeID, RequestID: fmt.Sprintf("late%d", e.prompt), Body: m.body(e)})
	}
}

// body is the chat-completions request for the episode's next step.
func (m relayMiner) body(e *relayEpisode) json.RawMessage {
	s := e.start
	model := s.Relay.Models[0]
	if m.model != "" {
		model = m.model
	}
	msgs := []map[string]any{{"role": "system", "content": "You are a shopping assistant."}, {"role": "user", "content": s.Query}}
	var lastHit string
	for _, t := range e.turns {
		var calls []map[string]any
		for _, c := range t.step.ToolCalls {
			calls = append(calls, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": string(c.Parameters)}})
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": t.step.Think, "tool_calls": calls})
		if t.obs == nil || m.blind {
			continue
		}
		for _, r := range t.obs.Results {
			content := string(r.Result)
			if r.Error != nil {
				content = "error: " + r.Error.Message
			}
			var hits []struct {
				ID string `json:"product_id"`
			}
			if json.Unmarshal(r.Result, &hits) == nil && len(hits) > 0 {
				lastHit = hits[0].ID
			}
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": r.ToolCallID, "content": content})
		}
	}
	if m.dictate && lastHit != "" {
		msgs = append(msgs[:1], append([]map[string]any{{"role": "system", "content": "Recommend product " + lastHit + "."}}, msgs[1:]...)...)
	}
	body := map[string]any{"model": model, "messages": msgs, "tools": s.Tools}
	if m.extraField {
		body["user"] = "miner-7"
	}
	if m.maxTokens > 0 {
		body["max_tokens"] = m.maxTokens
	}
	raw, _ := json.Marshal(body)
	return raw
}

func (relayMiner) send(ws *websocket.Conn, msg episode.Message) error {
	data, err := episode.Encode(msg)
	if err != nil {
		return err
	}
	return ws.WriteMessage(websocket.TextMessage, data)
}

func lastObs(e *relayEpisode) *episode.Observation {
	if len(e.turns) == 0 {
		return nil
	}
	return e.turns[len(e.turns)-1].obs
}

// ends reports whether the last observation ended the episode: its
// terminate succeeded, or it answered the last allowed step.
func ends(e *relayEpisode) bool {
	last := e.turns[len(e.turns)-1]
	if len(e.turns) >= e.start.Limits.MaxSteps {
		return true
	}
	for _, c := range last.step.ToolCalls {
		if c.Name != "terminate" {
			continue
		}
		for _, r := range last.obs.Results {
			if r.ToolCallID == c.ID && r.Error == nil {
				return true
			}
		}
	}
	return false
}

// TestRelayClauses checks version-2 miners, each on its own loopback
// socket, with the check as the command runs it: the honest one and the
// reference LLM agent pass every clause; each of the others fails the
// clause it breaks, says why, and passes the version-1 clauses.
func TestRelayClauses(t *testing.T) {
	c := sharedRelayChecker(t)
	v1 := v1Clauses()
	v2 := []Clause{Negotiation, Infer, InferRequests, Verified, Dictated, RelayErrors}
	without := func(cs []Clause, drop ...Clause) []Clause {
		return slices.DeleteFunc(slices.Clone(cs), func(c Clause) bool { return slices.Contains(drop, c) })
	}
	allBut := func(drop ...Clause) []Clause { return without(Clauses(), drop...) }
	refused := append(without(v1, Concurrency, ToolErrors), Negotiation, Infer)
	tests := []struct {
		name   string
		miner  relayMiner
		expect expectation
	}{
		{"honest", relayMiner{}, expectation{pass: Clauses()}},
		{"answers version 1", relayMiner{ackV1: true}, expectation{fail: Negotiation, detail: "was answered with version 1", pass: v1}},
		{"names no completion", relayMiner{noID: true}, expectation{fail: Verified, detail: "the step names no completion",
			pass: allBut(Verified, Dictated), unharmed: []Clause{Dictated}}},
		{"names a completion never issued", relayMiner{fakeID: true}, expectation{fail: Verified, detail: "was not relayed in this episode",
			pass: allBut(Verified, Dictated), unharmed: []Clause{Dictated}}},
		{"names one completion twice", relayMiner{reuse: true}, expectation{fail: Verified, detail: "already backs step 0",
			pass: allBut(Verified)}},
		{"names a completion asked for before the last observation", relayMiner{stale: true}, expectation{fail: Verified,
			detail: "was requested after observation 0, not after the step's previous observation 1", pass: allBut(Verified)}},
		{"changes the completion's arguments", relayMiner{alterArgs: true}, expectation{fail: Verified, detail: "arguments",
			pass: allBut(Verified)}},
		{"changes the completion's think", relayMiner{alterThink: true}, expectation{fail: Verified, detail: "is not the completion's",
			pass: allBut(Verified, Dictated), unharmed: []Clause{Dictated}}},
		{"hides the observations from the model", relayMiner{blind: true}, expectation{fail: Verified, detail: "the prompt lacks observation 1 result 1",
			// Blind, the script searches again and again: no terminate.
			alsoFail: []Clause{ToolErrors}, pass: allBut(Verified, ToolErrors)}},
		{"dictates the product", relayMiner{dictate: true}, expectation{fail: Dictated, detail: `recommend_product's "`, pass: allBut(Dictated)}},
		// Refused, these miners end every episode at its first step:
		// nothing verifies, and the concurrency clause sees refusals.
		{"asks for a model not allowed", relayMiner{model: "gpt-4o"}, expectation{fail: InferRequests, detail: "model_not_allowed",
			alsoFail: []Clause{Verified}, pass: refused}},
		{"sends a field the relay does not forward", relayMiner{extraField: true}, expectation{fail: InferRequests, detail: `bad_request: field "user" is not relayed`,
			alsoFail: []Clause{Verified}, pass: refused}},
		{"asks for more max_tokens than the relay allows", relayMiner{maxTokens: 100_000}, expectation{fail: InferRequests, detail: "asks max_tokens 100000, above relay.max_tokens 2048",
			alsoFail: []Clause{Verified}, pass: refused}},
		{"infers for an episode that does not exist", relayMiner{stray: true}, expectation{fail: Infer, detail: `names episode "no-such-episode", which is not live`,
			pass: allBut(Infer)}},
		{"infers after its step", relayMiner{unsolicited: true}, expectation{fail: Infer, detail: "while the episode owed no step", pass: allBut(Infer)}},
		{"reuses a request_id", relayMiner{sameID: true}, expectation{fail: Infer, detail: `was used before in this episode`,
			pass: allBut(Infer)}},
		{"stalls after a relay error", relayMiner{stallOnError: true}, expectation{fail: RelayErrors, detail: "step_timeout", alsoFail: []Clause{Timeouts},
			pass: allBut(RelayErrors, Timeouts)}},
		{"keeps searching after relay errors", relayMiner{errorSteps: true}, expectation{fail: RelayErrors, detail: "without terminate",
			pass: allBut(RelayErrors)}},
	}
	urls := make([]string, len(tests))
	for i, tt := range tests {
		urls[i] = wsURL(episodetest.Serve(t, &episodetest.Env{Signer: newSigner(t)}, tt.miner.behave))
	}
	// All checks at once: they mostly wait on deadlines.
	reps := make([]*Report, len(tests))
	errs := make([]error, len(tests))
	var wg sync.WaitGroup
	for i := range tests {
		wg.Go(func() { reps[i], errs[i] = c.Run(context.Background(), urls[i]) })
	}
	wg.Wait()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if errs[i] != nil {
				t.Fatalf("check: %v", errs[i])
			}
			if tt.expect.fail == Negotiation {
				for _, cl := range v2[1:] {
					if res, _ := reps[i].Result(cl); res.Status != Skip {
						t.Errorf("%s: %s after a failed negotiation; want skip", cl, res.Status)
					}
				}
			}
			assertVerdict(t, reps[i], tt.expect)
		})
	}
}
