package shop

import (
	"fmt"
	"io"
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
// Whole-catalog scans (the index build, package knowledge at start, Stats)
// read positions in order, several at once when their work is split among
// goroutines by range. Each such run of positions is a stream: once a read
// continues one, the chunk of records after it is read at once, so a scan
// costs one read per chunk. A few streams are followed at a time, the least
// recently used giving way to a new one.
type recordFile struct {
	f    io.ReaderAt
	path string
	base int64 // file offset of the records part

	mu      sync.Mutex
	streams [recStreams]recStream
	clock   uint64
}

// recStream is one sequential run: positions lo..hi-1 are in chunk, and
// next is the position after the last one asked for.
type recStream struct {
	lo, hi, next int
	chunk        []byte
	used         uint64
}

const (
	// recChunk is the read-ahead of a sequential scan.
	recChunk = 256 << 10
	// recStreams is how many sequential runs are followed at once.
	recStreams = 4
)

// record returns position i's record bytes. The slice is the caller's (or
// shared by products decoded from one chunk): nothing writes it again.
func (rf *recordFile) record(c *Catalog, i int) []byte {
	start, end := c.recOff[i], c.recOff[i+1]
	rf.mu.Lock()
	rf.clock++
	var s *recStream
	for k := range rf.streams {
		t := &rf.streams[k]
		if i >= t.lo && i < t.hi {
			first := c.recOff[t.lo]
			b := t.chunk[start-first : end-first : end-first]
			t.next, t.used = i+1, rf.clock
			rf.mu.Unlock()
			return b
		}
		if t.next == i && i > 0 {
			s = t
		}
	}
	if s == nil {
		// Not a continuation: read this record alone, and take the least
		// recently used stream for the run it may start.
		s = &rf.streams[0]
		for k := range rf.streams {
			if rf.streams[k].used < s.used {
				s = &rf.streams[k]
			}
		}
		*s = recStream{next: i + 1, used: rf.clock}
		rf.mu.Unlock()
		b := make([]byte, end-start)
		rf.read(b, start)
		return b
	}
	s.next, s.used = i+1, rf.clock
	rf.mu.Unlock()
	j := i + 1
	for j < c.n && c.recOff[j+1]-start <= recChunk {
		j++
	}
	b := make([]byte, c.recOff[j]-start)
	rf.read(b, start)
	rf.mu.Lock()
	// Another caller may have moved this stream on meanwhile; the chunk is
	// still the right one for positions i..j-1.
	s.lo, s.hi, s.chunk = i, j, b
	rf.mu.Unlock()
	return b[: end-start : end-start]
}

// read fills b from the records part at off. The file was checked whole
// when it was opened, so a failure is a fault of the disk under it, or of
// someone changing the file in place: read panics with a *ReadError (see
// RecoverReadError), and Tools.Execute answers that call with an internal
// error.
func (rf *recordFile) read(b []byte, off uint64) {
	if _, err := rf.f.ReadAt(b, rf.base+int64(off)); err != nil {
		panic(&ReadError{Path: rf.path, Err: err})
	}
}

// ReadError is the panic value of a catalog whose index file can no longer
// be read: products and search results cannot be returned with an error, so
// a failed read panics with it. Code that scans a catalog defers
// RecoverReadError to turn it into an error.
type ReadError struct {
	Path string // the index file
	Err  error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("read a product from the index file %s: %v (a disk fault, or the file was changed in place; restart to rebuild it)", e.Path, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// RecoverReadError, deferred, turns a *ReadError panic into *errp; any
// other panic goes on.
func RecoverReadError(errp *error) {
	r := recover()
	if r == nil {
		return
	}
	if re, ok := r.(*ReadError); ok {
		*errp = re
		return
	}
	panic(r)
}
