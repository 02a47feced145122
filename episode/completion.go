package episode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// CompletionStep is the step a chat completion makes, normalised the one
// way the validator verifies steps (docs/protocol.md, section 9.4) and the
// reference agent builds them:
//
//   - Tool calls: the message's native tool_calls of type function, in
//     order; if there are none, every Hermes-style
//     <tool_call>{"name": ..., "arguments": {...}}</tool_call> block in
//     the content, in order (the blocks are cut from the content).
//     Names and arguments are normalised as a miner's step is (keys the
//     tool does not name dropped, canonical JSON with keys sorted, no
//     spaces, numbers as written); arguments that are not a JSON object
//     become {}.
//   - All text is normalised (NormalText) before anything is cut from it.
//   - Think: the message's reasoning_content or reasoning field when not
//     blank; else the first <think>...</think> block of the content (or,
//     with a closing tag only, the text before it), cut from the content;
//     else the remaining content. Trimmed of surrounding white space.
//   - Response: the remaining content, trimmed, when the message has no
//     tool calls; empty otherwise.
type CompletionStep struct {
	Think     string
	ToolCalls []ToolCall
	Response  string
}

// completionMessage is the part of a chat.completion the step comes from.
type completionMessage struct {
	Choices []struct {
		Message struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
}

// StepFromCompletion normalises a chat.completion object (the
// completion of an infer_result, or a recorded Completion.Response) into
// the step it makes.
func StepFromCompletion(raw json.RawMessage) (CompletionStep, error) {
	var c completionMessage
	if err := json.Unmarshal(raw, &c); err != nil {
		return CompletionStep{}, fmt.Errorf("completion: %w", err)
	}
	if len(c.Choices) == 0 {
		return CompletionStep{}, errors.New("completion has no choices")
	}
	m := c.Choices[0].Message
	content := NormalText(deref(m.Content))
	var out CompletionStep
	for i, tc := range m.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		name, params := normalCall(tc.Function.Name, []byte(tc.Function.Arguments))
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: id, Name: name, Parameters: params})
	}
	if len(m.ToolCalls) == 0 {
		content, out.ToolCalls = hermesCalls(content)
	}
	think, rest, found := thinkBlock(content)
	reasoning := strings.TrimSpace(NormalText(deref(m.ReasoningContent)))
	if reasoning == "" {
		reasoning = strings.TrimSpace(NormalText(deref(m.Reasoning)))
	}
	switch {
	case reasoning != "":
		out.Think = reasoning
	case found:
		out.Think = strings.TrimSpace(think)
	default:
		out.Think = strings.TrimSpace(rest)
	}
	if len(out.ToolCalls) == 0 {
		out.Response = strings.TrimSpace(rest)
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// thinkBlock cuts the first <think>...</think> block from s.
func thinkBlock(s string) (think, rest string, found bool) {
	const openTag, closeTag = "<think>", "</think>"
	end := strings.Index(s, closeTag)
	if end < 0 {
		return "", s, false
	}
	start := strings.Index(s[:end], openTag)
	if start < 0 {
		// Some servers strip the opening tag the chat template added.
		return s[:end], s[end+len(closeTag):], true
	}
	return s[start+len(openTag) : end], s[:start] + s[end+len(closeTag):], true
}

// hermesCalls cuts every <tool_call>{json}</tool_call> block from s.
func hermesCalls(s string) (string, []ToolCall) {
	const openTag, closeTag = "<tool_call>", "</tool_call>"
	var calls []ToolCall
	var rest strings.Builder
	for {
		i := strings.Index(s, openTag)
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], closeTag)
		if j < 0 {
			break
		}
		body := s[i+len(openTag) : i+j]
		rest.WriteString(s[:i])
		s = s[i+j+len(closeTag):]
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal([]byte(strings.TrimSpace(body)), &call) != nil || call.Name == "" {
			continue // not a call; dropped from the content like the others
		}
		args := []byte(call.Arguments)
		var str string
		if json.Unmarshal(call.Arguments, &str) == nil {
			args = []byte(str) // arguments given as a JSON string
		}
		name, params := normalCall(call.Name, args)
		calls = append(calls, ToolCall{ID: fmt.Sprintf("call_%d", len(calls)), Name: name, Parameters: params})
	}
	rest.WriteString(s)
	return rest.String(), calls
}

// CanonicalArguments is a tool call's arguments as canonical JSON: the
// object's keys sorted at every level, no insignificant space, numbers as
// written, strings re-escaped the encoding/json way without HTML escaping.
// Anything that is not a JSON object is {}.
func CanonicalArguments(args []byte) json.RawMessage {
	if c, ok := canonicalJSON(args); ok && len(c) > 0 && c[0] == '{' {
		return c
	}
	return json.RawMessage(`{}`)
}

// canonicalJSON re-encodes any JSON value canonically.
func canonicalJSON(raw []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, false
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), true
}

// CanonicalJSON re-encodes a JSON value canonically (see
// CanonicalArguments); ok is false when raw is not one JSON value.
func CanonicalJSON(raw []byte) ([]byte, bool) { return canonicalJSON(raw) }
