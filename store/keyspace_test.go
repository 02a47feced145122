package store

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
)

func update(t *testing.T, s *Store, fn func(txn *badger.Txn) error) {
	t.Helper()
	if err := s.Update(fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s *Store, fn func(txn *badger.Txn) error) {
	t.Helper()
	if err := s.View(fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func TestU64IterationOrder(t *testing.T) {
	s, _ := openTemp(t)
	ks := NewKeyspace(0x10, "test-u64", JSON[uint64]{})
	insert := []uint64{65536, 2, 1 << 40, 256, 1, 0, 255}
	update(t, s, func(txn *badger.Txn) error {
		for _, n := range insert {
			if err := ks.Put(txn, ks.Key(U64(n)), n); err != nil {
				return err
			}
		}
		return nil
	})
	var got []uint64
	view(t, s, func(txn *badger.Txn) error {
		return ks.Iterate(txn, nil, func(key []byte, v uint64) error {
			r := ks.Read(key)
			if k := r.U64(); k != v {
				t.Errorf("key decodes to %d, value is %d", k, v)
			}
			got = append(got, v)
			return r.Done()
		})
	})
	want := []uint64{0, 1, 2, 255, 256, 65536, 1 << 40}
	if !slices.Equal(got, want) {
		t.Fatalf("iteration order %v, want %v", got, want)
	}
}

func TestIntegerPartsSortNumerically(t *testing.T) {
	ks := NewKeyspace(0x10, "test-ints", JSON[int]{})
	tests := []struct {
		name   string
		lo, hi KeyPart
	}{
		{"u16", U16(255), U16(256)},
		{"u16 max", U16(1), U16(65535)},
		{"u32", U32(65535), U32(65536)},
		{"u64", U64(1<<32 - 1), U64(1 << 32)},
		{"string", String("a"), String("ab")},
		{"string with zero", String("a"), String("a\x00")},
		{"zero vs one", String("a\x00"), String("a\x01")},
		{"zero then more", String("a\x00z"), String("a\x01")},
		{"bytes", Bytes([]byte{0xff}), Bytes([]byte{0xff, 0x00})},
		{"empty", String(""), String("\x00")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := ks.Key(tt.lo, U64(99)), ks.Key(tt.hi, U64(0))
			if bytes.Compare(lo, hi) >= 0 {
				t.Errorf("key %x should sort before %x", lo, hi)
			}
		})
	}
}

func TestIteratePrefixDoesNotLeak(t *testing.T) {
	s, _ := openTemp(t)
	type rec struct {
		Group string
		N     uint64
	}
	a := NewKeyspace(0x10, "test-a", JSON[rec]{})
	b := NewKeyspace(0x11, "test-b", JSON[rec]{})
	put := func(txn *badger.Txn, ks Keyspace[rec], group string, n uint64) error {
		return ks.Put(txn, ks.Key(String(group), U64(n)), rec{group, n})
	}
	update(t, s, func(txn *badger.Txn) error {
		for _, step := range []struct {
			ks    Keyspace[rec]
			group string
			n     uint64
		}{
			{a, "a", 2}, {a, "a", 1}, {a, "ab", 1}, {a, "", 7}, {a, "b", 1}, {a, "a\x00", 3},
			{b, "a", 1}, {b, "a", 5},
		} {
			if err := put(txn, step.ks, step.group, step.n); err != nil {
				return err
			}
		}
		return nil
	})
	collect := func(ks Keyspace[rec], prefix ...KeyPart) []rec {
		t.Helper()
		var out []rec
		view(t, s, func(txn *badger.Txn) error {
			return ks.Iterate(txn, prefix, func(key []byte, v rec) error {
				r := ks.Read(key)
				if g, n := r.Str(), r.U64(); g != v.Group || n != v.N {
					t.Errorf("key decodes to (%q,%d), value is %+v", g, n, v)
				}
				out = append(out, v)
				return r.Done()
			})
		})
		return out
	}
	tests := []struct {
		name   string
		ks     Keyspace[rec]
		prefix []KeyPart
		want   []rec
	}{
		{"group a only", a, []KeyPart{String("a")}, []rec{{"a", 1}, {"a", 2}}},
		{"group ab", a, []KeyPart{String("ab")}, []rec{{"ab", 1}}},
		{"empty group", a, []KeyPart{String("")}, []rec{{"", 7}}},
		{"full key", a, []KeyPart{String("a"), U64(2)}, []rec{{"a", 2}}},
		{"whole keyspace a", a, nil, []rec{{"", 7}, {"a", 1}, {"a", 2}, {"a\x00", 3}, {"ab", 1}, {"b", 1}}},
		{"whole keyspace b", b, nil, []rec{{"a", 1}, {"a", 5}}},
		{"missing group", b, []KeyPart{String("zz")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := collect(tt.ks, tt.prefix...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIterateStopAndError(t *testing.T) {
	s, _ := openTemp(t)
	ks := NewKeyspace(0x10, "test-stop", JSON[int]{})
	update(t, s, func(txn *badger.Txn) error {
		for i := range 5 {
			if err := ks.Put(txn, ks.Key(U32(uint32(i))), i); err != nil {
				return err
			}
		}
		return nil
	})
	var seen []int
	err := s.View(func(txn *badger.Txn) error {
		return ks.Iterate(txn, nil, func(_ []byte, v int) error {
			seen = append(seen, v)
			if v == 2 {
				return ErrStop
			}
			return nil
		})
	})
	if err != nil || !slices.Equal(seen, []int{0, 1, 2}) {
		t.Errorf("ErrStop: err %v, seen %v", err, seen)
	}
	boom := errors.New("boom")
	err = s.View(func(txn *badger.Txn) error {
		return ks.Iterate(txn, nil, func([]byte, int) error { return boom })
	})
	if !errors.Is(err, boom) {
		t.Errorf("callback error not returned: %v", err)
	}
}

func TestGetMissing(t *testing.T) {
	s, _ := openTemp(t)
	type rec struct{ A int }
	ks := NewKeyspace(0x10, "test-missing", JSON[rec]{})
	view(t, s, func(txn *badger.Txn) error {
		v, ok, err := ks.Get(txn, ks.Key(U64(42)))
		if err != nil || ok || v != (rec{}) {
			t.Errorf("Get missing = %+v, %v, %v; want zero, false, nil", v, ok, err)
		}
		return nil
	})
}

func TestCodecRoundTrip(t *testing.T) {
	type inner struct {
		Tags []string          `json:"tags"`
		Meta map[string]uint64 `json:"meta"`
	}
	type rec struct {
		ID     uint64  `json:"id"`
		Name   string  `json:"name"`
		Score  float64 `json:"score"`
		Blob   []byte  `json:"blob"`
		Inner  inner   `json:"inner"`
		Ptr    *int    `json:"ptr"`
		Signed int64   `json:"signed"`
	}
	seven := 7
	values := []rec{
		{},
		{ID: 1, Name: "ünïcode \x00 and quotes \"", Score: 0.125, Blob: []byte{0, 1, 255}, Inner: inner{Tags: []string{"a", "b"}, Meta: map[string]uint64{"x": 1 << 63}}, Ptr: &seven, Signed: -5},
	}
	s, _ := openTemp(t)
	ks := NewKeyspace(0x10, "test-codec", JSON[rec]{})
	for i, v := range values {
		key := ks.Key(U64(uint64(i)))
		update(t, s, func(txn *badger.Txn) error { return ks.Put(txn, key, v) })
		view(t, s, func(txn *badger.Txn) error {
			got, ok, err := ks.Get(txn, key)
			if err != nil || !ok {
				t.Fatalf("Get: %v %v", ok, err)
			}
			if !reflect.DeepEqual(got, v) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, v)
			}
			return nil
		})
	}

	// Delete removes the value; deleting again is fine.
	key := ks.Key(U64(1))
	update(t, s, func(txn *badger.Txn) error { return ks.Delete(txn, key) })
	update(t, s, func(txn *badger.Txn) error { return ks.Delete(txn, key) })
	view(t, s, func(txn *badger.Txn) error {
		if _, ok, err := ks.Get(txn, key); ok || err != nil {
			t.Errorf("after Delete: ok=%v err=%v", ok, err)
		}
		return nil
	})
}

func TestDecodeErrorNamesKeyspace(t *testing.T) {
	s, _ := openTemp(t)
	ks := NewKeyspace(0x10, "test-decode", JSON[int]{})
	key := ks.Key(U64(1))
	rawSet(t, s, key, []byte("not json"))
	err := s.View(func(txn *badger.Txn) error {
		_, _, err := ks.Get(txn, key)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "keyspace test-decode: decode") {
		t.Errorf("error %v should name the keyspace", err)
	}
}

func TestKeyspaceRejectsForeignKeys(t *testing.T) {
	s, _ := openTemp(t)
	a := NewKeyspace(0x10, "test-a", JSON[int]{})
	b := NewKeyspace(0x11, "test-b", JSON[int]{})
	tests := []struct {
		name string
		op   func(txn *badger.Txn) error
	}{
		{"put", func(txn *badger.Txn) error { return a.Put(txn, b.Key(U64(1)), 1) }},
		{"get", func(txn *badger.Txn) error { _, _, err := a.Get(txn, b.Key(U64(1))); return err }},
		{"delete", func(txn *badger.Txn) error { return a.Delete(txn, b.Key(U64(1))) }},
		{"bare prefix", func(txn *badger.Txn) error { return a.Put(txn, a.Key(), 1) }},
		{"schema key", func(txn *badger.Txn) error { return a.Delete(txn, schemaKey) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Update(tt.op)
			if err == nil || !strings.Contains(err.Error(), "not in this keyspace") {
				t.Errorf("error %v, want a foreign-key refusal", err)
			}
		})
	}
}

func TestNewKeyspacePanics(t *testing.T) {
	tests := []struct {
		name string
		fn   func()
	}{
		{"meta prefix", func() { NewKeyspace(prefixMeta, "x", JSON[int]{}) }},
		{"badger prefix", func() { NewKeyspace('!', "x", JSON[int]{}) }},
		{"nil codec", func() { NewKeyspace[int](0x10, "x", nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.fn()
		})
	}
}

func TestPrefixRegistry(t *testing.T) {
	for p, name := range prefixNames {
		if reservedPrefix(p) {
			continue
		}
		// Every registered business prefix must be usable by its owner.
		NewKeyspace(p, name, JSON[int]{})
	}
}

func TestKeyReader(t *testing.T) {
	ks := NewKeyspace(0x10, "test-reader", JSON[int]{})
	key := ks.Key(U16(7), U32(1<<20), String("a\x00b\xff"), Bytes(nil), U64(1<<63))
	r := ks.Read(key)
	if v := r.U16(); v != 7 {
		t.Errorf("U16 %d", v)
	}
	if v := r.U32(); v != 1<<20 {
		t.Errorf("U32 %d", v)
	}
	if v := r.Str(); v != "a\x00b\xff" {
		t.Errorf("Str %q", v)
	}
	if v := r.Bytes(); len(v) != 0 {
		t.Errorf("Bytes %x", v)
	}
	if v := r.U64(); v != 1<<63 {
		t.Errorf("U64 %d", v)
	}
	if err := r.Done(); err != nil {
		t.Errorf("Done: %v", err)
	}

	bad := []struct {
		name string
		read func(r *KeyReader)
		key  []byte
	}{
		{"short", func(r *KeyReader) { r.U64() }, ks.Key(U32(1))},
		{"trailing", func(r *KeyReader) { r.U16() }, ks.Key(U32(1))},
		{"unterminated", func(r *KeyReader) { r.Str() }, []byte{0x10, 'a', 'b'}},
		{"bad escape", func(r *KeyReader) { r.Str() }, []byte{0x10, 'a', 0x00, 0x05}},
		{"wrong prefix", func(r *KeyReader) { r.U16() }, []byte{0x11, 0, 1}},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			r := ks.Read(tt.key)
			tt.read(r)
			if err := r.Done(); err == nil || !strings.Contains(err.Error(), "keyspace test-reader") {
				t.Errorf("Done = %v, want a keyspace error", err)
			}
		})
	}
}

// TestIterateReverse: newest-first iteration visits the keyspace's keys in
// descending order, starts strictly below before when it is given, stops
// on ErrStop, and never strays into the neighbouring prefixes.
func TestIterateReverse(t *testing.T) {
	s, _ := openTemp(t)
	below := NewKeyspace(0x10, "test-below", JSON[uint64]{})
	ks := NewKeyspace(0x11, "test-rev", JSON[uint64]{})
	above := NewKeyspace(0x12, "test-above", JSON[uint64]{})
	update(t, s, func(txn *badger.Txn) error {
		for _, n := range []uint64{1, 2, 3, 5, 8, 13, 1 << 63, ^uint64(0)} {
			if err := ks.Put(txn, ks.Key(U64(n)), n); err != nil {
				return err
			}
		}
		if err := below.Put(txn, below.Key(U64(^uint64(0))), 0); err != nil {
			return err
		}
		return above.Put(txn, above.Key(U64(0)), 0)
	})
	collect := func(before []byte, limit int) []uint64 {
		var got []uint64
		view(t, s, func(txn *badger.Txn) error {
			return ks.IterateReverse(txn, nil, before, func(_ []byte, v uint64) error {
				got = append(got, v)
				if len(got) == limit {
					return ErrStop
				}
				return nil
			})
		})
		return got
	}
	for _, tt := range []struct {
		name   string
		before []byte
		limit  int
		want   []uint64
	}{
		{"all", nil, 0, []uint64{^uint64(0), 1 << 63, 13, 8, 5, 3, 2, 1}},
		{"stop after 3", nil, 3, []uint64{^uint64(0), 1 << 63, 13}},
		{"before a stored key", ks.Key(U64(8)), 0, []uint64{5, 3, 2, 1}},
		{"before a missing key", ks.Key(U64(7)), 2, []uint64{5, 3}},
		{"before the first", ks.Key(U64(1)), 0, nil},
		{"before everything above", ks.Key(U64(^uint64(0))), 1, []uint64{1 << 63}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := collect(tt.before, tt.limit); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
