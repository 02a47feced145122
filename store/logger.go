package store

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"
)

// badgerRepeatWindow is how long an error or warning Badger repeats (it
// retries a failing memtable flush every second, forever) is kept out of
// the log after it was written once.
const badgerRepeatWindow = time.Minute

// badgerLogger adapts zerolog to badger.Logger. Badger's Infof reports every
// flush, compaction and table open, so it is logged at debug; its Debugf is
// finer still and goes to trace. An error or warning with the same format
// as one logged less than badgerRepeatWindow ago is counted instead of
// logged; the next one logged carries the count as "repeated".
type badgerLogger struct {
	log zerolog.Logger
	now func() time.Time

	mu     sync.Mutex
	recent map[string]*repeat
}

type repeat struct {
	logged   time.Time
	repeated int
}

var _ badger.Logger = (*badgerLogger)(nil)

func newBadgerLogger(log zerolog.Logger) *badgerLogger {
	return &badgerLogger{log: log.With().Str("component", "badger").Logger(), now: time.Now, recent: map[string]*repeat{}}
}

func (l *badgerLogger) Errorf(format string, args ...any) { l.limited(l.log.Error(), format, args) }

func (l *badgerLogger) Warningf(format string, args ...any) { l.limited(l.log.Warn(), format, args) }

func (l *badgerLogger) Infof(format string, args ...any) { emit(l.log.Debug(), format, args) }

func (l *badgerLogger) Debugf(format string, args ...any) { emit(l.log.Trace(), format, args) }

func (l *badgerLogger) limited(e *zerolog.Event, format string, args []any) {
	if !e.Enabled() {
		return
	}
	now := l.now()
	l.mu.Lock()
	r := l.recent[format]
	if r != nil && now.Sub(r.logged) < badgerRepeatWindow {
		r.repeated++
		l.mu.Unlock()
		e.Discard()
		return
	}
	if r == nil {
		r = &repeat{}
		l.recent[format] = r
	}
	if r.repeated > 0 {
		e.Int("repeated", r.repeated)
	}
	r.logged, r.repeated = now, 0
	l.mu.Unlock()
	emit(e, format, args)
}

// emit formats only when the level is enabled and drops Badger's trailing
// newlines, which would otherwise end up inside JSON messages.
func emit(e *zerolog.Event, format string, args []any) {
	if !e.Enabled() {
		return
	}
	e.Msg(strings.TrimSpace(fmt.Sprintf(format, args...)))
}
