package episode

import (
	"errors"
	"fmt"
	"time"
)

// Limits bound what one miner can cost the validator. The zero value of a
// field means its default (docs/protocol.md, section 5 "Limits").
type Limits struct {
	// MaxFrameBytes bounds one websocket message from the miner; larger
	// frames are not buffered, they end the connection (oversized).
	MaxFrameBytes int
	// MaxThinkBytes bounds a step's think text.
	MaxThinkBytes int
	// MaxToolCalls bounds the tool calls in one step.
	MaxToolCalls int
	// MaxSteps bounds the steps in one episode.
	MaxSteps int
	// StepTimeout is the miner's time for one step, from the validator
	// sending episode_start or an observation to receiving the step.
	StepTimeout time.Duration
	// EpisodeTimeout bounds a whole episode, tool execution included.
	EpisodeTimeout time.Duration
	// MaxConcurrentEpisodes bounds the episodes in flight on one miner's
	// connection; further episodes wait for a slot.
	MaxConcurrentEpisodes int
	// MaxInferBytes bounds one infer frame (v2, relay on): prompts with
	// the whole episode so far are larger than steps. Every other frame
	// stays within MaxFrameBytes.
	MaxInferBytes int
	// MaxEpisodeBytes bounds what one episode stores of its steps: the
	// miner's text and calls after normalisation, and their tool results
	// (relay completions have their own budgets). A step that would pass
	// it is not run; one whose results pass it is kept and ends the
	// episode (episode_too_large).
	MaxEpisodeBytes int
}

// Defaults.
const (
	DefaultMaxFrameBytes         = 256 << 10
	DefaultMaxThinkBytes         = 16 << 10
	DefaultMaxToolCalls          = 8
	DefaultMaxSteps              = 30
	DefaultStepTimeout           = 60 * time.Second
	DefaultEpisodeTimeout        = 300 * time.Second
	DefaultMaxConcurrentEpisodes = 4
	DefaultMaxInferBytes         = 1 << 20
	// DefaultMaxEpisodeBytes leaves room for 30 steps each with a full
	// 16 KiB think and about 18 KiB of tool results; a reference heuristic
	// episode stores about 10 KB (docs/security.md, "Miner text").
	DefaultMaxEpisodeBytes = 1 << 20
)

// DefaultLimits are the defaults docs/protocol.md publishes to miners.
func DefaultLimits() Limits {
	return Limits{
		MaxFrameBytes:         DefaultMaxFrameBytes,
		MaxThinkBytes:         DefaultMaxThinkBytes,
		MaxToolCalls:          DefaultMaxToolCalls,
		MaxSteps:              DefaultMaxSteps,
		StepTimeout:           DefaultStepTimeout,
		EpisodeTimeout:        DefaultEpisodeTimeout,
		MaxConcurrentEpisodes: DefaultMaxConcurrentEpisodes,
		MaxInferBytes:         DefaultMaxInferBytes,
		MaxEpisodeBytes:       DefaultMaxEpisodeBytes,
	}
}

// WithDefaults fills zero fields with defaults.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFrameBytes == 0 {
		l.MaxFrameBytes = d.MaxFrameBytes
	}
	if l.MaxThinkBytes == 0 {
		l.MaxThinkBytes = d.MaxThinkBytes
	}
	if l.MaxToolCalls == 0 {
		l.MaxToolCalls = d.MaxToolCalls
	}
	if l.MaxSteps == 0 {
		l.MaxSteps = d.MaxSteps
	}
	if l.StepTimeout == 0 {
		l.StepTimeout = d.StepTimeout
	}
	if l.EpisodeTimeout == 0 {
		l.EpisodeTimeout = d.EpisodeTimeout
	}
	if l.MaxConcurrentEpisodes == 0 {
		l.MaxConcurrentEpisodes = d.MaxConcurrentEpisodes
	}
	if l.MaxInferBytes == 0 {
		l.MaxInferBytes = max(d.MaxInferBytes, l.MaxFrameBytes)
	}
	if l.MaxEpisodeBytes == 0 {
		l.MaxEpisodeBytes = max(d.MaxEpisodeBytes, l.MaxFrameBytes)
	}
	return l
}

// minFrameBytes keeps room for a step with a full think: a frame limit
// below it would turn every honest long think into "oversized".
const minFrameBytes = 4 << 10

// Validate reports unusable limits (after WithDefaults).
func (l Limits) Validate() error {
	var errs []error
	if l.MaxFrameBytes < minFrameBytes {
		errs = append(errs, fmt.Errorf("max frame bytes %d: want at least %d", l.MaxFrameBytes, minFrameBytes))
	}
	if l.MaxThinkBytes < 1 || l.MaxThinkBytes >= l.MaxFrameBytes {
		errs = append(errs, fmt.Errorf("max think bytes %d: want 1..max frame bytes (%d)", l.MaxThinkBytes, l.MaxFrameBytes))
	}
	if l.MaxToolCalls < 1 {
		errs = append(errs, fmt.Errorf("max tool calls %d: want at least 1", l.MaxToolCalls))
	}
	if l.MaxSteps < 1 {
		errs = append(errs, fmt.Errorf("max steps %d: want at least 1", l.MaxSteps))
	}
	if l.StepTimeout <= 0 || l.EpisodeTimeout <= 0 {
		errs = append(errs, fmt.Errorf("step timeout %s and episode timeout %s must be positive", l.StepTimeout, l.EpisodeTimeout))
	} else if l.StepTimeout > l.EpisodeTimeout {
		errs = append(errs, fmt.Errorf("step timeout %s exceeds episode timeout %s", l.StepTimeout, l.EpisodeTimeout))
	}
	if l.MaxConcurrentEpisodes < 1 {
		errs = append(errs, fmt.Errorf("max concurrent episodes %d: want at least 1", l.MaxConcurrentEpisodes))
	}
	if l.MaxInferBytes != 0 && l.MaxInferBytes < l.MaxFrameBytes {
		errs = append(errs, fmt.Errorf("max infer bytes %d: want at least max frame bytes (%d)", l.MaxInferBytes, l.MaxFrameBytes))
	}
	if l.MaxEpisodeBytes != 0 && l.MaxEpisodeBytes < l.MaxFrameBytes {
		errs = append(errs, fmt.Errorf("max episode bytes %d: want at least max frame bytes (%d)", l.MaxEpisodeBytes, l.MaxFrameBytes))
	}
	if len(errs) > 0 {
		return fmt.Errorf("episode limits: %w", errors.Join(errs...))
	}
	return nil
}

// Wire is the limits as sent in episode_start.
func (l Limits) Wire() WireLimits {
	return WireLimits{
		MaxFrameBytes:         l.MaxFrameBytes,
		MaxThinkBytes:         l.MaxThinkBytes,
		MaxToolCalls:          l.MaxToolCalls,
		MaxSteps:              l.MaxSteps,
		StepTimeoutMS:         l.StepTimeout.Milliseconds(),
		EpisodeTimeoutMS:      l.EpisodeTimeout.Milliseconds(),
		MaxConcurrentEpisodes: l.MaxConcurrentEpisodes,
		MaxEpisodeBytes:       l.MaxEpisodeBytes,
	}
}

// Limits converts wire limits back.
func (w WireLimits) Limits() Limits {
	return Limits{
		MaxFrameBytes:         w.MaxFrameBytes,
		MaxThinkBytes:         w.MaxThinkBytes,
		MaxToolCalls:          w.MaxToolCalls,
		MaxSteps:              w.MaxSteps,
		StepTimeout:           time.Duration(w.StepTimeoutMS) * time.Millisecond,
		EpisodeTimeout:        time.Duration(w.EpisodeTimeoutMS) * time.Millisecond,
		MaxConcurrentEpisodes: w.MaxConcurrentEpisodes,
		MaxEpisodeBytes:       w.MaxEpisodeBytes,
	}
}
