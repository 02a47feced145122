package web

import (
	"fmt"
	"html/template"
	"math"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"

	"arena/scoring/race"
	"arena/suite"
	"arena/validator"
	"arena/validator/records"
	"arena/web/plot"
)

// plotRaces is how many recent races the overview's and race list's
// plots cover.
const plotRaces = 200

// racesPerPage is the race list's page size.
const racesPerPage = 50

// OverviewView is the overview page.
type OverviewView struct {
	Status validator.Status `json:"status"`
	// Suite is the suite's statistics as of SuiteAt (counted in the
	// background; nil before the first count).
	Suite   *suite.Stats `json:"suite,omitempty"`
	SuiteAt time.Time    `json:"suite_at,omitzero"`
	// NextRaceSeconds estimates the time to the next race from the
	// measured block time (0 when unknown).
	NextRaceSeconds float64 `json:"next_race_seconds,omitempty"`
	// ReignBlocks is how long the leader has led.
	ReignBlocks uint64    `json:"reign_blocks,omitempty"`
	Recent      []RaceRow `json:"recent_races"`

	ReignPlot template.HTML `json:"-"`
	PoolPlot  template.HTML `json:"-"`
}

func (c *Console) overview(r *http.Request, public bool) (any, error) {
	v := c.opts.Validator
	st, err := v.StatusBrief(r.Context())
	if err != nil {
		return nil, err
	}
	if public {
		st.NotReady = nil
		if st.LastWeights != nil {
			lw := *st.LastWeights
			lw.RawTx, lw.Salt = "", nil
			if lw.Op == "commit" && lw.Status != records.StatusRevealed {
				// Commit-reveal keeps weights unseen until the reveal.
				lw.UIDs, lw.Values, lw.CommitHash = nil, nil, ""
			}
			st.LastWeights = &lw
		}
		st.LastRace = nil
	} else if st.LastRace != nil {
		// The overview links to the race; its full record is on its page.
		st.LastRace = &records.Race{ID: st.LastRace.ID, Phase: st.LastRace.Phase}
	}
	view := OverviewView{Status: st}
	view.Suite, view.SuiteAt, _ = c.suite.get()
	if view.Suite != nil {
		view.Status.Suite = *view.Suite
	}
	if st.NextRaceBlock > st.HeadBlock && st.BlockSeconds > 0 {
		view.NextRaceSeconds = float64(st.NextRaceBlock-st.HeadBlock) * st.BlockSeconds
	}
	if st.Leader != nil && st.HeadBlock > st.Leader.Since {
		view.ReignBlocks = st.HeadBlock - st.Leader.Since
	}
	rows, err := c.raceRows()
	if err != nil {
		return nil, err
	}
	recent := rows[max(len(rows)-plotRaces, 0):]
	for i := len(rows) - 1; i >= 0 && len(view.Recent) < 5; i-- {
		view.Recent = append(view.Recent, rows[i])
	}
	view.ReignPlot = reignPlot(recent, st.HeadBlock)
	view.PoolPlot = poolPlot(recent)
	return view, nil
}

// reignPlot draws who led after each decided race, over blocks.
func reignPlot(rows []RaceRow, head uint64) template.HTML {
	var bands []plot.Band
	for i, rr := range rows {
		if !rr.Decided() || rr.Outcome == "" {
			continue
		}
		start := float64(rr.StartedBlock)
		end := float64(head)
		for _, next := range rows[i+1:] {
			if next.Decided() && next.Outcome != "" {
				end = float64(next.StartedBlock)
				break
			}
		}
		owner, href := "no leader", ""
		if rr.Leader != nil {
			owner, href = fmt.Sprintf("uid %d", rr.Leader.UID), fmt.Sprintf("/miners/%d", rr.Leader.UID)
		}
		if n := len(bands); n > 0 && bands[n-1].Owner == owner && bands[n-1].End == start {
			bands[n-1].End = end
			continue
		}
		bands = append(bands, plot.Band{Start: start, End: end, Owner: owner, Href: href})
	}
	return plot.Bands(plot.Options{Title: "Leader over blocks (recent races)", X: plot.Axis{Label: "block"},
		Empty: "no race decided yet"}, bands)
}

// poolPlot draws the never-exposed hidden clusters left after each race.
func poolPlot(rows []RaceRow) template.HTML {
	s := plot.Series{Name: "hidden clusters left"}
	for _, rr := range rows {
		if rr.HiddenLeft != nil {
			s.Points = append(s.Points, plot.Point{X: float64(rr.StartedBlock), Y: float64(*rr.HiddenLeft),
				Label: fmt.Sprintf("race %d: %d left", rr.ID, *rr.HiddenLeft), Href: fmt.Sprintf("/races/%d", rr.ID)})
		}
	}
	return plot.Line(plot.Options{Title: "Hidden pool after each race", X: plot.Axis{Label: "block"},
		Y: plot.Axis{Label: "clusters", Min: plot.Fixed(0)}, Empty: "no race drawn yet"}, s)
}

// MinerRow is a leaderboard row with the miner's success by problem type
// and reasoning quality over its qualifying run.
type MinerRow struct {
	validator.LeaderboardRow
	// Types is success per problem type over the qualifying run.
	Types map[suite.Type]TypeScore `json:"success_by_type,omitempty"`
	// Reasoning is the mean reasoning-judge score over the qualifying run.
	Reasoning *float64 `json:"reasoning_q,omitempty"`
	// RecentRaces are its scores in its last races, oldest first.
	RecentRaces []float64 `json:"recent_race_scores,omitempty"`
}

// TypeScore is success on one problem type.
type TypeScore struct {
	Episodes  int `json:"episodes"`
	Successes int `json:"successes"`
}

// Rate is the success rate.
func (t TypeScore) Rate() float64 {
	if t.Episodes == 0 {
		return 0
	}
	return float64(t.Successes) / float64(t.Episodes)
}

// LeaderboardView is the leaderboard page.
type LeaderboardView struct {
	Types    []suite.Type  `json:"types"`
	Miners   []MinerRow    `json:"miners"`
	TypePlot template.HTML `json:"-"`
}

func (c *Console) leaderboard(r *http.Request, public bool) (any, error) {
	rows, err := c.minerRows(public)
	if err != nil {
		return nil, err
	}
	view := LeaderboardView{Types: suite.AllTypes(), Miners: rows}
	var series []plot.Series
	for _, m := range rows {
		if len(series) == 6 || m.Types == nil {
			continue
		}
		s := plot.Series{Name: fmt.Sprintf("uid %d", m.UID)}
		for i, t := range view.Types {
			ts := m.Types[t]
			y := ts.Rate()
			if ts.Episodes == 0 {
				y = math.NaN() // no bar: nothing to rate, not a zero rate
			}
			s.Points = append(s.Points, plot.Point{X: float64(i), Y: y,
				Label: fmt.Sprintf("uid %d, %s: %d of %d", m.UID, t, ts.Successes, ts.Episodes)})
		}
		series = append(series, s)
	}
	cats := make([]string, len(view.Types))
	for i, t := range view.Types {
		cats[i] = string(t)
	}
	view.TypePlot = plot.Bars(plot.Options{Title: "Qualifying success by problem type (top miners)",
		Y: plot.Axis{Label: "success", Min: plot.Fixed(0), Max: plot.Fixed(1)}, Empty: "no miner has qualified yet"}, cats, series...)
	return view, nil
}

func (c *Console) minerRows(public bool) ([]MinerRow, error) {
	v := c.opts.Validator
	board, err := v.Leaderboard()
	if err != nil {
		return nil, err
	}
	races, err := c.raceRows()
	if err != nil {
		return nil, err
	}
	recent := map[uint16][]float64{}
	for i := len(races) - 1; i >= 0 && i >= len(races)-plotRaces; i-- {
		for _, rr := range races[i].Racers {
			if rr.Score != nil && len(recent[rr.UID]) < 10 {
				recent[rr.UID] = append(recent[rr.UID], *rr.Score)
			}
		}
	}
	miners := map[uint16]records.Miner{}
	err = v.Store().View(func(txn *badger.Txn) error {
		ms, err := v.Records().ListMiners(txn)
		for _, m := range ms {
			miners[m.UID] = m
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]MinerRow, 0, len(board))
	for _, row := range board {
		if public {
			row.Skipped = ""
		}
		mr := MinerRow{LeaderboardRow: row, RecentRaces: recent[row.UID]}
		slices.Reverse(mr.RecentRaces)
		if m, ok := miners[row.UID]; ok && m.Qualifying != nil && m.Hotkey == row.Hotkey {
			qs, err := c.quals.get(v, m)
			if err != nil {
				return nil, err
			}
			mr.Types, mr.Reasoning = qs.types, qs.reasoning
		}
		out = append(out, mr)
	}
	return out, nil
}

// qualCache keeps what the leaderboard shows of each qualifying run,
// which never changes once finished: reading its verdicts at every view
// would cost a read per episode per miner.
type qualCache struct {
	mu   sync.Mutex
	runs map[qualKey]*qualStats
}

type qualKey struct {
	uid    uint16
	hotkey string
	block  uint64
}

type qualStats struct {
	types     map[suite.Type]TypeScore
	reasoning *float64
	episodes  []EpisodeLink
}

func (q *qualCache) get(v Validator, m records.Miner) (*qualStats, error) {
	key := qualKey{m.UID, m.Hotkey, m.Qualifying.Block}
	q.mu.Lock()
	qs, ok := q.runs[key]
	q.mu.Unlock()
	if ok {
		return qs, nil
	}
	qs = &qualStats{types: map[suite.Type]TypeScore{}}
	var qsum float64
	err := v.Store().View(func(txn *badger.Txn) error {
		for _, id := range m.Qualifying.Episodes {
			vd, ok, err := v.Records().GetVerdict(txn, id)
			if err != nil {
				return err
			}
			link := EpisodeLink{ID: id}
			if ok {
				link.Type, link.Final, link.Success, link.Judged = vd.Metrics.Type, vd.Final, vd.Metrics.Success, true
				ts := qs.types[vd.Metrics.Type]
				ts.Episodes++
				if vd.Metrics.Success {
					ts.Successes++
				}
				qs.types[vd.Metrics.Type] = ts
				qsum += vd.Judge.Score
			}
			qs.episodes = append(qs.episodes, link)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	judged := 0
	for _, ts := range qs.types {
		judged += ts.Episodes
	}
	if judged > 0 {
		mean := qsum / float64(judged)
		qs.reasoning = &mean
	}
	q.mu.Lock()
	if q.runs == nil {
		q.runs = map[qualKey]*qualStats{}
	}
	q.runs[key] = qs
	q.mu.Unlock()
	return qs, nil
}

// EpisodeLink is one episode in a list.
type EpisodeLink struct {
	ID      string     `json:"id"`
	Problem string     `json:"problem,omitempty"`
	Type    suite.Type `json:"type,omitempty"`
	Final   float64    `json:"final"`
	Success bool       `json:"success"`
	Judged  bool       `json:"judged"`
}

// RacesView is one page of the race list, newest first.
type RacesView struct {
	Races []RaceRow `json:"races"`
	// Older is the ?before= value of the next page (0: none).
	Older uint64 `json:"older,omitempty"`
	// Total is the number of races stored.
	Total      int           `json:"total"`
	ScoresPlot template.HTML `json:"-"`
}

func (c *Console) raceList(r *http.Request, _ bool) (any, error) {
	before := uint64(math.MaxUint64)
	if b := r.URL.Query().Get("before"); b != "" {
		n, err := parseUint(b, "before")
		if err != nil {
			return nil, err
		}
		before = n
	}
	rows, err := c.raceRows()
	if err != nil {
		return nil, err
	}
	view := RacesView{Total: len(rows)}
	end, _ := slices.BinarySearchFunc(rows, before, func(rr RaceRow, id uint64) int {
		switch {
		case rr.ID < id:
			return -1
		case rr.ID > id:
			return 1
		}
		return 0
	})
	for i := end - 1; i >= 0 && len(view.Races) < racesPerPage; i-- {
		view.Races = append(view.Races, rows[i])
		if i > 0 && len(view.Races) == racesPerPage {
			view.Older = rows[i].ID
		}
	}
	best := plot.Series{Name: "winner's mean score"}
	margin := plot.Series{Name: "margin over the runner-up"}
	for _, rr := range rows[max(end-plotRaces, 0):end] {
		w := rr.Winner()
		if w == nil {
			continue
		}
		x, href := float64(rr.ID), fmt.Sprintf("/races/%d", rr.ID)
		best.Points = append(best.Points, plot.Point{X: x, Y: *w.Score, Href: href,
			Label: fmt.Sprintf("race %d: uid %d %.3f (%s)", rr.ID, w.UID, *w.Score, rr.Outcome)})
		if rr.Margin != nil {
			margin.Points = append(margin.Points, plot.Point{X: x, Y: *rr.Margin, Href: href,
				Label: fmt.Sprintf("race %d: margin %.3f", rr.ID, *rr.Margin)})
		}
	}
	view.ScoresPlot = plot.Line(plot.Options{Title: "Race scores", X: plot.Axis{Label: "race"},
		Y: plot.Axis{Label: "score", Min: plot.Fixed(0)}, Empty: "no race decided yet"}, best, margin)
	return view, nil
}

// RaceView is one race's page.
type RaceView struct {
	Race RaceRow `json:"race"`
	// Hidden says why a live race shows only its racers.
	Hidden   string        `json:"hidden,omitempty"`
	Problems []ProblemView `json:"problems,omitempty"`
	// Grid is each racer's result per problem, in Race.Racers order.
	Grid   []RacerResults `json:"grid,omitempty"`
	Output *race.Output   `json:"output,omitempty"`
	// EpisodesPruned counts the race's episodes that store retention
	// deleted; their scores stay in the grid, without a link.
	EpisodesPruned int `json:"episodes_pruned,omitempty"`
}

// ProblemView is a problem as a race or episode page shows it.
type ProblemView struct {
	ID      string     `json:"id"`
	Type    suite.Type `json:"type"`
	Query   string     `json:"query,omitempty"`
	Targets []string   `json:"targets,omitempty"`
	// Exposed: the problem was shown to miners, so its ground truth may
	// be shown too.
	Exposed   bool   `json:"exposed"`
	Partition string `json:"partition,omitempty"`
}

// RacerResults is one racer's row of a race's grid.
type RacerResults struct {
	RacerRow
	Cells []Cell `json:"cells"`
}

// Cell is one racer's result on one problem.
type Cell struct {
	Score   *float64 `json:"score,omitempty"`
	Episode string   `json:"episode,omitempty"`
}

func (c *Console) race(r *http.Request, public bool) (any, error) {
	id, err := parseUint(r.PathValue("id"), "race id")
	if err != nil {
		return nil, err
	}
	v := c.opts.Validator
	var (
		rv    records.RaceView
		found bool
	)
	err = v.Store().View(func(txn *badger.Txn) (err error) {
		rv, found, err = v.Records().RaceForView(txn, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, notFound("no race %d", id)
	}
	if lr := rv.Live; lr != nil {
		return RaceView{Race: liveDigest(lr),
			Hidden: "this race is " + string(lr.Phase) + ": its problems, episodes, verdicts and scores are shown once it is decided"}, nil
	}
	rc, entries := rv.Decided, rv.Entries
	view := RaceView{Race: digestOf(rc)}
	view.Output, view.EpisodesPruned = rc.Output, rc.EpisodesPruned
	for _, pid := range rc.Problems {
		pv, err := c.problemView(pid, public)
		if err != nil {
			return nil, err
		}
		view.Problems = append(view.Problems, pv)
	}
	episodeOf := map[uint16]map[string]string{}
	for _, e := range entries {
		if episodeOf[e.UID] == nil {
			episodeOf[e.UID] = map[string]string{}
		}
		episodeOf[e.UID][e.Problem] = e.Episode
	}
	heat := map[uint16][]float64{}
	if rc.Heat != nil {
		for _, hr := range rc.Heat.Racers {
			heat[hr.UID] = hr.Scores
		}
	}
	for _, racer := range view.Race.Racers {
		rr := RacerResults{RacerRow: racer}
		for i, pid := range rc.Problems {
			cell := Cell{Episode: episodeOf[racer.UID][pid]}
			if s := heat[racer.UID]; i < len(s) {
				cell.Score = &s[i]
			} else if sc, ok := rc.Episodes[cell.Episode]; ok && cell.Episode != "" {
				cell.Score = &sc
			}
			rr.Cells = append(rr.Cells, cell)
		}
		view.Grid = append(view.Grid, rr)
	}
	return view, nil
}

// problemView reads a problem; its query and ground truth are kept only
// once its cluster was exposed (public problems always are; a hidden one
// is exposed when a race draws it). A withheld problem shows only its id,
// and on the public listener not even that.
func (c *Console) problemView(id string, public bool) (ProblemView, error) {
	l := c.opts.Validator.Ledger()
	pv := ProblemView{ID: id}
	p, ok, err := l.Problem(id)
	if err != nil || !ok {
		return pv, err
	}
	pv.Type = p.Type
	cl, ok, err := l.ClusterRecord(p.Cluster)
	if err != nil {
		return pv, err
	}
	if ok {
		pv.Partition = string(cl.Partition)
		pv.Exposed = cl.Partition != suite.Hidden || cl.Exposed()
	}
	switch {
	case pv.Exposed:
		pv.Query, pv.Targets = p.Query, p.Targets
	case public:
		pv.ID = ""
	}
	return pv, nil
}
