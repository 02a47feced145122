package validator

// EventKind names a step of the qualifying → race → weights cycle.
type EventKind string

// Event kinds, in the order a cycle produces them.
const (
	EventSync               EventKind = "sync"
	EventGap                EventKind = "gap"
	EventChainReset         EventKind = "chain_reset"
	EventQualifyStart       EventKind = "qualify_start"
	EventQualified          EventKind = "qualified"
	EventRaceStart          EventKind = "race_start"
	EventRaceSkipped        EventKind = "race_skipped"
	EventRacerDone          EventKind = "racer_done"
	EventRaceJudged         EventKind = "race_judged"
	EventRaceDone           EventKind = "race_done"
	EventWeightsSet         EventKind = "weights_set"
	EventWeightsCommit      EventKind = "weights_committed"
	EventWeightsReveal      EventKind = "weights_revealed"
	EventWeightsFailed      EventKind = "weights_failed"
	EventClusterCompromised EventKind = "cluster_compromised"
	// EventPruned: store retention deleted old episodes.
	EventPruned EventKind = "episodes_pruned"
)

// Event is one progress report. Text is a readable one-line summary; the
// other fields carry the data for views that render their own.
type Event struct {
	Kind  EventKind
	Block uint64
	Text  string
	// UID and Score are set for miner-level events.
	UID   uint16
	Score float64
	// RaceID is set for race events.
	RaceID uint64
}
