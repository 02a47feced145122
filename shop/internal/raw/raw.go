// Package raw views slices of fixed-size numbers as bytes and back, without
// copying. The shop persists its catalog and search index as such arrays in
// one file and maps that file into memory at start: the arrays are then used
// in place, so a restart reads no more than the pages queries touch.
//
// The byte layout is the machine's own; files are only read by the machine
// kind that wrote them, which LittleEndian lets a caller check.
package raw

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Number is a fixed-size element type that can be stored as raw bytes.
type Number interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64 | ~int32 | ~int64 | ~float64
}

// LittleEndian reports whether the machine stores numbers little-endian,
// the only layout persisted files are written in.
func LittleEndian() bool {
	var probe [2]byte
	binary.NativeEndian.PutUint16(probe[:], 1)
	return probe[0] == 1
}

// Bytes returns the memory of s as bytes; it aliases s.
func Bytes[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// Slice views b as a slice of T; it aliases b. b's length must be a multiple
// of T's size and its address aligned for T, as every section of a persisted
// file is.
func Slice[T Number](b []byte) ([]T, error) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("%d bytes are not a whole number of %d-byte values", len(b), size)
	}
	if len(b) == 0 {
		return nil, nil
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(unsafe.Alignof(zero)) != 0 {
		return nil, fmt.Errorf("data is not aligned for %d-byte values", size)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size), nil
}

// String views b as a string; it aliases b, which must never change.
func String(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
