package llmclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// seen is one request as the fake endpoint received it.
type seen struct {
	path   string
	header http.Header
	model  string
}

// endpoint is an httptest chat-completions server. answer writes the
// reply to the n-th request (from 0); the default is a valid completion
// whose message content is "hello".
type endpoint struct {
	url    string
	answer func(w http.ResponseWriter, r *http.Request, n int)

	mu   sync.Mutex
	reqs []seen
}

func newEndpoint(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) *endpoint {
	t.Helper()
	e := &endpoint{answer: answer}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model string `json:"model"`
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		e.mu.Lock()
		n := len(e.reqs)
		e.reqs = append(e.reqs, seen{path: r.URL.Path, header: r.Header.Clone(), model: body.Model})
		e.mu.Unlock()
		if e.answer == nil {
			completion(w, "hello")
			return
		}
		e.answer(w, r, n)
	}))
	t.Cleanup(srv.Close)
	e.url = srv.URL
	return e
}

func (e *endpoint) requests() []seen {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]seen(nil), e.reqs...)
}

func completion(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	c, _ := json.Marshal(content)
	fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`, c)
}

func apiError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	// The shortest wait openai-go accepts, so retries do not slow the test.
	w.Header().Set("Retry-After-Ms", "1")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error"}}`, message)
}

func params() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
}

func newClient(t *testing.T, opts Options) *Client {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChatRequest checks what reaches the endpoint: the path under the
// base URL, the key and the user agent.
func TestChatRequest(t *testing.T) {
	env := map[string]string{"ARENA_TEST_KEY": "from-env", "ARENA_EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name      string
		base      string // appended to the server URL
		opts      Options
		wantPath  string
		wantAuth  string
		wantAgent string // "" means openai-go's own
	}{
		{name: "base URL with a path", base: "/v1", wantPath: "/v1/chat/completions"},
		{name: "base URL with a trailing slash", base: "/api/v1/", wantPath: "/api/v1/chat/completions"},
		{name: "base URL without a path", wantPath: "/chat/completions"},
		{name: "explicit key", base: "/v1", opts: Options{APIKey: "sk-explicit"}, wantPath: "/v1/chat/completions", wantAuth: "Bearer sk-explicit"},
		{name: "key from a named variable", base: "/v1", opts: Options{APIKeyEnv: "ARENA_TEST_KEY", LookupEnv: lookup},
			wantPath: "/v1/chat/completions", wantAuth: "Bearer from-env"},
		{name: "user agent", base: "/v1", opts: Options{UserAgent: "arena-test/1"}, wantPath: "/v1/chat/completions", wantAgent: "arena-test/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEndpoint(t, nil)
			tt.opts.BaseURL = e.url + tt.base
			msg, err := newClient(t, tt.opts).Chat(context.Background(), params())
			if err != nil {
				t.Fatal(err)
			}
			if msg.Content != "hello" {
				t.Errorf("content %q, want hello", msg.Content)
			}
			reqs := e.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.path != tt.wantPath || r.model != "m" {
				t.Errorf("request to %s for model %q, want %s for m", r.path, r.model, tt.wantPath)
			}
			if got := r.header.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization %q, want %q", got, tt.wantAuth)
			}
			agent := r.header.Get("User-Agent")
			if tt.wantAgent != "" && agent != tt.wantAgent || tt.wantAgent == "" && !strings.HasPrefix(agent, "OpenAI/Go") {
				t.Errorf("User-Agent %q, want %q", agent, tt.wantAgent)
			}
		})
	}
}

// TestChatIgnoresOpenAIEnvironment sets every OPENAI_* variable openai-go
// reads; none of them may redirect the request or travel with it.
func TestChatIgnoresOpenAIEnvironment(t *testing.T) {
	elsewhere := newEndpoint(t, nil)
	t.Setenv("OPENAI_BASE_URL", elsewhere.url+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-openai-env")
	t.Setenv("OPENAI_ORG_ID", "org-leak")
	t.Setenv("OPENAI_PROJECT_ID", "proj-leak")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: yes")
	e := newEndpoint(t, nil)
	if _, err := newClient(t, Options{BaseURL: e.url + "/v1", APIKey: "sk-mine"}).Chat(context.Background(), params()); err != nil {
		t.Fatal(err)
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Fatalf("OPENAI_BASE_URL got %d requests", n)
	}
	reqs := e.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	h := reqs[0].header
	if h.Get("Authorization") != "Bearer sk-mine" {
		t.Errorf("Authorization %q", h.Get("Authorization"))
	}
	for _, k := range []string{"OpenAI-Organization", "OpenAI-Project", "X-Leak"} {
		if v := h.Get(k); v != "" {
			t.Errorf("header %s: %q came from the environment", k, v)
		}
	}
}

// TestChatFailures points the client at misbehaving endpoints: each
// failure is one error that names the endpoint and says what went wrong.
func TestChatFailures(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() }
	tests := []struct {
		name          string
		retries       int
		timeout       time.Duration // default 10 s: only the hanging cases may run out
		answer        func(w http.ResponseWriter, r *http.Request, n int)
		want          []string // substrings of the error
		wantIs        error
		wantRetryable bool
		wantRequests  int
	}{
		{name: "500", answer: func(w http.ResponseWriter, _ *http.Request, _ int) { apiError(w, 500, "model overloaded") },
			want: []string{"500 Internal Server Error", "model overloaded"}, wantRetryable: true, wantRequests: 1},
		{name: "500 with a long message", answer: func(w http.ResponseWriter, _ *http.Request, _ int) {
			apiError(w, 500, "upstream said:\n"+strings.Repeat("traceback line\n", 100))
		}, want: []string{"500 Internal Server Error: upstream said: traceback line traceback", "..."}, wantRetryable: true, wantRequests: 1},
		{name: "500 retried", retries: 2, answer: func(w http.ResponseWriter, _ *http.Request, _ int) { apiError(w, 503, "down") },
			want: []string{"503 Service Unavailable", "down"}, wantRetryable: true, wantRequests: 3},
		{name: "429 then success", retries: 1, answer: func(w http.ResponseWriter, _ *http.Request, n int) {
			if n == 0 {
				apiError(w, 429, "slow down")
				return
			}
			completion(w, "hello")
		}, wantRequests: 2},
		{name: "400 is not retryable", retries: 2, answer: func(w http.ResponseWriter, _ *http.Request, _ int) { apiError(w, 400, "bad model") },
			want: []string{"400 Bad Request", "bad model"}, wantRequests: 1},
		{name: "server never answers", timeout: 300 * time.Millisecond, answer: hang, want: []string{"timed out after 300ms"}, wantIs: ErrTimeout, wantRequests: 1},
		{name: "body stalls after the headers", timeout: 300 * time.Millisecond, answer: func(w http.ResponseWriter, r *http.Request, _ int) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"c1","choices":[`)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}, want: []string{"timed out after 300ms"}, wantIs: ErrTimeout, wantRequests: 1},
		{name: "garbage body", answer: func(w http.ResponseWriter, _ *http.Request, _ int) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "<html>502 bad gateway</html>")
		}, want: []string{"error parsing response json"}, wantRequests: 1},
		{name: "no choices", answer: func(w http.ResponseWriter, _ *http.Request, _ int) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"id":"c1","object":"chat.completion","choices":[]}`)
		}, want: []string{"no choices"}, wantIs: ErrNoChoices, wantRequests: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEndpoint(t, tt.answer)
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			c := newClient(t, Options{BaseURL: e.url + "/v1", Timeout: timeout, MaxRetries: tt.retries})
			msg, err := c.Chat(context.Background(), params())
			if n := len(e.requests()); n != tt.wantRequests {
				t.Errorf("%d requests, want %d", n, tt.wantRequests)
			}
			if tt.want == nil {
				if err != nil || msg.Content != "hello" {
					t.Fatalf("content %q, error %v; want hello", msg.Content, err)
				}
				return
			}
			checkChatErr(t, err, e.url+"/v1/chat/completions", tt.want...)
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v does not match %v", err, tt.wantIs)
			}
			if Retryable(err) != tt.wantRetryable {
				t.Errorf("Retryable(%v) = %v, want %v", err, !tt.wantRetryable, tt.wantRetryable)
			}
		})
	}
}

// checkChatErr fails unless err is one line that names url and contains
// every one of want.
func checkChatErr(t *testing.T, err error, url string, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, url) {
		t.Errorf("error %q: want one line naming %s", msg, url)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
}

// TestChatCallerContext checks that a call the caller cancels reports the
// caller's reason, not a timeout, and that a refused connection names the
// endpoint.
func TestChatCallerContext(t *testing.T) {
	started := make(chan struct{})
	e := newEndpoint(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		close(started)
		<-r.Context().Done()
	})
	c := newClient(t, Options{BaseURL: e.url + "/v1", Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err := c.Chat(ctx, params())
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("error %v, want context.Canceled and no timeout", err)
	}

	srv := httptest.NewServer(http.NotFoundHandler())
	closed := srv.URL
	srv.Close()
	_, err = newClient(t, Options{BaseURL: closed + "/v1"}).Chat(context.Background(), params())
	checkChatErr(t, err, closed+"/v1/chat/completions", "connection refused")
}

func TestNewOptions(t *testing.T) {
	env := map[string]string{"ARENA_TEST_KEY": "k", "ARENA_EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "plain http", opts: Options{BaseURL: "http://127.0.0.1:11434/v1"}},
		{name: "https with key", opts: Options{BaseURL: "https://openrouter.ai/api/v1", APIKey: "k"}},
		{name: "no base URL", opts: Options{}, wantErr: `base URL ""`},
		{name: "no scheme", opts: Options{BaseURL: "openrouter.ai/api/v1"}, wantErr: "not an http(s) URL"},
		{name: "other scheme", opts: Options{BaseURL: "ftp://example.org/v1"}, wantErr: "not an http(s) URL"},
		{name: "no host", opts: Options{BaseURL: "http:///v1"}, wantErr: "not an http(s) URL"},
		{name: "unparsable", opts: Options{BaseURL: "http://a b/v1"}, wantErr: "not an http(s) URL"},
		{name: "key from the environment", opts: Options{BaseURL: "http://h/v1", APIKeyEnv: "ARENA_TEST_KEY", LookupEnv: lookup}},
		{name: "key variable unset", opts: Options{BaseURL: "http://h/v1", APIKeyEnv: "ARENA_NO_SUCH_KEY", LookupEnv: lookup},
			wantErr: "ARENA_NO_SUCH_KEY is not set"},
		{name: "key variable empty", opts: Options{BaseURL: "http://h/v1", APIKeyEnv: "ARENA_EMPTY", LookupEnv: lookup},
			wantErr: "ARENA_EMPTY is not set"},
		{name: "key and variable", opts: Options{BaseURL: "http://h/v1", APIKey: "k", APIKeyEnv: "ARENA_TEST_KEY", LookupEnv: lookup},
			wantErr: "give one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestEmbeddings: an embeddings call goes to BaseURL/embeddings with the
// configured key only (no OPENAI_* variable travels or redirects), and
// fails as Chat does: a timeout is ErrTimeout, an error answer carries
// the endpoint's message and its URL.
func TestEmbeddings(t *testing.T) {
	elsewhere := newEndpoint(t, nil)
	t.Setenv("OPENAI_BASE_URL", elsewhere.url+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-openai-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-Leak: yes")
	vectors := func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","model":"e","data":[{"object":"embedding","index":0,"embedding":[1,0]},{"object":"embedding","index":1,"embedding":[0,1]}],"usage":{"prompt_tokens":2,"total_tokens":2}}`)
	}
	tests := []struct {
		name    string
		answer  func(w http.ResponseWriter, r *http.Request, n int)
		timeout time.Duration
		wantErr []string // substrings; none: success
		isErr   error
	}{
		{name: "vectors", answer: vectors},
		{name: "overloaded", answer: func(w http.ResponseWriter, _ *http.Request, _ int) {
			apiError(w, http.StatusServiceUnavailable, "embedding model overloaded")
		}, wantErr: []string{"/v1/embeddings", "embedding model overloaded"}},
		{name: "hangs", answer: func(_ http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() },
			timeout: 50 * time.Millisecond, wantErr: []string{"/v1/embeddings", "timed out"}, isErr: ErrTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEndpoint(t, tt.answer)
			c := newClient(t, Options{BaseURL: e.url + "/v1", APIKey: "sk-mine", Timeout: tt.timeout})
			res, err := c.Embeddings(context.Background(), openai.EmbeddingNewParams{
				Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"a", "b"}}, Model: "e"})
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Data) != 2 || res.Data[1].Embedding[1] != 1 {
					t.Fatalf("embeddings %+v", res.Data)
				}
			} else {
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				if tt.isErr != nil && !errors.Is(err, tt.isErr) {
					t.Errorf("error %q is not %v", err, tt.isErr)
				}
			}
			reqs := e.requests()
			if len(reqs) != 1 || reqs[0].path != "/v1/embeddings" || reqs[0].model != "e" {
				t.Fatalf("requests %+v, want one to /v1/embeddings for model e", reqs)
			}
			if a := reqs[0].header.Get("Authorization"); a != "Bearer sk-mine" || reqs[0].header.Get("X-Leak") != "" {
				t.Errorf("Authorization %q, X-Leak %q", a, reqs[0].header.Get("X-Leak"))
			}
		})
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Fatalf("OPENAI_BASE_URL got %d requests", n)
	}
}
