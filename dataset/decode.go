package dataset

import (
	"fmt"
	"strings"

	gojson "github.com/goccy/go-json"

	"arena/episode"
	"arena/suite"
	"arena/validator/records"
)

// The pipeline decodes stored episodes and verdicts with goccy/go-json, a
// drop-in encoding/json replacement that decodes them about 2.5 times
// faster. Its results are the same structs records' encoding/json codec
// gives (TestFastDecodeMatchesStore checks every fixture episode and
// verdict, and TestPipelineMatchesSequential the exported bytes against
// the encoding/json reference pass). Encoding stays on encoding/json.

// decodeEpisode decodes an episode's stored JSON.
//
// go-json's strings share memory with its copy of the input, so one kept
// string keeps the whole episode's JSON alive. The fields an export keeps
// beyond the episode (map keys in the report and the split cache, group
// members) are therefore copied out.
func decodeEpisode(data []byte, e *records.Episode) error {
	if err := gojson.Unmarshal(data, e); err != nil {
		return fmt.Errorf("keyspace episodes: decode: %w", err)
	}
	tr := &e.Trajectory
	tr.EpisodeID = strings.Clone(tr.EpisodeID)
	tr.ProblemID = strings.Clone(tr.ProblemID)
	tr.ValidatorAddress = strings.Clone(tr.ValidatorAddress)
	tr.EndReason = episode.EndReason(strings.Clone(string(tr.EndReason)))
	e.Kind = records.Kind(strings.Clone(string(e.Kind)))
	e.Hotkey = strings.Clone(e.Hotkey)
	e.ProblemType = suite.Type(strings.Clone(string(e.ProblemType)))
	e.Cluster = strings.Clone(e.Cluster)
	return nil
}

// decodeVerdict decodes a verdict's stored JSON. Nothing of it outlives
// the episode's row.
func decodeVerdict(data []byte, v *records.Verdict) error {
	if err := gojson.Unmarshal(data, v); err != nil {
		return fmt.Errorf("keyspace verdicts: decode: %w", err)
	}
	return nil
}
