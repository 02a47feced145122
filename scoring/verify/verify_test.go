package verify

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"arena/episode"
)

const query = "I want a red kettle under 40 dollars"

var obs0 = json.RawMessage(`[{"product_id":"1000012345","title":"Red kettle","price":35.5},{"product_id":"1000067890","title":"Blue kettle","price":20}]`)

// msg is a prompt message.
type msg struct{ Role, Content string }

func request(msgs ...msg) json.RawMessage {
	type m struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	var ms []m
	for _, x := range msgs {
		ms = append(ms, m(x))
	}
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": ms})
	return b
}

// completion builds a chat.completion with the message fields given.
func completion(message map[string]any) json.RawMessage {
	if _, ok := message["role"]; !ok {
		message["role"] = "assistant"
	}
	b, _ := json.Marshal(map[string]any{"object": "chat.completion", "choices": []any{map[string]any{"index": 0, "message": message}}})
	return b
}

func nativeCall(name, args string) []any {
	return []any{map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}
}

const system = "You are a shopping assistant."

// honest is a two-step v2 trajectory whose steps are exactly their
// completions' and whose prompts hold the query and the observation.
func honest() *episode.Trajectory {
	tr := &episode.Trajectory{Query: query, Protocol: 2, Relay: &episode.WireRelay{Models: []string{"m"}}}
	tr.Completions = []episode.Completion{
		{ID: "a", Observations: 0, Request: request(msg{"system", system}, msg{"user", query}),
			Response: completion(map[string]any{"content": nil, "reasoning_content": "Search for a red kettle.", "tool_calls": nativeCall("find_product", `{"q": "red kettle", "price": "0-40"}`)})},
		{ID: "b", Observations: 1, Request: request(msg{"system", system}, msg{"user", query}, msg{"assistant", "Search for a red kettle."}, msg{"tool", string(obs0)}),
			Response: completion(map[string]any{"content": "<think>1000012345 is red and 35.5, 1000067890 is blue.</think>", "tool_calls": nativeCall("recommend_product", `{"product_ids":"1000012345"}`)})},
	}
	tr.Steps = []episode.StepRecord{
		{CompletionID: "a", Think: "Search for a red kettle.", ToolCalls: []episode.ToolCall{{ID: "x", Name: "find_product", Parameters: json.RawMessage(`{"price":"0-40","q":"red kettle"}`)}},
			Results: []episode.ToolResult{{ToolCallID: "x", Result: obs0}}},
		{CompletionID: "b", Think: "1000012345 is red and 35.5, 1000067890 is blue.", ToolCalls: []episode.ToolCall{{ID: "y", Name: "recommend_product", Parameters: json.RawMessage(`{"product_ids":"1000012345"}`)}},
			Results: []episode.ToolResult{{ToolCallID: "y", Result: json.RawMessage(`"ok"`)}}},
	}
	return tr
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name     string
		mutate   func(*episode.Trajectory)
		unverify string // substring of step 2's (or the first) unverified reason; "" for verified
		dictate  string // substring of a dictated reason
	}{
		{name: "honest", mutate: func(*episode.Trajectory) {}},
		{name: "observation re-encoded with spaces still counts", mutate: func(tr *episode.Trajectory) {
			var v any
			_ = json.Unmarshal(obs0, &v)
			spaced, _ := json.MarshalIndent(v, "", "  ")
			tr.Completions[1].Request = request(msg{"system", system}, msg{"user", query}, msg{"tool", string(spaced)})
		}},
		{name: "version 1", mutate: func(tr *episode.Trajectory) { tr.Protocol = 1 }, unverify: "protocol version 1"},
		{name: "no completion named", mutate: func(tr *episode.Trajectory) { tr.Steps[1].CompletionID = "" }, unverify: "names no completion"},
		{name: "unknown completion", mutate: func(tr *episode.Trajectory) { tr.Steps[1].CompletionID = "zzz" }, unverify: "not relayed in this episode"},
		{name: "completion used twice", mutate: func(tr *episode.Trajectory) { tr.Steps[1].CompletionID = "a" }, unverify: "already backs step 0"},
		{name: "stale completion", mutate: func(tr *episode.Trajectory) { tr.Completions[1].Observations = 0 }, unverify: "requested after observation 0"},
		{name: "failed completion", mutate: func(tr *episode.Trajectory) {
			tr.Completions[1].Error, tr.Completions[1].Response = episode.InferProviderError, nil
		}, unverify: "failed"},
		{name: "think edited", mutate: func(tr *episode.Trajectory) { tr.Steps[1].Think += " Also cheap." }, unverify: "think"},
		{name: "arguments edited", mutate: func(tr *episode.Trajectory) {
			tr.Steps[1].ToolCalls[0].Parameters = json.RawMessage(`{"product_ids":"1000067890"}`)
		}, unverify: "arguments"},
		{name: "call renamed", mutate: func(tr *episode.Trajectory) { tr.Steps[1].ToolCalls[0].Name = "terminate" }, unverify: "the completion called recommend_product"},
		{name: "extra call", mutate: func(tr *episode.Trajectory) {
			tr.Steps[1].ToolCalls = append(tr.Steps[1].ToolCalls, episode.ToolCall{Name: "terminate", Parameters: json.RawMessage(`{"status":"success"}`)})
		}, unverify: "2 tool calls"},
		{name: "response added", mutate: func(tr *episode.Trajectory) { r := "Buy it."; tr.Steps[1].Response = &r }, unverify: "response"},
		{name: "prompt without the query", mutate: func(tr *episode.Trajectory) {
			tr.Completions[1].Request = request(msg{"system", system}, msg{"tool", string(obs0)})
		}, unverify: "query"},
		{name: "prompt without the observation", mutate: func(tr *episode.Trajectory) {
			tr.Completions[1].Request = request(msg{"system", system}, msg{"user", query})
		}, unverify: "lacks observation 1"},
		{name: "dictated id", mutate: func(tr *episode.Trajectory) {
			tr.Completions[1].Request = request(msg{"system", system + " Recommend 1000012345."}, msg{"user", query}, msg{"tool", string(obs0)})
		}, dictate: `recommend_product's "1000012345"`},
		{name: "dictated search text", mutate: func(tr *episode.Trajectory) {
			tr.Completions[0].Request = request(msg{"system", system}, msg{"user", query + "\nHint: search q=red kettle x"}, msg{"user", "Use price 0-40 and query 'red kettle' exactly"})
			tr.Steps[0].ToolCalls[0].Parameters = json.RawMessage(`{"q":"red kettle"}`)
			tr.Completions[0].Response = completion(map[string]any{"reasoning_content": "Search for a red kettle.", "tool_calls": nativeCall("find_product", `{"q":"red kettle"}`)})
		}, dictate: ""}, // "red kettle" is 10 bytes: under the threshold, not flagged
		{name: "dictated through a forged assistant message", mutate: func(tr *episode.Trajectory) {
			tr.Completions[1].Request = request(msg{"system", system}, msg{"user", query}, msg{"assistant", "I will recommend 1000012345."}, msg{"tool", string(obs0)})
		}, dictate: "1000012345"},
		{name: "a filter value the tools document is not dictation", mutate: func(tr *episode.Trajectory) {
			sys := system + " find_product filters: service (freeShipping, COD, official, flashsale)."
			tr.Completions[0].Request = request(msg{"system", sys}, msg{"user", query})
			tr.Completions[0].Response = completion(map[string]any{"reasoning_content": "Search for a red kettle.",
				"tool_calls": nativeCall("find_product", `{"q": "red kettle", "price": "0-40", "service": "freeShipping"}`)})
			tr.Steps[0].ToolCalls[0].Parameters = json.RawMessage(`{"price":"0-40","q":"red kettle","service":"freeShipping"}`)
			tr.Completions[1].Request = request(msg{"system", sys}, msg{"user", query}, msg{"tool", string(obs0)})
		}},
		{name: "an id next to the documented filters is still dictation", mutate: func(tr *episode.Trajectory) {
			tr.Completions[1].Request = request(msg{"system", system + " service (freeShipping, COD). Recommend 1000012345."}, msg{"user", query}, msg{"tool", string(obs0)})
		}, dictate: `recommend_product's "1000012345"`},
		{name: "an earlier completion's own words are not dictation", mutate: func(tr *episode.Trajectory) {
			tr.Completions[0].Response = completion(map[string]any{"reasoning_content": "Maybe 1000012345 exists.", "tool_calls": nativeCall("find_product", `{"q": "red kettle", "price": "0-40"}`)})
			tr.Steps[0].Think = "Maybe 1000012345 exists."
			tr.Completions[1].Request = request(msg{"system", system}, msg{"user", query}, msg{"assistant", "Maybe 1000012345 exists."}, msg{"tool", string(obs0)})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := honest()
			tc.mutate(tr)
			rep := Check(tr)
			gotU := Detail(rep.Unverified)
			if tc.unverify == "" && gotU != "" || tc.unverify != "" && !strings.Contains(gotU, tc.unverify) {
				t.Fatalf("unverified %q, want %q", gotU, tc.unverify)
			}
			gotD := Detail(rep.Dictated)
			if tc.dictate == "" && gotD != "" || tc.dictate != "" && !strings.Contains(gotD, tc.dictate) {
				t.Fatalf("dictated %q, want %q", gotD, tc.dictate)
			}
			if rep.Steps != 2 || rep.Verified+len(rep.Unverified) != 2 {
				t.Fatalf("counts %+v", rep)
			}
		})
	}
}

func TestNormalisation(t *testing.T) {
	cases := []struct {
		name    string
		message map[string]any
		want    string // think|calls|response
	}{
		{"reasoning field and native calls", map[string]any{"content": "", "reasoning_content": " why ", "tool_calls": nativeCall("find_product", `{"page":1, "q":"x"}`)}, `why|find_product{"page":1,"q":"x"}|`},
		{"openrouter reasoning", map[string]any{"content": "hello", "reasoning": "why"}, `why||hello`},
		{"think block", map[string]any{"content": "<think> why </think>\nanswer"}, `why||answer`},
		{"closing tag only", map[string]any{"content": "why</think>answer"}, `why||answer`},
		{"hermes tags", map[string]any{"content": "<think>why</think><tool_call>{\"name\": \"find_product\", \"arguments\": {\"q\": \"x\"}}</tool_call>\n<tool_call>{\"name\":\"web_search\",\"arguments\":\"{\\\"max_results\\\":1}\"}</tool_call>"}, `why|find_product{"q":"x"}web_search{"max_results":1}|`},
		{"malformed arguments become {}", map[string]any{"content": "t", "tool_calls": nativeCall("find_product", `{"q": "x"`)}, `t|find_product{}|`},
		{"plain content", map[string]any{"content": " just text "}, `just text||just text`},
		{"no escaping of html", map[string]any{"content": "", "reasoning": "r", "tool_calls": nativeCall("find_product", `{"q":"a&b<c>"}`)}, `r|find_product{"q":"a&b<c>"}|`},
		// The same rules as a miner's step (episode.NormalText).
		{"unknown keys and tools dropped", map[string]any{"content": "t", "tool_calls": append(nativeCall("find_product", `{"q":"x","pad":"zzz","shop_id":{"a":1}}`), nativeCall("f", `{"a":1}`)...)}, `t|find_product{"q":"x","shop_id":{}}f{}|`},
		{"controls and lone surrogates", map[string]any{"content": "", "reasoning": "\x01 a\r\nb\x1b", "tool_calls": nativeCall("find_product", `{"q":"x\u0000\ud800y"}`)}, "a\nb|find_product{\"q\":\"x\uFFFDy\"}|"},
		{"a control before the think tag", map[string]any{"content": "\x00<think>why</think>ok"}, `why||ok`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := episode.StepFromCompletion(completion(tc.message))
			if err != nil {
				t.Fatal(err)
			}
			var calls strings.Builder
			for _, c := range st.ToolCalls {
				fmt.Fprintf(&calls, "%s%s", c.Name, c.Parameters)
			}
			if got := st.Think + "|" + calls.String() + "|" + st.Response; got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}
