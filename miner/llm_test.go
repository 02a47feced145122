package miner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/openai/openai-go/v3"
	"github.com/rs/zerolog"

	"arena/chain"
	"arena/episode"
	"arena/shop"
	"arena/shop/gen"
)

// chatRequest is the part of a chat-completions request the fake endpoint
// reads.
type chatRequest struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature"`
	Messages    []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// fakeChat is an OpenAI chat-completions endpoint that plays a scripted
// shopper: search, recommend the first hit, terminate. It records the
// requests it saw.
type fakeChat struct {
	status int // non-zero: answer every request with this error status

	mu       sync.Mutex
	requests []chatRequest
	auth     []string
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if f.status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		fmt.Fprint(w, `{"error":{"message":"model overloaded","type":"server_error"}}`)
		return
	}
	var msg map[string]any
	last := req.Messages[len(req.Messages)-1]
	call := func(id, name string, args any) []any {
		raw, _ := json.Marshal(args)
		return []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": string(raw)}}}
	}
	switch {
	case last.Role == "user":
		var query string
		_ = json.Unmarshal(last.Content, &query)
		msg = map[string]any{"role": "assistant", "content": nil,
			"reasoning_content": "The user wants a specific product; I search for its title first.",
			"tool_calls":        call("call_search", "find_product", map[string]any{"q": strings.TrimPrefix(query, "I want "), "page": 1})}
	case last.Role == "tool" && last.ToolCallID == "call_search":
		var content string
		_ = json.Unmarshal(last.Content, &content)
		var hits []struct {
			ID    string  `json:"product_id"`
			Price float64 `json:"price"`
		}
		if err := json.Unmarshal([]byte(content), &hits); err != nil || len(hits) < 2 {
			http.Error(w, "bad tool message: "+content, http.StatusBadRequest)
			return
		}
		msg = map[string]any{"role": "assistant",
			"content":    fmt.Sprintf("Comparing %s at %g with %s at %g: the first matches the title best.", hits[0].ID, hits[0].Price, hits[1].ID, hits[1].Price),
			"tool_calls": call("call_recommend", "recommend_product", map[string]any{"product_ids": hits[0].ID})}
	default:
		msg = map[string]any{"role": "assistant", "content": "Done.",
			"tool_calls": call("call_end", "terminate", map[string]any{"status": "success"})}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": msg}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

// syncBuffer collects log lines written from the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// llmTools is a small generated catalog for the LLM episodes.
func llmTools(t *testing.T) (*shop.Tools, *shop.Catalog) {
	t.Helper()
	g, err := gen.New(gen.Options{Products: 2000, Seed: 3}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ps, err := g.Products(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := shop.NewCatalog(ps)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := shop.BuildIndex(context.Background(), cat, shop.IndexOptions{Workers: 2}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tools, err := shop.NewTools(shop.ToolsOptions{Index: idx}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tools, cat
}

// TestLLMAgent plays real episodes (Runner ↔ Server over loopback) with the
// LLM agent against a fake chat-completions endpoint, through the real
// openai-go client.
func TestLLMAgent(t *testing.T) {
	tools, cat := llmTools(t)
	vkey, _ := crypto.GenerateKey()
	r, err := episode.NewRunner(episode.RunnerOptions{Signer: chain.NewSigner(vkey), Tools: tools,
		Limits: episode.Limits{StepTimeout: 5 * time.Second, EpisodeTimeout: 20 * time.Second}}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	target := cat.At(7)
	tests := []struct {
		name        string
		status      int
		wantStatus  string
		wantSteps   int
		wantThink0  string
		wantReason  string // in the first think: the endpoint's own words
		wantLog     string
		wantRequest int
	}{
		{name: "tool calls", wantStatus: "success", wantSteps: 3,
			wantThink0: "The user wants a specific product; I search for its title first.", wantRequest: 3},
		{name: "endpoint error", status: http.StatusInternalServerError, wantStatus: "failure", wantSteps: 1,
			wantThink0: "The language model endpoint failed", wantReason: "500 Internal Server Error: model overloaded", wantLog: "llm endpoint failed", wantRequest: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeChat{status: tt.status}
			api := httptest.NewServer(fake)
			t.Cleanup(api.Close)
			var logs syncBuffer
			agent, err := NewLLM(LLMOptions{BaseURL: api.URL + "/v1", Model: "test-model", APIKey: "test-key", Timeout: 3 * time.Second, MaxRetries: -1},
				zerolog.New(&logs))
			if err != nil {
				t.Fatal(err)
			}
			mkey, _ := crypto.GenerateKey()
			signer := chain.NewSigner(mkey)
			addr := serve(t, signer, agent)
			trs := r.Run(context.Background(), episode.Miner{UID: 2, Hotkey: chain.Mirror(signer.Address), Endpoint: addr},
				[]episode.Problem{{ID: "p1", Query: "I want " + target.Title}})
			tr := trs[0]
			if tr.EndReason != episode.ReasonTerminated || tr.TerminateStatus != tt.wantStatus {
				t.Fatalf("ended %s (%s) with status %q, want terminated with %q", tr.EndReason, tr.EndDetail, tr.TerminateStatus, tt.wantStatus)
			}
			if len(tr.Steps) != tt.wantSteps {
				t.Fatalf("%d steps, want %d", len(tr.Steps), tt.wantSteps)
			}
			if !strings.HasPrefix(tr.Steps[0].Think, tt.wantThink0) {
				t.Errorf("first think %q, want it to start with %q", tr.Steps[0].Think, tt.wantThink0)
			}
			if !strings.Contains(tr.Steps[0].Think, tt.wantReason) {
				t.Errorf("first think %q lacks %q", tr.Steps[0].Think, tt.wantReason)
			}
			if tt.wantLog != "" && !strings.Contains(logs.String(), tt.wantLog) {
				t.Errorf("log %q lacks %q", logs.String(), tt.wantLog)
			}
			fake.mu.Lock()
			reqs, auth := fake.requests, fake.auth
			fake.mu.Unlock()
			if len(reqs) != tt.wantRequest {
				t.Fatalf("%d requests, want %d", len(reqs), tt.wantRequest)
			}
			first := reqs[0]
			if first.Model != "test-model" || first.Temperature == nil || *first.Temperature != 0 || auth[0] != "Bearer test-key" {
				t.Errorf("request model %q, temperature %v, auth %q", first.Model, first.Temperature, auth[0])
			}
			var names []string
			for _, tool := range first.Tools {
				names = append(names, tool.Function.Name)
			}
			if strings.Join(names, ",") != strings.Join(shop.ToolNames(), ",") {
				t.Errorf("tools %v, want %v", names, shop.ToolNames())
			}
			if first.Messages[0].Role != "system" || first.Messages[1].Role != "user" {
				t.Errorf("first messages %s, %s; want system, user", first.Messages[0].Role, first.Messages[1].Role)
			}
			if tt.status != 0 {
				return
			}
			// The recommendation is the first search hit, and the second
			// step's think is the assistant text (no reasoning_content).
			hits := tr.Steps[0].Results[0].Result
			var found []struct {
				ID string `json:"product_id"`
			}
			if err := json.Unmarshal(hits, &found); err != nil || len(found) == 0 {
				t.Fatalf("search result %s: %v", hits, err)
			}
			if len(tr.Recommended) != 1 || tr.Recommended[0] != found[0].ID {
				t.Errorf("recommended %v, want [%s]", tr.Recommended, found[0].ID)
			}
			if !strings.HasPrefix(tr.Steps[1].Think, "Comparing "+found[0].ID) {
				t.Errorf("second think %q", tr.Steps[1].Think)
			}
			// The last request replays the whole episode: the assistant's
			// tool calls and the validator's results under their ids.
			lastReq := reqs[len(reqs)-1]
			var roles []string
			for _, m := range lastReq.Messages {
				roles = append(roles, m.Role)
			}
			if got := strings.Join(roles, ","); got != "system,user,assistant,tool,assistant,tool" {
				t.Errorf("replayed roles %s", got)
			}
			if lastReq.Messages[2].ToolCalls[0].ID != "call_search" || lastReq.Messages[3].ToolCallID != "call_search" {
				t.Errorf("tool call ids not replayed: %+v", lastReq.Messages[2:4])
			}
		})
	}
}

func TestNewAgent(t *testing.T) {
	tests := []struct {
		name    string
		opts    AgentOptions
		wantErr string
	}{
		{name: "heuristic", opts: AgentOptions{Kind: AgentHeuristic, Skill: 0.5}},
		{name: "default kind", opts: AgentOptions{Skill: 1}},
		{name: "bad skill", opts: AgentOptions{Kind: AgentHeuristic, Skill: 2}, wantErr: "out of range"},
		{name: "llm", opts: AgentOptions{Kind: AgentLLM, LLMBaseURL: "http://127.0.0.1:1/v1", LLMModel: "m"}},
		{name: "llm without model", opts: AgentOptions{Kind: AgentLLM, LLMBaseURL: "http://127.0.0.1:1/v1"}, wantErr: "--llm-model"},
		{name: "unknown", opts: AgentOptions{Kind: "oracle"}, wantErr: "unknown agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewAgent(tt.opts, zerolog.Nop())
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestLLMMessageParts decodes assistant messages as openai-go does and
// checks what becomes think and tool parameters.
func TestLLMMessageParts(t *testing.T) {
	tests := []struct {
		name      string
		message   string
		wantThink string
	}{
		{"reasoning_content", `{"role":"assistant","content":"text","reasoning_content":"  deep thought "}`, "deep thought"},
		{"openrouter reasoning", `{"role":"assistant","content":"text","reasoning":"routed thought"}`, "routed thought"},
		{"empty reasoning falls back", `{"role":"assistant","content":"plain text","reasoning_content":""}`, "plain text"},
		{"content only", `{"role":"assistant","content":"plain text"}`, "plain text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msg openai.ChatCompletionMessage
			if err := json.Unmarshal([]byte(tt.message), &msg); err != nil {
				t.Fatal(err)
			}
			if got := reasoning(msg); got != tt.wantThink {
				t.Errorf("think %q, want %q", got, tt.wantThink)
			}
		})
	}
	args := []struct{ in, want string }{
		{`{"q":"shoes","page":1}`, `{"q":"shoes","page":1}`},
		{`{"q":"shoes"`, `{}`},
		{`["q"]`, `{}`},
		{`null`, `{}`},
		{``, `{}`},
	}
	for _, tt := range args {
		if got := string(arguments(tt.in)); got != tt.want {
			t.Errorf("arguments(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
