package raw

import (
	"slices"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := []uint32{1, 1 << 20, 7, 0xffffffff}
	out, err := Slice[uint32](Bytes(in))
	if err != nil || !slices.Equal(in, out) {
		t.Fatalf("Slice(Bytes(%v)) = %v, %v", in, out, err)
	}
	if !LittleEndian() {
		t.Skip("persisted files are refused on this machine")
	}
	if b := Bytes([]uint16{0x0102}); b[0] != 2 || b[1] != 1 {
		t.Fatalf("Bytes of 0x0102 = %v, want little-endian", b)
	}
}

func TestSliceRejects(t *testing.T) {
	buf := make([]byte, 64)
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"ragged length", buf[:13], "whole number"},
		{"misaligned", buf[1:9], "aligned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Slice[uint64](tt.b); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Slice = %v, want an error naming %q", err, tt.want)
			}
		})
	}
	if v, err := Slice[uint64](nil); err != nil || v != nil {
		t.Fatalf("Slice(nil) = %v, %v", v, err)
	}
}
