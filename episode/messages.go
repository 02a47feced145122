package episode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// Version is the protocol version carried in hello. It stays 1: a
// validator that speaks more says so in hello's max_version, and the
// miner answers with the version it chose in hello_ack (1 or 2), so a
// miner that knows only version 1 keeps working unchanged.
const Version = 1

// Version2 adds the inference relay: infer and infer_result, and a step
// that names the completion it comes from (docs/protocol.md, section 9).
const Version2 = 2

// MaxVersion is the highest protocol version this package speaks.
const MaxVersion = Version2

// Path is the websocket path a miner serves the protocol on.
const Path = "/arena/v1"

// Message types.
const (
	TypeHello        = "hello"         // validator → miner
	TypeHelloAck     = "hello_ack"     // miner → validator
	TypeEpisodeStart = "episode_start" // validator → miner
	TypeStep         = "step"          // miner → validator
	TypeObservation  = "observation"   // validator → miner
	TypeEpisodeEnd   = "episode_end"   // validator → miner
	TypeInfer        = "infer"         // miner → validator (v2)
	TypeInferResult  = "infer_result"  // validator → miner (v2)
)

// Message is any protocol message.
type Message interface {
	// MessageType is the value of the "type" field.
	MessageType() string
}

// Hello opens the handshake: the validator proves its address and sends a
// fresh nonce the miner must sign back.
type Hello struct {
	Type             string `json:"type"`
	Version          int    `json:"version"`
	ValidatorAddress string `json:"validator_address"`
	Nonce            string `json:"nonce"`
	Timestamp        int64  `json:"timestamp"`
	Signature        string `json:"signature"`
	// MaxVersion is the highest version the validator speaks (absent:
	// 1). It is not part of the signed payload, which a version-1 miner
	// computes without it.
	MaxVersion int `json:"max_version,omitempty"`
}

// HelloAck answers Hello: the miner proves its address over the
// validator's nonce, so an ack cannot be replayed into another handshake.
type HelloAck struct {
	Type         string `json:"type"`
	Version      int    `json:"version"`
	MinerAddress string `json:"miner_address"`
	Nonce        string `json:"nonce"`
	Timestamp    int64  `json:"timestamp"`
	Signature    string `json:"signature"`
}

// WireLimits are the limits as sent in episode_start.
type WireLimits struct {
	MaxFrameBytes         int   `json:"max_frame_bytes"`
	MaxThinkBytes         int   `json:"max_think_bytes"`
	MaxToolCalls          int   `json:"max_tool_calls"`
	MaxSteps              int   `json:"max_steps"`
	StepTimeoutMS         int64 `json:"step_timeout_ms"`
	EpisodeTimeoutMS      int64 `json:"episode_timeout_ms"`
	MaxConcurrentEpisodes int   `json:"max_concurrent_episodes"`
	// MaxEpisodeBytes (absent: not announced) is the episode's stored-bytes
	// budget.
	MaxEpisodeBytes int `json:"max_episode_bytes,omitempty"`
}

// EpisodeStart opens an episode.
type EpisodeStart struct {
	Type      string          `json:"type"`
	EpisodeID string          `json:"episode_id"`
	Query     string          `json:"query"`
	Tools     json.RawMessage `json:"tools"`
	Limits    WireLimits      `json:"limits"`
	// Relay, on a version-2 connection whose validator runs the
	// inference relay, announces the models and the episode's budget.
	Relay *WireRelay `json:"relay,omitempty"`
}

// WireRelay is the relay's offer in episode_start (v2).
type WireRelay struct {
	// Models is the allowlist: infer bodies must name one of them.
	Models []string `json:"models"`
	// Required: steps that do not name a relay completion earn nothing.
	Required            bool  `json:"required"`
	MaxCompletions      int   `json:"max_completions"`
	MaxPromptTokens     int64 `json:"max_prompt_tokens"`
	MaxCompletionTokens int64 `json:"max_completion_tokens"`
	MaxInferBytes       int   `json:"max_infer_bytes"`
	// MaxTokens bounds each completion's max_tokens.
	MaxTokens int64 `json:"max_tokens"`
}

// Infer asks the validator's relay for one chat completion (v2). Body is
// an OpenAI chat-completions request body: model, messages, tools and
// sampling settings (docs/protocol.md, section 9).
type Infer struct {
	Type      string `json:"type"`
	EpisodeID string `json:"episode_id"`
	// RequestID is the miner's id for the request, echoed in infer_result.
	RequestID string          `json:"request_id"`
	Body      json.RawMessage `json:"body"`
}

// Usage is a completion's token usage as the provider reported it.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// InferError is a refused or failed infer.
type InferError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *InferError) Error() string { return "relay: " + e.Code + ": " + e.Message }

// Infer error codes (docs/protocol.md, section 9).
const (
	InferModelNotAllowed = "model_not_allowed" // the body's model is not on the allowlist
	InferBudgetExceeded  = "budget_exceeded"   // the episode's or the miner's day's budget is spent
	InferProviderError   = "provider_error"    // the provider failed; never the miner's fault
	InferBadRequest      = "bad_request"       // the body is not an acceptable chat-completions request
	InferTooLarge        = "too_large"         // the body would make a frame above max_infer_bytes (refused by the miner's side before sending)
	InferBusy            = "busy"              // too many infers of this episode in flight
	InferNoEpisode       = "no_episode"        // the episode is not live (ended, or never started)
	InferUnavailable     = "relay_unavailable" // this validator runs no relay
)

// InferResult answers one infer (v2): a completion with the relay's
// completion_id and its usage, or an error.
type InferResult struct {
	Type         string `json:"type"`
	EpisodeID    string `json:"episode_id"`
	RequestID    string `json:"request_id"`
	CompletionID string `json:"completion_id,omitempty"`
	// Completion is the provider's chat.completion object, as returned.
	Completion json.RawMessage `json:"completion,omitempty"`
	Usage      *Usage          `json:"usage,omitempty"`
	Error      *InferError     `json:"error,omitempty"`
}

// ToolCall is one call an agent asks the validator to execute.
// Parameters is a JSON object.
type ToolCall struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters"`
}

// Step is one agent turn.
type Step struct {
	Type      string     `json:"type"`
	EpisodeID string     `json:"episode_id"`
	Think     string     `json:"think"`
	ToolCalls []ToolCall `json:"tool_calls"`
	Response  *string    `json:"response,omitempty"`
	// CompletionID (v2) names the relay completion the step comes from.
	CompletionID string `json:"completion_id,omitempty"`
}

// ToolError is a failed call's error observation.
type ToolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ToolResult is the outcome of one tool call: exactly one of Result and
// Error is set.
type ToolResult struct {
	ToolCallID string          `json:"tool_call_id"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *ToolError      `json:"error,omitempty"`
}

// Observation carries the validator's results for one step.
type Observation struct {
	Type      string       `json:"type"`
	EpisodeID string       `json:"episode_id"`
	Step      int          `json:"step"`
	Results   []ToolResult `json:"results"`
}

// EpisodeEnd closes an episode.
type EpisodeEnd struct {
	Type      string    `json:"type"`
	EpisodeID string    `json:"episode_id"`
	Reason    EndReason `json:"reason"`
	Detail    string    `json:"detail,omitempty"`
}

func (*Hello) MessageType() string        { return TypeHello }
func (*HelloAck) MessageType() string     { return TypeHelloAck }
func (*EpisodeStart) MessageType() string { return TypeEpisodeStart }
func (*Step) MessageType() string         { return TypeStep }
func (*Observation) MessageType() string  { return TypeObservation }
func (*EpisodeEnd) MessageType() string   { return TypeEpisodeEnd }
func (*Infer) MessageType() string        { return TypeInfer }
func (*InferResult) MessageType() string  { return TypeInferResult }

// Decoding errors. A *DecodeError wraps exactly one of them, so callers
// tell them apart with errors.Is.
var (
	ErrMalformed    = errors.New("malformed message") // not a JSON object
	ErrUnknownType  = errors.New("unknown message type")
	ErrMissingField = errors.New("missing field")
	ErrWrongType    = errors.New("wrong field type")
	ErrInvalidValue = errors.New("invalid field value") // right type, unusable value
)

// DecodeError describes why a frame is not a valid message.
type DecodeError struct {
	Kind    error  // one of the Err* sentinels above
	Type    string // the message type, when known
	Field   string // the offending field, dotted (tool_calls[2].name)
	Detail  string
	Episode string // the episode_id, when it could be read
}

func (e *DecodeError) Error() string {
	s := e.Kind.Error()
	if e.Type != "" {
		s = e.Type + ": " + s
	}
	if e.Field != "" {
		s += " " + e.Field
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *DecodeError) Unwrap() error { return e.Kind }

// Reason maps the error to the episode end reason it causes.
func (e *DecodeError) Reason() EndReason {
	if errors.Is(e.Kind, ErrUnknownType) {
		return ReasonUnknownType
	}
	return ReasonMalformed
}

// jsonKind is a JSON value's kind, as read from its first byte.
type jsonKind int

const (
	kindString jsonKind = iota + 1
	kindInt             // an integral number
	kindArray
	kindObject
)

func (k jsonKind) String() string {
	switch k {
	case kindString:
		return "string"
	case kindInt:
		return "integer"
	case kindArray:
		return "array"
	case kindObject:
		return "object"
	}
	return "value"
}

type field struct {
	name     string
	kind     jsonKind
	required bool
}

// schema lists each message type's fields. Unknown fields are ignored so
// that later protocol versions can add optional fields.
func schema(typ string) ([]field, bool) {
	switch typ {
	case TypeHello:
		return []field{{"version", kindInt, true}, {"validator_address", kindString, true}, {"nonce", kindString, true}, {"timestamp", kindInt, true}, {"signature", kindString, true}}, true
	case TypeHelloAck:
		return []field{{"version", kindInt, true}, {"miner_address", kindString, true}, {"nonce", kindString, true}, {"timestamp", kindInt, true}, {"signature", kindString, true}}, true
	case TypeEpisodeStart:
		return []field{{"episode_id", kindString, true}, {"query", kindString, true}, {"tools", kindArray, true}, {"limits", kindObject, true}}, true
	case TypeStep:
		return []field{{"episode_id", kindString, true}, {"think", kindString, true}, {"tool_calls", kindArray, true}, {"response", kindString, false}, {"completion_id", kindString, false}}, true
	case TypeObservation:
		return []field{{"episode_id", kindString, true}, {"step", kindInt, true}, {"results", kindArray, true}}, true
	case TypeEpisodeEnd:
		return []field{{"episode_id", kindString, true}, {"reason", kindString, true}, {"detail", kindString, false}}, true
	case TypeInfer:
		return []field{{"episode_id", kindString, true}, {"request_id", kindString, true}, {"body", kindObject, true}}, true
	case TypeInferResult:
		return []field{{"episode_id", kindString, true}, {"request_id", kindString, true}, {"completion_id", kindString, false},
			{"completion", kindObject, false}, {"usage", kindObject, false}, {"error", kindObject, false}}, true
	}
	return nil, false
}

var (
	toolCallFields   = []field{{"id", kindString, true}, {"name", kindString, true}, {"parameters", kindObject, true}}
	toolResultFields = []field{{"tool_call_id", kindString, true}, {"error", kindObject, false}}
	toolErrorFields  = []field{{"code", kindString, true}, {"message", kindString, true}}
	limitsFields     = []field{{"max_frame_bytes", kindInt, true}, {"max_think_bytes", kindInt, true}, {"max_tool_calls", kindInt, true}, {"max_steps", kindInt, true}, {"step_timeout_ms", kindInt, true}, {"episode_timeout_ms", kindInt, true}, {"max_concurrent_episodes", kindInt, true}}
)

// Decode parses and validates one frame. Every failure is a *DecodeError
// wrapping ErrMalformed, ErrUnknownType, ErrMissingField, ErrWrongType or
// ErrInvalidValue. Decode never panics on any input.
func Decode(frame []byte) (Message, error) {
	obj, err := decodeObject(frame)
	if err != nil || obj == nil {
		detail := "not a JSON object"
		if err != nil {
			detail = ClipText(err.Error(), 120)
		}
		return nil, &DecodeError{Kind: ErrMalformed, Detail: detail}
	}
	rawType, ok := obj["type"]
	if !ok {
		return nil, &DecodeError{Kind: ErrMissingField, Field: "type"}
	}
	var typ string
	if kindOf(rawType) != kindString || json.Unmarshal(rawType, &typ) != nil {
		return nil, &DecodeError{Kind: ErrWrongType, Field: "type", Detail: "want string"}
	}
	var episode string
	if raw, ok := obj["episode_id"]; ok {
		_ = json.Unmarshal(raw, &episode) // best effort, for attribution only
	}
	fields, ok := schema(typ)
	if !ok {
		return nil, &DecodeError{Kind: ErrUnknownType, Detail: fmt.Sprintf("%q", ClipText(typ, 40)), Episode: episode}
	}
	fail := func(err *DecodeError) (Message, error) {
		err.Type, err.Episode = typ, episode
		return nil, err
	}
	if err := checkFields(obj, fields, ""); err != nil {
		return fail(err)
	}
	var msg Message
	switch typ {
	case TypeHello:
		msg = &Hello{}
	case TypeHelloAck:
		msg = &HelloAck{}
	case TypeEpisodeStart:
		msg = &EpisodeStart{}
	case TypeStep:
		msg = &Step{}
	case TypeObservation:
		msg = &Observation{}
	case TypeEpisodeEnd:
		msg = &EpisodeEnd{}
	case TypeInfer:
		msg = &Infer{}
	case TypeInferResult:
		msg = &InferResult{}
	}
	if err := checkNested(typ, obj); err != nil {
		return fail(err)
	}
	if inf, ok := msg.(*Infer); ok {
		// An infer's body is the whole prompt so far: its fields are taken
		// from the checked object rather than by decoding the frame again,
		// which would scan the prompt twice more on every completion.
		inf.Type, inf.Body = typ, obj["body"]
		if json.Unmarshal(obj["episode_id"], &inf.EpisodeID) != nil || json.Unmarshal(obj["request_id"], &inf.RequestID) != nil {
			return fail(&DecodeError{Kind: ErrWrongType, Detail: "episode_id and request_id must be strings"})
		}
		if err := checkValues(msg); err != nil {
			return fail(err)
		}
		return msg, nil
	}
	if err := json.Unmarshal(frame, msg); err != nil {
		// The kinds were checked, so what is left is out-of-range numbers.
		return fail(&DecodeError{Kind: ErrWrongType, Detail: ClipText(err.Error(), 120)})
	}
	if err := checkValues(msg); err != nil {
		return fail(err)
	}
	return msg, nil
}

// decodeObject splits a frame that is one JSON object into its fields,
// as json.Unmarshal into a map would (values byte for byte, escaped keys
// read, a repeated key's last value kept). A valid object takes gjson's
// one fast pass: an infer frame carries the whole prompt, and
// encoding/json's validating decode of it cost more than anything else
// the runner does with the frame. Anything else takes encoding/json's
// path, for its error.
func decodeObject(frame []byte) (map[string]json.RawMessage, error) {
	if gjson.ValidBytes(frame) {
		if root := gjson.ParseBytes(frame); root.IsObject() {
			obj := map[string]json.RawMessage{}
			root.ForEach(func(k, v gjson.Result) bool {
				obj[k.Str] = json.RawMessage(v.Raw)
				return true
			})
			return obj, nil
		}
	}
	var obj map[string]json.RawMessage
	err := json.Unmarshal(frame, &obj)
	return obj, err
}

func kindOf(raw json.RawMessage) jsonKind {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; {
	case c == '"':
		return kindString
	case c == '[':
		return kindArray
	case c == '{':
		return kindObject
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(raw, ".eE") {
			return 0
		}
		return kindInt
	}
	return 0
}

func checkFields(obj map[string]json.RawMessage, fields []field, prefix string) *DecodeError {
	for _, f := range fields {
		raw, ok := obj[f.name]
		if !ok {
			if f.required {
				return &DecodeError{Kind: ErrMissingField, Field: prefix + f.name}
			}
			continue
		}
		if kindOf(raw) != f.kind {
			return &DecodeError{Kind: ErrWrongType, Field: prefix + f.name, Detail: "want " + f.kind.String()}
		}
	}
	return nil
}

// checkArray validates each element of the array field name as an object
// with the given fields.
func checkArray(obj map[string]json.RawMessage, name string, fields []field, each func(string, map[string]json.RawMessage) *DecodeError) *DecodeError {
	var elems []json.RawMessage
	if err := json.Unmarshal(obj[name], &elems); err != nil {
		return &DecodeError{Kind: ErrWrongType, Field: name, Detail: "want array"}
	}
	for i, raw := range elems {
		prefix := fmt.Sprintf("%s[%d]", name, i)
		var el map[string]json.RawMessage
		if kindOf(raw) != kindObject || json.Unmarshal(raw, &el) != nil {
			return &DecodeError{Kind: ErrWrongType, Field: prefix, Detail: "want object"}
		}
		if err := checkFields(el, fields, prefix+"."); err != nil {
			return err
		}
		if each != nil {
			if err := each(prefix, el); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkNested(typ string, obj map[string]json.RawMessage) *DecodeError {
	switch typ {
	case TypeStep:
		return checkArray(obj, "tool_calls", toolCallFields, nil)
	case TypeObservation:
		return checkArray(obj, "results", toolResultFields, func(prefix string, el map[string]json.RawMessage) *DecodeError {
			_, hasResult := el["result"]
			errRaw, hasError := el["error"]
			if hasResult == hasError {
				return &DecodeError{Kind: ErrInvalidValue, Field: prefix, Detail: "want exactly one of result and error"}
			}
			if hasError {
				var e map[string]json.RawMessage
				if json.Unmarshal(errRaw, &e) != nil {
					return &DecodeError{Kind: ErrWrongType, Field: prefix + ".error", Detail: "want object"}
				}
				return checkFields(e, toolErrorFields, prefix+".error.")
			}
			return nil
		})
	case TypeInferResult:
		if raw, ok := obj["error"]; ok {
			var e map[string]json.RawMessage
			if json.Unmarshal(raw, &e) != nil {
				return &DecodeError{Kind: ErrWrongType, Field: "error", Detail: "want object"}
			}
			if err := checkFields(e, toolErrorFields, "error."); err != nil {
				return err
			}
		}
		_, hasCompletion := obj["completion"]
		_, hasError := obj["error"]
		if hasCompletion == hasError {
			return &DecodeError{Kind: ErrInvalidValue, Field: "completion", Detail: "want exactly one of completion and error"}
		}
		return nil
	case TypeEpisodeStart:
		var l map[string]json.RawMessage
		if json.Unmarshal(obj["limits"], &l) != nil {
			return &DecodeError{Kind: ErrWrongType, Field: "limits", Detail: "want object"}
		}
		return checkFields(l, limitsFields, "limits.")
	}
	return nil
}

func checkValues(msg Message) *DecodeError {
	invalid := func(field, detail string) *DecodeError {
		return &DecodeError{Kind: ErrInvalidValue, Field: field, Detail: detail}
	}
	switch m := msg.(type) {
	case *Hello:
		if _, err := parseAddress(m.ValidatorAddress); err != nil {
			return invalid("validator_address", err.Error())
		}
		if _, err := parseNonce(m.Nonce); err != nil {
			return invalid("nonce", err.Error())
		}
		if _, err := parseSignature(m.Signature); err != nil {
			return invalid("signature", err.Error())
		}
	case *HelloAck:
		if _, err := parseAddress(m.MinerAddress); err != nil {
			return invalid("miner_address", err.Error())
		}
		if _, err := parseNonce(m.Nonce); err != nil {
			return invalid("nonce", err.Error())
		}
		if _, err := parseSignature(m.Signature); err != nil {
			return invalid("signature", err.Error())
		}
	case *EpisodeStart:
		if m.EpisodeID == "" {
			return invalid("episode_id", "empty")
		}
		if err := m.Limits.Limits().Validate(); err != nil {
			return invalid("limits", err.Error())
		}
	case *Step:
		if m.EpisodeID == "" {
			return invalid("episode_id", "empty")
		}
		for i, c := range m.ToolCalls {
			if c.Name == "" {
				return invalid(fmt.Sprintf("tool_calls[%d].name", i), "empty")
			}
		}
	case *Observation:
		if m.EpisodeID == "" {
			return invalid("episode_id", "empty")
		}
		if m.Step < 0 {
			return invalid("step", "negative")
		}
	case *EpisodeEnd:
		if m.EpisodeID == "" {
			return invalid("episode_id", "empty")
		}
		if m.Reason == "" {
			return invalid("reason", "empty")
		}
	case *Infer:
		if m.EpisodeID == "" {
			return invalid("episode_id", "empty")
		}
		if m.RequestID == "" || len(m.RequestID) > maxRequestIDBytes {
			return invalid("request_id", fmt.Sprintf("want 1..%d bytes", maxRequestIDBytes))
		}
	case *InferResult:
		if m.EpisodeID == "" {
			return invalid("episode_id", "empty")
		}
		if m.Error == nil && m.CompletionID == "" {
			return invalid("completion_id", "empty with a completion")
		}
	}
	return nil
}

// maxRequestIDBytes bounds a miner's request_id.
const maxRequestIDBytes = 128

// Encode marshals a message, setting its type field.
func Encode(msg Message) ([]byte, error) {
	switch m := msg.(type) {
	case *Hello:
		m.Type = TypeHello
	case *HelloAck:
		m.Type = TypeHelloAck
	case *EpisodeStart:
		m.Type = TypeEpisodeStart
	case *Step:
		m.Type = TypeStep
	case *Observation:
		m.Type = TypeObservation
	case *EpisodeEnd:
		m.Type = TypeEpisodeEnd
	case *Infer:
		m.Type = TypeInfer
	case *InferResult:
		m.Type = TypeInferResult
	default:
		return nil, fmt.Errorf("encode: unknown message %T", msg)
	}
	return json.Marshal(msg)
}

// ClipText shortens untrusted text before it reaches a log line or an
// error, at a UTF-8 boundary.
func ClipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// appendObservation writes an observation frame by hand. The tool outputs
// are JSON the validator's own shop produced, so unlike json.Marshal this
// does not re-validate and re-compact them: on a busy validator that was
// the largest cost of answering a step. The bytes equal Encode's.
func appendObservation(dst []byte, o *Observation) []byte {
	dst = append(dst, `{"type":"observation","episode_id":`...)
	dst = appendJSONString(dst, o.EpisodeID)
	dst = append(dst, `,"step":`...)
	dst = strconv.AppendInt(dst, int64(o.Step), 10)
	dst = append(dst, `,"results":[`...)
	for i, r := range o.Results {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"tool_call_id":`...)
		dst = appendJSONString(dst, r.ToolCallID)
		if r.Error != nil {
			dst = append(dst, `,"error":{"code":`...)
			dst = appendJSONString(dst, r.Error.Code)
			dst = append(dst, `,"message":`...)
			dst = appendJSONString(dst, r.Error.Message)
			dst = append(dst, '}')
		} else {
			dst = append(dst, `,"result":`...)
			if len(r.Result) == 0 {
				dst = append(dst, "null"...)
			} else {
				dst = append(dst, r.Result...)
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(dst, b...)
}
