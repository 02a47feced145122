package episode

import (
	"errors"
	"testing"
)

// FuzzDecode feeds arbitrary frames to Decode. It must never panic; every
// failure must be exactly one of the decode error kinds; and a frame it
// accepts must survive Encode → Decode → Encode unchanged, so the
// validator never records a message it could not reproduce.
// Seeds live in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"type":"step","episode_id":"e","think":"t","tool_calls":[{"id":"1","name":"find_product","parameters":{"q":"x","page":1}}]}`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, err := Decode(frame)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *DecodeError: %v", err, err)
			}
			kinds := 0
			for _, k := range []error{ErrMalformed, ErrUnknownType, ErrMissingField, ErrWrongType, ErrInvalidValue} {
				if errors.Is(err, k) {
					kinds++
				}
			}
			if kinds != 1 {
				t.Fatalf("error %v matches %d kinds", err, kinds)
			}
			_ = de.Reason()
			return
		}
		data, err := Encode(msg)
		if err != nil {
			t.Fatalf("Encode(%T): %v", msg, err)
		}
		again, err := Decode(data)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", data, err)
		}
		data2, err := Encode(again)
		if err != nil || string(data2) != string(data) {
			t.Fatalf("round trip unstable:\n%s\n%s", data, data2)
		}
	})
}
