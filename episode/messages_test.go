package episode

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestDecodeErrors(t *testing.T) {
	sig := "0x" + strings.Repeat("11", 64) + "1b"
	nonce := strings.Repeat("ab", NonceBytes)
	addr := "0x00000000000000000000000000000000000000aa"
	tests := []struct {
		name  string
		frame string
		want  error // nil: decodes
		field string
		typ   string
	}{
		{"not JSON", `{"type":`, ErrMalformed, "", ""},
		{"array", `[1,2]`, ErrMalformed, "", ""},
		{"null", `null`, ErrMalformed, "", ""},
		{"no type", `{"episode_id":"e"}`, ErrMissingField, "type", ""},
		{"type not a string", `{"type":7}`, ErrWrongType, "type", ""},
		{"unknown type", `{"type":"gossip","episode_id":"e"}`, ErrUnknownType, "", ""},
		{"step ok", `{"type":"step","episode_id":"e","think":"t","tool_calls":[{"id":"1","name":"find_product","parameters":{"q":"x","page":1}}]}`, nil, "", TypeStep},
		{"step with response", `{"type":"step","episode_id":"e","think":"","tool_calls":[],"response":"hi"}`, nil, "", TypeStep},
		{"step missing think", `{"type":"step","episode_id":"e","tool_calls":[]}`, ErrMissingField, "think", TypeStep},
		{"step missing tool_calls", `{"type":"step","episode_id":"e","think":""}`, ErrMissingField, "tool_calls", TypeStep},
		{"step think not a string", `{"type":"step","episode_id":"e","think":5,"tool_calls":[]}`, ErrWrongType, "think", TypeStep},
		{"step tool_calls not an array", `{"type":"step","episode_id":"e","think":"","tool_calls":{}}`, ErrWrongType, "tool_calls", TypeStep},
		{"tool call not an object", `{"type":"step","episode_id":"e","think":"","tool_calls":["x"]}`, ErrWrongType, "tool_calls[0]", TypeStep},
		{"tool call missing name", `{"type":"step","episode_id":"e","think":"","tool_calls":[{"id":"1","parameters":{}}]}`, ErrMissingField, "tool_calls[0].name", TypeStep},
		{"tool call parameters as string", `{"type":"step","episode_id":"e","think":"","tool_calls":[{"id":"1","name":"n","parameters":"{}"}]}`, ErrWrongType, "tool_calls[0].parameters", TypeStep},
		{"tool call empty name", `{"type":"step","episode_id":"e","think":"","tool_calls":[{"id":"1","name":"","parameters":{}}]}`, ErrInvalidValue, "tool_calls[0].name", TypeStep},
		{"response null", `{"type":"step","episode_id":"e","think":"","tool_calls":[],"response":null}`, ErrWrongType, "response", TypeStep},
		{"empty episode id", `{"type":"step","episode_id":"","think":"","tool_calls":[]}`, ErrInvalidValue, "episode_id", TypeStep},
		{"hello ok", `{"type":"hello","version":1,"validator_address":"` + addr + `","nonce":"` + nonce + `","timestamp":1,"signature":"` + sig + `"}`, nil, "", TypeHello},
		{"hello fractional version", `{"type":"hello","version":1.5,"validator_address":"` + addr + `","nonce":"` + nonce + `","timestamp":1,"signature":"` + sig + `"}`, ErrWrongType, "version", TypeHello},
		{"hello short nonce", `{"type":"hello","version":1,"validator_address":"` + addr + `","nonce":"abcd","timestamp":1,"signature":"` + sig + `"}`, ErrInvalidValue, "nonce", TypeHello},
		{"hello_ack bad address", `{"type":"hello_ack","version":1,"miner_address":"0x12","nonce":"` + nonce + `","timestamp":1,"signature":"` + sig + `"}`, ErrInvalidValue, "miner_address", TypeHelloAck},
		{"hello_ack bad signature hex", `{"type":"hello_ack","version":1,"miner_address":"` + addr + `","nonce":"` + nonce + `","timestamp":1,"signature":"0x12"}`, ErrInvalidValue, "signature", TypeHelloAck},
		{"timestamp overflows", `{"type":"hello_ack","version":1,"miner_address":"` + addr + `","nonce":"` + nonce + `","timestamp":123456789012345678901234567890,"signature":"` + sig + `"}`, ErrWrongType, "", TypeHelloAck},
		{"observation both result and error", `{"type":"observation","episode_id":"e","step":0,"results":[{"tool_call_id":"1","result":1,"error":{"code":"x","message":"y"}}]}`, ErrInvalidValue, "results[0]", TypeObservation},
		{"observation ok", `{"type":"observation","episode_id":"e","step":0,"results":[{"tool_call_id":"1","error":{"code":"x","message":"y"}}]}`, nil, "", TypeObservation},
		{"episode_start bad limits", `{"type":"episode_start","episode_id":"e","query":"q","tools":[],"limits":{"max_frame_bytes":1}}`, ErrMissingField, "limits.max_think_bytes", TypeEpisodeStart},
		{"episode_end ok", `{"type":"episode_end","episode_id":"e","reason":"terminated"}`, nil, "", TypeEpisodeEnd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := Decode([]byte(tt.frame))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if msg.MessageType() != tt.typ {
					t.Fatalf("type %s, want %s", msg.MessageType(), tt.typ)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			for _, other := range []error{ErrMalformed, ErrUnknownType, ErrMissingField, ErrWrongType, ErrInvalidValue} {
				if other != tt.want && errors.Is(err, other) {
					t.Fatalf("error %v also matches %v", err, other)
				}
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Field != tt.field || de.Type != tt.typ {
				t.Fatalf("DecodeError %+v: want field %q type %q", de, tt.field, tt.typ)
			}
		})
	}
}

func TestDecodeErrorAttribution(t *testing.T) {
	_, err := Decode([]byte(`{"type":"gossip","episode_id":"ep1"}`))
	var de *DecodeError
	if !errors.As(err, &de) || de.Episode != "ep1" || de.Reason() != ReasonUnknownType {
		t.Fatalf("got %+v", de)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	resp := "ok"
	msgs := []Message{
		&Step{EpisodeID: "e", Think: "t", ToolCalls: []ToolCall{{ID: "1", Name: "find_product", Parameters: []byte(`{"q":"x"}`)}}, Response: &resp},
		&Observation{EpisodeID: "e", Step: 2, Results: []ToolResult{{ToolCallID: "1", Result: []byte(`[1]`)}, {ToolCallID: "2", Error: &ToolError{Code: "c", Message: "m"}}}},
		&EpisodeEnd{EpisodeID: "e", Reason: ReasonStepTimeout, Detail: "d"},
		&EpisodeStart{EpisodeID: "e", Query: "q", Tools: []byte(`[]`), Limits: DefaultLimits().Wire()},
	}
	for _, m := range msgs {
		t.Run(m.MessageType(), func(t *testing.T) {
			data, err := Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(data)
			if err != nil {
				t.Fatalf("Decode(%s): %v", data, err)
			}
			again, _ := Encode(got)
			if string(again) != string(data) {
				t.Fatalf("round trip changed:\n%s\n%s", data, again)
			}
		})
	}
}

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Limits)
		ok   bool
	}{
		{"defaults", func(*Limits) {}, true},
		{"tiny frame", func(l *Limits) { l.MaxFrameBytes = 100 }, false},
		{"think above frame", func(l *Limits) { l.MaxThinkBytes = l.MaxFrameBytes }, false},
		{"step above episode", func(l *Limits) { l.StepTimeout = 2 * l.EpisodeTimeout }, false},
		{"negative steps", func(l *Limits) { l.MaxSteps = -1 }, false},
		{"zero calls", func(l *Limits) { l.MaxToolCalls = -1 }, false},
		{"short timeouts", func(l *Limits) { l.StepTimeout, l.EpisodeTimeout = time.Millisecond, time.Second }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := DefaultLimits()
			tt.mod(&l)
			if err := l.WithDefaults().Validate(); (err == nil) != tt.ok {
				t.Fatalf("Validate = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestAppendObservationMatchesEncode(t *testing.T) {
	obs := &Observation{EpisodeID: "e<&>\u2028", Step: 7, Results: []ToolResult{
		{ToolCallID: "1", Result: []byte(`[{"product_id":"1","title":"a \"b\""}]`)},
		{ToolCallID: "2<", Error: &ToolError{Code: "not_found", Message: "unknown id \"x\" <b>"}},
	}}
	want, err := Encode(obs)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendObservation(nil, obs); string(got) != string(want) {
		t.Fatalf("appendObservation:\n%s\nEncode:\n%s", got, want)
	}
}

// FuzzDecodeObject: the fast split of a frame gives the fields that
// json.Unmarshal into a map gives, for every input; keys that are not
// valid UTF-8 (which encoding/json rewrites and no schema names) aside.
// The seeds run in every `go test`; `go test ./episode -fuzz
// FuzzDecodeObject` searches further.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{`{"type":"infer","episode_id":"e","request_id":"r","body":{"model":"m","messages":[{"role":"user","content":"x"}]}}`,
		`{}`, `null`, `[1,2]`, `{"a":1,"a":2}`, `{"typ\u0065":"step"}`, `{"type":"step","tool_calls":[{"id":"c","name":"n","parameters":{}}]} `,
		`{"a":"\ud800"}`, `{"a":1`, `{"a":01}`, "{\"\xff\":1}", `{"\u0000":[]}`, ` { "x" : { "y" : [ 1 , 2 ] } } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		got, gotErr := decodeObject(frame)
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(frame, &want)
		if (gotErr == nil) != (wantErr == nil) || (got == nil) != (want == nil) {
			t.Fatalf("%q: fast %v (nil %v), encoding/json %v (nil %v)", frame, gotErr, got == nil, wantErr, want == nil)
		}
		for k, v := range want {
			if !utf8.ValidString(k) || strings.ContainsRune(k, utf8.RuneError) {
				continue
			}
			if g, ok := got[k]; !ok || !bytes.Equal(g, v) {
				t.Fatalf("%q: key %q fast %q, encoding/json %q", frame, k, g, v)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok && utf8.ValidString(k) && !strings.ContainsRune(k, utf8.RuneError) {
				t.Fatalf("%q: fast has key %q that encoding/json has not", frame, k)
			}
		}
	})
}
