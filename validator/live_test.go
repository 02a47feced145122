package validator

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/validator/records"
)

// TestLiveRaceHidden: while a race runs, one racer has finished (its
// episodes are stored) and the other is still playing. No operator route
// shows the finished racer's episodes, verdicts, recommended products or
// the race's problems and results: the race shows its phase, racers and
// counts, and its episodes answer 403. Once the race is decided, all of it
// is shown.
func TestLiveRaceHidden(t *testing.T) {
	var hold atomic.Bool
	release := make(chan struct{})
	h := newHarness(t, harnessOptions{miners: 2, edit: func(o *Options) { o.RaceEveryBlocks = 10 },
		wrapAgent: func(uid uint16, a episode.Agent) episode.Agent {
			if uid == 2 {
				return gatedAgent{inner: a, gate: release, hold: &hold}
			}
			return a
		}})
	h.start()
	base := h.serveOperator(h.v, h.reg)
	for n := uint64(1); n <= 3; n++ {
		h.feed(n)
	}
	h.until("both miners qualified", func() bool { return h.miner(1).Qualifying != nil && h.miner(2).Qualifying != nil })
	hold.Store(true)
	for n := uint64(4); n <= 10; n++ {
		h.feed(n)
	}
	h.until("uid 1 done racing while uid 2 plays", func() bool {
		for _, e := range h.eventsOf(EventRacerDone) {
			if e.UID == 1 {
				return true
			}
		}
		return false
	})

	// What a finished racer's episodes would give away.
	var (
		raceID   uint64
		episodes []string
		secrets  []string
	)
	err := h.store.View(func(txn *badger.Txn) error {
		rs, err := h.v.rec.GetState(txn)
		if err != nil {
			return err
		}
		raceID = rs.Current
		if episodes, err = h.v.rec.RaceEpisodes(txn, raceID); err != nil {
			return err
		}
		rc, _, err := h.v.rec.GetRace(txn, raceID)
		if err != nil {
			return err
		}
		if rc.Phase != records.PhaseRunning {
			t.Fatalf("race %d is %s, want running", raceID, rc.Phase)
		}
		secrets = append(secrets, rc.Problems...)
		for _, id := range episodes {
			ep, _, err := h.v.rec.GetEpisode(txn, id)
			if err != nil {
				return err
			}
			secrets = append(secrets, ep.Trajectory.Recommended...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if raceID == 0 || len(episodes) == 0 || len(secrets) <= len(episodes) {
		t.Fatalf("race %d with %d stored episodes and %d secrets: the scenario did not happen", raceID, len(episodes), len(secrets))
	}

	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) (int, string) {
		t.Helper()
		url := base.api + path
		if !strings.HasPrefix(path, "/api/") {
			url = base.metrics + path
		}
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	race := "/api/v1/races/" + strconv.FormatUint(raceID, 10)
	crawl := []string{"/api/v1/status", "/api/v1/leaderboard", "/api/v1/races", race, "/metrics", "/readyz"}
	for _, id := range episodes {
		crawl = append(crawl, "/api/v1/episodes/"+id)
	}
	for _, path := range crawl {
		code, body := get(path)
		for _, s := range secrets {
			if strings.Contains(body, s) {
				t.Errorf("GET %s (%d) shows %s of the undecided race:\n%.400s", path, code, s, body)
			}
		}
		if strings.HasPrefix(path, "/api/v1/episodes/") && code != http.StatusForbidden {
			t.Errorf("GET %s: %d, want 403 while the race is undecided", path, code)
		}
	}
	if code, body := get(race); code != http.StatusOK || !strings.Contains(body, `"phase": "running"`) ||
		!strings.Contains(body, `"episodes_stored": `+strconv.Itoa(len(episodes))) || !strings.Contains(body, `"uid": 2`) {
		t.Errorf("GET %s: %d %s; want the phase, the racers and the counts", race, code, body)
	}

	close(release)
	h.until("the race decided", func() bool { return len(h.eventsOf(EventRaceDone)) == 1 })
	for _, id := range episodes {
		code, body := get("/api/v1/episodes/" + id)
		if code != http.StatusOK || !strings.Contains(body, `"verdict"`) {
			t.Errorf("episode %s after the decision: %d %.200s", id, code, body)
		}
	}
	if _, body := get(race); !strings.Contains(body, `"results"`) || !strings.Contains(body, secrets[0]) {
		t.Errorf("race %d after the decision does not show its results and problems: %.400s", raceID, body)
	}
}
