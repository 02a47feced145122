package judge

import (
	"arena/episode"
	"arena/scoring"
	"arena/suite"
)

type Case struct {
	Problem    *suite.Problem
	Trajectory *episode.Trajectory
	Answers    []scoring.Answer
}

type Evaluation struct {
	Metrics scoring.Metrics
	Verdict Verdict
	Final   float64
	Err     error
}
