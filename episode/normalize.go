package episode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"arena/shop"
)

// Miner input is normalised where it enters the validator, before a tool
// runs on it and before it is stored, so the store, the API, the consoles
// and the export all hold one form (docs/security.md, "Miner text"):
//
//   - text is valid UTF-8: an invalid byte sequence becomes U+FFFD, as does
//     a lone surrogate escape (\ud800) in JSON;
//   - control characters are removed, except newline and tab (so \r\n
//     becomes \n, and NUL, ESC and the C1 controls go);
//   - a tool call's parameters keep only the keys its tool's schema names
//     (all keys of an unknown tool are dropped), an object value becomes
//     {} (no tool accepts one), and the rest is canonical JSON;
//   - ids and tool names are bounded.
//
// Normalising is idempotent, and StepFromCompletion applies the same rules
// to a relay completion, so a v2 step still equals its completion exactly.

const (
	// maxCallIDBytes bounds a tool call's id and a step's completion_id:
	// providers' ids are a few dozen bytes.
	maxCallIDBytes = 128
	// maxToolNameBytes bounds a tool call's name; the six tools' names are
	// at most 24 bytes, so a longer one is unknown anyway.
	maxToolNameBytes = 64
)

// NormalText is s as the validator keeps miner text: valid UTF-8, and no
// control characters other than newline and tab.
func NormalText(s string) string {
	if textIsNormal(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToValidUTF8(s, string(utf8.RuneError)) {
		if keepRune(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func keepRune(r rune) bool { return r == '\n' || r == '\t' || !unicode.IsControl(r) }

func textIsNormal(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			// Only the rare string with a control or non-ASCII byte pays
			// for the rune-wise check.
			return utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !keepRune(r) }) < 0
		}
	}
	return true
}

// NormalizeStep normalises a step from a miner in place, as the runner
// does at the boundary before it executes and stores the step (and as
// verification then compares it with its completion).
func NormalizeStep(st *Step) {
	st.Think = NormalText(st.Think)
	if st.Response != nil {
		r := NormalText(*st.Response)
		st.Response = &r
	}
	st.CompletionID = clipBytes(NormalText(st.CompletionID), maxCallIDBytes)
	for i := range st.ToolCalls {
		c := &st.ToolCalls[i]
		c.ID = clipBytes(NormalText(c.ID), maxCallIDBytes)
		c.Name, c.Parameters = normalCall(c.Name, c.Parameters)
	}
}

// normalizeInfer normalises what an infer carries into the validator's
// records: the request id, and the body's JSON text (invalid UTF-8 and
// lone surrogate escapes become U+FFFD, which is what decoding gave them
// anyway, so the prompt's meaning is unchanged).
func normalizeInfer(inf *Infer) {
	inf.RequestID = clipBytes(NormalText(inf.RequestID), maxRequestIDBytes)
	if fixed, _ := scanJSONText(inf.Body, true, false); fixed != nil {
		inf.Body = fixed
	}
}

// normalCall is a tool call's name and parameters as they are executed
// and stored.
func normalCall(name string, params json.RawMessage) (string, json.RawMessage) {
	name = clipBytes(NormalText(name), maxToolNameBytes)
	return name, normalParams(toolParams()[name], params)
}

// toolParams is each tool's parameter names, from the schemas sent in
// episode_start.
var toolParams = sync.OnceValue(func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, s := range shop.ToolSchemas() {
		var p struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(s.Function.Parameters, &p); err != nil {
			panic("episode: shop tool schema " + s.Function.Name + " does not decode: " + err.Error())
		}
		names := map[string]bool{}
		for k := range p.Properties {
			names[k] = true
		}
		out[s.Function.Name] = names
	}
	return out
})

// normalParams keeps the keys in known (none when nil) with normalised
// values, as canonical JSON. Anything that is not a JSON object is {}.
func normalParams(known map[string]bool, raw json.RawMessage) json.RawMessage {
	if out, ok := plainParams(known, raw); ok {
		return out
	}
	return decodedParams(known, raw)
}

// decodedParams is normalParams by decoding every value and encoding the
// kept ones again.
func decodedParams(known map[string]bool, raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || dec.More() || obj == nil {
		return json.RawMessage(`{}`)
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		// Decoding already turned invalid UTF-8 and lone surrogates into
		// U+FFFD; the schema's names are plain ASCII.
		if known[k] {
			out[k] = normalValue(v)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return json.RawMessage(`{}`)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// plainParams is normalParams for the usual call, without a decode into
// values and an encode back: an object whose values are numbers, booleans,
// null or strings that are already normal text written as encoding/json
// writes them. ok is false for anything else (arrays, objects, other
// escapes, non-ASCII), which takes the general path.
func plainParams(known map[string]bool, raw json.RawMessage) (json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return nil, false
	}
	keys := make([]string, 0, len(obj))
	size := 2
	for k, v := range obj {
		if !known[k] {
			continue
		}
		if !plainValue(v) {
			return nil, false
		}
		keys = append(keys, k)
		size += len(k) + len(v) + 4
	}
	slices.Sort(keys)
	out := make([]byte, 0, size)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		// The schema's names are plain ASCII words: quoting them is
		// writing them between quotes.
		out = append(out, '"')
		out = append(out, k...)
		out = append(out, '"', ':')
		out = append(out, obj[k]...)
	}
	return append(out, '}'), true
}

// plainValue reports a JSON scalar that normalValue and encoding/json
// would write back byte for byte: a number, true, false, null, or a
// string of printable ASCII whose only escapes are \", \\, \n and \t.
func plainValue(v json.RawMessage) bool {
	if len(v) == 0 {
		return false
	}
	switch c := v[0]; {
	case c == '"':
		for i := 1; i < len(v)-1; i++ {
			switch c := v[i]; {
			case c == '\\':
				i++
				if e := v[i]; e != '"' && e != '\\' && e != 'n' && e != 't' {
					return false
				}
			case c < 0x20 || c >= 0x7f:
				return false
			}
		}
		return true
	case c == '-' || c >= '0' && c <= '9', c == 't', c == 'f', c == 'n':
		return true
	}
	return false
}

func normalValue(v any) any {
	switch v := v.(type) {
	case string:
		return NormalText(v)
	case []any:
		for i := range v {
			v[i] = normalValue(v[i])
		}
		return v
	case map[string]any:
		return map[string]any{}
	}
	return v
}

// JSONTextProblem describes the first string in the JSON text raw that is
// not valid UTF-8, holds a lone surrogate escape, or holds a control
// character other than newline and tab (raw or escaped); "" when there is
// none. raw need not be valid JSON beyond its strings.
func JSONTextProblem(raw []byte) string {
	_, problem := scanJSONText(raw, false, true)
	return problem
}

// JSONEncodingProblem is JSONTextProblem without the control characters:
// what a strict decoder followed by a UTF-8 encoder refuses.
func JSONEncodingProblem(raw []byte) string {
	_, problem := scanJSONText(raw, false, false)
	return problem
}

// scanJSONText scans the strings of the JSON text raw. With fix, it
// returns a copy whose invalid UTF-8 and lone surrogate escapes are
// replaced by U+FFFD (nil when there was nothing to replace); control
// characters are reported when controls is set, never changed. problem
// names the first thing found.
func scanJSONText(raw []byte, fix, controls bool) (fixed []byte, problem string) {
	var out []byte
	note := func(at int, what string) {
		if problem == "" {
			problem = fmt.Sprintf("%s at byte %d", what, at)
		}
	}
	copied := 0
	replace := func(from, to int, with string) {
		if !fix {
			return
		}
		if out == nil {
			out = make([]byte, 0, len(raw)+8)
		}
		out = append(out, raw[copied:from]...)
		out = append(out, with...)
		copied = to
	}
	inString := false
	for i := 0; i < len(raw); {
		c := raw[i]
		if !inString {
			if c == '"' {
				inString = true
			}
			i++
			continue
		}
		switch {
		case c == '"':
			inString = false
			i++
		case c == '\\' && i+1 < len(raw) && raw[i+1] == 'u' && i+6 <= len(raw):
			r, ok := hex4(raw[i+2 : i+6])
			if !ok {
				i += 2
				continue
			}
			switch {
			case r >= 0xD800 && r < 0xDC00:
				if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					if lo, ok := hex4(raw[i+8 : i+12]); ok && lo >= 0xDC00 && lo < 0xE000 {
						i += 12
						continue
					}
				}
				note(i, fmt.Sprintf(`lone surrogate \u%04x`, r))
				replace(i, i+6, `\ufffd`)
			case r >= 0xDC00 && r < 0xE000:
				note(i, fmt.Sprintf(`lone surrogate \u%04x`, r))
				replace(i, i+6, `\ufffd`)
			case controls && !keepRune(rune(r)):
				note(i, fmt.Sprintf(`control character \u%04x`, r))
			}
			i += 6
		case c == '\\':
			if controls && i+1 < len(raw) && raw[i+1] != 'n' && raw[i+1] != 't' && strings.IndexByte(`bfr`, raw[i+1]) >= 0 {
				note(i, fmt.Sprintf(`control character \%c`, raw[i+1]))
			}
			i += 2
		case c < 0x20:
			if controls {
				note(i, fmt.Sprintf("control character %U", rune(c)))
			}
			i++
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n <= 1 {
				note(i, fmt.Sprintf("invalid UTF-8 byte %#02x", c))
				replace(i, i+1, string(utf8.RuneError))
				i++
				continue
			}
			if controls && !keepRune(r) {
				note(i, fmt.Sprintf("control character %U", r))
			}
			i += n
		}
	}
	if out == nil {
		return nil, problem
	}
	return append(out, raw[copied:]...), problem
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// storedBytes is what a step adds to its episode's record: the miner's
// text and calls, and the results the validator keeps for them.
func storedBytes(rec *StepRecord) int {
	n := len(rec.Think) + len(rec.CompletionID)
	if rec.Response != nil {
		n += len(*rec.Response)
	}
	for _, c := range rec.ToolCalls {
		n += len(c.ID) + len(c.Name) + len(c.Parameters)
	}
	for _, r := range rec.Results {
		n += len(r.ToolCallID) + len(r.Result)
		if r.Error != nil {
			n += len(r.Error.Code) + len(r.Error.Message)
		}
	}
	return n
}
