package arena

import (
	"strings"
	"testing"
)

func TestStrings(t *testing.T) {
	var a Strings
	tests := []string{"", "a", "hello world", strings.Repeat("x", blockSize/4+1), strings.Repeat("y", 1000)}
	var got []string
	for _, s := range tests {
		got = append(got, a.String(s))
	}
	// Fill several blocks, then check nothing earlier changed.
	for i := range 5000 {
		a.Bytes([]byte(strings.Repeat("z", i%300)))
	}
	for i, s := range tests {
		if got[i] != s {
			t.Fatalf("value %d changed", i)
		}
	}
}

func TestSlices(t *testing.T) {
	var a Slices[int]
	x := a.Copy([]int{1, 2, 3})
	y := a.Copy([]int{4, 5})
	x = append(x, 99) // must not overwrite y
	if y[0] != 4 || len(x) != 4 {
		t.Fatalf("append overwrote a neighbour: %v %v", x, y)
	}
	if a.Copy(nil) != nil {
		t.Fatal("empty copy is not nil")
	}
	big := make([]int, blockSize)
	if got := a.Copy(big); len(got) != len(big) {
		t.Fatal("large copy")
	}
}
