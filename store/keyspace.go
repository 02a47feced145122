package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Codec turns values of type V into bytes and back. Unmarshal must not keep a
// reference to data after it returns: the slice belongs to Badger.
type Codec[V any] interface {
	Marshal(V) ([]byte, error)
	Unmarshal(data []byte, v *V) error
}

// JSON is the JSON Codec (encoding/json). It is the default for business
// values: readable in a debugger, tolerant of added fields.
type JSON[V any] struct{}

// Marshal encodes v as JSON.
func (JSON[V]) Marshal(v V) ([]byte, error) { return json.Marshal(v) }

// Unmarshal decodes JSON data into v.
func (JSON[V]) Unmarshal(data []byte, v *V) error { return json.Unmarshal(data, v) }

// ErrStop may be returned by an Iterate callback to end the iteration early;
// Iterate then returns nil.
var ErrStop = errors.New("stop iteration")

// Keyspace is a typed view of all keys that start with one prefix byte. It
// holds no state besides its prefix, name and codec, so declare keyspaces as
// package-level values or struct fields and use them with any transaction.
type Keyspace[V any] struct {
	prefix []byte
	name   string
	codec  Codec[V]
}

// NewKeyspace declares the keyspace under prefix. It panics (a programming
// error, caught by any test that touches the package) when prefix is
// reserved (0x00 meta, '!' Badger-internal), when prefixNames in prefixes.go
// gives prefix to a different name, or when codec is nil.
func NewKeyspace[V any](prefix byte, name string, codec Codec[V]) Keyspace[V] {
	if reservedPrefix(prefix) {
		panic(fmt.Sprintf("store: keyspace %q: prefix 0x%02x is reserved (%s)", name, prefix, prefixNames[prefix]))
	}
	if owner, ok := prefixNames[prefix]; ok && owner != name {
		panic(fmt.Sprintf("store: keyspace %q: prefix 0x%02x belongs to %q", name, prefix, owner))
	}
	if codec == nil {
		panic(fmt.Sprintf("store: keyspace %q: nil codec", name))
	}
	return Keyspace[V]{prefix: []byte{prefix}, name: name, codec: codec}
}

// Name returns the keyspace's name, used in error messages.
func (k Keyspace[V]) Name() string { return k.name }

// Key encodes the prefix followed by parts. With fewer parts than a full key
// it is an iteration prefix.
func (k Keyspace[V]) Key(parts ...KeyPart) []byte {
	n := len(k.prefix)
	for _, p := range parts {
		n += encodedLen(p)
	}
	key := make([]byte, 0, n)
	key = append(key, k.prefix...)
	for _, p := range parts {
		key = appendPart(key, p)
	}
	return key
}

// Read returns a KeyReader over the parts of key, which must belong to this
// keyspace.
func (k Keyspace[V]) Read(key []byte) *KeyReader {
	r := &KeyReader{name: k.name}
	if !bytes.HasPrefix(key, k.prefix) {
		r.fail("key %x lacks prefix %x", key, k.prefix)
		return r
	}
	r.rest = key[len(k.prefix):]
	return r
}

func (k Keyspace[V]) check(key []byte) error {
	if len(key) <= len(k.prefix) || !bytes.HasPrefix(key, k.prefix) {
		return fmt.Errorf("keyspace %s: key %x is not in this keyspace (prefix %x)", k.name, key, k.prefix)
	}
	return nil
}

// Encode is v as Put stores it.
func (k Keyspace[V]) Encode(v V) ([]byte, error) {
	data, err := k.codec.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("keyspace %s: encode: %w", k.name, err)
	}
	return data, nil
}

// Put stores v under key.
func (k Keyspace[V]) Put(txn *badger.Txn, key []byte, v V) error {
	if err := k.check(key); err != nil {
		return err
	}
	data, err := k.codec.Marshal(v)
	if err != nil {
		return fmt.Errorf("keyspace %s: encode %x: %w", k.name, key, err)
	}
	if err := txn.Set(key, data); err != nil {
		return fmt.Errorf("keyspace %s: put %x: %w", k.name, key, err)
	}
	return nil
}

// Get loads the value under key. A missing key is (zero, false, nil).
func (k Keyspace[V]) Get(txn *badger.Txn, key []byte) (V, bool, error) {
	var v V
	if err := k.check(key); err != nil {
		return v, false, err
	}
	item, err := txn.Get(key)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("keyspace %s: get %x: %w", k.name, key, err)
	}
	if err := k.decode(item, &v); err != nil {
		return v, false, err
	}
	return v, true, nil
}

func (k Keyspace[V]) decode(item *badger.Item, v *V) error {
	err := item.Value(func(data []byte) error { return k.codec.Unmarshal(data, v) })
	if err != nil {
		return fmt.Errorf("keyspace %s: decode %x: %w", k.name, item.Key(), err)
	}
	return nil
}

// Delete removes key. Deleting a missing key is not an error.
func (k Keyspace[V]) Delete(txn *badger.Txn, key []byte) error {
	if err := k.check(key); err != nil {
		return err
	}
	if err := txn.Delete(key); err != nil {
		return fmt.Errorf("keyspace %s: delete %x: %w", k.name, key, err)
	}
	return nil
}

// IterateReverse is Iterate in descending key order, starting at the last
// key under the prefix that is below before (nil: the last key under the
// prefix). Pages of newest-first history read only what they show.
func (k Keyspace[V]) IterateReverse(txn *badger.Txn, prefixParts []KeyPart, before []byte, fn func(key []byte, v V) error) error {
	prefix := k.Key(prefixParts...)
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	opts.Reverse = true
	it := txn.NewIterator(opts)
	defer it.Close()
	// A reverse Seek lands on the largest key <= its argument: prefix
	// followed by 0xFF bytes is above every key under the prefix.
	seek := append(bytes.Clone(prefix), bytes.Repeat([]byte{0xFF}, 16)...)
	if before != nil {
		seek = before
	}
	for it.Seek(seek); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		if before != nil && bytes.Equal(item.Key(), before) {
			continue
		}
		var v V
		if err := k.decode(item, &v); err != nil {
			return err
		}
		if err := fn(item.KeyCopy(nil), v); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// Iterate calls fn for every key that starts with Key(prefixParts...), in
// ascending key order, with a copy of the key (fn may keep it) and the
// decoded value. An error from fn ends the iteration and is returned as is,
// except ErrStop, which ends it with nil.
func (k Keyspace[V]) Iterate(txn *badger.Txn, prefixParts []KeyPart, fn func(key []byte, v V) error) error {
	prefix := k.Key(prefixParts...)
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	it := txn.NewIterator(opts)
	defer it.Close()
	for it.Seek(prefix); it.ValidForPrefix(prefix); it.Next() {
		item := it.Item()
		var v V
		if err := k.decode(item, &v); err != nil {
			return err
		}
		if err := fn(item.KeyCopy(nil), v); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}
