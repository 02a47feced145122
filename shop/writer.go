package shop

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	file *os.File
	path string
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
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// Report the path asked for, not the temporary name.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	// CreateTemp makes the file private; a catalog is ordinary data.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	w := NewWriter(f, strings.HasSuffix(path, ".gz"))
	w.file, w.path = f, path
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
			err = w.file.Sync()
		}
		err = errors.Join(err, w.file.Close())
		if err == nil {
			err = os.Rename(w.file.Name(), w.path)
		}
		if err != nil {
			os.Remove(w.file.Name())
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
		w.file.Close()
		os.Remove(w.file.Name())
		w.file = nil
	}
	w.err = errors.New("writer aborted")
}
