package store

import (
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"
)

// badgerLogger adapts zerolog to badger.Logger. Badger's Infof reports every
// flush, compaction and table open, so it is logged at debug; its Debugf is
// finer still and goes to trace.
type badgerLogger struct{ log zerolog.Logger }

var _ badger.Logger = badgerLogger{}

func newBadgerLogger(log zerolog.Logger) badgerLogger {
	return badgerLogger{log: log.With().Str("component", "badger").Logger()}
}

func (l badgerLogger) Errorf(format string, args ...any) { emit(l.log.Error(), format, args) }

func (l badgerLogger) Warningf(format string, args ...any) { emit(l.log.Warn(), format, args) }

func (l badgerLogger) Infof(format string, args ...any) { emit(l.log.Debug(), format, args) }

func (l badgerLogger) Debugf(format string, args ...any) { emit(l.log.Trace(), format, args) }

// emit formats only when the level is enabled and drops Badger's trailing
// newlines, which would otherwise end up inside JSON messages.
func emit(e *zerolog.Event, format string, args []any) {
	if !e.Enabled() {
		return
	}
	e.Msg(strings.TrimSpace(fmt.Sprintf(format, args...)))
}
