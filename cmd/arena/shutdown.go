package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
)

// signalContext returns a context cancelled by the first SIGINT or
// SIGTERM, which starts a graceful stop. A second signal exits the process
// at once with 128+signal: the operator asked twice. stop releases the
// signals.
func signalContext(stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "arena: second %s: exiting now without finishing the shutdown\n", s)
			code := 128 + int(syscall.SIGTERM)
			if s == os.Interrupt {
				code = 128 + int(syscall.SIGINT)
			}
			exit(code)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// boundShutdown limits how long a shutdown may take. The clock starts when
// ctx ends (a signal) or begin is called (the daemon stopped by itself);
// if finish is not called within limit, the process logs what it was doing
// and exits 1: a store whose disk vanished can block its final flush
// forever, and systemd's own SIGKILL would hide why. Without an exit
// function (tests running the CLI in process) nothing is armed.
func (e *cliEnv) boundShutdown(ctx context.Context, log zerolog.Logger, limit time.Duration) (begin, finish func()) {
	if e.exit == nil || limit <= 0 {
		return func() {}, func() {}
	}
	started, finished := make(chan struct{}), make(chan struct{})
	var beginOnce, finishOnce sync.Once
	go func() {
		select {
		case <-ctx.Done():
		case <-started:
		case <-finished:
			return
		}
		t := time.NewTimer(limit)
		defer t.Stop()
		select {
		case <-t.C:
			log.Error().Dur("shutdown_timeout_ms", limit).
				Msg("shutdown did not finish within shutdown_timeout (the store's close hung or the disk is gone): exiting 1; the next start recovers from Badger's log")
			e.exit(1)
		case <-finished:
		}
	}()
	begin = func() { beginOnce.Do(func() { close(started) }) }
	finish = func() { finishOnce.Do(func() { close(finished) }) }
	return begin, finish
}
