package shop

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"arena/internal/atomicfile"
)

// Writer writes products as JSONL, one product per line, optionally
// gzip-compressed. Output depends only on the products written: the gzip
// header carries no name or time, so equal catalogs give equal bytes.
type Writer struct {
	bw    *bufio.Writer
	gz    *gzip.Writer
	buf   []byte
	count int
	// For files: written to a temporary name and renamed on Close, so a
	// crash or error never leaves a truncated catalog under the real name.
	file *atomicfile.File
	err  error
}

// NewWriter writes to w, gzip-compressed if compress is set. Close flushes
// but does not close w.
func NewWriter(w io.Writer, compress bool) *Writer {
	wr := &Writer{}
	if compress {
		// NewWriterLevel only fails for an invalid level.
		wr.gz, _ = gzip.NewWriterLevel(w, gzip.DefaultCompression)
		wr.bw = bufio.NewWriterSize(wr.gz, 256<<10)
	} else {
		wr.bw = bufio.NewWriterSize(w, 256<<10)
	}
	return wr
}

// CreateFile writes a catalog file at path, gzip-compressed when the name
// ends in ".gz". The file appears under path only after a successful Close.
func CreateFile(path string) (*Writer, error) {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	w := NewWriter(f, strings.HasSuffix(path, ".gz"))
	w.file = f
	return w, nil
}

// Write appends one product.
func (w *Writer) Write(p *Product) error {
	if w.err != nil {
		return w.err
	}
	if err := checkFinite(p.Price); err != nil {
		return fmt.Errorf("product %q: %w", p.ProductID, err)
	}
	w.buf = p.AppendJSON(w.buf[:0])
	w.buf = append(w.buf, '\n')
	if _, err := w.bw.Write(w.buf); err != nil {
		w.err = err
		return err
	}
	w.count++
	return nil
}

// Count is the number of products written.
func (w *Writer) Count() int { return w.count }

// Close flushes everything and, for CreateFile, moves the file into place.
func (w *Writer) Close() error {
	err := w.err
	if err == nil {
		err = w.bw.Flush()
	}
	if w.gz != nil {
		err = errors.Join(err, w.gz.Close())
	}
	if w.file != nil {
		if err == nil {
			err = w.file.Commit()
		} else {
			err = errors.Join(err, w.file.Abort())
		}
		w.file = nil
	}
	if w.err == nil {
		w.err = errors.New("writer closed")
	}
	return err
}

// Abort discards a file being written by CreateFile.
func (w *Writer) Abort() {
	if w.file != nil {
		_ = w.file.Abort()
		w.file = nil
	}
	w.err = errors.New("writer aborted")
}
