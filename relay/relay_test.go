package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/rs/zerolog"
	"github.com/tidwall/gjson"

	"arena/episode"
	"arena/internal/llmclient/llmtest"
)

func newRelay(t *testing.T, url string, opts Options) (*Relay, *prometheus.Registry) {
	t.Helper()
	opts.BaseURL = url + "/v1"
	if opts.Models == nil {
		opts.Models = []string{"good-model"}
	}
	reg := prometheus.NewRegistry()
	r, err := New(opts, zerolog.Nop(), reg)
	if err != nil {
		t.Fatal(err)
	}
	return r, reg
}

func infer(body string) *episode.Infer {
	return &episode.Infer{EpisodeID: "e", RequestID: "r", Body: json.RawMessage(body)}
}

const okBody = `{"model":"good-model","messages":[{"role":"user","content":"find shoes"}],"temperature":0}`

func TestInferOutcomes(t *testing.T) {
	cases := []struct {
		name       string
		answer     func(llmtest.Request) llmtest.Reply
		opts       Options
		body       string
		wantCode   string // "" for a completion
		wantRecord bool   // a record is kept
		wantFault  bool
		wantCalls  int // provider requests
	}{
		{name: "completion", answer: toolCall, body: okBody, wantRecord: true, wantCalls: 1},
		{name: "model not on the allowlist", answer: toolCall, body: `{"model":"other","messages":[{"role":"user","content":"x"}]}`, wantCode: episode.InferModelNotAllowed},
		{name: "unknown field", answer: toolCall, body: `{"model":"good-model","messages":[{"role":"user","content":"x"}],"logit_bias":{}}`, wantCode: episode.InferBadRequest},
		{name: "stream", answer: toolCall, body: `{"model":"good-model","messages":[{"role":"user","content":"x"}],"stream":true}`, wantCode: episode.InferBadRequest},
		{name: "temperature out of bounds", answer: toolCall, body: `{"model":"good-model","messages":[{"role":"user","content":"x"}],"temperature":3}`, wantCode: episode.InferBadRequest},
		{name: "no messages", answer: toolCall, body: `{"model":"good-model","messages":[]}`, wantCode: episode.InferBadRequest},
		{name: "body an array", answer: toolCall, body: `[{"model":"good-model"}]`, wantCode: episode.InferBadRequest},
		{name: "body a string", answer: toolCall, body: `"good-model"`, wantCode: episode.InferBadRequest},
		{name: "body not JSON", answer: toolCall, body: `{"model":"good-model","messages":[{"role":"user","content":"x"}]`, wantCode: episode.InferBadRequest},
		{name: "body with a bad value", answer: toolCall, body: `{"model":"good-model","messages":[{"role":"user","content":x}]}`, wantCode: episode.InferBadRequest},
		{name: "model not a string", answer: toolCall, body: `{"model":["good-model"],"messages":[{"role":"user","content":"x"}]}`, wantCode: episode.InferBadRequest},
		// A repeated key counts once, the last, as encoding/json reads it.
		{name: "a repeated key, the last allowed", answer: toolCall, body: `{"model":"other","messages":[{"role":"user","content":"find shoes"}],"model":"good-model","temperature":0}`,
			wantRecord: true, wantCalls: 1},
		{name: "a repeated key, the last refused", answer: toolCall, body: `{"model":"good-model","messages":[{"role":"user","content":"x"}],"model":"other"}`, wantCode: episode.InferModelNotAllowed},
		{name: "max_tokens above the bound", answer: toolCall, opts: Options{Budget: Budget{MaxTokens: 100}},
			body: `{"model":"good-model","messages":[{"role":"user","content":"x"}],"max_tokens":101}`, wantCode: episode.InferBudgetExceeded},
		{name: "provider 429", answer: status(429), body: okBody, wantCode: episode.InferProviderError, wantRecord: true, wantFault: true, wantCalls: 1},
		{name: "provider 500", answer: status(500), body: okBody, wantCode: episode.InferProviderError, wantRecord: true, wantFault: true, wantCalls: 1},
		{name: "provider 400 is the request's fault", answer: status(400), body: okBody, wantCode: episode.InferBadRequest, wantCalls: 1},
		{name: "provider answers no choices", answer: func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Body: `{"id":"x","object":"chat.completion","choices":[]}`}
		}, body: okBody, wantCode: episode.InferProviderError, wantRecord: true, wantFault: true, wantCalls: 1},
		{name: "provider answers garbage", answer: func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Body: `{"choices":`} },
			body: okBody, wantCode: episode.InferProviderError, wantRecord: true, wantFault: true, wantCalls: 1},
		{name: "provider stalls", answer: stall, opts: Options{Timeout: 200 * time.Millisecond}, body: okBody,
			wantCode: episode.InferProviderError, wantRecord: true, wantFault: true, wantCalls: 1},
		{name: "malformed tool call arguments are relayed as returned", answer: func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "find_product", Arguments: `{"q": "shoes"`}}}
		}, body: okBody, wantRecord: true, wantCalls: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prov := llmtest.NewServer(t, tc.answer)
			r, reg := newRelay(t, prov.URL, tc.opts)
			s := r.Open("0xAbC", "e").(*Session)
			res, rec := s.Infer(context.Background(), infer(tc.body))
			code := ""
			if res.Error != nil {
				code = res.Error.Code
			}
			if code != tc.wantCode {
				t.Fatalf("code %q (%v), want %q", code, res.Error, tc.wantCode)
			}
			if (rec != nil) != tc.wantRecord {
				t.Fatalf("record %v, want one: %v", rec, tc.wantRecord)
			}
			if rec != nil && (rec.Error == episode.InferProviderError) != tc.wantFault {
				t.Fatalf("record error %q, want fault %v", rec.Error, tc.wantFault)
			}
			if n := len(prov.Requests()); n != tc.wantCalls {
				t.Fatalf("%d provider requests, want %d", n, tc.wantCalls)
			}
			outcome := tc.wantCode
			if outcome == "" {
				outcome = "ok"
			}
			if got := testutil.ToFloat64(r.m.requests.WithLabelValues(outcome)); got != 1 {
				t.Fatalf("arena_relay_requests_total{outcome=%q} = %g, want 1", outcome, got)
			}
			if tc.wantCode == "" {
				if res.CompletionID == "" || res.CompletionID != rec.ID || string(res.Completion) != string(rec.Response) {
					t.Fatalf("result %+v does not match its record %+v", res, rec)
				}
				if rec.Usage.PromptTokens != 50 || res.Usage.CompletionTokens != 40 || s.Close().PromptTokens != 50 {
					t.Fatalf("usage not metered: %+v / %+v", rec.Usage, s.Close())
				}
				if got := string(prov.Requests()[0].Raw); got != string(rec.Request) {
					t.Fatalf("the record's request is not what the provider received:\n%s\n%s", rec.Request, got)
				}
				if want := `"model":"good-model"`; strings.Count(string(rec.Request), `"model"`) != 1 || !strings.Contains(string(rec.Request), want) {
					t.Fatalf("forwarded request does not name the model once as %s: %s", want, rec.Request)
				}
				if !strings.Contains(string(rec.Request), `"max_tokens":2048`) {
					t.Fatalf("forwarded request is unbounded: %s", rec.Request)
				}
				if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP arena_relay_tokens_total Tokens the provider reported for relayed completions, by kind (prompt, completion).
# TYPE arena_relay_tokens_total counter
arena_relay_tokens_total{kind="completion"} 40
arena_relay_tokens_total{kind="prompt"} 50
`), "arena_relay_tokens_total"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func toolCall(llmtest.Request) llmtest.Reply {
	return llmtest.Reply{Reasoning: "look for shoes", ToolCalls: []llmtest.ToolCall{{Name: "find_product", Arguments: `{"q":"shoes"}`}}}
}

func status(code int) func(llmtest.Request) llmtest.Reply {
	return func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Status: code} }
}

func stall(r llmtest.Request) llmtest.Reply {
	<-r.Context.Done()
	return llmtest.Reply{Status: http.StatusGatewayTimeout}
}

func TestBudgets(t *testing.T) {
	t.Run("completions per episode", func(t *testing.T) {
		prov := llmtest.NewServer(t, toolCall)
		r, _ := newRelay(t, prov.URL, Options{Budget: Budget{Completions: 3}})
		s := r.Open("m", "e")
		for i := range 4 {
			res, _ := s.Infer(context.Background(), infer(okBody))
			if (res.Error != nil) != (i == 3) {
				t.Fatalf("infer %d: %v", i, res.Error)
			}
		}
		if n := len(prov.Requests()); n != 3 {
			t.Fatalf("%d requests reached the provider, want 3: budgets are enforced before forwarding", n)
		}
		// Another episode has its own budget.
		if res, _ := r.Open("m", "e2").Infer(context.Background(), infer(okBody)); res.Error != nil {
			t.Fatal(res.Error)
		}
	})
	t.Run("completion tokens clamp max_tokens, then refuse", func(t *testing.T) {
		prov := llmtest.NewServer(t, func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Content: "x", CompletionTokens: 60, PromptTokens: 1}
		})
		r, _ := newRelay(t, prov.URL, Options{Budget: Budget{CompletionTokens: 100}})
		s := r.Open("m", "e")
		res, _ := s.Infer(context.Background(), infer(okBody))
		if res.Error != nil {
			t.Fatal(res.Error)
		}
		if got := prov.Requests()[0].Body["max_tokens"]; got != float64(100) {
			t.Fatalf("first call max_tokens %v, want the 100 left", got)
		}
		if res, _ = s.Infer(context.Background(), infer(okBody)); res.Error != nil {
			t.Fatal(res.Error)
		}
		if got := prov.Requests()[1].Body["max_tokens"]; got != float64(40) {
			t.Fatalf("second call max_tokens %v, want the 40 left", got)
		}
		if res, _ = s.Infer(context.Background(), infer(okBody)); res.Error == nil || res.Error.Code != episode.InferBudgetExceeded {
			t.Fatalf("third call: %+v, want budget_exceeded", res.Error)
		}
	})
	t.Run("prompt tokens", func(t *testing.T) {
		prov := llmtest.NewServer(t, func(llmtest.Request) llmtest.Reply {
			return llmtest.Reply{Content: "x", PromptTokens: 900, CompletionTokens: 1}
		})
		r, _ := newRelay(t, prov.URL, Options{Budget: Budget{PromptTokens: 1000}})
		s := r.Open("m", "e")
		for i, want := range []string{"", "", episode.InferBudgetExceeded} {
			res, _ := s.Infer(context.Background(), infer(okBody))
			got := ""
			if res.Error != nil {
				got = res.Error.Code
			}
			if got != want {
				t.Fatalf("call %d: %q, want %q", i, got, want)
			}
		}
	})
	t.Run("wall time", func(t *testing.T) {
		prov := llmtest.NewServer(t, stall)
		r, _ := newRelay(t, prov.URL, Options{Budget: Budget{WallTime: 150 * time.Millisecond}})
		s := r.Open("m", "e")
		res, _ := s.Infer(context.Background(), infer(okBody))
		if res.Error == nil || res.Error.Code != episode.InferBudgetExceeded {
			t.Fatalf("stalled call: %+v, want budget_exceeded (the wall time ran out)", res.Error)
		}
		res, _ = s.Infer(context.Background(), infer(okBody))
		if res.Error == nil || res.Error.Code != episode.InferBudgetExceeded || len(prov.Requests()) != 1 {
			t.Fatalf("next call: %+v after %d requests, want budget_exceeded without a request", res.Error, len(prov.Requests()))
		}
	})
	t.Run("per miner per day", func(t *testing.T) {
		prov := llmtest.NewServer(t, toolCall)
		now := time.Date(2026, 1, 1, 23, 0, 0, 0, time.UTC)
		r, _ := newRelay(t, prov.URL, Options{Daily: DailyBudget{Completions: 2}, Now: func() time.Time { return now }})
		for i := range 2 {
			if res, _ := r.Open("0xA", fmt.Sprint(i)).Infer(context.Background(), infer(okBody)); res.Error != nil {
				t.Fatal(res.Error)
			}
		}
		if res, _ := r.Open("0xa", "3").Infer(context.Background(), infer(okBody)); res.Error == nil || res.Error.Code != episode.InferBudgetExceeded {
			t.Fatalf("third of the day: %+v, want budget_exceeded", res.Error)
		}
		if res, _ := r.Open("0xB", "4").Infer(context.Background(), infer(okBody)); res.Error != nil {
			t.Fatalf("another miner: %v", res.Error)
		}
		now = now.Add(2 * time.Hour) // the next UTC day
		if res, _ := r.Open("0xA", "5").Infer(context.Background(), infer(okBody)); res.Error != nil {
			t.Fatalf("next day: %v", res.Error)
		}
	})
}

func TestNewRefusesBadOptions(t *testing.T) {
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"no base url", Options{Models: []string{"m"}}, "relay.base_url"},
		{"no models", Options{BaseURL: "http://x/v1"}, "relay.models"},
		{"bad url", Options{BaseURL: "ftp://x", Models: []string{"m"}}, "not an http"},
		{"negative budget", Options{BaseURL: "http://x/v1", Models: []string{"m"}, Budget: Budget{Completions: -1}}, "positive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts, zerolog.Nop(), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestAPIKeyOnlyFromEnvironment(t *testing.T) {
	prov := llmtest.NewServer(t, toolCall)
	r, _ := newRelay(t, prov.URL, Options{LookupEnv: func(k string) (string, bool) {
		if k == APIKeyEnv {
			return "sk-relay", true
		}
		return "", false
	}})
	if res, _ := r.Open("m", "e").Infer(context.Background(), infer(okBody)); res.Error != nil {
		t.Fatal(res.Error)
	}
	if got := prov.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-relay" {
		t.Fatalf("Authorization %q", got)
	}
}

// FuzzValidAgrees: the relay's check takes gjson's word for what is
// JSON; it must be encoding/json's word too, since the forwarded body is
// later stored and exported through encoding/json. The seeds run in every
// `go test`; `go test ./relay -fuzz FuzzValidAgrees` searches further.
func FuzzValidAgrees(f *testing.F) {
	for _, s := range []string{okBody, `{}`, `[]`, `""`, `0`, `-0.5e+3`, `01`, `1.`, `.5`, `1e`, `-`, `{"a":}`, `{"a" 1}`,
		`{"a":1,}`, `[1,]`, `"\u12"`, `"\x"`, "\"\x01\"", `"\/"`, "\"\xff\"", `nul`, `true false`, ` {"a":[1,{"b":null}]} `,
		`{"a":"\ud800"}`, `[1e999]`, `{"a":1}}`, `{"a":1}{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if g, j := gjson.ValidBytes(b), json.Valid(b); g != j {
			t.Fatalf("gjson.ValidBytes %v, json.Valid %v for %q", g, j, b)
		}
	})
}
