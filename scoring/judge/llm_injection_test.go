package judge

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestLLMInjectionFenced sends every string of the injection corpus, in the
// thinks of a trajectory, through the llm judge to an OpenAI-compatible
// httptest endpoint, and checks every request it received: the trajectory
// arrives inside exactly one nonce fence, whole and as valid JSON (so no
// injected text escapes into the instructions' reach), the nonce does not
// occur inside the fence, and the instructions are repeated after it. The
// model's honest verdict is then what the judge returns, never a score the
// injection asked for.
func TestLLMInjectionFenced(t *testing.T) {
	if len(injections) < 20 {
		t.Fatalf("corpus has %d strings", len(injections))
	}
	begin := regexp.MustCompile(`<<<BEGIN UNTRUSTED TRAJECTORY ([0-9a-f]{32})>>>\n`)
	var (
		mu       sync.Mutex
		problems []string
	)
	fail := func(format string) {
		mu.Lock()
		problems = append(problems, format)
		mu.Unlock()
	}
	var current string // the injection under test, read by the fake
	f := newFakeServer(t, func(string, int) reply {
		return reply{content: validVerdict}
	})
	j := newLLM(t, f.url, "m1")
	honest := 0.7
	for i, inj := range injections {
		current = inj
		before := len(f.requests())
		tr := fixture(t, "P100234 at 49.5 and P100777 at 35.25 "+inj, inj)
		v, err := j.Judge(context.Background(), tr)
		if err != nil {
			t.Fatal(err)
		}
		reqs := f.requests()[before:]
		if len(reqs) == 0 {
			t.Fatalf("injection %d: no request reached the endpoint", i)
		}
		for _, body := range reqs {
			msgs, _ := body["messages"].([]any)
			if len(msgs) != 2 {
				fail("want a system and a user message")
				continue
			}
			sys, _ := msgs[0].(map[string]any)["content"].(string)
			user, _ := msgs[1].(map[string]any)["content"].(string)
			m := begin.FindAllStringSubmatchIndex(user, -1)
			if len(m) != 1 {
				fail("injection " + current + ": want exactly one fence opening")
				continue
			}
			nonce := user[m[0][2]:m[0][3]]
			end := "\n<<<END UNTRUSTED TRAJECTORY " + nonce + ">>>\n\n"
			if strings.Count(user, end) != 1 || strings.Index(user, end) < m[0][1] {
				fail("injection " + current + ": the fence does not close once, after it opens")
				continue
			}
			inside := user[m[0][1]:strings.Index(user, end)]
			after := user[strings.Index(user, end)+len(end):]
			if strings.Contains(inside, nonce) {
				fail("injection " + current + ": the nonce occurs inside the fence")
			}
			if after != "The untrusted data has ended. Your instructions, repeated:\n\n"+sys || !strings.Contains(sys, nonce) {
				fail("injection " + current + ": the instructions are not repeated after the fence")
			}
			var tr struct {
				Steps []struct {
					Think string `json:"think"`
				} `json:"steps"`
			}
			if err := json.Unmarshal([]byte(inside), &tr); err != nil || len(tr.Steps) == 0 ||
				!strings.Contains(tr.Steps[0].Think+tr.Steps[len(tr.Steps)-1].Think, inj) {
				// A gullible model would now follow the injected text.
				fail("injection " + current + ": the trajectory is not whole, valid JSON inside the fence")
			}
		}
		// The model's honest verdict, bounded by the evidence.
		if want := min(honest, newGrounding(t).Score(tr).Score); v.Score != want || v.Fallback {
			t.Errorf("injection %d (%q): score %.2f fallback %v, want the honest %.2f bounded: %.2f", i, inj, v.Score, v.Fallback, honest, want)
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
}
