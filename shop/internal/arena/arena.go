// Package arena packs many small immutable values into large shared blocks.
//
// A catalog holds millions of short strings and tiny slices that live as
// long as the process. Allocated one by one, they end up scattered among the
// temporary garbage made while parsing or generating them, so the heap
// keeps mostly-empty spans alive (measured: 370 MB in use for 210 MB of
// products) and every garbage collection has millions of objects to mark.
// Copying them into blocks of a few hundred kilobytes removes both costs.
//
// Values handed out by an arena alias its blocks, which are never written
// again after a value is handed out. An arena itself is not safe for
// concurrent use: give each goroutine its own.
package arena

import "unsafe"

// blockSize is the size of a new block. Values larger than a quarter of a
// block get a block of their own, so the waste at a block's end stays small.
const blockSize = 256 << 10

// Strings copies strings into shared byte blocks.
type Strings struct {
	buf []byte
}

// Bytes returns a string with b's content, stored in the arena.
func (a *Strings) Bytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > blockSize/4 {
		return string(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, blockSize)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	// The bytes at buf[start:] are never modified again: later appends
	// only write past them, and a full block is replaced, not reused.
	return unsafe.String(&a.buf[start], len(b))
}

// String returns a copy of s stored in the arena.
func (a *Strings) String(s string) string {
	if len(s) == 0 || len(s) > blockSize/4 {
		return s
	}
	return a.Bytes(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// Slices copies slices of T into shared blocks.
type Slices[T any] struct {
	buf []T
}

// Copy returns a copy of src stored in the arena, with its capacity cut to
// its length so an append by a reader reallocates instead of overwriting a
// neighbour. It returns nil for an empty src.
func (a *Slices[T]) Copy(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	var zero T
	per := max(1, blockSize/max(1, int(unsafe.Sizeof(zero))))
	if len(src) > per/4 {
		return append([]T(nil), src...)
	}
	if cap(a.buf)-len(a.buf) < len(src) {
		a.buf = make([]T, 0, per)
	}
	start := len(a.buf)
	a.buf = append(a.buf, src...)
	return a.buf[start:len(a.buf):len(a.buf)]
}
