package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"arena/validator/records"
)

// The read pass of an export is a pipeline: one goroutine iterates the
// store and copies each episode's raw JSON (and its verdict's), Workers
// goroutines decode and convert episodes independently (filters that need
// only the episode, the dedupe hash, the rows, encoded as JSON lines), and
// the calling goroutine takes the results back in store order and does
// everything that depends on earlier episodes (counting, dedupe, split
// bookkeeping, writing). The output is byte-identical to a sequential pass.
// At most pipelineDepth episodes are in flight, so memory stays flat.

// pipelineDepth bounds the episodes read but not yet written.
const pipelineDepth = 64

// task is one episode passing through the pipeline.
type task struct {
	id     string
	ev, vv []byte // raw JSON, dropped once decoded
	done   chan struct{}

	// Set by the worker.
	err    error // decode error: ends the export when the task is reached
	e      *records.Episode
	v      *records.Verdict
	reason string   // drop reason known from this episode alone
	hash   [16]byte // content hash (when reason is "" and dedupe is on)
	// cluster, split and their errors: resolved by the worker, used only
	// when the episode is kept (a duplicate never looks them up in order).
	cluster, split string
	clusterErr     error
	splitErr       error
	rows           []encodedRow
	size           rowSize // sft: the row's length and whether it is dropped for it
	rowErr         error
	pass           bool // passes the score filters (dpo, grpo)
}

// encodedRow is a row and its JSON line (with the trailing newline).
type encodedRow struct {
	row  any
	line []byte
}

func (x *exporter) workers() int {
	if x.o.Workers > 0 {
		return x.o.Workers
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// pipeline streams every stored episode through process (in parallel) and
// handle (in store order, on the calling goroutine). handle returning an
// error ends the pass.
func (x *exporter) pipeline(ctx context.Context, process func(t *task), handle func(t *task) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return x.o.Store.View(func(txn *badger.Txn) error {
		if err := x.loadLiveRaces(txn); err != nil {
			return err
		}
		n := x.workers()
		work := make(chan *task, 2*n)
		order := make(chan *task, pipelineDepth)
		var wg sync.WaitGroup
		var readErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(order)
			defer close(work)
			readErr = x.o.Records.ForEachEpisodeRaw(txn, func(id string, ev, vv []byte) error {
				t := &task{id: id, ev: ev, vv: vv, done: make(chan struct{})}
				// Queue t for the writer first, then for a worker: the
				// writer waits on the oldest task, which is therefore
				// always queued or being worked on.
				select {
				case order <- t:
				case <-ctx.Done():
					return ctx.Err()
				}
				select {
				case work <- t:
				case <-ctx.Done():
					return ctx.Err()
				}
				return nil
			})
		}()
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for t := range work {
					if ctx.Err() == nil {
						process(t)
					}
					close(t.done)
				}
			}()
		}
		err := func() error {
			for t := range order {
				select {
				case <-t.done:
				case <-ctx.Done():
					return ctx.Err()
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := handle(t); err != nil {
					return err
				}
			}
			return nil
		}()
		cancel()
		for range order {
			// Drain so the reader can finish.
		}
		wg.Wait()
		if err != nil {
			return err
		}
		return readErr
	})
}

// decode fills t.e and t.v from the raw JSON and drops the raw bytes.
func (t *task) decode() bool {
	t.e = new(records.Episode)
	if err := decodeEpisode(t.ev, t.e); err != nil {
		t.err = err
		return false
	}
	if t.vv != nil {
		t.v = new(records.Verdict)
		if err := decodeVerdict(t.vv, t.v); err != nil {
			t.err = err
			return false
		}
	}
	t.ev, t.vv = nil, nil
	return true
}

// rowEncoder encodes rows exactly as the sinks' json.Encoder would.
type rowEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newRowEncoder() *rowEncoder {
	r := &rowEncoder{}
	r.enc = json.NewEncoder(&r.buf)
	r.enc.SetEscapeHTML(false)
	return r
}

// value appends v's JSON (no newline) to dst.
func (r *rowEncoder) value(dst []byte, v any) ([]byte, error) {
	r.buf.Reset()
	if err := r.enc.Encode(v); err != nil {
		return nil, err
	}
	b := r.buf.Bytes()
	return append(dst, b[:len(b)-1]...), nil
}

// constJSON holds the JSON of what every row of an export repeats (the
// tool schemas, the system turn, the steps instruction), encoded once.
type constJSON struct {
	tools, system, instruction []byte
}

func newConstJSON(tools []Tool, instruction string) (*constJSON, error) {
	r := newRowEncoder()
	var c constJSON
	var err error
	if c.tools, err = r.value(nil, tools); err != nil {
		return nil, err
	}
	if c.system, err = r.value(nil, promptMessages("")[0]); err != nil {
		return nil, err
	}
	if c.instruction, err = r.value(nil, instruction); err != nil {
		return nil, err
	}
	return &c, nil
}

// sftLine is json.Encoder's line for row (an SFTRow whose first message
// is the system turn and whose tools are the export's), assembled from the
// constant parts and the encoded rest: the same bytes, less work.
func (r *rowEncoder) sftLine(c *constJSON, row *SFTRow) ([]byte, error) {
	rest, err := r.value(nil, row.Messages[1:])
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(rest)+len(c.system)+len(c.tools)+1024)
	line = append(line, `{"messages":[`...)
	line = append(line, c.system...)
	if len(rest) > 2 {
		line = append(line, ',')
	}
	line = append(line, rest[1:]...)
	line = append(line, `,"tools":`...)
	line = append(line, c.tools...)
	if row.Meta != nil {
		line = append(line, `,"meta":`...)
		if line, err = r.value(line, row.Meta); err != nil {
			return nil, err
		}
	}
	return append(line, '}', '\n'), nil
}

// stepsLine is json.Encoder's line for a StepsRow with the export's
// instruction.
func (r *rowEncoder) stepsLine(c *constJSON, row *StepsRow) ([]byte, error) {
	line := make([]byte, 0, len(c.instruction)+2*len(row.Input)+len(row.Output)+1024)
	line = append(line, `{"instruction":`...)
	line = append(line, c.instruction...)
	line = append(line, `,"input":`...)
	var err error
	if line, err = r.value(line, row.Input); err != nil {
		return nil, err
	}
	line = append(line, `,"output":`...)
	if line, err = r.value(line, row.Output); err != nil {
		return nil, err
	}
	if row.Meta != nil {
		line = append(line, `,"meta":`...)
		if line, err = r.value(line, row.Meta); err != nil {
			return nil, err
		}
	}
	return append(line, '}', '\n'), nil
}

var encoders = sync.Pool{New: func() any { return newRowEncoder() }}
