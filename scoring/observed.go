package scoring

import (
	"bytes"
	"encoding/json"
	"strconv"

	"arena/episode"
)

// ObservedIDs returns the product ids that tools returned to the agent in
// t: every "product_id" value (string or number) anywhere in a successful
// tool result. Error observations and the agent's own text (think,
// response, call parameters) are not evidence and are ignored. The result
// is never nil, so passing it as Input.Observed always checks grounding.
//
// Results are written by the validator, so they are valid JSON; the scan
// relies on that. In valid JSON the bytes "product_id" followed by ':'
// can only be an object key (an unescaped quote cannot occur inside a
// string), so a seller's description mentioning product_id is never read
// as an id. The scan is a byte search, about 20 times faster than
// decoding every result.
func ObservedIDs(t *episode.Trajectory) map[string]bool {
	seen := map[string]bool{}
	eachResult(t, func(b []byte) {
		scanIDs(b, func(id []byte) {
			if !seen[string(id)] {
				seen[string(id)] = true
			}
		})
	})
	return seen
}

// ObservedAmong is ObservedIDs restricted to ids: the returned set holds
// those of ids that a tool returned in t. It is all Rules needs (it only
// looks up the answered ids) and avoids building the full set, which is
// most of the cost of grounding a long trajectory.
func ObservedAmong(t *episode.Trajectory, ids []string) map[string]bool {
	seen := make(map[string]bool, len(ids))
	eachResult(t, func(b []byte) {
		if len(seen) == len(ids) {
			return
		}
		scanIDs(b, func(id []byte) {
			for _, want := range ids {
				if string(id) == want {
					seen[want] = true
				}
			}
		})
	})
	return seen
}

// MarkObserved is ObservedAmong for one tool result: it sets seen[j]
// for every ids[j] that is a "product_id" value in result (read as
// ObservedIDs reads it). Over every successful result of a trajectory
// (see ObservedAmong for which results count) the ids marked are exactly
// those in ObservedAmong's set. It lets a caller that already reads each
// result build the grounding set in the same pass (judge.EvaluateBatch).
// seen must be at least as long as ids.
func MarkObserved(result []byte, ids []string, seen []bool) {
	scanIDs(result, func(id []byte) {
		for j, want := range ids {
			if string(id) == want {
				seen[j] = true
			}
		}
	})
}

// eachResult calls fn with every successful tool result of t.
func eachResult(t *episode.Trajectory, fn func([]byte)) {
	if t == nil {
		return
	}
	for i := range t.Steps {
		for _, r := range t.Steps[i].Results {
			if r.Error != nil || len(r.Result) == 0 {
				continue
			}
			fn(r.Result)
		}
	}
}

// scanIDs calls found with every value of a "product_id" key in the
// JSON b: a string's text, or a number in its shortest decimal form. The
// slice is only valid during the call.
func scanIDs(b []byte, found func(id []byte)) {
	const key = `"product_id"`
	const under = 8 // index of '_' in key: '_' is rare in JSON, so it is the byte searched for
	for {
		i := bytes.IndexByte(b, '_')
		if i < 0 {
			return
		}
		if i < under || len(b)-i < len(key)-under || string(b[i-under:i-under+len(key)]) != key {
			b = b[i+1:]
			continue
		}
		b = skipSpace(b[i-under+len(key):])
		if len(b) == 0 || b[0] != ':' {
			continue
		}
		b = skipSpace(b[1:])
		if len(b) == 0 {
			return
		}
		switch c := b[0]; {
		case c == '"':
			end, escaped := 1, false
			for end < len(b) && b[end] != '"' {
				if b[end] == '\\' {
					escaped = true
					end++
				}
				end++
			}
			if end >= len(b) {
				return
			}
			tok := b[1:end]
			if escaped {
				var s string
				if json.Unmarshal(b[:end+1], &s) == nil {
					found([]byte(s))
				}
			} else {
				found(tok)
			}
			b = b[end+1:]
		case c == '-' || (c >= '0' && c <= '9'):
			end := 0
			for end < len(b) && bytes.IndexByte([]byte("0123456789+-.eE"), b[end]) >= 0 {
				end++
			}
			tok := b[:end]
			if f, err := strconv.ParseFloat(string(tok), 64); err == nil {
				found(strconv.AppendFloat(nil, f, 'f', -1, 64))
			}
			b = b[end:]
		}
	}
}

func skipSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
