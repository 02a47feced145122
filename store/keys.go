package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// KeyPart is one component of a key. Build parts with U16, U32, U64, Bytes
// and String; a Keyspace encodes them after its prefix so that byte order of
// the encoded keys equals the natural order of the parts, compared left to
// right (integers numerically, strings and byte slices lexicographically).
type KeyPart struct {
	kind partKind
	n    uint64
	b    []byte
}

type partKind uint8

const (
	kindU16 partKind = iota + 1
	kindU32
	kindU64
	kindBytes
)

// U16 is a 2-byte big-endian key part.
func U16(v uint16) KeyPart { return KeyPart{kind: kindU16, n: uint64(v)} }

// U32 is a 4-byte big-endian key part.
func U32(v uint32) KeyPart { return KeyPart{kind: kindU32, n: uint64(v)} }

// U64 is an 8-byte big-endian key part.
func U64(v uint64) KeyPart { return KeyPart{kind: kindU64, n: v} }

// Bytes is a variable-length key part. It is escaped and terminated (see the
// package doc) so that Bytes("a") sorts before Bytes("ab") and a key built
// from it is never a byte prefix of a key built from a longer value: iterating
// the prefix [Bytes("a")] does not visit keys under [Bytes("ab")].
func Bytes(b []byte) KeyPart { return KeyPart{kind: kindBytes, b: b} }

// String is Bytes for a string.
func String(s string) KeyPart { return KeyPart{kind: kindBytes, b: []byte(s)} }

// Variable-length parts: every 0x00 byte is written as 0x00 0xFF and the part
// ends with 0x00 0x01. The terminator sorts below any escaped or ordinary
// continuation, which keeps lexicographic order.
const (
	escByte  = 0x00
	escZero  = 0xFF
	escFinal = 0x01
)

func appendPart(dst []byte, p KeyPart) []byte {
	switch p.kind {
	case kindU16:
		return binary.BigEndian.AppendUint16(dst, uint16(p.n))
	case kindU32:
		return binary.BigEndian.AppendUint32(dst, uint32(p.n))
	case kindU64:
		return binary.BigEndian.AppendUint64(dst, p.n)
	case kindBytes:
		for _, c := range p.b {
			if c == escByte {
				dst = append(dst, escByte, escZero)
				continue
			}
			dst = append(dst, c)
		}
		return append(dst, escByte, escFinal)
	default:
		panic("store: zero KeyPart; build parts with U16, U32, U64, Bytes or String")
	}
}

func encodedLen(p KeyPart) int {
	switch p.kind {
	case kindU16:
		return 2
	case kindU32:
		return 4
	case kindU64:
		return 8
	default:
		return len(p.b) + 2 + bytes.Count(p.b, []byte{escByte})
	}
}

// errKeyFormat marks keys that do not decode as requested.
var errKeyFormat = errors.New("malformed key")

// KeyReader decodes the parts of a key in the order they were written. The
// first failure sticks: later calls return zero values and Done reports it.
//
//	r := episodes.Read(key)
//	uid, id := r.U16(), r.U64()
//	if err := r.Done(); err != nil { ... }
type KeyReader struct {
	name string
	rest []byte
	err  error
}

func (r *KeyReader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("keyspace %s: %w: %s", r.name, errKeyFormat, fmt.Sprintf(format, args...))
	}
}

func (r *KeyReader) fixed(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.rest) < n {
		r.fail("want %d more bytes, have %d", n, len(r.rest))
		return nil
	}
	b := r.rest[:n]
	r.rest = r.rest[n:]
	return b
}

// U16 reads a U16 part.
func (r *KeyReader) U16() uint16 {
	if b := r.fixed(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

// U32 reads a U32 part.
func (r *KeyReader) U32() uint32 {
	if b := r.fixed(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

// U64 reads a U64 part.
func (r *KeyReader) U64() uint64 {
	if b := r.fixed(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// Bytes reads a Bytes or String part into a new slice.
func (r *KeyReader) Bytes() []byte {
	if r.err != nil {
		return nil
	}
	out := []byte{}
	for i := 0; i < len(r.rest); i++ {
		c := r.rest[i]
		if c != escByte {
			out = append(out, c)
			continue
		}
		if i+1 >= len(r.rest) {
			break
		}
		switch r.rest[i+1] {
		case escZero:
			out = append(out, escByte)
			i++
		case escFinal:
			r.rest = r.rest[i+2:]
			return out
		default:
			r.fail("bad escape 0x%02x in variable-length part", r.rest[i+1])
			return nil
		}
	}
	r.fail("unterminated variable-length part")
	return nil
}

// Str reads a String part.
func (r *KeyReader) Str() string { return string(r.Bytes()) }

// Done returns the first decoding error, or an error if bytes remain after
// the parts read so far.
func (r *KeyReader) Done() error {
	if r.err == nil && len(r.rest) > 0 {
		r.fail("%d unread bytes", len(r.rest))
	}
	return r.err
}
