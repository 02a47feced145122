package practice

import (
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/miner"
	"arena/relay"
	"arena/relay/standin"
)

// StandInRelay is the inference relay with the offline stand-in as its
// provider (`arena practice --stand-in`): a miner takes its completions
// through it exactly as through a validator's relay, with no provider and
// no key, and every completion is the stand-in's (package standin). Only
// practice builds it: a validator's relay refuses the stand-in.
func StandInRelay(required bool, log zerolog.Logger) (episode.Relay, error) {
	s, err := miner.NewStandIn(log)
	if err != nil {
		return nil, err
	}
	return relay.New(relay.Options{BaseURL: standin.BaseURL, Models: []string{standin.Model}, Required: required,
		HTTPClient: s.Client(), AllowStandIn: true,
		LookupEnv: func(string) (string, bool) { return "", false }}, log, nil)
}
