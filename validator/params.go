package validator

import (
	"arena/config"
	"arena/episode"
	"arena/scoring/race"
	"arena/scoring/weights"
)

// RaceParams is the race rule a config selects. arena run and arena
// simulate both use it, so a simulation measures the daemon's own rule.
func RaceParams(c config.RaceConfig) race.Params {
	return race.Params{Floor: c.Floor, RatioStart: c.RatioStart, RatioFloor: c.RatioFloor, DecayBlocks: c.DecayBlocks,
		Margin: c.Margin, Confidence: c.Confidence, TieMargin: c.TieMargin, WindowBlocks: c.WindowBlocks}
}

// WeightsPolicy is the weights policy a config selects.
func WeightsPolicy(c config.WeightsConfig) weights.Policy {
	return weights.Policy{Kind: weights.Kind(c.Policy), TopShare: c.TopShare, TailShare: c.TailShare,
		BurnFraction: c.BurnFraction, BurnUID: c.BurnUID}
}

// EpisodeLimits are the episode limits a config sets (the episode section).
func EpisodeLimits(ec config.EpisodeConfig) episode.Limits {
	return episode.Limits{MaxFrameBytes: ec.MaxFrameBytes, MaxThinkBytes: ec.MaxThinkBytes, MaxToolCalls: ec.MaxToolCalls,
		MaxSteps: ec.MaxSteps, StepTimeout: ec.StepTimeout.Duration, EpisodeTimeout: ec.EpisodeTimeout.Duration,
		MaxConcurrentEpisodes: ec.MaxConcurrentEpisodes, MaxEpisodeBytes: ec.MaxEpisodeBytes}
}

// Retention is the store retention a config selects (store.retention).
func Retention(c config.RetentionConfig) RetentionOptions {
	return RetentionOptions{MaxAge: c.MaxAge.Duration, MaxBytes: int64(c.MaxSize), Every: c.Interval.Duration}
}
