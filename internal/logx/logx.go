// Package logx builds the zerolog logger every arena component receives.
//
// Output is JSON when the destination is not a terminal (systemd, files,
// pipes) and a human console format on a terminal, so operators get
// machine-readable logs in production and readable ones by hand.
//
// Durations are logged with Dur under a field name ending in "_ms"
// (took_ms=215.04): zerolog renders Dur as a bare number in its package-wide
// DurationFieldUnit, milliseconds by default, so the unit has to travel in
// the name. Nothing in arena changes that global; the tests hold every Dur
// call in the module to the suffix.
package logx

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

// Formats accepted by New.
const (
	FormatAuto    = "auto"
	FormatJSON    = "json"
	FormatConsole = "console"
)

// Options selects level and format. Empty values mean "info" and "auto".
type Options struct {
	Level  string
	Format string
}

// New returns a logger writing to w. An unknown level or format is an error
// naming the accepted values.
func New(w io.Writer, opts Options) (zerolog.Logger, error) {
	levelName := strings.ToLower(strings.TrimSpace(opts.Level))
	if levelName == "" {
		levelName = "info"
	}
	level, err := zerolog.ParseLevel(levelName)
	if err != nil || level == zerolog.NoLevel {
		return zerolog.Nop(), fmt.Errorf("log level %q: want one of trace, debug, info, warn, error, fatal, panic, disabled", opts.Level)
	}
	format := strings.ToLower(strings.TrimSpace(opts.Format))
	if format == "" {
		format = FormatAuto
	}
	var out io.Writer
	switch format {
	case FormatJSON:
		out = w
	case FormatConsole:
		out = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly, NoColor: !isTerminal(w)}
	case FormatAuto:
		if isTerminal(w) {
			out = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
		} else {
			out = w
		}
	default:
		return zerolog.Nop(), fmt.Errorf("log format %q: want auto, json or console", opts.Format)
	}
	return zerolog.New(out).Level(level).With().Timestamp().Logger(), nil
}

// IsTerminal reports whether w is an interactive terminal; progress bars and
// colours are shown only then.
func IsTerminal(w io.Writer) bool { return isTerminal(w) }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
