package tsminer

// A fake OpenAI chat-completions server for the miner's tests and for
// other packages' tests that need the TypeScript miner to play a known
// game (NewFakeLLM with Deterministic).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

type chatMessage struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// reply is the fake model's turn.
type reply struct {
	content, reasoning string
	calls              []toolCall
}

func call(id, name string, args map[string]any) toolCall {
	b, _ := json.Marshal(args)
	c := toolCall{ID: id, Type: "function"}
	c.Function.Name, c.Function.Arguments = name, string(b)
	return c
}

// FakeLLM is an httptest server speaking the chat-completions wire format;
// play decides each turn. It checks what the miner sends: the path, the API
// key, the model, the six tools and a consistent replay of the episode.
type FakeLLM struct {
	t        testing.TB
	srv      *httptest.Server
	requests atomic.Int64
	inflight atomic.Int64
	maxIn    atomic.Int64
	mu       sync.Mutex
	problems []string
}

const (
	FakeModel = "fake-model"
	FakeKey   = "test-key"
)

func NewFakeLLM(t testing.TB, delay time.Duration, play func(f *FakeLLM, w http.ResponseWriter, r *http.Request, req *chatRequest) *reply) *FakeLLM {
	f := &FakeLLM{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		n := f.inflight.Add(1)
		defer f.inflight.Add(-1)
		for m := f.maxIn.Load(); n > m && !f.maxIn.CompareAndSwap(m, n); m = f.maxIn.Load() {
		}
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			f.problem("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
			http.NotFound(w, r)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+FakeKey {
			f.problem("Authorization %q, want Bearer %s", got, FakeKey)
		}
		var req chatRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			f.problem("request body: %v", err)
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
		f.check(&req)
		time.Sleep(delay)
		rep := play(f, w, r, &req)
		if rep == nil {
			return // play wrote its own (mis)behaviour
		}
		msg := map[string]any{"role": "assistant", "content": nil}
		if rep.content != "" {
			msg["content"] = rep.content
		}
		if rep.reasoning != "" {
			msg["reasoning_content"] = rep.reasoning
		}
		if len(rep.calls) > 0 {
			msg["tool_calls"] = rep.calls
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", f.requests.Load()), "object": "chat.completion",
			"created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "tool_calls"}},
			"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
		})
	}))
	t.Cleanup(f.srv.Close)
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.problems {
			t.Error("fake LLM saw: " + p)
		}
	})
	return f
}

func (f *FakeLLM) URL() string { return f.srv.URL + "/v1" }

func (f *FakeLLM) problem(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.problems) < 20 {
		f.problems = append(f.problems, fmt.Sprintf(format, args...))
	}
}

// check holds a request to what the miner promises: the model, the tools
// from episode_start as OpenAI tools, and the episode replayed as a chat
// whose tool messages answer the assistant's tool calls in order.
func (f *FakeLLM) check(req *chatRequest) {
	if req.Model != FakeModel {
		f.problem("model %q, want %q", req.Model, FakeModel)
	}
	names := map[string]bool{}
	for _, tl := range req.Tools {
		if tl.Type != "function" || len(tl.Function.Parameters) == 0 {
			f.problem("tool %q is not an OpenAI function schema", tl.Function.Name)
		}
		names[tl.Function.Name] = true
	}
	for _, n := range []string{"find_product", "view_product_information", "recommend_product", "terminate", "web_search", "python_execute"} {
		if !names[n] {
			f.problem("tools miss %s (got %v)", n, names)
		}
	}
	ms := req.Messages
	if len(ms) < 2 || ms[0].Role != "system" || ms[1].Role != "user" || ms[1].Content == nil || *ms[1].Content == "" {
		f.problem("messages do not start with system and the user's query")
		return
	}
	for i := 0; i < len(ms); i++ {
		for k, c := range ms[i].ToolCalls {
			j := i + 1 + k
			if j >= len(ms) || ms[j].Role != "tool" || ms[j].ToolCallID != c.ID {
				f.problem("assistant tool call %s (%s) is not answered by the tool message after it", c.ID, c.Function.Name)
			}
		}
	}
}

func query(req *chatRequest) string { return *req.Messages[1].Content }

func assistantTurns(req *chatRequest) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// lastToolContent is the content of the last tool message.
func lastToolContent(req *chatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == "tool" && m.Content != nil {
			return *m.Content
		}
	}
	return ""
}

// Deterministic plays find_product with the user's query, then
// recommend_product of the first product of the last result, then terminate.
// Its first turn's reasoning_content must come back as the assistant's text.
func Deterministic(f *FakeLLM, _ http.ResponseWriter, _ *http.Request, req *chatRequest) *reply {
	q := query(req)
	reasoning := "The user asks: " + q + ". Search for it first."
	switch assistantTurns(req) {
	case 0:
		return &reply{reasoning: reasoning, calls: []toolCall{call("call_search", "find_product", map[string]any{"q": q, "page": 1})}}
	case 1:
		if len(req.Messages) < 3 || req.Messages[2].Role != "assistant" || req.Messages[2].Content == nil || *req.Messages[2].Content != reasoning {
			f.problem("the first step's reasoning_content is not replayed as the assistant's text after the query")
		}
		var hits []struct {
			ProductID string `json:"product_id"`
			Price     any    `json:"price"`
		}
		if err := json.Unmarshal([]byte(lastToolContent(req)), &hits); err != nil || len(hits) == 0 {
			return &reply{content: "Nothing found.", calls: []toolCall{call("call_end", "terminate", map[string]any{"status": "failure"})}}
		}
		return &reply{content: fmt.Sprintf("The first hit, %s at %v, is the best match.", hits[0].ProductID, hits[0].Price),
			calls: []toolCall{call("call_rec", "recommend_product", map[string]any{"product_ids": hits[0].ProductID})}}
	default:
		return &reply{content: "Recommended; done.", calls: []toolCall{call("call_end", "terminate", map[string]any{"status": "success"})}}
	}
}
