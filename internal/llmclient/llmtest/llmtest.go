// Package llmtest serves a fake OpenAI-compatible chat-completions
// endpoint for tests: the real wire format, with each answer (or error
// status) decided by the test from the request.
package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Request is what the fake endpoint received.
type Request struct {
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
		req := Request{Header: r.Header.Clone()}
		if err := json.NewDecoder(r.Body).Decode(&req.Body); err != nil {
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
		content, _ := json.Marshal(rep.Content)
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":%d,"model":%q,`+
			`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}],`+
			`"usage":{"prompt_tokens":50,"completion_tokens":40,"total_tokens":90}}`,
			time.Now().Unix(), req.Model, content)
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
