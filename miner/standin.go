package miner

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/episode"
)

// StandInPrefix starts every think the stand-in writes, so that a
// trajectory played with it says so wherever it is shown.
const StandInPrefix = "[stand-in, not a model] "

// StandIn serves the OpenAI chat-completions wire format with the
// heuristic agent behind it: an offline stand-in for a model, so that the
// LLM agent's path (`--agent llm`) can be tried with no provider. It is a
// script, and says so: every completion names the model
// config.StandInModel and every think starts with StandInPrefix. A
// validator refuses it (relay.models may not name it, and the relay
// treats an answer from it as a provider failure), so it never earns
// verified credit.
type StandIn struct {
	h   *Heuristic
	log zerolog.Logger
}

// NewStandIn builds the stand-in; it logs once, at warn, what it is.
func NewStandIn(log zerolog.Logger) (*StandIn, error) {
	h, err := NewHeuristic(HeuristicOptions{Skill: 1})
	if err != nil {
		return nil, err
	}
	log = log.With().Str("component", "miner.standin").Logger()
	log.Warn().Str("model", config.StandInModel).Msg("the llm agent talks to the offline stand-in: a script (the heuristic agent) behind the chat wire format, not a model; validators refuse it and its steps earn no verified credit")
	return &StandIn{h: h, log: log}, nil
}

// StandInURL, given as the LLM agent's base URL (--llm-base-url
// stand-in), serves the agent's own completions from the stand-in in
// process: offline demos of the llm agent's path. A validator's relay is
// still asked first when it offers one.
const StandInURL = config.StandInURL

// newStandInLLM is the LLM agent with the stand-in as its endpoint,
// reached through an in-process transport (no listener).
func newStandInLLM(timeout time.Duration, log zerolog.Logger) (*LLM, error) {
	s, err := NewStandIn(log)
	if err != nil {
		return nil, err
	}
	return NewLLM(LLMOptions{BaseURL: "http://stand-in.invalid/v1", Model: config.StandInModel, Timeout: timeout, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: handlerTransport{s}}}, log)
}

// handlerTransport serves requests with a handler in process.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// standInMessage is the part of a request message the stand-in reads.
type standInMessage struct {
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
}

// ServeHTTP answers POST .../chat/completions.
func (s *StandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var body struct {
		Messages []standInMessage `json:"messages"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<20)).Decode(&body); err != nil {
		standInError(w, http.StatusBadRequest, "body: "+err.Error())
		return
	}
	view, err := standInView(body.Messages)
	if err != nil {
		standInError(w, http.StatusBadRequest, err.Error())
		return
	}
	act, err := s.h.Step(r.Context(), view)
	if err != nil {
		standInError(w, http.StatusInternalServerError, err.Error())
		return
	}
	calls := make([]map[string]any, len(act.ToolCalls))
	for i, c := range act.ToolCalls {
		calls[i] = map[string]any{"id": fmt.Sprintf("call_%d_%d", len(view.History), i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(c.Parameters)}}
	}
	msg := map[string]any{"role": "assistant", "content": nil, "reasoning_content": StandInPrefix + act.Think}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "standin-" + fmt.Sprint(time.Now().UnixNano()), "object": "chat.completion",
		"created": time.Now().Unix(), "model": config.StandInModel, "system_fingerprint": config.StandInModel,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": msg}},
		"usage":   map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})
}

// standInView rebuilds the episode the LLM agent's conversation replays
// (LLM.messages): the first user message is the query, each assistant
// message a step, the tool messages after it its results.
func standInView(msgs []standInMessage) (episode.EpisodeView, error) {
	v := episode.EpisodeView{Limits: episode.DefaultLimits()}
	for _, m := range msgs {
		var text string
		_ = json.Unmarshal(m.Content, &text)
		switch m.Role {
		case "user":
			if v.Query == "" {
				v.Query = text
			}
		case "assistant":
			var act episode.Action
			act.Think = strings.TrimPrefix(text, StandInPrefix)
			for _, c := range m.ToolCalls {
				act.ToolCalls = append(act.ToolCalls, episode.ToolCall{ID: c.ID, Name: c.Function.Name, Parameters: json.RawMessage(c.Function.Arguments)})
			}
			v.History = append(v.History, episode.Turn{Action: act})
		case "tool":
			if len(v.History) == 0 {
				return v, fmt.Errorf("a tool message before any assistant message")
			}
			res := episode.ToolResult{ToolCallID: m.ToolCallID}
			if msg, isErr := strings.CutPrefix(text, "error: "); isErr || !json.Valid([]byte(text)) {
				res.Error = &episode.ToolError{Code: "error", Message: msg}
			} else {
				res.Result = json.RawMessage(text)
			}
			t := &v.History[len(v.History)-1]
			t.Results = append(t.Results, res)
		}
	}
	if v.Query == "" {
		return v, fmt.Errorf("no user message: the first one is the shopper's query")
	}
	return v, nil
}

func standInError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error"}})
	_, _ = w.Write(b)
}
