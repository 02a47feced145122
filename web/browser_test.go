package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
	"arena/devarena"
	"arena/internal/browsertest"
	"arena/scoring/race"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
)

// screenshotsEnv names a directory that receives the operator pages'
// screenshots under fixed names (docs/web regenerates its images so:
// ARENA_WEB_SCREENSHOTS=$PWD/docs/web go test ./web/ -run Browser).
const screenshotsEnv = "ARENA_WEB_SCREENSHOTS"

// docsShotHeight is the height the docs' copies are cropped to: the top
// of each page, as a reader first sees it, in a small file.
const docsShotHeight = 900

// TestBrowserConsole runs a real arena (devnet, 4 reference miners, a
// validator with the console on its API listener and a public listener),
// waits until two races are decided and a leader is crowned, and loads
// every page of both listeners in Debian's Chromium. Each must have no
// console error, CSP violation or failed request; show the leader, a
// race's outcome and an episode's steps as the store has them; fit the
// viewport's width; give a screenshot that is not blank and a JSON twin
// that is JSON. The public pages must also leave out miners' endpoints
// and every hidden problem not yet exposed, and the public listener must
// serve nothing of the operator API.
func TestBrowserConsole(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an arena for a few races and a browser")
	}
	b := browsertest.Start(t)
	a := startArena(t)
	f := readFacts(t, a)
	t.Logf("race %d: %s, %d racers, %d problems; episode %s: %d steps; leader %v",
		f.race.ID, f.race.Output.Outcome, len(f.race.Racers), len(f.race.Problems), f.episode.Trajectory.EpisodeID, len(f.episode.Trajectory.Steps), leaderNow(t, f))

	// The public listener serves the pages and nothing else; the operator
	// listener has the JSON API beside them.
	for _, path := range []string{"/api/v1/status", "/api/v1/leaderboard", fmt.Sprintf("/api/v1/races/%d", f.race.ID), "/metrics", "/readyz"} {
		if code, _, _ := httpGet(t, "http://"+a.Stack.Public.Addr()+path); code != http.StatusNotFound {
			t.Errorf("public listener: GET %s answered %d, want 404", path, code)
		}
	}
	if code, _, _ := httpGet(t, "http://"+a.Stack.API.Addr()+"/api/v1/status"); code != http.StatusOK {
		t.Errorf("operator listener: GET /api/v1/status answered %d", code)
	}
	waitDigest(t, "http://"+a.Stack.API.Addr(), f.race.ID)

	// Both listeners' pages load side by side, each in its own tabs.
	shots := os.Getenv(screenshotsEnv)
	for _, l := range []struct {
		name   string
		base   string
		public bool
	}{
		{"operator", "http://" + a.Stack.API.Addr(), false},
		{"public", "http://" + a.Stack.Public.Addr(), true},
	} {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			visit := func(t *testing.T, name, path string) *browsertest.Page {
				t.Helper()
				t0 := time.Now()
				p := b.Visit(t, l.base+path)
				t1 := time.Now()
				p.RequireNoProblems(t)
				wantMode := "operator view"
				if l.public {
					wantMode = "public view"
				}
				if !strings.Contains(p.Text, wantMode) {
					t.Errorf("%s: the header does not say %q", path, wantMode)
				}
				img := p.Screenshot(t, filepath.Join(dir, name+".png"))
				t2 := time.Now()
				// A full-page screenshot is as wide as the page: wider
				// than the viewport means the page scrolls sideways (a
				// wide table must scroll in its own box instead).
				if cfg, err := png.DecodeConfig(bytes.NewReader(img)); err != nil {
					t.Fatal(err)
				} else if cfg.Width != browsertest.ViewportWidth {
					t.Errorf("%s is %dpx wide, not the viewport's %dpx: it scrolls sideways", path, cfg.Width, browsertest.ViewportWidth)
				}
				if shots != "" && !l.public {
					writeDocsShot(t, filepath.Join(shots, name+".png"), img)
				}
				twin := checkTwin(t, p)
				if l.public {
					checkNoUnexposed(t, a, p, twin)
				}
				t.Logf("%s: loaded in %v, screenshot (%d KB) in %v, JSON twin in %v", path, t1.Sub(t0).Round(time.Millisecond),
					len(img)>>10, t2.Sub(t1).Round(time.Millisecond), time.Since(t2).Round(time.Millisecond))
				return p
			}

			t.Run("overview", func(t *testing.T) {
				before := leaderNow(t, f)
				p := visit(t, "overview", "/")
				wantLeader(t, p, "#leader", before, leaderNow(t, f))
				if n := p.Count(t, "#reign-plot svg"); n != 1 {
					t.Errorf("overview has %d reign plots", n)
				}
				if n := p.Count(t, fmt.Sprintf("#reign-plot a[href='/miners/%d']", f.minerUID)); n < 1 {
					t.Errorf("the reign chart has no band for uid %d, the leader since race %d", f.minerUID, f.race.ID)
				}
				if n := p.Count(t, "#recent a[href^='/races/']"); n < 2 {
					t.Errorf("overview links %d recent races, want at least 2", n)
				}
			})

			t.Run("leaderboard", func(t *testing.T) {
				before := leaderNow(t, f)
				p := visit(t, "leaderboard", "/leaderboard")
				wantLeader(t, p, "#leaderboard tr.leader", before, leaderNow(t, f))
				if n, want := p.Count(t, "#leaderboard tr"), len(f.miners)+1; n != want {
					t.Errorf("leaderboard has %d rows, want a head and %d miners", n, len(f.miners))
				}
				if n := p.Count(t, "#type-plot svg"); n != 1 {
					t.Errorf("leaderboard has %d type plots", n)
				}
				for _, m := range f.miners {
					if m.Skipped != "" && l.public && strings.Contains(p.Text, m.Skipped) {
						t.Errorf("public leaderboard shows uid %d's skip reason %q", m.UID, m.Skipped)
					}
				}
			})

			t.Run("races", func(t *testing.T) {
				p := visit(t, "races", "/races")
				if n := p.Count(t, "#races tr"); n < 3 {
					t.Errorf("race list has %d rows, want a head and at least 2 races", n)
				}
				if n := p.Count(t, fmt.Sprintf("#races a[href='/races/%d']", f.race.ID)); n != 1 {
					t.Errorf("race list links race %d %d times", f.race.ID, n)
				}
				if n := p.Count(t, "#scores-plot svg"); n != 1 {
					t.Errorf("race list has %d score plots", n)
				}
			})

			t.Run("race", func(t *testing.T) {
				rc := f.race
				p := visit(t, "race", fmt.Sprintf("/races/%d", rc.ID))
				outcome := string(rc.Output.Outcome)
				if n := p.Count(t, "h1 #outcome.pill."+outcome); n != 1 {
					t.Errorf("race %d's heading does not show its outcome %q", rc.ID, outcome)
				}
				if !strings.Contains(p.Text, "Outcome "+outcome) {
					t.Errorf("race %d's decision does not read %q", rc.ID, "Outcome "+outcome)
				}
				if n, want := p.Count(t, "#grid tr"), len(rc.Racers)+1; n != want {
					t.Errorf("race grid has %d rows, want a head and %d racers", n, len(rc.Racers))
				}
				if n, want := p.Count(t, "#grid tr:first-child th"), len(rc.Problems)+2; n != want {
					t.Errorf("race grid has %d columns, want racer, mean and %d problems", n, len(rc.Problems))
				}
				if n, want := p.Count(t, "#grid td.cell a[href^='/episodes/']"), f.raceEpisodes; n != want {
					t.Errorf("race grid links %d episodes, want the %d stored", n, want)
				}
				if n := p.Count(t, fmt.Sprintf("#grid a[href='/episodes/%s']", f.episode.Trajectory.EpisodeID)); n != 1 {
					t.Errorf("race grid links episode %s %d times", f.episode.Trajectory.EpisodeID, n)
				}
				if n, want := p.Count(t, "#problems tr"), len(rc.Problems)+1; n != want {
					t.Errorf("race problem table has %d rows, want %d", n, want)
				}
			})

			t.Run("episode", func(t *testing.T) {
				e := f.episode
				tr := e.Trajectory
				p := visit(t, "episode", "/episodes/"+tr.EpisodeID)
				if n := p.Count(t, "section.step"); n != len(tr.Steps) {
					t.Errorf("episode page has %d steps, want %d", n, len(tr.Steps))
				}
				if n := p.Count(t, fmt.Sprintf("section.step#step-%d", len(tr.Steps)-1)); n != 1 {
					t.Errorf("episode page has no section step-%d", len(tr.Steps)-1)
				}
				think := []rune(normSpace(tr.Steps[0].Think))
				think = think[:min(len(think), 80)]
				if !strings.Contains(normSpace(p.Text), string(think)) {
					t.Errorf("episode page lacks the first step's think %q", string(think))
				}
				if n := p.Count(t, fmt.Sprintf("a[href='/miners/%d']", tr.MinerUID)); n < 1 {
					t.Errorf("episode page does not link its miner uid %d", tr.MinerUID)
				}
				if n := p.Count(t, "#final"); n != 1 {
					t.Errorf("episode page shows no final score")
				}
			})

			t.Run("miner", func(t *testing.T) {
				uid := f.minerUID
				p := visit(t, "miner", fmt.Sprintf("/miners/%d", uid))
				if !strings.Contains(p.Text, fmt.Sprintf("Miner uid %d", uid)) {
					t.Errorf("miner page does not name uid %d", uid)
				}
				if n := p.Count(t, "#miner-plot svg"); n != 1 {
					t.Errorf("miner page has %d score charts", n)
				}
				if n := p.Count(t, fmt.Sprintf("#miner-races a[href='/races/%d']", f.race.ID)); n != 1 {
					t.Errorf("miner page does not list race %d", f.race.ID)
				}
				endpoint := f.endpoint(uid)
				switch {
				case endpoint == "":
					t.Errorf("the store has no endpoint for uid %d", uid)
				case l.public && strings.Contains(p.HTML, endpoint):
					t.Errorf("public miner page shows the endpoint %s", endpoint)
				case !l.public && !strings.Contains(p.Text, endpoint):
					t.Errorf("operator miner page does not show the endpoint %s", endpoint)
				}
			})
		})
	}
}

// startArena runs `arena dev`'s arena with a public console listener until
// two races are decided and a leader is crowned; it goes on running until
// the test ends, then is cancelled and closed.
func startArena(t *testing.T) *devarena.Arena {
	t.Helper()
	events := make(chan validator.Event, 1024)
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Metrics.Listen, cfg.API.Listen = "127.0.0.1:0", "127.0.0.1:0"
	cfg.Web.PublicListen = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	a, err := devarena.Start(ctx, devarena.Options{Config: cfg, Miners: 4, BlockTime: 100 * time.Millisecond, Registry: prometheus.NewRegistry(),
		OnEvent: func(e validator.Event) {
			select {
			case events <- e:
			default:
			}
		}}, zerolog.Nop())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("arena run: %v", err)
		}
		a.Close()
	})
	if a.Stack.Public == nil {
		t.Fatal("web.public_listen is set but the stack has no public listener")
	}
	// The reference miners differ in skill, but a race crowns only on
	// enough evidence: the first races are often undecided.
	start := time.Now()
	deadline := time.After(2 * time.Minute)
	for decided, crowned := 0, false; decided < 2 || !crowned; {
		select {
		case e := <-events:
			if e.Kind == validator.EventRaceDone {
				decided++
				crowned = leaderOf(t, a) != nil
				t.Logf("%v: race %d decided (block %d): %s", time.Since(start).Round(time.Second), e.RaceID, e.Block, e.Text)
			}
		case err := <-done:
			t.Fatalf("the arena stopped before two races were decided and a leader crowned: %v", err)
		case <-deadline:
			t.Fatalf("in 2 minutes, fewer than two races were decided or no leader was crowned")
		}
	}
	return a
}

// leaderOf reads the leader now (nil: none).
func leaderOf(t *testing.T, a *devarena.Arena) *race.Leader {
	t.Helper()
	var l *race.Leader
	err := a.Stack.Store.View(func(txn *badger.Txn) error {
		rs, err := a.Stack.Validator.Records().GetState(txn)
		l = rs.State.Leader
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// waitDigest waits until the console's race digests, which it refreshes
// every 2 seconds, have race id decided: until then the lists and charts
// may still show it running while the store has its outcome.
func waitDigest(t *testing.T, base string, id uint64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, _, body := httpGet(t, base+"/races?format=json")
		var v struct {
			Races []struct {
				ID      uint64 `json:"id"`
				Outcome string `json:"outcome"`
			} `json:"races"`
		}
		if code == http.StatusOK && json.Unmarshal(body, &v) == nil {
			for _, r := range v.Races {
				if r.ID == id && r.Outcome != "" {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the race list does not show race %d decided 15s after it was:\n%.500s", id, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// facts is what the store says the pages must show.
type facts struct {
	a *devarena.Arena
	// race is the newest race decided with an outcome; raceEpisodes the
	// number of its stored episodes.
	race         records.Race
	raceEpisodes int
	// episode is one of its episodes with a think in its first step, of
	// about 4 steps.
	episode records.Episode
	miners  []records.Miner
	// minerUID is the leader when the facts were read.
	minerUID uint16
}

func readFacts(t *testing.T, a *devarena.Arena) *facts {
	t.Helper()
	f := &facts{a: a}
	rec := a.Stack.Validator.Records()
	err := a.Stack.Store.View(func(txn *badger.Txn) error {
		races, err := rec.ListRaces(txn, 0)
		if err != nil {
			return err
		}
		found := false
		for _, rc := range races {
			if rc.Phase == records.PhaseDone && rc.Output != nil && len(rc.Racers) > 0 {
				f.race, found = rc, true
				break
			}
		}
		if !found {
			return fmt.Errorf("no race done with an outcome among %d races", len(races))
		}
		ids, err := rec.RaceEpisodes(txn, f.race.ID)
		if err != nil {
			return err
		}
		f.raceEpisodes = len(ids)
		// A few steps: enough to check them, few enough to load fast.
		off := func(e *records.Episode) int { return abs(len(e.Trajectory.Steps) - 4) }
		for _, id := range ids {
			e, ok, err := rec.GetEpisode(txn, id)
			if err != nil {
				return err
			}
			if !ok || len(e.Trajectory.Steps) == 0 || strings.TrimSpace(e.Trajectory.Steps[0].Think) == "" {
				continue
			}
			if f.episode.Trajectory.EpisodeID == "" || off(&e) < off(&f.episode) {
				f.episode = e
			}
		}
		if f.episode.Trajectory.EpisodeID == "" {
			return fmt.Errorf("race %d has no episode with a step and a think among %d", f.race.ID, len(ids))
		}
		f.miners, err = rec.ListMiners(txn)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	l := leaderOf(t, a)
	if l == nil {
		t.Fatal("no leader") // startArena waited for one
	}
	f.minerUID = l.UID
	return f
}

func (f *facts) endpoint(uid uint16) string {
	for _, m := range f.miners {
		if m.UID == uid {
			return m.Endpoint
		}
	}
	return ""
}

// leaderAt is who led at one moment (ok false: nobody).
type leaderAt struct {
	uid uint16
	ok  bool
}

// leaderNow reads the leader now: races go on while the test reads.
func leaderNow(t *testing.T, f *facts) leaderAt {
	if l := leaderOf(t, f.a); l != nil {
		return leaderAt{l.UID, true}
	}
	return leaderAt{}
}

// wantLeader checks that the element sel links to the leader's page and
// no other miner's, the leader being whoever led before or after the
// visit (a race may be decided meanwhile), or that it links to none when
// nobody led.
func wantLeader(t *testing.T, p *browsertest.Page, sel string, cands ...leaderAt) {
	t.Helper()
	links := p.Count(t, sel+" a[href^='/miners/']")
	for _, c := range cands {
		if !c.ok && links == 0 {
			return
		}
		if c.ok && links > 0 && p.Count(t, fmt.Sprintf("%s a[href='/miners/%d']", sel, c.uid)) == links {
			return
		}
	}
	t.Errorf("%s: %q does not show the leader %+v (it links %d miner pages)", p.URL, sel, cands, links)
}

// checkTwin follows the page's "JSON of this page" link, checks that it
// answers a JSON object and returns it.
func checkTwin(t *testing.T, p *browsertest.Page) []byte {
	t.Helper()
	m := twinLink.FindStringSubmatch(p.HTML)
	if m == nil {
		t.Errorf("%s has no link to its JSON twin", p.URL)
		return nil
	}
	base, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatalf("%s: JSON link %q: %v", p.URL, m[1], err)
	}
	u := base.ResolveReference(ref)
	if u.Query().Get("format") != "json" {
		t.Errorf("%s: JSON link %s lacks format=json", p.URL, u)
	}
	code, ctype, body := httpGet(t, u.String())
	var v map[string]any
	if code != http.StatusOK || !strings.HasPrefix(ctype, "application/json") || json.Unmarshal(body, &v) != nil || len(v) == 0 {
		t.Errorf("GET %s: %d %s, want a JSON object:\n%.300s", u, code, ctype, body)
	}
	return body
}

// checkNoUnexposed fails if a page or its JSON twin names a hidden problem
// that has never been exposed, by id or by query. The ledger is read after
// the page was: a problem unexposed now was unexposed when it was
// rendered (exposure is for good), so races going on cannot make this
// check fail wrongly.
func checkNoUnexposed(t *testing.T, a *devarena.Arena, p *browsertest.Page, twin []byte) {
	t.Helper()
	clusters, err := a.Stack.Ledger.Clusters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	text, n := normSpace(p.Text), 0
	for _, c := range clusters {
		if c.Partition != suite.Hidden || c.Exposed() {
			continue
		}
		for _, id := range c.Problems {
			n++
			if strings.Contains(p.HTML, id) || bytes.Contains(twin, []byte(id)) {
				t.Errorf("%s names the unexposed hidden problem %s", p.URL, id)
			}
			pr, ok, err := a.Stack.Ledger.Problem(id)
			if err != nil {
				t.Fatal(err)
			}
			if q := normSpace(pr.Query); ok && q != "" && strings.Contains(text, q) {
				t.Errorf("%s shows the query of the unexposed hidden problem %s: %q", p.URL, id, q)
			}
		}
	}
	if n == 0 {
		t.Errorf("the suite has no unexposed hidden problem to look for")
	}
}

var twinLink = regexp.MustCompile(`<a class="twin" href="([^"]+)"`)

func httpGet(t *testing.T, u string) (int, string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

func abs(n int) int { return max(n, -n) }

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// writeDocsShot writes the top of a screenshot for the docs, cropped to
// docsShotHeight and reduced to 256 colours: a page is a few flat colours
// and anti-aliased text, so the image stays sharp at a fifth of the size.
func writeDocsShot(t *testing.T, path string, shot []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	b.Max.Y = min(b.Max.Y, b.Min.Y+docsShotHeight)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, quantize(img, b, 256)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d KB)", path, buf.Len()>>10)
}

// quantize maps the part b of img to a palette of at most n colours: the
// most used cells of a 32-level-per-channel grid, each the mean of the
// colours in it, every pixel taking the nearest (no dithering, which would
// speckle flat areas and compress badly).
func quantize(img image.Image, b image.Rectangle, n int) *image.Paletted {
	type cell struct{ r, g, b, n int }
	cells := map[uint32]*cell{}
	rgb := func(x, y int) (int, int, int) {
		r, g, bl, _ := img.At(x, y).RGBA()
		return int(r >> 8), int(g >> 8), int(bl >> 8)
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl := rgb(x, y)
			k := uint32(r>>3)<<10 | uint32(g>>3)<<5 | uint32(bl>>3)
			c := cells[k]
			if c == nil {
				c = &cell{}
				cells[k] = c
			}
			c.r, c.g, c.b, c.n = c.r+r, c.g+g, c.b+bl, c.n+1
		}
	}
	byUse := slices.SortedFunc(maps.Values(cells), func(a, b *cell) int { return b.n - a.n })
	var pal color.Palette
	for _, c := range byUse[:min(n, len(byUse))] {
		pal = append(pal, color.RGBA{uint8(c.r / c.n), uint8(c.g / c.n), uint8(c.b / c.n), 0xff})
	}
	out := image.NewPaletted(image.Rect(0, 0, b.Dx(), b.Dy()), pal)
	nearest := map[[3]int]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl := rgb(x, y)
			i, ok := nearest[[3]int{r, g, bl}]
			if !ok {
				i = uint8(pal.Index(color.RGBA{uint8(r), uint8(g), uint8(bl), 0xff}))
				nearest[[3]int{r, g, bl}] = i
			}
			out.SetColorIndex(x-b.Min.X, y-b.Min.Y, i)
		}
	}
	return out
}
