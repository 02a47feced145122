package shop

import (
	"fmt"
	"os"
	"sync"
)

// recordFile reads a persisted catalog's records with pread instead of
// through the file mapping. Through a mapping, the kernel maps up to 16
// neighbouring cached pages on each fault ("fault-around"), so serving
// random products soon shows nearly the whole records part, most of the
// file, in the process's resident memory. Read this way, the records stay in
// the page cache and only the few being rendered are in the heap; a search
// reads at most a page of 10.
//
// Whole-catalog scans (package knowledge at start, Stats) read positions in
// order; a read that continues the previous one fetches a chunk of the
// following records at once, so a scan costs one read per chunk.
type recordFile struct {
	f    *os.File
	base int64 // file offset of the records part

	mu sync.Mutex
	// chunk holds positions lo..hi-1, read ahead for a sequential scan;
	// next is the position after the last one asked for.
	lo, hi, next int
	chunk        []byte
}

// recChunk is the read-ahead of a sequential scan.
const recChunk = 256 << 10

// record returns position i's record bytes. The slice is the caller's (or
// shared by products decoded from one chunk): nothing writes it again.
func (rf *recordFile) record(c *Catalog, i int) []byte {
	start, end := c.recOff[i], c.recOff[i+1]
	rf.mu.Lock()
	if i >= rf.lo && i < rf.hi {
		first := c.recOff[rf.lo]
		b := rf.chunk[start-first : end-first : end-first]
		rf.next = i + 1
		rf.mu.Unlock()
		return b
	}
	sequential := i == rf.next
	rf.next = i + 1
	rf.mu.Unlock()
	if !sequential {
		b := make([]byte, end-start)
		rf.read(b, start)
		return b
	}
	j := i + 1
	for j < c.n && c.recOff[j+1]-start <= recChunk {
		j++
	}
	b := make([]byte, c.recOff[j]-start)
	rf.read(b, start)
	rf.mu.Lock()
	rf.lo, rf.hi, rf.chunk = i, j, b
	rf.mu.Unlock()
	return b[: end-start : end-start]
}

// read fills b from the records part at off. The file was checked whole
// when it was opened, so a failure is an I/O error of the disk under it:
// the caller panics, and Tools.Execute answers that call with an internal
// error.
func (rf *recordFile) read(b []byte, off uint64) {
	if _, err := rf.f.ReadAt(b, rf.base+int64(off)); err != nil {
		panic(fmt.Sprintf("shop: read catalog record: %v", err))
	}
}

// recordSize is the length of the record at the start of b.
func recordSize(b []byte) int {
	r := recordReader{b: b}
	for range 5 {
		r.text()
	}
	for range 3 {
		r.uvarint()
	}
	if n := r.uvarint(); n > 0 {
		r.uvarint()
		for range n {
			r.uvarint()
			for range r.uvarint() {
				r.uvarint()
			}
		}
	}
	if n := r.uvarint(); n > 0 {
		r.uvarint()
		for range n {
			for range r.uvarint() {
				r.uvarint()
				r.uvarint()
			}
		}
	}
	return len(b) - len(r.b)
}
