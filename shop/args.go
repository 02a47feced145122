package shop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file turns the raw JSON arguments of a tool call into typed values.
// Models send arguments in many shapes (page as 2 or "2", ids as one
// comma list or a JSON array, the whole object JSON-encoded inside a
// string as OpenAI's API does), so parsing is lenient about shape and
// strict about meaning.

// argMap is a tool call's arguments by name.
type argMap map[string]json.RawMessage

// parseArgs decodes the arguments object. Empty input and null mean no
// arguments. A JSON string holding an object is unwrapped once.
func parseArgs(raw json.RawMessage) (argMap, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return argMap{}, nil
	}
	if raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err == nil {
			inner = strings.TrimSpace(inner)
			if inner == "" {
				return argMap{}, nil
			}
			raw = json.RawMessage(inner)
		}
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("arguments must be a JSON object such as {\"q\": \"running shoes\", \"page\": 1}")
	}
	var m argMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	return m, nil
}

// text reads a string argument; numbers are taken by their literal text.
// ok is false when the argument is absent or null.
func (m argMap) text(name string) (s string, ok bool, err error) {
	v, found := m[name]
	if !found {
		return "", false, nil
	}
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0 || string(v) == "null":
		return "", false, nil
	case v[0] == '"':
		if err := json.Unmarshal(v, &s); err != nil {
			return "", false, fmt.Errorf("%s: %v", name, err)
		}
		return s, true, nil
	case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
		var n json.Number
		if err := json.Unmarshal(v, &n); err != nil {
			return "", false, fmt.Errorf("%s: %v", name, err)
		}
		return n.String(), true, nil
	}
	return "", false, fmt.Errorf("%s must be a string, got %s", name, describeJSON(v))
}

// list reads a comma-separated string argument, or a JSON array of strings
// and numbers, into trimmed non-empty items.
func (m argMap) list(name string) (items []string, ok bool, err error) {
	v, found := m[name]
	if !found {
		return nil, false, nil
	}
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '[' {
		var raw []json.RawMessage
		if err := json.Unmarshal(v, &raw); err != nil {
			return nil, false, fmt.Errorf("%s: %v", name, err)
		}
		for i, e := range raw {
			s, ok, err := argMap{name: e}.text(name)
			if err != nil || !ok {
				return nil, false, fmt.Errorf("%s[%d] must be a string, got %s", name, i, describeJSON(e))
			}
			items = append(items, splitList(s)...)
		}
		return items, true, nil
	}
	s, ok, err := m.text(name)
	if err != nil || !ok {
		return nil, ok, err
	}
	return splitList(s), true, nil
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// page reads find_product's page: an integer, or a string holding one.
func (m argMap) page() (int, bool, error) {
	v, found := m["page"]
	if !found {
		return 0, false, nil
	}
	v = bytes.TrimSpace(v)
	bad := func() (int, bool, error) {
		return 0, false, fmt.Errorf("page must be an integer from 1 to %d, got %s", MaxPages, describeJSON(v))
	}
	switch {
	case len(v) == 0 || string(v) == "null":
		return 0, false, nil
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return bad()
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return bad()
		}
		return n, true, nil
	case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
			return bad()
		}
		return int(f), true, nil
	}
	return bad()
}

// describeJSON names a JSON value for an error message without echoing an
// arbitrarily long payload, or invalid UTF-8, back to the agent.
func describeJSON(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	kind := "a value"
	switch v[0] {
	case '{':
		kind = "an object"
	case '[':
		kind = "an array"
	case '"':
		kind = "a string"
	case 't', 'f':
		kind = "a boolean"
	case 'n':
		return "null"
	default:
		kind = "a number"
	}
	if len(v) <= 40 && utf8.Valid(v) {
		return kind + " " + string(v)
	}
	return kind
}

// ParseServices parses find_product's service argument: a comma list of
// official, freeShipping, COD and flashsale (any case). "default" entries
// mean no filter and are ignored, as in ShoppingBench.
func ParseServices(s string) (Services, error) {
	return parseServiceList(splitList(s))
}

func parseServiceList(names []string) (Services, error) {
	var out Services
	for _, n := range names {
		if strings.EqualFold(n, "default") {
			continue
		}
		b, ok := ParseService(n)
		if !ok {
			return 0, fmt.Errorf("unknown service %q: want a comma list of official, freeShipping, COD, flashsale (or default)", clip(n, 40))
		}
		out |= b
	}
	return out, nil
}
