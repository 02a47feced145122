package standin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/episode"
	"arena/miner"
	"arena/relay"
	"arena/relay/standin"
	"arena/validator"
)

func newStandIn(t *testing.T) *standin.StandIn {
	t.Helper()
	h, err := miner.NewHeuristic(miner.HeuristicOptions{Skill: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := standin.New(standin.Options{Agent: h}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func post(t *testing.T, s http.Handler, body string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body)))
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, b
}

const query = `{"model":"` + standin.Model + `","messages":[{"role":"system","content":"shop"},{"role":"user","content":"I want black wireless earbuds under 500"}]}`

// TestCompletion: the stand-in answers in the chat wire format, names
// itself in the model and the think, and is deterministic: the same
// conversation gets the same bytes.
func TestCompletion(t *testing.T) {
	s := newStandIn(t)
	code, first := post(t, s, query)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, first)
	}
	_, again := post(t, s, query)
	if !bytes.Equal(first, again) {
		t.Errorf("two answers to one conversation differ:\n%s\n%s", first, again)
	}
	var c struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Reasoning string `json:"reasoning_content"`
				ToolCalls []struct {
					Function struct{ Name, Arguments string } `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(first, &c); err != nil || len(c.Choices) != 1 {
		t.Fatalf("not a chat.completion: %v: %s", err, first)
	}
	msg := c.Choices[0].Message
	if c.Model != config.StandInModel || !strings.HasPrefix(msg.Reasoning, standin.Prefix) {
		t.Errorf("model %q, think %q: the stand-in must say what it is", c.Model, msg.Reasoning)
	}
	if len(msg.ToolCalls) == 0 || msg.ToolCalls[0].Function.Name != "find_product" || !json.Valid([]byte(msg.ToolCalls[0].Function.Arguments)) {
		t.Errorf("the first step %+v: want the heuristic's search", msg.ToolCalls)
	}
}

// TestBadRequests: each bad request is one clear error, in the OpenAI
// error shape.
func TestBadRequests(t *testing.T) {
	s := newStandIn(t)
	tests := []struct{ name, body, want string }{
		{"not JSON", `{"messages":`, "body:"},
		{"no user message", `{"messages":[{"role":"system","content":"x"}]}`, "no user message"},
		{"a tool result first", `{"messages":[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"a","content":"[]"}]}`, "a tool message before any assistant message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, b := post(t, s, tt.body)
			var e struct {
				Error struct{ Message string } `json:"error"`
			}
			if code != http.StatusBadRequest || json.Unmarshal(b, &e) != nil || !strings.Contains(e.Error.Message, tt.want) || strings.Contains(e.Error.Message, "\n") {
				t.Errorf("status %d, body %s: want 400 with one line naming %q", code, b, tt.want)
			}
		})
	}
}

// TestRefusedByValidator: a validator's relay never serves the stand-in:
// its allowlist may not name it (config and relay), and an answer under
// its name from a provider is a provider failure. Only practice's relay,
// with AllowStandIn, serves it.
func TestRefusedByValidator(t *testing.T) {
	s := newStandIn(t)
	cfg := config.Default()
	cfg.Relay.BaseURL, cfg.Relay.Models = standin.BaseURL, standin.Model
	if _, _, err := validator.NewRelay(cfg, 0, zerolog.Nop(), nil); err == nil || !strings.Contains(err.Error(), "offline stand-in") {
		t.Errorf("a validator configured with the stand-in's model: %v, want refused", err)
	}
	noKey := func(string) (string, bool) { return "", false }
	if _, err := relay.New(relay.Options{BaseURL: standin.BaseURL, Models: []string{standin.Model}, HTTPClient: s.Client(), LookupEnv: noKey},
		zerolog.Nop(), nil); err == nil {
		t.Error("a relay allowing the stand-in's model was built without AllowStandIn")
	}
	tests := []struct {
		name      string
		opts      relay.Options
		wantError string // the infer_result's error code; "" for a completion
	}{
		{"validator: the stand-in behind an allowlisted name", relay.Options{Models: []string{"Qwen/Qwen3-32B"}}, episode.InferProviderError},
		{"practice --stand-in", relay.Options{Models: []string{standin.Model}, AllowStandIn: true}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.BaseURL, o.HTTPClient, o.LookupEnv = standin.BaseURL, s.Client(), noKey
			rl, err := relay.New(o, zerolog.Nop(), nil)
			if err != nil {
				t.Fatal(err)
			}
			sess := rl.Open("0xminer", "ep1")
			body := strings.Replace(query, standin.Model, o.Models[0], 1)
			res, _ := sess.Infer(context.Background(), &episode.Infer{Type: "infer", EpisodeID: "ep1", RequestID: "r1", Body: json.RawMessage(body)})
			sess.Close()
			switch {
			case tt.wantError == "" && (res.Error != nil || !bytes.Contains(res.Completion, []byte(standin.Prefix))):
				t.Errorf("got %+v, want the stand-in's completion", res)
			case tt.wantError != "" && (res.Error == nil || res.Error.Code != tt.wantError):
				t.Errorf("got error %+v, want %s", res.Error, tt.wantError)
			}
		})
	}
}
