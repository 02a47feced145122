package validator

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"
	"github.com/rs/zerolog"

	"arena/dataset"
	"arena/episode"
	"arena/validator/records"
)

// padKB is what the padding racer adds to every step, in its first tool
// call, under keys no tool reads: the issue measured 200 KB a call.
const padKB = 200

// hostileQ is appended to every q the padding racer sends, raw: invalid
// UTF-8 bytes, a lone surrogate, NUL and ESC. Normalised, it is three
// U+FFFD, which the search ignores, so the racer plays the same moves as
// without it and the bytes it stores compare with an honest racer's.
const hostileQ = "\xff\xfe\\ud800\\u0000\\u001b"

// padAgent wraps an agent: every step's first tool call gets unknown keys
// holding padKB KB (one nested in an object), every call hostileQ after
// its q, and every think NUL, ESC and a carriage return.
func padAgent(t *testing.T, a episode.Agent) episode.Agent {
	pad := strings.Repeat("p", padKB<<10)
	var mu sync.Mutex
	sent := map[string][]episode.Action{} // per episode, the actions before padding
	return episode.AgentFunc(func(ctx context.Context, v episode.EpisodeView) (episode.Action, error) {
		// The inner agent sees its own moves, not the padded ones, so it
		// plays as it would without the wrapper.
		mu.Lock()
		hist := make([]episode.Turn, len(v.History))
		for i, turn := range v.History {
			if i < len(sent[v.EpisodeID]) {
				turn.Action = sent[v.EpisodeID][i]
			}
			hist[i] = turn
		}
		mu.Unlock()
		v.History = hist
		act, err := a.Step(ctx, v)
		orig := act
		orig.ToolCalls = slices.Clone(act.ToolCalls)
		mu.Lock()
		sent[v.EpisodeID] = append(sent[v.EpisodeID], orig)
		mu.Unlock()
		act.ToolCalls = slices.Clone(act.ToolCalls)
		for i, c := range act.ToolCalls {
			var params map[string]json.RawMessage
			if err := json.Unmarshal(c.Parameters, &params); err != nil {
				t.Errorf("agent parameters: %v", err)
				return act, err
			}
			// Spliced by hand: json.Marshal would not write invalid UTF-8.
			raw := []byte(`{"more":{"pad":"` + pad[:1024] + `"}`)
			if i == 0 {
				raw = append(raw, `,"pad":"`+pad[:len(pad)-1024]+`"`...)
			}
			for k, val := range params {
				if k == "q" && len(val) > 1 && val[len(val)-1] == '"' {
					val = append(append(val[:len(val)-1:len(val)-1], hostileQ...), '"')
				}
				key, _ := json.Marshal(k)
				raw = append(append(append(append(raw, ','), key...), ':'), val...)
			}
			act.ToolCalls[i].Parameters = append(raw, '}')
		}
		act.Think += "\x00\x1b[31m\r"
		return act, err
	})
}

// TestPaddingRacer is issue 32's hostile miner in a race on a real store:
// racer 2 pads its tool-call parameters with unknown keys and sends
// invalid UTF-8, lone surrogates and control characters through the real
// runner, beside the honest racer 1. The race stores at most twice racer
// 1's bytes for racer 2 (measured and logged: docs/security.md); the
// operator API serves racer 2's episodes as valid UTF-8 JSON, with no
// control character, lone surrogate or padding, that decodes strictly;
// and `arena export` writes them likewise.
func TestPaddingRacer(t *testing.T) {
	h := newHarness(t, harnessOptions{miners: 2,
		wrapAgent: func(uid uint16, a episode.Agent) episode.Agent {
			if uid == 2 {
				return padAgent(t, a)
			}
			return a
		},
		edit: func(o *Options) {
			o.RaceEveryBlocks, o.RaceProblems = 10, 3
			o.Race.Floor, o.Race.RatioStart, o.Race.RatioFloor = 0, 0, 0
		}})
	h.run(1, 15)

	var rc records.Race
	bytesOf := map[uint16]int64{}
	var padded []string
	if err := h.store.View(func(txn *badger.Txn) error {
		races, err := h.v.rec.ListRaces(txn, 0)
		if err != nil || len(races) != 1 {
			t.Fatalf("races %d (%v), want 1", len(races), err)
		}
		rc = races[0]
		return h.v.rec.ForEachEpisodeInfo(txn, func(e records.EpisodeInfo) error {
			if e.Kind == records.Racing && e.RaceID == rc.ID {
				bytesOf[e.UID] += e.Bytes
				if e.UID == 2 {
					padded = append(padded, e.ID)
				}
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	if rc.Phase != records.PhaseDone || len(padded) != 3 || bytesOf[1] == 0 {
		t.Fatalf("race %d: phase %s, %d padded episodes, honest bytes %d; want done with 3 each", rc.ID, rc.Phase, len(padded), bytesOf[1])
	}
	ratio := float64(bytesOf[2]) / float64(bytesOf[1])
	t.Logf("race %d stores %d bytes for the honest racer's 3 episodes and %d for the padding racer's (%.2f×); it sent %d KB of padding a step",
		rc.ID, bytesOf[1], bytesOf[2], ratio, padKB)
	if ratio > 2 {
		t.Errorf("the padding racer stores %.2f× the honest racer's bytes, want at most 2×", ratio)
	}

	api := h.serveOperator(h.v, h.reg).api
	client := &http.Client{Timeout: 10 * time.Second}
	calls := 0
	for _, id := range padded {
		resp, err := client.Get(api + "/api/v1/episodes/" + id)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET episode %s: %d %v", id, resp.StatusCode, err)
		}
		checkCleanJSON(t, "API episode "+id, body)
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		var doc EpisodeDoc
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("episode %s does not decode strictly: %v", id, err)
		}
		for _, st := range doc.Episode.Trajectory.Steps {
			if strings.ContainsAny(st.Think, "\x00\x1b\r") {
				t.Errorf("episode %s: think %q keeps a control character", id, st.Think)
			}
			for _, c := range st.ToolCalls {
				calls++
				var params map[string]any
				if err := json.Unmarshal(c.Parameters, &params); err != nil {
					t.Fatal(err)
				}
				if _, ok := params["pad"]; ok || params["more"] != nil {
					t.Errorf("episode %s: %s parameters keep the padding", id, c.Name)
				}
				if q, ok := params["q"].(string); ok && !strings.HasSuffix(q, "\uFFFD\uFFFD\uFFFD") {
					t.Errorf("episode %s: q %q, want the invalid bytes and the lone surrogate as U+FFFD and NUL and ESC removed", id, episode.ClipText(q, 40))
				}
			}
		}
	}
	if calls == 0 {
		t.Fatal("the padding racer made no tool call")
	}

	out := filepath.Join(t.TempDir(), "sft")
	if _, err := dataset.Export(t.Context(), dataset.Options{Store: h.store, Ledger: h.ledger, Format: dataset.FormatSFT, Out: out,
		Filters: dataset.Filters{KeepDuplicates: true}}, zerolog.Nop()); err != nil {
		t.Fatal(err)
	}
	exported := 0
	for _, line := range jsonLines(t, filepath.Join(out, "train.jsonl")) {
		checkCleanJSON(t, "export row", line)
		var row dataset.SFTRow
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		for _, m := range row.Messages {
			for _, c := range m.ToolCalls {
				if p := episode.JSONTextProblem([]byte(c.Function.Arguments)); p != "" || strings.Contains(c.Function.Arguments, "pad") {
					t.Errorf("exported arguments %s: %s", episode.ClipText(c.Function.Arguments, 80), p)
				}
			}
		}
		if row.Meta != nil && row.Meta.MinerUID == 2 {
			exported++
		}
	}
	t.Logf("%d of the padding racer's episodes exported", exported)
}

// checkCleanJSON fails unless raw is valid UTF-8 JSON whose strings hold
// no lone surrogate and no control character other than newline and tab.
func checkCleanJSON(t *testing.T, what string, raw []byte) {
	t.Helper()
	if !utf8.Valid(raw) || !json.Valid(raw) {
		t.Fatalf("%s is not valid UTF-8 JSON", what)
	}
	if p := episode.JSONTextProblem(raw); p != "" {
		t.Fatalf("%s: %s", what, p)
	}
}
