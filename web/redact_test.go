package web

import (
	"strings"
	"testing"
)

// TestPublicDetail: an end detail that names an address keeps only the
// reason after the last one; one that names none is left as it is.
func TestPublicDetail(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"dial 127.0.0.1:18093: dial tcp 127.0.0.1:18093: connect: connection refused", "connect: connection refused"},
		{"dial 203.0.113.7:8091: context deadline exceeded", "context deadline exceeded"},
		{"dial [2001:db8::7]:8091: dial tcp [2001:db8::7]:8091: connect: network is unreachable", "connect: network is unreachable"},
		{"read tcp 10.0.0.1:51234->10.0.0.2:8091: i/o timeout", "i/o timeout"},
		{"websocket: bad handshake from ws://198.51.100.4:8091/arena/v1", "(address withheld)"},
		{"dial miner.example:8091: lookup miner.example: no such host", "lookup miner.example: no such host"},
		{"dial localhost:8091: connection reset by peer", "connection reset by peer"},
		{"handshake with 2001:db8::7 failed: wrong protocol version", "failed: wrong protocol version"},
		{"198.51.100.4:8091", "(address withheld)"},
		{"uid 3 serves no axon", "uid 3 serves no axon"},
		{"step 3: tool call 2: bad parameters", "step 3: tool call 2: bad parameters"},
		{"miner sent 1.5 MB at 12:30: frame too large", "miner sent 1.5 MB at 12:30: frame too large"},
		{"", ""},
	} {
		if got := publicDetail(tt.in); got != tt.want {
			t.Errorf("publicDetail(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestEscapeBidi: every bidirectional control becomes its JSON escape, and
// other text is left alone.
func TestEscapeBidi(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"q": "a` + "\u202e" + `bc"}`, `{"q": "a\u202ebc"}`},
		{"\u2066x\u2069\u200f", `\u2066x\u2069\u200f`},
		{"עברית and ascii", "עברית and ascii"},
	} {
		if got := escapeBidi(tt.in); got != tt.want {
			t.Errorf("escapeBidi(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, r := range bidiControls {
		if strings.ContainsRune(escapeBidi(string(r)), r) {
			t.Errorf("%U left as is", r)
		}
	}
}
