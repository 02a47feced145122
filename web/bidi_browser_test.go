package web

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"arena/episode"
	"arena/internal/browsertest"
	"arena/scoring"
	"arena/scoring/judge"
	"arena/validator/records"
)

// box is an element's horizontal extent on the screen, in CSS pixels.
type box struct{ Left, Right float64 }

// rlo is U+202E RIGHT-TO-LEFT OVERRIDE: every character after it, to the
// end of its paragraph or of the isolate it is in, is laid out right to
// left.
const rlo = "\u202e"

// TestBrowserBidiIsolation: a miner that puts a right-to-left override in
// every piece of text the trajectory viewer shows (think, response, tool
// name, parameters, error message, recommended id, ungrounded ids, judge
// reason, finding, end detail) turns around nothing but that text. Loaded
// in Chromium, each text with the override lies in an isolating element
// (a <bdi>, an element with dir, or a block) that holds that text alone,
// the next ungrounded id is still laid out to the right of the first, and
// the parameters show the override as an escape instead of reversing the
// JSON after it.
func TestBrowserBidiIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser")
	}
	f := buildArena(t, t.TempDir(), arenaOptions{Races: 1, Racers: 2, Problems: 2, Pool: 2, Miners: 2})
	hostile := map[string]string{}
	for _, k := range []string{"think", "response", "name", "message", "recommended", "ungrounded1", "ungrounded2", "reason", "finding", "detail"} {
		hostile[k] = rlo + k + " evil-" + strings.ToUpper(k)
	}
	p := f.public[0]
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	params, _ := json.Marshal(map[string]any{"q": hostile["think"], "n": 1})
	resp := hostile["response"]
	tr := episode.Trajectory{EpisodeID: "hostile-bidi", ProblemID: p.ID, Query: p.Query, MinerUID: 1, ValidatorAddress: "0xfixture",
		EndReason: episode.ReasonTerminated, EndDetail: hostile["detail"], Recommended: []string{hostile["recommended"]},
		Timings: episode.Timings{Start: t0, End: t0.Add(2 * time.Second)},
		Steps: []episode.StepRecord{{Think: hostile["think"], Response: &resp, TSent: t0, TReceived: t0.Add(time.Second),
			ToolCalls: []episode.ToolCall{{ID: "c1", Name: hostile["name"], Parameters: params}},
			Results:   []episode.ToolResult{{ToolCallID: "c1", Error: &episode.ToolError{Code: "unknown_tool", Message: hostile["message"]}}}}}}
	vd := &records.Verdict{EpisodeID: tr.EpisodeID, Final: 0.1, Block: 50,
		Metrics: scoring.Metrics{Type: p.Type, HasTrajectory: true, Ungrounded: []string{hostile["ungrounded1"], hostile["ungrounded2"]},
			Items: []scoring.ItemScore{{Position: 1, Target: p.Targets[0], Recommended: hostile["recommended"], Constraints: 1}}},
		Judge: judge.Verdict{Score: 0.1, Judge: judge.NameGrounding, PerStep: []judge.StepScore{{Step: 1, Score: 0.1, Reason: hostile["reason"]}},
			Findings: []judge.Finding{{Name: "template", Detail: hostile["finding"]}}}}
	w := &bulkWriter{st: f.v.st}
	w.episode(t, f.v.rec, records.Episode{Kind: records.Qualifying, Hotkey: fixtureHotkey(1), ProblemType: p.Type, Cluster: p.Cluster, Block: 5, Trajectory: tr}, vd)
	w.flush(t)
	c := newConsole(t, f, Options{})
	srv := httptest.NewServer(c.Operator())
	t.Cleanup(srv.Close)

	b := browsertest.Start(t)
	page := b.Visit(t, srv.URL+"/episodes/"+tr.EpisodeID)
	page.RequireNoProblems(t)
	want := make([]string, 0, len(hostile))
	for _, s := range hostile {
		want = append(want, s)
	}
	wantJSON, _ := json.Marshal(want)
	var got struct {
		Checked  int `json:"checked"`
		Isolated int `json:"isolated"`
		Leaks    []struct {
			Tag  string `json:"tag"`
			Text string `json:"text"`
		} `json:"leaks"`
		First  box    `json:"first"`
		Second box    `json:"second"`
		Params string `json:"params"`
	}
	// An element isolates its content from what follows when its
	// unicode-bidi is isolate (bdi and any element with dir, in the
	// user-agent style sheet) or when it is not inline (a block ends the
	// paragraph). The nearest such ancestor of each overridden text must
	// hold that text and nothing else.
	page.EvalJSON(t, `(() => {
		const hostile = `+string(wantJSON)+`;
		const norm = s => s.replace(/\s+/g, " ").trim();
		const isolating = el => {
			const cs = getComputedStyle(el);
			return ["isolate", "isolate-override", "plaintext"].includes(cs.unicodeBidi) || !cs.display.startsWith("inline");
		};
		const out = {checked: 0, isolated: 0, leaks: []};
		const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			if (!n.data.includes("\u202e")) continue;
			out.checked++;
			let el = n.parentElement;
			while (el && !isolating(el)) el = el.parentElement;
			const text = el ? norm(el.textContent) : "";
			if (hostile.includes(text)) out.isolated++;
			else out.leaks.push({tag: el ? el.tagName + "." + el.className : "none", text: text.slice(0, 200)});
		}
		const p = [...document.querySelectorAll("p")].find(p => p.textContent.includes("Ungrounded ids"));
		const codes = p ? p.querySelectorAll("code") : [];
		const box = el => { const r = el.getBoundingClientRect(); return {Left: r.left, Right: r.right}; };
		if (codes.length >= 2) { out.first = box(codes[0]); out.second = box(codes[1]); }
		const pre = document.querySelector(".call pre");
		out.params = pre ? pre.textContent : "";
		return out;
	})()`, &got)
	if got.Checked < len(hostile)-1 || len(got.Leaks) > 0 {
		t.Errorf("%d texts with an override, %d isolated; not isolated: %+v", got.Checked, got.Isolated, got.Leaks)
	}
	if got.Second.Left < got.First.Right-0.5 {
		t.Errorf("the second ungrounded id (x %.1f..%.1f) is not to the right of the first (x %.1f..%.1f): the override leaked into it",
			got.Second.Left, got.Second.Right, got.First.Left, got.First.Right)
	}
	if strings.Contains(got.Params, rlo) || !strings.Contains(got.Params, `\u202e`) {
		t.Errorf("the parameters show %q, want the override as the escape \\u202e", got.Params)
	}
}
