package minercheck

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"arena/episode"
	"arena/relay"
	"arena/scoring/verify"
)

// The checker's side of protocol version 2 (docs/protocol.md, section
// 9): the validator's own relay (package relay) with its checks and
// budgets, in front of a scripted model served in process, and the
// validator's own verification (package scoring/verify) of every step
// against the completions the relay returned. The script is not a model
// and is never offered to a validator: it answers so that the episodes
// can be checked, and only the miner's conduct is judged.

// maxInfersQueued bounds one episode's infers waiting for the relay
// worker, the runner's default (episode.RunnerOptions.MaxInfersQueued).
const maxInfersQueued = 4

// scriptedBaseURL is the relay's provider: an address that resolves
// nowhere, since the script is served through an in-process transport.
const scriptedBaseURL = "http://minercheck.invalid/v1"

// newRelay is the validator's relay over the scripted model, with budget.
func newRelay(models []string, budget relay.Budget, log zerolog.Logger) (*relay.Relay, error) {
	return relay.New(relay.Options{BaseURL: scriptedBaseURL, Models: models, Required: true, Budget: budget, MaxInferBytes: episode.DefaultMaxInferBytes,
		HTTPClient: &http.Client{Transport: handlerTransport{scriptedModel{}}},
		LookupEnv:  func(string) (string, bool) { return "", false }}, log, nil)
}

// handlerTransport serves requests with a handler in process.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// scriptedModel answers chat completions the way a plain tool-calling
// shopper would, from the conversation alone: search with the user's
// words, recommend the first product of the last search result, then
// terminate. Its reasoning stays under the limits clause's think limit.
type scriptedModel struct{}

type scriptedMessage struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	var req struct {
		Model    string            `json:"model"`
		Messages []scriptedMessage `json:"messages"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &req)
	}
	if err != nil || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not a chat completions request"}}`, http.StatusBadRequest)
		return
	}
	think, name, args := scriptedTurn(req.Messages)
	argText, _ := json.Marshal(args)
	body, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-check", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{
			"role": "assistant", "content": nil, "reasoning_content": think,
			"tool_calls": []any{map[string]any{"id": "call_" + name, "type": "function",
				"function": map[string]any{"name": name, "arguments": string(argText)}}},
		}}},
		"usage": map[string]int{"prompt_tokens": len(raw) / 4, "completion_tokens": 30, "total_tokens": len(raw)/4 + 30},
	})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// scriptedTurn decides the script's next call from the conversation.
func scriptedTurn(msgs []scriptedMessage) (think, name string, args map[string]any) {
	var query, lastTool string
	tools, recommended := 0, false
	for _, m := range msgs {
		switch m.Role {
		case "user":
			if query == "" {
				query = contentText(m.Content)
			}
		case "tool":
			tools++
			lastTool = contentText(m.Content)
		case "assistant":
			for _, c := range m.ToolCalls {
				recommended = recommended || c.Function.Name == "recommend_product"
			}
		}
	}
	if tools == 0 {
		words := strings.Fields(strings.TrimPrefix(query, "I want "))
		q := strings.Join(words[:min(6, len(words))], " ")
		return "I search the shop for what the user asked for.", "find_product", map[string]any{"q": q, "page": 1}
	}
	var hits []struct {
		ID    string  `json:"product_id"`
		Price float64 `json:"price"`
	}
	if !recommended && json.Unmarshal([]byte(lastTool), &hits) == nil && len(hits) > 0 {
		return fmt.Sprintf("The search lists %s first, at %g; I recommend it.", hits[0].ID, hits[0].Price),
			"recommend_product", map[string]any{"product_ids": hits[0].ID}
	}
	status := "failure"
	if recommended {
		status = "success"
	}
	return "Nothing more to look up, so I finish.", "terminate", map[string]any{"status": status}
}

// contentText is a message content's text: a string, or text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// relayWorker answers one episode's infers one at a time, in arrival
// order, as the runner's relay worker does, and keeps the relay's
// records with the number of observations sent when each infer arrived.
type relayWorker struct {
	session episode.RelaySession
	cancel  context.CancelFunc
	done    chan struct{}

	mu          sync.Mutex
	completions []episode.Completion
	refused     []string
	infers      int
	errors      int
}

func (w *wire) startRelay(ctx context.Context, ep *live, sp spec, id string) *relayWorker {
	ctx, cancel := context.WithCancel(ctx)
	rw := &relayWorker{session: sp.relay.Open(w.miner, id), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(rw.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.Dead():
				return
			case in := <-ep.Infers:
				res := rw.answer(ctx, sp, in)
				res.EpisodeID, res.RequestID = id, in.Req.RequestID
				if ctx.Err() != nil {
					return // the episode is over; its end message is on its way
				}
				_ = w.Send(res)
			}
		}
	}()
	return rw
}

// answer serves one infer through the relay, or fails it as a relay
// whose provider is down does, and records what the clauses judge.
func (rw *relayWorker) answer(ctx context.Context, sp spec, in episode.WireInfer) *episode.InferResult {
	var res *episode.InferResult
	var rec *episode.Completion
	if sp.relayFault {
		res = &episode.InferResult{Error: &episode.InferError{Code: episode.InferProviderError,
			Message: "the validator's provider failed (not your fault): arena miner check fails every completion of this episode"}}
		rec = &episode.Completion{ID: "arc-check-" + randomHex(8), RequestID: in.Req.RequestID, Error: episode.InferProviderError,
			TRequested: time.Now(), TAnswered: time.Now()}
	} else {
		res, rec = rw.session.Infer(ctx, in.Req)
	}
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.infers++
	if rec != nil {
		rec.Observations = in.Observations
		rw.completions = append(rw.completions, *rec)
	}
	if res.Error == nil {
		return res
	}
	rw.errors++
	switch res.Error.Code {
	case episode.InferModelNotAllowed, episode.InferBadRequest:
		rw.refused = append(rw.refused, fmt.Sprintf("infer %q: %s: %s", episode.ClipText(in.Req.RequestID, 40), res.Error.Code, res.Error.Message))
	case episode.InferBudgetExceeded:
		// A max_tokens above the offer's bound is the request's fault;
		// running out of the episode's completions is relay_errors' case.
		if n := maxTokens(in.Req.Body); n > rw.session.Offer().MaxTokens {
			rw.refused = append(rw.refused, fmt.Sprintf("infer %q asks max_tokens %d, above relay.max_tokens %d: %s: %s",
				episode.ClipText(in.Req.RequestID, 40), n, rw.session.Offer().MaxTokens, res.Error.Code, res.Error.Message))
		}
	}
	return res
}

// stop ends the worker, waits for it and copies its records into p.
func (rw *relayWorker) stop(ep *live, p *played) {
	rw.cancel()
	<-rw.done
	rw.session.Close()
	rw.mu.Lock()
	p.completions, p.refused, p.infers, p.inferErrors = rw.completions, rw.refused, rw.infers, rw.errors
	rw.mu.Unlock()
	ep.mu.Lock()
	p.misuse = ep.misuse
	ep.mu.Unlock()
}

// maxTokens is the larger of a body's max_tokens and max_completion_tokens.
func maxTokens(body json.RawMessage) int64 {
	var b struct {
		MaxTokens           int64 `json:"max_tokens"`
		MaxCompletionTokens int64 `json:"max_completion_tokens"`
	}
	_ = json.Unmarshal(body, &b)
	return max(b.MaxTokens, b.MaxCompletionTokens)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b)
}

// verification is the validator's check of one relayed episode.
func (p *played) verification() verify.Report {
	tr := episode.Trajectory{Query: p.query, Protocol: episode.Version2, Relay: p.offer, Steps: p.records, Completions: p.completions}
	return verify.Check(&tr)
}

// judgeRelay turns the evidence of every relayed episode into the results
// of the version-2 clauses.
func (r *run) judgeRelay() {
	v2 := []Clause{Infer, InferRequests, Verified, Dictated, RelayErrors}
	if !r.v2 {
		why := "not checked: the miner did not take protocol version 2 (see negotiation)"
		if r.opts.MaxVersion < episode.Version2 {
			why = "not checked: the check offers protocol version 1 only (--max-version 1)"
		}
		for _, cl := range v2 {
			r.verdict(cl).skip = why
		}
		return
	}
	var relayed []*played
	infers, steps, verified, episodes := 0, 0, 0, 0
	var unverified, dictated []string
	for _, p := range r.played {
		if p.offer == nil {
			continue
		}
		relayed = append(relayed, p)
		infers += p.infers
		for _, m := range p.misuse {
			r.failf(Infer, "%s: %s", p.label, m)
		}
		for _, m := range p.refused {
			r.failf(InferRequests, "%s: %s (a validator's relay refuses it too)", p.label, m)
		}
		if !p.reason.Normal() {
			continue // its clause fails for the violation; the steps it cut are not a trajectory
		}
		episodes++
		rep := p.verification()
		judged := len(p.records)
		for _, is := range rep.Unverified {
			// Where every completion failed or the budget ran out, a step
			// may have no completion to name.
			if p.clause == RelayErrors && p.records[is.Step].CompletionID == "" {
				judged--
				continue
			}
			unverified = append(unverified, fmt.Sprintf("%s: step %d is unverified: %s", p.label, is.Step, is.Reason))
		}
		for _, is := range rep.Dictated {
			dictated = append(dictated, fmt.Sprintf("%s: step %d is dictated: %s", p.label, is.Step, is.Reason))
		}
		steps += judged
		verified += rep.Verified
	}
	for _, s := range r.stray {
		r.failf(Infer, "%s", s)
	}
	for _, s := range unverified {
		r.failf(Verified, "%s", s)
	}
	for _, s := range dictated {
		r.failf(Dictated, "%s", s)
	}
	if infers == 0 {
		r.verdict(Infer).skip = fmt.Sprintf("the miner sent no infer in %s: its steps name no completion (see verified)", count(len(relayed), "relayed episode"))
		r.verdict(InferRequests).skip = r.verdict(Infer).skip
	} else {
		r.verdict(Infer).pass = fmt.Sprintf("%s, each valid and for a live episode whose step was owed, with a request_id new to its episode", count(infers, "infer"))
		r.verdict(InferRequests).pass = fmt.Sprintf("the relay forwarded every request: a model of relay.models (%s), relayed fields within their bounds, max_tokens within %d",
			strings.Join(r.c.models, ", "), relay.DefaultBudget().MaxTokens)
	}
	if episodes == 0 {
		r.verdict(Verified).skip = "no relayed episode ended normally"
		r.verdict(Dictated).skip = r.verdict(Verified).skip
	} else {
		r.verdict(Verified).pass = fmt.Sprintf("%s of %s verify as a validator checks them (scoring/verify): each is exactly the completion it names, requested after its previous observation",
			count(steps, "step"), count(episodes, "relayed episode"))
		if verified > 0 {
			r.verdict(Dictated).pass = fmt.Sprintf("in %s, no value a completion chose is in its prompt outside the query and the observations", count(verified, "verified step"))
		} else {
			r.verdict(Dictated).skip = "no verified step to inspect"
		}
	}
}

// judgeRelayErrors judges the relay_errors clause's two episodes: one
// whose every infer the provider fails, one whose relay allows fewer
// completions than the script needs.
func (r *run) judgeRelayErrors(fault, spent *played) {
	v := r.verdict(RelayErrors)
	if (fault == nil || fault.infers == 0) && (spent == nil || spent.infers == 0) {
		if v.skip == "" && len(v.fails) == 0 {
			v.skip = "the miner sent no infer in these episodes, so it had no relay error to answer"
		}
		return
	}
	var passes []string
	for _, p := range []*played{fault, spent} {
		switch {
		case p == nil || !p.reason.Normal():
			// single has failed the clause with the violation.
		case p.infers == 0:
			passes = append(passes, p.label+": no infer")
		case p.reason != episode.ReasonTerminated:
			r.failf(RelayErrors, "%s: the agent took all %d steps without terminate; with no completion to be had it must end the episode",
				p.label, p.limits.MaxSteps)
		case p == fault:
			passes = append(passes, fmt.Sprintf("after %s answered provider_error, valid steps in time and terminate (%s) at step %d",
				count(p.inferErrors, "infer"), p.status, p.steps-1))
		default:
			passes = append(passes, fmt.Sprintf("with max_completions %d, %s and terminate (%s) at step %d",
				p.offer.MaxCompletions, count(p.infers, "infer"), p.status, p.steps-1))
		}
	}
	v.pass = strings.Join(passes, "; ")
}
