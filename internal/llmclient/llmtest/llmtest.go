// Package llmtest serves a fake OpenAI-compatible chat-completions
// endpoint for tests: the real wire format, with each answer (or error
// status) decided by the test from the request.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is what the fake endpoint received.
type Request struct {
	// Context is the HTTP request's context: an answer that stalls
	// waits on it, so the fake ends when the client gives up.
	Context context.Context
	// Raw is the request body as received.
	Raw    []byte
	Header http.Header
	// Body is the whole request body, decoded.
	Body map[string]any
	// Model is the body's model.
	Model string
	// Last is the content of the last message.
	Last string
}

// Reply is the endpoint's answer: Content in a chat.completion, or, with
// Status set (not 200), an error object with that status.
type Reply struct {
	Content string
	Status  int
	// Reasoning, if set, is the message's reasoning_content.
	Reasoning string
	// ToolCalls are the message's native tool calls.
	ToolCalls []ToolCall
	// PromptTokens and CompletionTokens are the usage (default 50, 40).
	PromptTokens, CompletionTokens int
	// Body, if set, is the whole 200 answer instead (malformed answers).
	Body string
}

// ToolCall is one native tool call; Arguments is sent as the string the
// model produced, malformed or not.
type ToolCall struct {
	ID, Name, Arguments string
}

// Server is the fake endpoint. Its base URL for a client is URL + "/v1".
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	requests []Request
}

// NewServer serves POST /v1/chat/completions with answer until the test
// ends.
func NewServer(t testing.TB, answer func(Request) Reply) *Server {
	t.Helper()
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		req := Request{Context: r.Context(), Header: r.Header.Clone()}
		raw, err := io.ReadAll(r.Body)
		if err == nil {
			req.Raw = raw
			err = json.Unmarshal(raw, &req.Body)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		req.Model, _ = req.Body["model"].(string)
		if msgs, _ := req.Body["messages"].([]any); len(msgs) > 0 {
			last, _ := msgs[len(msgs)-1].(map[string]any)
			req.Last, _ = last["content"].(string)
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		rep := answer(req)
		w.Header().Set("Content-Type", "application/json")
		if rep.Status != 0 && rep.Status != http.StatusOK {
			w.WriteHeader(rep.Status)
			fmt.Fprint(w, `{"error":{"message":"model overloaded","type":"server_error"}}`)
			return
		}
		if rep.Body != "" {
			fmt.Fprint(w, rep.Body)
			return
		}
		msg := map[string]any{"role": "assistant", "content": rep.Content}
		if rep.Reasoning != "" {
			msg["reasoning_content"] = rep.Reasoning
		}
		finish := "stop"
		if len(rep.ToolCalls) > 0 {
			calls := make([]map[string]any, len(rep.ToolCalls))
			for i, c := range rep.ToolCalls {
				id := c.ID
				if id == "" {
					id = fmt.Sprintf("call_%d", i)
				}
				calls[i] = map[string]any{"id": id, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
			}
			msg["tool_calls"] = calls
			finish = "tool_calls"
		}
		pt, ct := rep.PromptTokens, rep.CompletionTokens
		if pt == 0 && ct == 0 {
			pt, ct = 50, 40
		}
		body, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
			"usage":   map[string]int{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}})
		_, _ = w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Shopper is an answer for NewServer that plays a plain shopper the way
// a tool-calling model would, over the shop's tools: search with the
// user's words, compare and recommend the first hit of a search result,
// then terminate. It decides from the conversation alone, so its steps
// are whatever the relay returned: what a model through the relay does.
func Shopper(req Request) Reply {
	msgs, _ := req.Body["messages"].([]any)
	if len(msgs) == 0 {
		return Reply{Status: http.StatusBadRequest}
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	role, _ := last["role"].(string)
	content, _ := last["content"].(string)
	call := func(name string, args map[string]any) []ToolCall {
		b, _ := json.Marshal(args)
		return []ToolCall{{ID: "call_" + name, Name: name, Arguments: string(b)}}
	}
	switch role {
	case "user":
		return Reply{Reasoning: "The user described what they want; I search the shop with their words first.",
			ToolCalls: call("find_product", map[string]any{"q": firstWords(content, 6)})}
	case "tool":
		var hits []struct {
			ID    string  `json:"product_id"`
			Price float64 `json:"price"`
		}
		if json.Unmarshal([]byte(content), &hits) == nil && len(hits) > 0 {
			why := fmt.Sprintf("The search returned %s at %g", hits[0].ID, hits[0].Price)
			if len(hits) > 1 {
				why += fmt.Sprintf(" and %s at %g; the first ranks higher", hits[1].ID, hits[1].Price)
			}
			return Reply{Reasoning: why + ", so I recommend it.", ToolCalls: call("recommend_product", map[string]any{"product_ids": hits[0].ID})}
		}
	}
	return Reply{Reasoning: "I have recommended a product, so I finish.", ToolCalls: call("terminate", map[string]any{"status": "success"})}
}

// firstWords is s's first n words.
func firstWords(s string, n int) string {
	words := strings.Fields(s)
	return strings.Join(words[:min(n, len(words))], " ")
}
