package devarena

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/validator"
	"arena/validator/records"
)

// heldAgent holds every step while hold is set, until release is closed.
type heldAgent struct {
	inner   episode.Agent
	hold    *atomic.Bool
	release <-chan struct{}
}

func (a heldAgent) Step(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
	if a.hold.Load() {
		select {
		case <-a.release:
		case <-ctx.Done():
			return episode.Action{}, ctx.Err()
		}
	}
	return a.inner.Step(ctx, v)
}

// TestNothingLiveLeaksOnTheDevnet runs the whole arena on the devnet:
// three miners qualify; when the race starts, every miner but uid 1 is
// held mid-episode, so uid 1 finishes and its episodes are stored while
// the race is still running. Then every operator route is fetched, on
// both listeners: none shows the race's hidden problem ids or the
// recommended products of uid 1's stored episodes, those episodes answer
// 403, and the metrics listener answers 404 for every API path. After the
// decision the episodes are shown.
func TestNothingLiveLeaksOnTheDevnet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a devnet race")
	}
	var (
		hold    atomic.Bool
		release = make(chan struct{})
		once    sync.Once
		wrapped atomic.Int32
	)
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	a, events := testArena(t, func(o *Options) {
		o.Miners, o.Skills = 3, []float64{1, 0.9, 0.8}
		o.Config.Race.Floor, o.Config.Race.RatioStart, o.Config.Race.RatioFloor = 0, 0, 0
		o.WrapAgent = func(ag episode.Agent) episode.Agent {
			if wrapped.Add(1) == 1 {
				return ag // uid 1 plays freely
			}
			return heldAgent{inner: ag, hold: &hold, release: release}
		}
		inner := o.OnEvent
		o.OnEvent = func(e validator.Event) {
			if e.Kind == validator.EventRaceStart {
				hold.Store(true) // before any race episode starts
			}
			inner(e)
		}
	})
	start := waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool { return e.Kind == validator.EventRaceStart })
	waitEvent(t, events, 2*time.Minute, func(e validator.Event) bool {
		return e.Kind == validator.EventRacerDone && e.RaceID == start.RaceID && e.UID == 1
	})

	rec := a.Stack.Validator.Records()
	var (
		episodes []string
		secrets  []string
	)
	err := a.Stack.Store.View(func(txn *badger.Txn) error {
		rc, ok, err := rec.GetRace(txn, start.RaceID)
		if err != nil || !ok {
			t.Fatalf("race %d: %v %v", start.RaceID, ok, err)
		}
		if rc.Phase != records.PhaseRunning {
			t.Fatalf("race %d is %s: the other racers were not held", rc.ID, rc.Phase)
		}
		secrets = append(secrets, rc.Problems...)
		if episodes, err = rec.RaceEpisodes(txn, rc.ID); err != nil {
			return err
		}
		for _, id := range episodes {
			ep, _, err := rec.GetEpisode(txn, id)
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
	if len(episodes) == 0 || len(secrets) <= len(episodes) {
		t.Fatalf("%d stored episodes, %d secrets: uid 1's race episodes are not in the store", len(episodes), len(secrets))
	}

	client := &http.Client{Timeout: 10 * time.Second}
	get := func(url string) (int, string) {
		t.Helper()
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
	metrics, api := "http://"+a.Stack.Server.Addr(), "http://"+a.Stack.API.Addr()
	race := "/api/v1/races/" + strconv.FormatUint(start.RaceID, 10)
	apiPaths := []string{"/api/v1/status", "/api/v1/leaderboard", "/api/v1/races", "/api/v1/races?limit=1000", race}
	for _, id := range episodes {
		apiPaths = append(apiPaths, "/api/v1/episodes/"+id)
	}
	var urls []string
	for _, p := range apiPaths {
		urls = append(urls, api+p)
		if code, _ := get(metrics + p); code != http.StatusNotFound {
			t.Errorf("metrics listener GET %s: %d, want 404", p, code)
		}
	}
	urls = append(urls, metrics+"/metrics", metrics+"/readyz", metrics+"/livez")
	for _, u := range urls {
		code, body := get(u)
		for _, s := range secrets {
			if strings.Contains(body, s) {
				t.Errorf("GET %s (%d) shows %s while race %d runs", u, code, s, start.RaceID)
			}
		}
		if strings.Contains(u, "/episodes/") && code != http.StatusForbidden {
			t.Errorf("GET %s: %d, want 403 while the race runs", u, code)
		}
	}

	once.Do(func() { close(release) })
	waitEvent(t, events, 3*time.Minute, func(e validator.Event) bool {
		return e.Kind == validator.EventRaceDone && e.RaceID == start.RaceID
	})
	if code, body := get(api + "/api/v1/episodes/" + episodes[0]); code != http.StatusOK || !strings.Contains(body, episodes[0]) {
		t.Errorf("episode %s after the decision: %d %.200s", episodes[0], code, body)
	}
	var rc records.Race
	if err := a.Stack.Store.View(func(txn *badger.Txn) (err error) { rc, _, err = rec.GetRace(txn, start.RaceID); return err }); err != nil {
		t.Fatal(err)
	}
	if _, body := get(api + race); rc.Phase != records.PhaseDone || !strings.Contains(body, secrets[0]) {
		t.Errorf("race %d (%s) after the decision does not show its problems: %.300s", rc.ID, rc.Phase, body)
	}
}
