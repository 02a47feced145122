package dataset

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/parquet-go/parquet-go"

	"arena/internal/logx"
	"arena/store"
)

// rowWriter writes rows of one type to the split files.
type rowWriter interface {
	write(split string, row any) error
	// writeLine writes a row already encoded as its JSON line; row (a *T)
	// is needed only for Parquet and may be nil otherwise.
	writeLine(split string, row any, line []byte) error
	close() error
	files() []FileInfo
}

// sink is one split's JSONL file and, optionally, its Parquet file.
type sink[T any] struct {
	split     string
	jsonName  string
	jf        *os.File
	bw        *bufio.Writer
	enc       *json.Encoder
	count     *countWriter
	pqName    string
	pf        *os.File
	pw        *parquet.GenericWriter[T]
	groupFrom int64 // JSON bytes written when the current row group began
	groupMax  int64
	rows      int
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

type sinks[T any] struct {
	by    map[string]*sink[T]
	order []*sink[T]
}

func openSinks[T any](o Options, splits []string) (rowWriter, error) {
	s := &sinks[T]{by: map[string]*sink[T]{}}
	for _, split := range splits {
		k := &sink[T]{split: split, jsonName: split + ".jsonl", groupMax: int64(o.RowGroupBytes)}
		f, err := os.OpenFile(filepath.Join(o.Out, k.jsonName), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			_ = s.close()
			return nil, err
		}
		k.jf = f
		k.bw = bufio.NewWriterSize(f, 1<<20)
		k.count = &countWriter{w: k.bw}
		k.enc = json.NewEncoder(k.count)
		k.enc.SetEscapeHTML(false)
		if o.Parquet {
			k.pqName = split + ".parquet"
			pf, err := os.OpenFile(filepath.Join(o.Out, k.pqName), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				_ = f.Close()
				_ = s.close()
				return nil, err
			}
			k.pf = pf
			k.pw = parquet.NewGenericWriter[T](pf, parquet.Compression(&parquet.Snappy))
		}
		s.by[split] = k
		s.order = append(s.order, k)
	}
	return s, nil
}

func (s *sinks[T]) write(split string, row any) error {
	k := s.by[split]
	r, ok := row.(*T)
	if k == nil || !ok {
		return fmt.Errorf("internal: no %T sink for split %q", row, split)
	}
	if err := k.enc.Encode(r); err != nil {
		return fmt.Errorf("write %s: %w", k.jsonName, err)
	}
	return k.written(r)
}

func (s *sinks[T]) writeLine(split string, row any, line []byte) error {
	k := s.by[split]
	if k == nil {
		return fmt.Errorf("internal: no sink for split %q", split)
	}
	var r *T
	if k.pw != nil {
		var ok bool
		if r, ok = row.(*T); !ok {
			return fmt.Errorf("internal: no %T sink for split %q", row, split)
		}
	}
	if _, err := k.count.Write(line); err != nil {
		return fmt.Errorf("write %s: %w", k.jsonName, err)
	}
	return k.written(r)
}

// written follows a row's JSON line: it counts the row and writes it to
// Parquet, if on.
func (k *sink[T]) written(r *T) error {
	k.rows++
	if k.pw != nil {
		if _, err := k.pw.Write([]T{*r}); err != nil {
			return fmt.Errorf("write %s: %w", k.pqName, err)
		}
		// A row group holds about groupMax bytes of rows (measured as
		// JSON), so the writer's buffers stay bounded.
		if k.count.n-k.groupFrom >= k.groupMax {
			if err := k.pw.Flush(); err != nil {
				return fmt.Errorf("write %s: %w", k.pqName, err)
			}
			k.groupFrom = k.count.n
		}
	}
	return nil
}

func (s *sinks[T]) close() error {
	var errs []error
	for _, k := range s.order {
		if k.bw != nil {
			if err := k.bw.Flush(); err != nil {
				errs = append(errs, fmt.Errorf("write %s: %w", k.jsonName, err))
			}
		}
		if k.jf != nil {
			if err := k.jf.Close(); err != nil {
				errs = append(errs, fmt.Errorf("write %s: %w", k.jsonName, err))
			}
			k.jf = nil
		}
		if k.pw != nil {
			if err := k.pw.Close(); err != nil {
				errs = append(errs, fmt.Errorf("write %s: %w", k.pqName, err))
			}
			k.pw = nil
		}
		if k.pf != nil {
			if err := k.pf.Close(); err != nil {
				errs = append(errs, fmt.Errorf("write %s: %w", k.pqName, err))
			}
			k.pf = nil
		}
	}
	return errors.Join(errs...)
}

func (s *sinks[T]) files() []FileInfo {
	var out []FileInfo
	for _, k := range s.order {
		out = append(out, FileInfo{Name: k.jsonName, Split: k.split, Rows: k.rows})
		if k.pqName != "" {
			out = append(out, FileInfo{Name: k.pqName, Split: k.split, Rows: k.rows})
		}
	}
	return out
}

// progress shows a one-line count on a terminal, redrawn at most ten
// times a second; off a terminal it is silent (the final log line covers
// that case).
type progress struct {
	w     io.Writer
	on    bool
	start time.Time
	last  time.Time
	drawn bool
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, on: w != nil && logx.IsTerminal(w), start: time.Now()}
}

func (p *progress) tick(phase string, n, rows int) {
	if !p.on || n%64 != 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	rate := float64(n) / max(el.Seconds(), 1e-9)
	fmt.Fprintf(p.w, "\r\033[Kexport: %s %d episodes, %d rows written, %.0f/s, %s", phase, n, rows, rate, el.Round(time.Second))
	p.drawn = true
}

func (p *progress) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// keyOnly reads a keyspace's keys without decoding its values.
type keyOnly struct{}

func (keyOnly) Marshal(struct{}) ([]byte, error) {
	return nil, errors.New("dataset: read-only keyspace")
}
func (keyOnly) Unmarshal([]byte, *struct{}) error { return nil }

// The suite ledger's problem and cluster keyspaces, read for their keys
// only (the suite version in the card), without loading every problem.
var (
	suiteProblemKeys = store.NewKeyspace[struct{}](store.PrefixSuiteProblems, "suite-problems", keyOnly{})
	suiteClusterKeys = store.NewKeyspace[struct{}](store.PrefixSuiteClusters, "suite-clusters", keyOnly{})
)

// suiteVersion counts the ledger's problems and clusters and hashes the
// sorted problem id set (keys iterate in id order).
func suiteVersion(ctx context.Context, st *store.Store) (SuiteVersion, error) {
	var v SuiteVersion
	h := sha256.New()
	err := st.View(func(txn *badger.Txn) error {
		err := suiteProblemKeys.Iterate(txn, nil, func(key []byte, _ struct{}) error {
			id := suiteProblemKeys.Read(key).Str()
			h.Write([]byte(id))
			h.Write([]byte{'\n'})
			v.Problems++
			return ctx.Err()
		})
		if err != nil {
			return err
		}
		return suiteClusterKeys.Iterate(txn, nil, func([]byte, struct{}) error {
			v.Clusters++
			return ctx.Err()
		})
	})
	if err != nil {
		return v, fmt.Errorf("suite version: %w", err)
	}
	v.IDHash = hex.EncodeToString(h.Sum(nil))[:16]
	return v, nil
}
