package records

import (
	"errors"
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/scoring/race"
	"arena/store"
	"arena/suite"
)

// Kind says why an episode was run.
type Kind string

const (
	// Qualifying episodes run a miner on the public set.
	Qualifying Kind = "qualifying"
	// Racing episodes run a racer on a race's hidden problems.
	Racing Kind = "race"
)

// Episode is one stored trajectory with the context it was run in.
type Episode struct {
	Trajectory episode.Trajectory `json:"trajectory"`
	Kind       Kind               `json:"kind"`
	// RaceID is the race (Kind race) or 0.
	RaceID uint64 `json:"race_id,omitempty"`
	// Hotkey is the miner's hotkey (SS58) when the episode ran.
	Hotkey      string     `json:"hotkey"`
	ProblemType suite.Type `json:"problem_type"`
	Cluster     string     `json:"cluster"`
	// Block is the head when the episode was started.
	Block uint64 `json:"block"`
}

// Verdict is the judgement of one stored episode.
type Verdict struct {
	EpisodeID string          `json:"episode_id"`
	Metrics   scoring.Metrics `json:"metrics"`
	Judge     judge.Verdict   `json:"judge"`
	Final     float64         `json:"final"`
	// Block is the head when the verdict was written.
	Block uint64 `json:"block"`
}

// Phase is where a race is.
type Phase string

const (
	// PhaseRunning: problems drawn and exposed, episodes in flight.
	PhaseRunning Phase = "running"
	// PhaseJudging: every racer's episodes are stored; verdicts pending.
	PhaseJudging Phase = "judging"
	// PhaseDone: results applied to the race state.
	PhaseDone Phase = "done"
	// PhaseAborted: interrupted while episodes were in flight; its
	// episodes are kept but never counted, and a new race is drawn.
	PhaseAborted Phase = "aborted"
)

// Live reports whether a race in phase p is still to be decided. Its
// racers' episodes, verdicts and results are secret until then: every
// racer gets the same hidden problems, so a racer that read another's
// finished episode could copy its answer.
func (p Phase) Live() bool { return p == PhaseRunning || p == PhaseJudging }

// Racer is one miner in a race.
type Racer struct {
	UID       uint16 `json:"uid"`
	Hotkey    string `json:"hotkey"`
	Endpoint  string `json:"endpoint"`
	Incumbent bool   `json:"incumbent,omitempty"`
}

// Race is one race window's record.
type Race struct {
	ID            uint64             `json:"id"`
	Window        uint64             `json:"window"`
	Phase         Phase              `json:"phase"`
	StartedBlock  uint64             `json:"started_block"`
	FinishedBlock uint64             `json:"finished_block,omitempty"`
	Problems      []string           `json:"problems"`
	Clusters      []string           `json:"clusters"`
	Racers        []Racer            `json:"racers"`
	Qualifying    []race.Qualifying  `json:"qualifying"`
	Results       []race.RaceResult  `json:"results,omitempty"`
	Output        *race.Output       `json:"output,omitempty"`
	AbortReason   string             `json:"abort_reason,omitempty"`
	Episodes      map[string]float64 `json:"episodes,omitempty"` // episode id -> final, filled when judged
	// StartedAt is the wall-clock time the race was drawn (for the hidden
	// clusters used per day).
	StartedAt time.Time `json:"started_at,omitzero"`
	// Heat is every racer's final score per problem, filled when the race
	// is decided: the evidence later races are decided on.
	Heat *race.Heat `json:"heat,omitempty"`
	// HiddenLeft is the number of never-exposed hidden clusters left once
	// this race's were drawn (nil in records written before it was kept):
	// the hidden pool over time.
	HiddenLeft *int `json:"hidden_left,omitempty"`
	// EpisodesPruned counts the race's episodes that store retention
	// deleted (PruneEpisode). Its scores stay: Heat, Results and Episodes
	// are the record's own.
	EpisodesPruned int `json:"episodes_pruned,omitempty"`
	// VoidRacers are the racers for whom the relay's provider failed in
	// this race: their rows are not in Heat, so the race is no evidence
	// for or against them.
	VoidRacers []uint16 `json:"void_racers,omitempty"`
}

// RaceState is the race state machine's persisted value plus the
// scheduler's race bookkeeping.
type RaceState struct {
	State race.State `json:"state"`
	// NextRaceID is the id the next race gets.
	NextRaceID uint64 `json:"next_race_id"`
	// LastWindow is the last race window started (0: none).
	LastWindow uint64 `json:"last_window"`
	// Current is the race in progress, or 0.
	Current uint64 `json:"current,omitempty"`
	// Ranked is the latest race's ranking for the weights policy.
	Ranked []uint16 `json:"ranked,omitempty"`
	// RankedRace is the race Ranked came from.
	RankedRace uint64 `json:"ranked_race,omitempty"`
	// FirstRace is the first race of the current chain era: earlier races
	// ran on a chain that was reset (Meta.Resets) and are not evidence.
	FirstRace uint64 `json:"first_race,omitempty"`
}

// SubmissionStatus is where a weights submission is.
type SubmissionStatus string

const (
	// StatusPending: written before the transaction is signed, and again
	// with the signed transaction (RawTx) before it is broadcast; if found
	// at start-up, RawTx settles whether it landed.
	StatusPending SubmissionStatus = "pending"
	// StatusSet: setWeights mined.
	StatusSet SubmissionStatus = "set"
	// StatusCommitted: commitWeights mined; reveal due at RevealEpoch.
	StatusCommitted SubmissionStatus = "committed"
	// StatusRevealed: revealWeights mined.
	StatusRevealed SubmissionStatus = "revealed"
	// StatusFailed: the chain or preflight refused it; Error says why.
	StatusFailed SubmissionStatus = "failed"
)

// Submission is one weights window's submission.
type Submission struct {
	// Era is the chain era the submission was made in (Meta.Era): its
	// window and blocks count on that era's chain.
	Era          uint64           `json:"era,omitempty"`
	Window       uint64           `json:"window"`
	Op           string           `json:"op"` // "set" or "commit"
	Status       SubmissionStatus `json:"status"`
	RaceID       uint64           `json:"race_id,omitempty"`
	UIDs         []uint16         `json:"uids"`
	Values       []uint16         `json:"values"`
	VersionKey   uint64           `json:"version_key"`
	Salt         []uint16         `json:"salt,omitempty"`
	CommitHash   string           `json:"commit_hash,omitempty"`
	CreatedBlock uint64           `json:"created_block"`
	TxHash       string           `json:"tx_hash,omitempty"`
	// RawTx is the signed transaction (hex), kept from before its
	// broadcast until it is settled.
	RawTx        string `json:"raw_tx,omitempty"`
	Block        uint64 `json:"block,omitempty"`
	RevealEpoch  uint64 `json:"reveal_epoch,omitempty"`
	RevealTxHash string `json:"reveal_tx_hash,omitempty"`
	RevealBlock  uint64 `json:"reveal_block,omitempty"`
	Error        string `json:"error,omitempty"`
}

// Cursor is the last head the scheduler processed.
type Cursor struct {
	Block uint64 `json:"block"`
	Hash  string `json:"hash"`
}

// Miner is what the validator knows about a uid's current hotkey.
type Miner struct {
	UID      uint16 `json:"uid"`
	Hotkey   string `json:"hotkey"`
	Endpoint string `json:"endpoint,omitempty"`
	// Skipped says why the miner is not run (bad axon, not serving), or "".
	Skipped string `json:"skipped,omitempty"`
	// Qualifying is set once a qualifying run finished for this hotkey and
	// endpoint.
	Qualifying *QualifyingRun `json:"qualifying,omitempty"`
	FirstSeen  uint64         `json:"first_seen"`
	LastSeen   uint64         `json:"last_seen"`
	// RegisteredAt is the block at which the hotkey registered on the
	// subnet, as the chain last said (0: the chain does not tell).
	RegisteredAt uint64 `json:"registered_at,omitempty"`
}

// QualifyingRun is one miner's completed qualifying run.
type QualifyingRun struct {
	Score    float64  `json:"score"`
	Block    uint64   `json:"block"`
	Endpoint string   `json:"endpoint"`
	Episodes []string `json:"episodes"`
}

// ErrDuplicateEpisode is returned when an episode id is stored twice.
var ErrDuplicateEpisode = errors.New("episode already stored")

// Records are the validator's keyspaces. The zero value is not usable;
// call New.
type Records struct {
	Episodes    store.Keyspace[Episode]
	Verdicts    store.Keyspace[Verdict]
	ByProblem   store.Keyspace[struct{}]
	ByMiner     store.Keyspace[string]
	ByRace      store.Keyspace[RaceEntry]
	State       store.Keyspace[RaceState]
	Races       store.Keyspace[Race]
	Submissions store.Keyspace[Submission]
	Cursor      store.Keyspace[Cursor]
	Miners      store.Keyspace[Miner]
	Meta        store.Keyspace[Meta]
}

// Meta holds facts fixed at a data dir's first start.
type Meta struct {
	// SuiteSeed seeds the problem generators.
	SuiteSeed uint64 `json:"suite_seed"`
	// Genesis is the chain's genesis block hash: a data dir serves one chain.
	Genesis string `json:"genesis"`
	// Era counts the chain resets the operator accepted
	// (`arena store reset-chain-state`); Resets records each.
	Era    uint64       `json:"era,omitempty"`
	Resets []ChainReset `json:"resets,omitempty"`
}

// ChainReset is what a data dir knew of the chain it left.
type ChainReset struct {
	At      time.Time    `json:"at"`
	Genesis string       `json:"genesis"`
	Cursor  uint64       `json:"cursor"`
	Leader  *race.Leader `json:"leader,omitempty"`
}

// New declares the keyspaces.
func New() *Records {
	return &Records{
		Episodes:    store.NewKeyspace(store.PrefixEpisodes, "episodes", store.JSON[Episode]{}),
		Verdicts:    store.NewKeyspace(store.PrefixVerdicts, "verdicts", store.JSON[Verdict]{}),
		ByProblem:   store.NewKeyspace(store.PrefixByProblem, "episodes-by-problem", store.JSON[struct{}]{}),
		ByMiner:     store.NewKeyspace(store.PrefixByMiner, "episodes-by-miner", store.JSON[string]{}),
		ByRace:      store.NewKeyspace(store.PrefixByRace, "episodes-by-race", store.JSON[RaceEntry]{}),
		State:       store.NewKeyspace(store.PrefixRaceState, "race-state", store.JSON[RaceState]{}),
		Races:       store.NewKeyspace(store.PrefixRaces, "races", store.JSON[Race]{}),
		Submissions: store.NewKeyspace(store.PrefixSubmissions, "weight-submissions", store.JSON[Submission]{}),
		Cursor:      store.NewKeyspace(store.PrefixChainCursor, "chain-cursor", store.JSON[Cursor]{}),
		Miners:      store.NewKeyspace(store.PrefixMiners, "miners", store.JSON[Miner]{}),
		Meta:        store.NewKeyspace(store.PrefixValidatorMeta, "validator-meta", store.JSON[Meta]{}),
	}
}

// KV is one key and its value as the store holds it.
type KV struct{ Key, Value []byte }

// EpisodeWrites is every key PutEpisode writes for e, with its value: the
// episode and its index entries (by problem, by miner, and by race for a
// race's episode), then, when v is not nil, the verdict PutVerdict would
// write. It is the one list of an episode's keys: the validator writes
// through it and so does every fixture, so a new index reaches both.
func (r *Records) EpisodeWrites(e *Episode, v *Verdict) ([]KV, error) {
	id := e.Trajectory.EpisodeID
	if id == "" {
		return nil, errors.New("episode writes: empty episode id")
	}
	var (
		out  []KV
		errs []error
	)
	add := func(key []byte, value []byte, err error) {
		out = append(out, KV{key, value})
		errs = append(errs, err)
	}
	data, err := r.Episodes.Encode(*e)
	add(r.Episodes.Key(store.String(id)), data, err)
	data, err = r.ByProblem.Encode(struct{}{})
	add(r.ByProblem.Key(store.String(e.Trajectory.ProblemID), store.String(id)), data, err)
	data, err = r.ByMiner.Encode(e.Hotkey)
	add(r.ByMiner.Key(store.U16(e.Trajectory.MinerUID), store.String(id)), data, err)
	if e.Kind == Racing {
		data, err = r.ByRace.Encode(RaceEntry{UID: e.Trajectory.MinerUID, Problem: e.Trajectory.ProblemID})
		add(r.ByRace.Key(store.U64(e.RaceID), store.String(id)), data, err)
	}
	if v != nil {
		data, err = r.Verdicts.Encode(*v)
		add(r.Verdicts.Key(store.String(id)), data, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("episode %s: %w", id, err)
	}
	return out, nil
}

// PutEpisode stores an episode and its index entries (EpisodeWrites) in
// txn. An episode id already stored is ErrDuplicateEpisode: nothing is
// counted twice.
func (r *Records) PutEpisode(txn *badger.Txn, e *Episode) error {
	writes, err := r.EpisodeWrites(e, nil)
	if err != nil {
		return fmt.Errorf("put episode: %w", err)
	}
	id := e.Trajectory.EpisodeID
	if _, ok, err := r.Episodes.Get(txn, writes[0].Key); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("put episode %s: %w", id, ErrDuplicateEpisode)
	}
	for _, kv := range writes {
		if err := txn.Set(kv.Key, kv.Value); err != nil {
			return fmt.Errorf("put episode %s: %w", id, err)
		}
	}
	return nil
}

// GetEpisode reads one episode.
func (r *Records) GetEpisode(txn *badger.Txn, id string) (Episode, bool, error) {
	return r.Episodes.Get(txn, r.Episodes.Key(store.String(id)))
}

// PutVerdict stores a verdict for a stored episode.
func (r *Records) PutVerdict(txn *badger.Txn, v *Verdict) error {
	if _, ok, err := r.GetEpisode(txn, v.EpisodeID); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("put verdict: episode %s is not stored", v.EpisodeID)
	}
	return r.Verdicts.Put(txn, r.Verdicts.Key(store.String(v.EpisodeID)), *v)
}

// GetVerdict reads one verdict.
func (r *Records) GetVerdict(txn *badger.Txn, id string) (Verdict, bool, error) {
	return r.Verdicts.Get(txn, r.Verdicts.Key(store.String(id)))
}

// RaceEpisodes lists the ids of a race's stored episodes, in id order.
func (r *Records) RaceEpisodes(txn *badger.Txn, raceID uint64) ([]string, error) {
	var ids []string
	err := r.ByRace.Iterate(txn, []store.KeyPart{store.U64(raceID)}, func(key []byte, _ RaceEntry) error {
		rd := r.ByRace.Read(key)
		rd.U64()
		ids = append(ids, rd.Str())
		return rd.Done()
	})
	return ids, err
}

// RaceEntry is what the race index keeps of each race episode: whose it
// is and on which problem, so a race's page maps its results to episodes
// without reading them. Entries written before it carried anything are
// zero (Problem ""); RaceEntries fills those from the episode.
type RaceEntry struct {
	UID     uint16 `json:"uid,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Episode is the episode id, from the key (not stored).
	Episode string `json:"-"`
}

// RaceEntries lists a race's stored episodes with their miner and
// problem, in episode id order.
func (r *Records) RaceEntries(txn *badger.Txn, raceID uint64) ([]RaceEntry, error) {
	var out []RaceEntry
	err := r.ByRace.Iterate(txn, []store.KeyPart{store.U64(raceID)}, func(key []byte, e RaceEntry) error {
		rd := r.ByRace.Read(key)
		rd.U64()
		e.Episode = rd.Str()
		if err := rd.Done(); err != nil {
			return err
		}
		if e.Problem == "" {
			ep, ok, err := r.GetEpisode(txn, e.Episode)
			if err != nil {
				return err
			}
			if ok {
				e.UID, e.Problem = ep.Trajectory.MinerUID, ep.Trajectory.ProblemID
			}
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// MinerEpisodes lists the ids of a uid's stored episodes, in id order.
func (r *Records) MinerEpisodes(txn *badger.Txn, uid uint16) ([]string, error) {
	var ids []string
	err := r.ByMiner.Iterate(txn, []store.KeyPart{store.U16(uid)}, func(key []byte, _ string) error {
		rd := r.ByMiner.Read(key)
		rd.U16()
		ids = append(ids, rd.Str())
		return rd.Done()
	})
	return ids, err
}

// ProblemEpisodes lists the ids of a problem's stored episodes.
func (r *Records) ProblemEpisodes(txn *badger.Txn, problemID string) ([]string, error) {
	var ids []string
	err := r.ByProblem.Iterate(txn, []store.KeyPart{store.String(problemID)}, func(key []byte, _ struct{}) error {
		rd := r.ByProblem.Read(key)
		rd.Str()
		ids = append(ids, rd.Str())
		return rd.Done()
	})
	return ids, err
}

var singleton = []store.KeyPart{store.String("current")}

// GetState reads the race state (zero value before the first race).
func (r *Records) GetState(txn *badger.Txn) (RaceState, error) {
	s, ok, err := r.State.Get(txn, r.State.Key(singleton...))
	if !ok && err == nil {
		s.NextRaceID = 1
	}
	return s, err
}

// PutState writes the race state.
func (r *Records) PutState(txn *badger.Txn, s RaceState) error {
	return r.State.Put(txn, r.State.Key(singleton...), s)
}

// GetRace reads a race record.
func (r *Records) GetRace(txn *badger.Txn, id uint64) (Race, bool, error) {
	return r.Races.Get(txn, r.Races.Key(store.U64(id)))
}

// PutRace writes a race record.
func (r *Records) PutRace(txn *badger.Txn, rc *Race) error {
	return r.Races.Put(txn, r.Races.Key(store.U64(rc.ID)), *rc)
}

// ListRaces returns races, newest first, at most limit (0: all).
func (r *Records) ListRaces(txn *badger.Txn, limit int) ([]Race, error) {
	return r.RacesBefore(txn, 0, limit)
}

// RacesBefore returns the races with ids below before (0: every race),
// newest first, at most limit (0: no limit). It reads only the records it
// returns, so a page of recent history costs the same with ten thousand
// races stored as with ten.
func (r *Records) RacesBefore(txn *badger.Txn, before uint64, limit int) ([]Race, error) {
	var from []byte
	if before != 0 {
		from = r.Races.Key(store.U64(before))
	}
	var out []Race
	err := r.Races.IterateReverse(txn, nil, from, func(_ []byte, rc Race) error {
		out = append(out, rc)
		if limit > 0 && len(out) >= limit {
			return store.ErrStop
		}
		return nil
	})
	return out, err
}

// ForEachRaceBack calls fn with every race from the newest down until fn
// returns store.ErrStop (which ends the walk with nil) or another error.
func (r *Records) ForEachRaceBack(txn *badger.Txn, fn func(rc *Race) error) error {
	return r.Races.IterateReverse(txn, nil, nil, func(_ []byte, rc Race) error { return fn(&rc) })
}

// RacesBack returns the races with ids from newest down, in that order,
// stopping at the first race that started before block from. Race ids
// grow with their start block, so this reads only the races of the window.
func (r *Records) RacesBack(txn *badger.Txn, newest, from uint64) ([]Race, error) {
	var out []Race
	for id := newest; id > 0; id-- {
		rc, ok, err := r.GetRace(txn, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if rc.StartedBlock < from {
			break
		}
		out = append(out, rc)
	}
	return out, nil
}

// eraShift places the chain era above every window number, so that a
// later era's submissions sort after an earlier one's and never take
// their keys (era 0's keys are the bare window, as before eras existed).
const eraShift = 48

// SubmissionKey is the key of the submission of a weights window in a
// chain era.
func (r *Records) SubmissionKey(era, window uint64) []byte {
	return r.Submissions.Key(store.U64(era<<eraShift | window))
}

// GetSubmission reads a weights window's submission in a chain era.
func (r *Records) GetSubmission(txn *badger.Txn, era, window uint64) (Submission, bool, error) {
	return r.Submissions.Get(txn, r.SubmissionKey(era, window))
}

// PutSubmission writes a weights window's submission.
func (r *Records) PutSubmission(txn *badger.Txn, s *Submission) error {
	return r.Submissions.Put(txn, r.SubmissionKey(s.Era, s.Window), *s)
}

// LastSubmission returns the newest submission (of the latest era), if
// any, reading only that one.
func (r *Records) LastSubmission(txn *badger.Txn) (Submission, bool, error) {
	var last Submission
	found := false
	err := r.Submissions.IterateReverse(txn, nil, nil, func(_ []byte, s Submission) error {
		last, found = s, true
		return store.ErrStop
	})
	return last, found, err
}

// ListSubmissions returns every submission, oldest window first.
func (r *Records) ListSubmissions(txn *badger.Txn) ([]Submission, error) {
	var out []Submission
	err := r.Submissions.Iterate(txn, nil, func(_ []byte, s Submission) error {
		out = append(out, s)
		return nil
	})
	return out, err
}

// GetCursor reads the chain cursor.
func (r *Records) GetCursor(txn *badger.Txn) (Cursor, bool, error) {
	return r.Cursor.Get(txn, r.Cursor.Key(singleton...))
}

// DeleteCursor forgets the chain cursor.
func (r *Records) DeleteCursor(txn *badger.Txn) error {
	return r.Cursor.Delete(txn, r.Cursor.Key(singleton...))
}

// PutCursor writes the chain cursor.
func (r *Records) PutCursor(txn *badger.Txn, c Cursor) error {
	return r.Cursor.Put(txn, r.Cursor.Key(singleton...), c)
}

// GetMiner reads a miner record.
func (r *Records) GetMiner(txn *badger.Txn, uid uint16) (Miner, bool, error) {
	return r.Miners.Get(txn, r.Miners.Key(store.U16(uid)))
}

// PutMiner writes a miner record.
func (r *Records) PutMiner(txn *badger.Txn, m *Miner) error {
	return r.Miners.Put(txn, r.Miners.Key(store.U16(m.UID)), *m)
}

// ListMiners returns every miner record in uid order.
func (r *Records) ListMiners(txn *badger.Txn) ([]Miner, error) {
	var out []Miner
	err := r.Miners.Iterate(txn, nil, func(_ []byte, m Miner) error {
		out = append(out, m)
		return nil
	})
	return out, err
}

// ForEachEpisode calls fn for every stored episode in id order with its
// verdict (nil when not judged yet). It reads in one transaction, one
// record at a time, so memory stays flat.
func (r *Records) ForEachEpisode(txn *badger.Txn, fn func(e *Episode, v *Verdict) error) error {
	return r.Episodes.Iterate(txn, nil, func(key []byte, e Episode) error {
		v, ok, err := r.GetVerdict(txn, e.Trajectory.EpisodeID)
		if err != nil {
			return err
		}
		if !ok {
			return fn(&e, nil)
		}
		return fn(&e, &v)
	})
}

// GetMeta reads the data dir's start-up facts.
func (r *Records) GetMeta(txn *badger.Txn) (Meta, bool, error) {
	return r.Meta.Get(txn, r.Meta.Key(singleton...))
}

// PutMeta writes the data dir's start-up facts.
func (r *Records) PutMeta(txn *badger.Txn, m Meta) error {
	return r.Meta.Put(txn, r.Meta.Key(singleton...), m)
}
