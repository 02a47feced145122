package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Run runs the store's background work until ctx is done: the value-log
// GC loop and, for a directory store with SpaceLimits, the free-space
// guard. It returns nil once ctx is done, or the guard's error once free
// space fell under the hard limit or the directory vanished: the process
// should then shut down (writes have stopped).
func (s *Store) Run(ctx context.Context) error {
	if !s.opts.guarded() {
		return s.runGC(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		_ = s.runGC(ctx)
	}()
	err := s.runSpaceGuard(ctx)
	cancel()
	<-gcDone
	return err
}

// runGC is the value-log GC loop: every GCInterval it runs GCOnce. A
// failed cycle is logged and the loop goes on. In-memory and read-only
// stores have no value log to collect; it then just waits for ctx.
func (s *Store) runGC(ctx context.Context) error {
	if s.opts.InMemory || s.opts.ReadOnly {
		s.log.Debug().Msg("value-log GC disabled (in-memory or read-only store)")
		<-ctx.Done()
		return nil
	}
	tick, stop := s.newTicker(s.opts.GCInterval)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
		}
		rewrites, err := s.GCOnce(ctx)
		switch {
		case err != nil:
			s.log.Warn().Err(err).Msg("value-log GC failed")
		case rewrites > 0:
			s.log.Info().Int("rewrites", rewrites).Msg("value-log GC reclaimed space")
		default:
			s.log.Debug().Msg("value-log GC: nothing to rewrite")
		}
		if s.afterGC != nil {
			s.afterGC(rewrites, err)
		}
	}
}

// GCOnce runs one GC cycle: RunValueLogGC(GCDiscardRatio) until Badger finds
// no more value-log file worth rewriting (or ctx is done). It returns how
// many files were rewritten. It is a no-op for in-memory and read-only
// stores, and when another GC is already running.
func (s *Store) GCOnce(ctx context.Context) (rewrites int, err error) {
	if s.opts.InMemory || s.opts.ReadOnly {
		return 0, nil
	}
	s.gcRuns.Inc()
	for ctx.Err() == nil {
		err := s.db.RunValueLogGC(s.opts.GCDiscardRatio)
		switch {
		case err == nil:
			rewrites++
			s.gcRewrites.Inc()
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
			// Nothing (more) to reclaim, or a concurrent GC / closed DB.
			return rewrites, nil
		default:
			return rewrites, fmt.Errorf("%s: value-log GC: %w", s.opts.label(), err)
		}
	}
	return rewrites, nil
}
