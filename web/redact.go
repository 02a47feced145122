package web

import (
	"net"
	"net/netip"
	"strings"
	"unicode"
)

// addressWithheld stands for an end detail that was nothing but an address.
const addressWithheld = "(address withheld)"

// publicDetail is what the public listener shows of an episode's end
// detail: an error that names a network endpoint (a miner's axon in
// "dial 203.0.113.7:8091: dial tcp 203.0.113.7:8091: connect: connection
// refused") is cut to the reason after the last address ("connect:
// connection refused"). Miners' endpoints are the operator's to see; the
// reason is what a reader needs.
func publicDetail(detail string) string {
	end := lastAddressEnd(detail)
	if end < 0 {
		return detail
	}
	rest := strings.TrimLeftFunc(detail[end:], func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(":;,->)", r)
	})
	if rest == "" {
		return addressWithheld
	}
	return rest
}

// lastAddressEnd is the byte offset just after the last network address in
// s (a URL, an IP address with or without a port, or a host:port), or -1
// when s names none. Words are split at white space and at "->" (Go's
// "read tcp 10.0.0.1:5->10.0.0.2:80: i/o timeout").
func lastAddressEnd(s string) int {
	last := -1
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		word := s[start:end]
		off := start
		for word != "" {
			piece, rest, cut := strings.Cut(word, "->")
			if isAddress(piece) {
				last = off + len(piece)
			}
			if !cut {
				break
			}
			off += len(piece) + len("->")
			word = rest
		}
		start = -1
	}
	for i, r := range s {
		if unicode.IsSpace(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return last
}

// isAddress reports whether a word (with trailing punctuation) names a
// network endpoint.
func isAddress(word string) bool {
	w := strings.Trim(word, "\"'(),;")
	if strings.Contains(w, "://") {
		return true
	}
	for _, c := range []string{w, strings.TrimRight(w, ":")} {
		if _, err := netip.ParseAddrPort(c); err == nil {
			return true
		}
		if ip, err := netip.ParseAddr(strings.Trim(c, "[]")); err == nil && ip.IsValid() && strings.ContainsAny(c, ".:") {
			return true
		}
		if host, port, err := net.SplitHostPort(c); err == nil && host != "" && isPort(port) && isHostName(host) {
			return true
		}
	}
	return false
}

func isPort(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isHostName reports whether s could be a DNS name (letters, digits,
// hyphens and dots, with a letter somewhere): "localhost", "miner.example".
func isHostName(s string) bool {
	letter := false
	for _, r := range s {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			letter = true
		case '0' <= r && r <= '9', r == '-', r == '.':
		default:
			return false
		}
	}
	return letter
}

// bidiControls are the characters that change the direction of the text
// after them: embeddings, overrides, isolates and marks.
const bidiControls = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

// escapeBidi writes each bidirectional control in JSON text as its \u
// escape. Inside a JSON string that is the same string, and the reader
// sees the control instead of the rest of the line turning around
// (U+202E in a tool call's parameters would otherwise reverse the JSON
// after it).
func escapeBidi(s string) string {
	if !strings.ContainsAny(s, bidiControls) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(bidiControls, r) {
			b.WriteString(`\u`)
			const hex = "0123456789abcdef"
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
