package chain

import (
	"encoding/binary"
	"fmt"

	"golang.org/x/crypto/blake2b"
)

// scaleWriter appends SCALE (parity-scale-codec) encodings. Only the shapes
// the weights commit needs are implemented: fixed bytes, u16, u64, Vec<u16>.
type scaleWriter struct{ buf []byte }

func (w *scaleWriter) raw(b []byte) { w.buf = append(w.buf, b...) }

func (w *scaleWriter) u16(v uint16) { w.buf = binary.LittleEndian.AppendUint16(w.buf, v) }

func (w *scaleWriter) u64(v uint64) { w.buf = binary.LittleEndian.AppendUint64(w.buf, v) }

// compact appends a SCALE compact integer. The two low bits of the first byte
// select the mode: 0b00 single byte, 0b01 two bytes, 0b10 four bytes, 0b11
// big-integer with a length prefix.
func (w *scaleWriter) compact(n uint64) {
	switch {
	case n < 1<<6:
		w.buf = append(w.buf, byte(n<<2))
	case n < 1<<14:
		w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(n<<2|0b01))
	case n < 1<<30:
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(n<<2|0b10))
	default:
		var le [8]byte
		binary.LittleEndian.PutUint64(le[:], n)
		size := 8
		for size > 4 && le[size-1] == 0 {
			size--
		}
		w.buf = append(w.buf, byte((size-4)<<2|0b11))
		w.buf = append(w.buf, le[:size]...)
	}
}

func (w *scaleWriter) vecU16(vs []uint16) {
	w.compact(uint64(len(vs)))
	for _, v := range vs {
		w.u16(v)
	}
}

// CommitPreimage is SCALE(account, netuid, uids, values, salt, version_key),
// the tuple subtensor hashes for a weights commit.
func CommitPreimage(account AccountID, netuid uint16, uids, values, salt []uint16, versionKey uint64) []byte {
	w := scaleWriter{buf: make([]byte, 0, 32+2+8+3*4+2*(len(uids)+len(values)+len(salt)))}
	w.raw(account[:])
	w.u16(netuid)
	w.vecU16(uids)
	w.vecU16(values)
	w.vecU16(salt)
	w.u64(versionKey)
	return w.buf
}

// CommitHash is blake2_256 of CommitPreimage: what commitWeights takes and
// what revealWeights must reproduce.
func CommitHash(account AccountID, netuid uint16, uids, values, salt []uint16, versionKey uint64) [32]byte {
	return blake2b.Sum256(CommitPreimage(account, netuid, uids, values, salt, versionKey))
}

// checkVectors rejects what the chain would: mismatched lengths.
func checkVectors(uids, values []uint16) error {
	if len(uids) != len(values) {
		return fmt.Errorf("%w: %d uids, %d values", ErrLengthMismatch, len(uids), len(values))
	}
	return nil
}
