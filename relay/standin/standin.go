// Package standin is the offline stand-in for a model: an OpenAI
// chat-completions endpoint with the reference heuristic agent behind it.
// It lets a miner see its whole path work (its agent's requests, the
// relay's infers, the steps that name their completions) with no provider
// and no key: `arena practice --stand-in` puts it behind the relay it
// offers, and `--llm-base-url stand-in` behind the reference LLM agent.
//
// It is a script, and says so everywhere it shows: every completion names
// the model config.StandInModel and every think starts with Prefix. A
// validator refuses it: relay.models may not name it, and the relay treats
// an answer under its name as a provider failure, so it never earns
// verified credit. It is deterministic: the same conversation gets the same
// completion, id included.
package standin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rs/zerolog"

	"arena/config"
	"arena/episode"
)

// Model is the name every completion of the stand-in carries.
const Model = config.StandInModel

// Prefix starts every think the stand-in writes, so that a trajectory
// played with it says so wherever it is shown.
const Prefix = "[stand-in, not a model] "

// BaseURL is the address the stand-in answers at through Transport; it
// resolves nowhere, so nothing reaches a network.
const BaseURL = "http://stand-in.invalid/v1"

// maxBody bounds a request: the longest episode's conversation with room.
const maxBody = 16 << 20

// Options configure New.
type Options struct {
	// Agent makes the decisions the stand-in plays (required): the
	// reference heuristic at full skill (miner.NewHeuristic), given here
	// so that this package does not depend on the miner's.
	Agent episode.Agent
}

// StandIn is the http.Handler of the stand-in.
type StandIn struct {
	agent episode.Agent
	log   zerolog.Logger
}

// New builds the stand-in; it logs once, at warn, what it is.
func New(opts Options, log zerolog.Logger) (*StandIn, error) {
	if opts.Agent == nil {
		return nil, errors.New("standin: Options.Agent is required")
	}
	log = log.With().Str("component", "standin").Logger()
	log.Warn().Str("model", Model).Msg("the offline stand-in answers chat completions: a script (the heuristic agent) behind the chat wire format, not a model; validators refuse it and its steps earn no verified credit")
	return &StandIn{agent: opts.Agent, log: log}, nil
}

// Client is an HTTP client that reaches s in process at BaseURL, with no
// listener.
func (s *StandIn) Client() *http.Client { return &http.Client{Transport: handlerTransport{s}} }

// handlerTransport serves requests with a handler in process.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// message is the part of a request message the stand-in reads.
type message struct {
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

// ServeHTTP answers POST .../chat/completions and GET .../models.
func (s *StandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{map[string]any{"id": Model, "object": "model", "owned_by": "arena-stand-in"}}})
		return
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		writeError(w, http.StatusNotFound, "the stand-in serves POST /chat/completions and GET /models")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "body: "+err.Error())
		return
	}
	var body struct {
		Messages []message `json:"messages"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		writeError(w, http.StatusBadRequest, "body: "+err.Error())
		return
	}
	view, err := conversation(body.Messages)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	act, err := s.agent.Step(r.Context(), view)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	calls := make([]map[string]any, len(act.ToolCalls))
	for i, c := range act.ToolCalls {
		calls[i] = map[string]any{"id": fmt.Sprintf("call_%d_%d", len(view.History), i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(c.Parameters)}}
	}
	msg := map[string]any{"role": "assistant", "content": nil, "reasoning_content": Prefix + act.Think}
	finish := "stop"
	if len(calls) > 0 {
		msg["tool_calls"], finish = calls, "tool_calls"
	}
	// The id is the request's digest: the same conversation, the same
	// completion.
	sum := sha256.Sum256(raw)
	writeJSON(w, http.StatusOK, map[string]any{"id": "standin-" + hex.EncodeToString(sum[:12]), "object": "chat.completion",
		"created": 0, "model": Model, "system_fingerprint": Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}})
}

// conversation rebuilds the episode a chat replays, in the shape every
// example agent writes it: the first user message is the query (later
// ones are the scaffold's nudges), each assistant message a step, the tool
// messages after it that step's results, a JSON text or an error.
func conversation(msgs []message) (episode.EpisodeView, error) {
	v := episode.EpisodeView{Limits: episode.DefaultLimits()}
	for _, m := range msgs {
		text := contentText(m.Content)
		switch m.Role {
		case "user":
			if v.Query == "" {
				v.Query = text
			}
		case "assistant":
			var act episode.Action
			act.Think = strings.TrimPrefix(text, Prefix)
			for _, c := range m.ToolCalls {
				act.ToolCalls = append(act.ToolCalls, episode.ToolCall{ID: c.ID, Name: c.Function.Name, Parameters: json.RawMessage(c.Function.Arguments)})
			}
			v.History = append(v.History, episode.Turn{Action: act})
		case "tool":
			if len(v.History) == 0 {
				return v, errors.New("a tool message before any assistant message")
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
		return v, errors.New("no user message: the first one is the shopper's query")
	}
	return v, nil
}

// contentText is a message's content as text: a string, or the text parts
// of an array of content parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error"}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
