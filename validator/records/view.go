package records

import (
	"fmt"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// HiddenUntilDecided says why a race not decided yet shows so little: its
// problems are hidden problems still in play, and its episodes, verdicts
// and scores would name them.
const HiddenUntilDecided = "problems, episodes, verdicts and scores are shown once the race is decided"

// LiveRace is all that may be shown of a race that is not decided yet
// (Phase.Live): its phase, racers and counts, never its problems,
// episodes or scores.
type LiveRace struct {
	ID             uint64      `json:"id"`
	Window         uint64      `json:"window"`
	Phase          Phase       `json:"phase"`
	StartedBlock   uint64      `json:"started_block"`
	Racers         []LiveRacer `json:"racers"`
	Problems       int         `json:"problems"`
	EpisodesStored int         `json:"episodes_stored,omitempty"`
	Hidden         string      `json:"hidden"`
	// StartedAt and HiddenLeft are shown by the console's race header,
	// not by the operator API's document.
	StartedAt  time.Time `json:"-"`
	HiddenLeft *int      `json:"-"`
}

// LiveRacer is a racer of a live race.
type LiveRacer struct {
	UID       uint16 `json:"uid"`
	Hotkey    string `json:"hotkey"`
	Incumbent bool   `json:"incumbent,omitempty"`
}

// LiveOf is the LiveRace view of rc, with episodes of its episodes stored
// (negative: not counted).
func LiveOf(rc *Race, episodes int) LiveRace {
	lr := LiveRace{ID: rc.ID, Window: rc.Window, Phase: rc.Phase, StartedBlock: rc.StartedBlock,
		Racers: make([]LiveRacer, len(rc.Racers)), Problems: len(rc.Problems), EpisodesStored: max(episodes, 0),
		Hidden: HiddenUntilDecided, StartedAt: rc.StartedAt, HiddenLeft: rc.HiddenLeft}
	for i, r := range rc.Racers {
		lr.Racers[i] = LiveRacer{UID: r.UID, Hotkey: r.Hotkey, Incumbent: r.Incumbent}
	}
	return lr
}

// RaceView is a race as it may be shown: exactly one of Decided (a
// decided or aborted race, whole, with its episodes' entries) and Live.
type RaceView struct {
	Decided *Race
	Entries []RaceEntry
	Live    *LiveRace
}

// RaceForView reads race id as it may be shown.
func (r *Records) RaceForView(txn *badger.Txn, id uint64) (RaceView, bool, error) {
	rc, ok, err := r.GetRace(txn, id)
	if err != nil || !ok {
		return RaceView{}, ok, err
	}
	if rc.Phase.Live() {
		ids, err := r.RaceEpisodes(txn, id)
		if err != nil {
			return RaceView{}, false, err
		}
		lr := LiveOf(&rc, len(ids))
		return RaceView{Live: &lr}, true, nil
	}
	entries, err := r.RaceEntries(txn, id)
	if err != nil {
		return RaceView{}, false, err
	}
	return RaceView{Decided: &rc, Entries: entries}, true, nil
}

// LiveError is the error of a read that would show an episode of race
// Race, which is not decided yet.
type LiveError struct{ Race uint64 }

func (e *LiveError) Error() string {
	return fmt.Sprintf("episode of race %d, which is not decided yet: %s", e.Race, HiddenUntilDecided)
}

// EpisodeForView reads episode id and its verdict (nil when not judged)
// as they may be shown: an episode of a race not decided yet is a
// *LiveError.
func (r *Records) EpisodeForView(txn *badger.Txn, id string) (Episode, *Verdict, bool, error) {
	e, ok, err := r.GetEpisode(txn, id)
	if err != nil || !ok {
		return Episode{}, nil, ok, err
	}
	if e.Kind == Racing {
		rc, found, err := r.GetRace(txn, e.RaceID)
		if err != nil {
			return Episode{}, nil, false, err
		}
		if found && rc.Phase.Live() {
			return Episode{}, nil, true, &LiveError{Race: rc.ID}
		}
	}
	vd, judged, err := r.GetVerdict(txn, id)
	if err != nil || !judged {
		return e, nil, true, err
	}
	return e, &vd, true, nil
}
