package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"

	"arena/episode"
	"arena/scoring/judge"
	"arena/validator"
	"arena/validator/records"
	"arena/web/plot"
)

// EpisodeView is the trajectory viewer's page.
type EpisodeView struct {
	ID      string           `json:"id"`
	Kind    records.Kind     `json:"kind"`
	RaceID  uint64           `json:"race_id,omitempty"`
	UID     uint16           `json:"uid"`
	Hotkey  string           `json:"hotkey"`
	Block   uint64           `json:"block"`
	Problem ProblemView      `json:"problem"`
	Query   string           `json:"query"`
	End     string           `json:"end_reason"`
	Detail  string           `json:"end_detail,omitempty"`
	Steps   []StepView       `json:"steps"`
	Verdict *records.Verdict `json:"verdict,omitempty"`
	Seconds float64          `json:"seconds"`
	// Relay is the episode's use of the validator's inference relay
	// (protocol version 2 with the relay on).
	Relay *RelayView `json:"relay,omitempty"`
}

// RelayView is an episode's metered relay use.
type RelayView struct {
	Completions      int   `json:"completions"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// ProviderFailed: the validator's provider failed during the episode,
	// which voids it for its miner (never the miner's fault).
	ProviderFailed bool `json:"provider_failed,omitempty"`
}

// StepView is one step of a trajectory with its judgement.
type StepView struct {
	N        int               `json:"n"`
	Think    string            `json:"think"`
	Calls    []CallView        `json:"calls"`
	Response *string           `json:"response,omitempty"`
	Judge    []judge.StepScore `json:"judge,omitempty"`
	Seconds  float64           `json:"miner_seconds"`
	// CompletionID is the relay completion the step names (v2).
	CompletionID string `json:"completion_id,omitempty"`
	// Check is the step's verification against that completion:
	// verified, unverified or dictated, with the reason (empty when the
	// validator checked nothing).
	Check       string `json:"verification,omitempty"`
	CheckReason string `json:"verification_reason,omitempty"`
}

// CallView is one tool call and the validator's observation of it.
type CallView struct {
	Name   string `json:"name"`
	Params string `json:"parameters"`
	// Table is the observation as rows when it is a list of objects (a
	// product list); otherwise Result holds it as indented JSON.
	Table  *Table             `json:"-"`
	Result string             `json:"result,omitempty"`
	Error  *episode.ToolError `json:"error,omitempty"`
}

// Table is a list of objects laid out in columns.
type Table struct {
	Columns []string
	Rows    [][]string
	// More counts rows left out.
	More int
}

// Display bounds: a trajectory page stays readable and bounded whatever
// a miner sent (a think is already clipped by the protocol's limits).
const (
	maxTableRows    = 50
	maxTableColumns = 8
	maxCellRunes    = 160
	maxJSONBytes    = 16 << 10
)

func (c *Console) episode(r *http.Request, public bool) (any, error) {
	id := r.PathValue("id")
	if id == "" || len(id) > 64 {
		return nil, badRequest("bad episode id")
	}
	v := c.opts.Validator
	var (
		e       records.Episode
		vd      *records.Verdict
		found   bool
		problem ProblemView
	)
	err := v.Store().View(func(txn *badger.Txn) (err error) {
		e, vd, found, err = v.Records().EpisodeForView(txn, id)
		return err
	})
	var live *records.LiveError
	switch {
	case errors.As(err, &live):
		return nil, &pageError{status: http.StatusForbidden,
			msg: fmt.Sprintf("this episode belongs to race %d, which is not decided yet; it is shown once the race is decided", live.Race)}
	case err != nil:
		return nil, err
	case !found:
		return nil, notFound("no episode %s", clip(id, 64))
	}
	if problem, err = c.problemView(e.Trajectory.ProblemID, public); err != nil {
		return nil, err
	}
	if public && !problem.Exposed {
		// Every stored episode's problem was shown to its miner, so this
		// does not happen; if a record said otherwise, say nothing.
		return nil, notFound("no episode %s", clip(id, 64))
	}
	tr := &e.Trajectory
	view := EpisodeView{ID: tr.EpisodeID, Kind: e.Kind, RaceID: e.RaceID, UID: tr.MinerUID, Hotkey: e.Hotkey, Block: e.Block,
		Problem: problem, Query: tr.Query, End: string(tr.EndReason), Detail: tr.EndDetail, Seconds: tr.Timings.Duration().Seconds()}
	if public {
		view.Detail = publicDetail(view.Detail)
	}
	if vd != nil {
		if public {
			// The model's raw answer is the operator's to debug with.
			vd.Judge.Raw = ""
		}
		view.Verdict = vd
	}
	if u := tr.RelayUsage; u != nil || tr.RelayFault {
		view.Relay = &RelayView{ProviderFailed: tr.RelayFault}
		if u != nil {
			view.Relay.Completions, view.Relay.PromptTokens, view.Relay.CompletionTokens = u.Completions, u.PromptTokens, u.CompletionTokens
		}
	}
	byStep := map[int][]judge.StepScore{}
	checks := map[int][2]string{}
	if vd != nil {
		for _, ss := range vd.Judge.PerStep {
			byStep[ss.Step] = append(byStep[ss.Step], ss)
		}
		if rep := vd.Judge.Verification; rep != nil {
			for i := range tr.Steps {
				checks[i] = [2]string{"verified", ""}
			}
			for _, is := range rep.Dictated {
				checks[is.Step] = [2]string{judge.FindingDictated, is.Reason}
			}
			for _, is := range rep.Unverified {
				checks[is.Step] = [2]string{judge.FindingUnverified, is.Reason}
			}
		}
	}
	for i, st := range tr.Steps {
		sv := StepView{N: i, Think: st.Think, Response: st.Response, Judge: byStep[i],
			Seconds: st.TReceived.Sub(st.TSent).Seconds(), CompletionID: st.CompletionID}
		sv.Check, sv.CheckReason = checks[i][0], checks[i][1]
		results := map[string]episode.ToolResult{}
		for _, res := range st.Results {
			results[res.ToolCallID] = res
		}
		for j, call := range st.ToolCalls {
			cv := CallView{Name: call.Name, Params: prettyJSON(call.Parameters)}
			res, ok := results[call.ID]
			if !ok && j < len(st.Results) && st.Results[j].ToolCallID == "" {
				res, ok = st.Results[j], true
			}
			if ok {
				cv.Error = res.Error
				if res.Result != nil {
					if cv.Table = tableOf(res.Result); cv.Table == nil {
						cv.Result = prettyJSON(res.Result)
					}
				}
			}
			sv.Calls = append(sv.Calls, cv)
		}
		view.Steps = append(view.Steps, sv)
	}
	return view, nil
}

// prettyJSON indents raw JSON for reading, clipped to maxJSONBytes, with
// bidirectional controls shown as escapes (escapeBidi).
func prettyJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return escapeBidi(clip(string(raw), maxJSONBytes))
	}
	return escapeBidi(clip(buf.String(), maxJSONBytes))
}

// tableOf lays out a JSON array of objects (or an object whose one array
// field is such a list) as a table, or returns nil.
func tableOf(raw json.RawMessage) *Table {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		list = nil
		for _, v := range obj {
			var inner []map[string]json.RawMessage
			if json.Unmarshal(v, &inner) == nil && len(inner) > 0 {
				if list != nil {
					return nil
				}
				list = inner
			}
		}
		if list == nil {
			return nil
		}
	}
	// Columns: the keys of the first object in a readable order (ids,
	// titles and prices first), then keys later rows add, up to the cap.
	seen := map[string]bool{}
	var cols []string
	add := func(k string) {
		if !seen[k] && len(cols) < maxTableColumns {
			seen[k] = true
			cols = append(cols, k)
		}
	}
	first := make([]string, 0, len(list[0]))
	for k := range list[0] {
		first = append(first, k)
	}
	rank := func(k string) int {
		switch k {
		case "product_id", "id":
			return 0
		case "title", "name":
			return 1
		case "price":
			return 2
		case "shop_id", "shop":
			return 3
		}
		return 4
	}
	sort.Slice(first, func(i, j int) bool {
		if rank(first[i]) != rank(first[j]) {
			return rank(first[i]) < rank(first[j])
		}
		return first[i] < first[j]
	})
	for _, k := range first {
		add(k)
	}
	t := &Table{Columns: cols}
	for i, obj := range list {
		if i == maxTableRows {
			t.More = len(list) - i
			break
		}
		row := make([]string, len(cols))
		for j, k := range cols {
			row[j] = cellText(obj[k])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func cellText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return clip(s, maxCellRunes)
	}
	return clip(string(raw), maxCellRunes)
}

// clip shortens s to at most n runes, the last of them "…" when it cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// MinerView is one miner's page.
type MinerView struct {
	Row MinerRow `json:"miner"`
	// Endpoint is the miner's axon (operator listener only).
	Endpoint string `json:"endpoint,omitempty"`
	// Races are the races it ran, newest first (at most 100).
	Races      []MinerRace   `json:"races"`
	RacesTotal int           `json:"races_total"`
	Qualifying []EpisodeLink `json:"qualifying_episodes,omitempty"`
	// LatestRace is the newest decided race it ran, with its episodes.
	LatestRace   uint64        `json:"latest_race,omitempty"`
	RaceEpisodes []EpisodeLink `json:"latest_race_episodes,omitempty"`
	ScoresPlot   template.HTML `json:"-"`
}

// maxMinerRows is how many of its races a miner's page lists and marks.
const maxMinerRows = 100

// MinerRace is one race in a miner's history.
type MinerRace struct {
	ID      uint64  `json:"id"`
	Block   uint64  `json:"started_block"`
	Score   float64 `json:"score"`
	Rank    int     `json:"rank"`
	Racers  int     `json:"racers"`
	Outcome string  `json:"outcome"`
	Leader  bool    `json:"leader_after"`
}

func (c *Console) miner(r *http.Request, public bool) (any, error) {
	n, err := strconv.ParseUint(r.PathValue("uid"), 10, 16)
	if err != nil {
		return nil, badRequest("uid must be an integer from 0 to 65535")
	}
	uid := uint16(n)
	rows, err := c.minerRows(public)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(rows, func(m MinerRow) bool { return m.UID == uid })
	if i < 0 {
		return nil, notFound("no miner with uid %d", uid)
	}
	view := MinerView{Row: rows[i]}
	v := c.opts.Validator
	var m records.Miner
	err = v.Store().View(func(txn *badger.Txn) error {
		var err error
		m, _, err = v.Records().GetMiner(txn, uid)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !public {
		view.Endpoint = m.Endpoint
	}
	if m.Qualifying != nil && m.Hotkey == view.Row.Hotkey {
		qs, err := c.quals.get(v, m)
		if err != nil {
			return nil, err
		}
		view.Qualifying = qs.episodes
	}
	races, err := c.raceRows()
	if err != nil {
		return nil, err
	}
	scores := plot.Series{Name: "race score"}
	for _, rr := range races {
		k := slices.IndexFunc(rr.Racers, func(x RacerRow) bool { return x.UID == uid && x.Hotkey == view.Row.Hotkey })
		if k < 0 || rr.Racers[k].Score == nil {
			continue
		}
		sc, rank := *rr.Racers[k].Score, k+1
		view.RacesTotal++
		view.Races = append(view.Races, MinerRace{ID: rr.ID, Block: rr.StartedBlock, Score: sc, Rank: rank, Racers: len(rr.Racers),
			Outcome: string(rr.Outcome), Leader: rr.Leader != nil && rr.Leader.UID == uid && rr.Leader.Hotkey == view.Row.Hotkey})
		scores.Points = append(scores.Points, plot.Point{X: float64(rr.StartedBlock), Y: sc})
	}
	// Every race is on the line; the newest ones get a marker with a
	// tooltip and a link (thousands of markers would only weigh the page).
	for i := max(len(view.Races)-maxMinerRows, 0); i < len(view.Races); i++ {
		mr := view.Races[i]
		scores.Points[i].Href = fmt.Sprintf("/races/%d", mr.ID)
		scores.Points[i].Label = fmt.Sprintf("race %d: %.3f, rank %d of %d", mr.ID, mr.Score, mr.Rank, mr.Racers)
	}
	slices.Reverse(view.Races)
	if len(view.Races) > 0 {
		view.LatestRace = view.Races[0].ID
		if view.RaceEpisodes, err = c.raceEpisodesOf(view.LatestRace, uid); err != nil {
			return nil, err
		}
	}
	view.Races = view.Races[:min(len(view.Races), maxMinerRows)]
	view.ScoresPlot = plot.Line(plot.Options{Title: fmt.Sprintf("uid %d: score in each race", uid), X: plot.Axis{Label: "block"},
		Y: plot.Axis{Label: "mean final score", Min: plot.Fixed(0), Max: plot.Fixed(1)}, Empty: "no race decided with this miner yet"}, scores)
	return view, nil
}

// raceEpisodesOf lists uid's episodes in a decided race.
func (c *Console) raceEpisodesOf(raceID uint64, uid uint16) ([]EpisodeLink, error) {
	v := c.opts.Validator
	var out []EpisodeLink
	err := v.Store().View(func(txn *badger.Txn) error {
		entries, err := v.Records().RaceEntries(txn, raceID)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.UID != uid {
				continue
			}
			link := EpisodeLink{ID: e.Episode, Problem: e.Problem}
			vd, ok, err := v.Records().GetVerdict(txn, e.Episode)
			if err != nil {
				return err
			}
			if ok {
				link.Type, link.Final, link.Success, link.Judged = vd.Metrics.Type, vd.Final, vd.Metrics.Success, true
			}
			out = append(out, link)
		}
		return nil
	})
	return out, err
}

// statusText is a leaderboard row's status for people.
func statusText(row validator.LeaderboardRow) string {
	switch row.Status {
	case validator.MinerBackingOff:
		return fmt.Sprintf("backing off until block %d (%d failed attempts)", row.RetryBlock, row.FailedAttempts)
	case validator.MinerNotServing:
		if row.Skipped != "" {
			return "not serving: " + row.Skipped
		}
	}
	return string(row.Status)
}
