package validator

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/episode"
	"arena/validator/records"
)

// TestAPIHandlers calls the operator API in process over a real store: a
// decided race and its episodes are shown whole, a live race only as its
// phase, racers and counts and its episodes as 403, bad input as 400, and
// an internal error as a 500 that is logged and names nothing.
func TestAPIHandlers(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	decided := records.Race{ID: 1, Window: 10, Phase: records.PhaseDone, StartedBlock: 10, Problems: []string{"secret-done"},
		Racers: []records.Racer{{UID: 1, Hotkey: "hk1"}}}
	live := records.Race{ID: 2, Window: 20, Phase: records.PhaseJudging, StartedBlock: 20, Problems: []string{"secret-live"},
		Racers: []records.Racer{{UID: 1, Hotkey: "hk1", Incumbent: true}}}
	ep := func(id string, race uint64, problem string) records.Episode {
		return records.Episode{Kind: records.Racing, RaceID: race, Hotkey: "hk1",
			Trajectory: episode.Trajectory{EpisodeID: id, MinerUID: 1, ProblemID: problem}}
	}
	eps := []records.Episode{ep("ep-done", 1, "secret-done"), ep("ep-live", 2, "secret-live")}
	err := h.store.Update(func(txn *badger.Txn) error {
		for _, rc := range []*records.Race{&decided, &live} {
			if err := h.v.rec.PutRace(txn, rc); err != nil {
				return err
			}
		}
		for i := range eps {
			if err := h.v.rec.PutEpisode(txn, &eps[i]); err != nil {
				return err
			}
			if err := h.v.rec.PutVerdict(txn, &records.Verdict{EpisodeID: eps[i].Trajectory.EpisodeID, Final: 0.75}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	s := &Server{v: h.v, log: zerolog.New(&logs)}
	mux := http.NewServeMux()
	s.handleAPI(mux)
	mux.HandleFunc("GET /broken", s.api(func(*http.Request) (any, error) {
		return nil, errors.New("badger: value log /var/lib/arena/000042.vlog truncated")
	}))

	tests := []struct {
		path   string
		status int
		want   []string
		hidden []string
	}{
		{"/api/v1/races", 200, []string{`"secret-done"`, `"hidden": "problems, episodes`, `"problems": 1`}, []string{"secret-live"}},
		{"/api/v1/races?limit=0", 400, []string{"limit must be an integer from 1 to 1000"}, nil},
		{"/api/v1/races/1", 200, []string{`"secret-done"`, `"phase": "done"`}, nil},
		{"/api/v1/races/2", 200, []string{`"phase": "judging"`, `"episodes_stored": 1`, `"incumbent": true`, `"problems": 1`}, []string{"secret-live", "started_at", "hidden_left"}},
		{"/api/v1/races/x", 400, []string{"race id must be a positive integer"}, nil},
		{"/api/v1/races/9", 404, []string{"no such race"}, nil},
		{"/api/v1/episodes/ep-done", 200, []string{`"verdict"`, `"final": 0.75`}, nil},
		{"/api/v1/episodes/ep-live", 403, []string{"episode of race 2, which is not decided yet"}, []string{"secret-live", "0.75"}},
		{"/api/v1/episodes/nope", 404, []string{"no such episode"}, nil},
		{"/api/v1/episodes/" + strings.Repeat("a", 65), 400, []string{"bad episode id"}, nil},
		{"/api/v1/leaderboard", 200, []string{"[]"}, nil},
		{"/broken", 500, []string{"internal error; the validator's log says why"}, []string{"vlog", "badger"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			body := rec.Body.String()
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d: %s", rec.Code, tt.status, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("body lacks %q:\n%s", w, body)
				}
			}
			for _, hdn := range tt.hidden {
				if strings.Contains(body, hdn) {
					t.Errorf("body shows %q:\n%s", hdn, body)
				}
			}
		})
	}
	if !strings.Contains(logs.String(), "000042.vlog truncated") || strings.Count(logs.String(), "api: read failed") != 1 {
		t.Errorf("the internal error is not logged once:\n%s", logs.String())
	}
}
