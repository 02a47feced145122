package minercheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Status is a clause's outcome.
type Status string

// Statuses. Skip is a clause that could not be judged: its precondition
// failed (and that failure is reported) or the miner gave it nothing to
// judge.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is one clause's outcome; Detail says what was seen, and on a
// failure what was wrong, with the protocol's end reason where one
// applies.
type Result struct {
	Clause   Clause        `json:"clause"`
	Status   Status        `json:"status"`
	Detail   string        `json:"detail"`
	Duration time.Duration `json:"-"`
}

// MarshalJSON adds the duration in milliseconds.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		MS int64 `json:"ms"`
	}{plain(r), r.Duration.Milliseconds()})
}

// Report is a check's outcome, one Result per clause in Clauses order.
type Report struct {
	// Endpoint is the URL checked.
	Endpoint string `json:"endpoint"`
	// Miner is the address the miner's hello_ack claims, and Hotkey its
	// mirror account: the hotkey the miner must be registered under.
	// Empty when no hello_ack came.
	Miner   string   `json:"miner,omitempty"`
	Hotkey  string   `json:"hotkey,omitempty"`
	OK      bool     `json:"ok"`
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	Clauses []Result `json:"clauses"`
}

func (r *Report) add(res Result) {
	r.Clauses = append(r.Clauses, res)
	switch res.Status {
	case Pass:
		r.Passed++
	case Fail:
		r.Failed++
	default:
		r.Skipped++
	}
	r.OK = r.Failed == 0
}

// Result returns the clause's result.
func (r *Report) Result(c Clause) (Result, bool) {
	for _, res := range r.Clauses {
		if res.Clause == c {
			return res, true
		}
	}
	return Result{}, false
}

// FailedClauses lists the clauses that failed, in report order.
func (r *Report) FailedClauses() []Clause {
	var out []Clause
	for _, res := range r.Clauses {
		if res.Status == Fail {
			out = append(out, res.Clause)
		}
	}
	return out
}

// JSON is the report as one JSON object. Details quote the miner's
// text, so HTML escaping would only garble them.
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Print writes the report for a terminal: one line per clause.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "miner check %s\n", r.Endpoint)
	if r.Miner != "" {
		fmt.Fprintf(w, "miner %s (hotkey %s, the address's mirror)\n", r.Miner, r.Hotkey)
	}
	width := 0
	for _, res := range r.Clauses {
		width = max(width, len(res.Clause))
	}
	for _, res := range r.Clauses {
		fmt.Fprintf(w, "  %-4s  %-*s  %s\n", strings.ToUpper(string(res.Status)), width, res.Clause, res.Detail)
	}
	fmt.Fprintf(w, "%d clauses: %d passed, %d failed, %d skipped\n", len(r.Clauses), r.Passed, r.Failed, r.Skipped)
}
