package judge

import "math/bits"

// table maps lowercase ASCII tokens to their entries: the think tokens of
// one trajectory (a few hundred at most). It replaces a Go map on the
// judge's hot path, where every observed id, shop_id, price and attribute
// word is looked up: the lookup folds ASCII case while hashing and
// comparing, so observed bytes are looked up as they are, without a
// lowercased copy. Open addressing, linear probing, at most half full.
type table struct {
	slots []slot
	n     int
}

type slot struct {
	h   uint64
	key string // lowercase
	e   *entry
}

// maxLookup is the longest token looked up; longer observed values never
// match (as with the map it replaces).
const maxLookup = 96

func (t *table) reset() {
	if t.slots == nil {
		t.slots = make([]slot, 256)
	}
	if t.n > 0 {
		clear(t.slots)
	}
	t.n = 0
}

func (t *table) len() int { return t.n }

// hashFold hashes b with ASCII letters folded to lowercase (and, for
// speed, any byte with bit 0x20 set: a few more collisions, never a
// wrong answer, since lookups compare).
func hashFold[T string | []byte](b T) uint64 {
	h := uint64(len(b)) * 0x9e3779b97f4a7c15
	for len(b) >= 8 {
		_ = b[7]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		hi, lo := bits.Mul64(h^(x|0x2020202020202020), 0xa0761d6478bd642f)
		h = hi ^ lo
		b = b[8:]
	}
	if len(b) > 0 {
		var x uint64
		for i := 0; i < len(b); i++ {
			x |= uint64(b[i]|0x20) << (8 * i)
		}
		hi, lo := bits.Mul64(h^x, 0xe7037ed1a0b428db)
		h = hi ^ lo
	}
	return h
}

// equalFold reports whether b lowercased (ASCII letters only) is key.
func equalFold[T string | []byte](key string, b T) bool {
	if len(key) != len(b) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != key[i] {
			return false
		}
	}
	return true
}

// get is the entry of the observed value b lowercased, or nil. Values
// longer than maxLookup never match (no think token is looked up that
// long a value: as with the map this replaces).
func (t *table) get(b []byte) *entry {
	if t.n == 0 || len(b) == 0 || len(b) > maxLookup {
		return nil
	}
	return find(t, b, hashFold(b))
}

func find[T string | []byte](t *table, b T, h uint64) *entry {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		sl := &t.slots[i]
		if sl.e == nil {
			return nil
		}
		if sl.h == h && equalFold(sl.key, b) {
			return sl.e
		}
	}
}

// getString is the entry of the token key (any case), or nil.
func (t *table) getString(key string) *entry {
	if t.n == 0 {
		return nil
	}
	return find(t, key, hashFold(key))
}

// put adds the lowercase token key, not present yet, with e.
func (t *table) put(key string, e *entry) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	t.insert(slot{h: hashFold(key), key: key, e: e})
	t.n++
}

func (t *table) insert(s slot) {
	mask := uint64(len(t.slots) - 1)
	i := s.h & mask
	for t.slots[i].e != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

func (t *table) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	for _, s := range old {
		if s.e != nil {
			t.insert(s)
		}
	}
}
