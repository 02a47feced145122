// Package judge scores the reasoning of an agent's trajectory
// (docs/design.md, "Reasoning judge"). The score q feeds scoring.Final
// (final = success × c(q)), so it moves emissions: it must be hard to
// game, and the agent's own words are the attacker's input.
//
// One interface, Judge, returns a Verdict: the gate results, the score,
// per-step scores with reasons, and provenance (judge, model, prompt
// version, the raw model answer, and whether it is a fallback).
//
// # Grounding (the default)
//
// Grounding is deterministic and does no I/O. It applies the gate ladder
// to every step's think, against the results the validator itself
// recorded for earlier steps only (a think is written before its own
// step's tools run):
//
//   - refers to tool results: a word of an earlier result's title, brand
//     or category, an id, a price, a shop_id or an attribute value; else 0.3;
//   - cites a datum: a product_id, shop_id, price or attribute/SKU value
//     that an earlier result returned; else 0.5;
//   - compares: one sentence names two distinct observed product ids
//     and gives a reason, either a comparative or causal word between
//     the two mentions ("cheaper", "than", "because"...) or an observed
//     price, shop_id or attribute value of one of the named products;
//     else 0.7, if so 0.9.
//
// A step passes no gate unless its think engages with the step it
// follows: it names something step i-1 returned (a datum, a title word,
// or that nothing came back) and a constraint of the query (a content
// word or a number of it). The trajectory's gates are those passed by at
// least one step, and its score is the ladder over them; per-step scores
// use the same ladder. A think that addresses the judge (asks for a
// score, declares gates passed, orders it to ignore its instructions)
// forfeits every rung of the trajectory (FindingInjection, screen.go).
//
// # Templates
//
// DetectTemplates compares the masked think skeletons of one miner's
// qualifying run or race; a run whose thinks share one skeleton across
// problems gets FindingTemplated and its q capped (TemplateOptions,
// default cap 0.5). EvaluateBatch applies it per Case.Group; the
// validator applies it per run with PolicyOf(judge).Templates.Apply.
//
// Why it resists prompt injection: every piece of evidence must equal a
// token that the validator's observations contained before that step.
// The agent's text is only ever looked up, never believed, so fake gate
// results, fake JSON verdicts, "score: 1.0", fake observation blocks or
// instructions add no evidence: generic text cannot contain this
// trajectory's ids and values. Words of the user's query never count
// (repeating the request is not reading results); numbers count as
// prices only with two digits or more and a value ≥ 1 (so "1.0" or
// "0.9" is never a price); comparative words count only between two
// real mentions, so text appended or prepended to a think cannot supply
// the missing reason. Tokens are ASCII letters and digits: homoglyphs,
// fullwidth digits and invisible characters split tokens rather than
// forming an id. Tool call parameters, error observations and the agent's
// response are never evidence.
//
// Performance: the observations are read once per trajectory, in step
// order, with a small purpose-built JSON reader that only looks up the
// think's own tokens (no decoding, no set of everything observed), in an
// open-addressing table that folds ASCII case while hashing, so observed
// bytes are looked up as they are. Title words are read in a second pass
// only when some step cites no datum. See docs/benchmarks.md.
//
// # Scoring many trajectories
//
// EvaluateBatch is the validator's entry point: for each recorded episode
// (problem, trajectory, answer) it gives the rule metrics with the
// grounding set, the grounding verdict and the final score, exactly as
// scoring.ObservedAmong, scoring.Rules, Grounding.Score and scoring.Final
// called one by one, on GOMAXPROCS goroutines, and scanning each tool
// result for the answered ids while the judge has it in cache.
//
// # LLM
//
// LLM asks an OpenAI-compatible chat endpoint (openai-go) to apply the
// same ladder. The prompt is the embedded, versioned prompt_v2.txt
// (PromptVersion, recorded in the verdict). The trajectory is rendered
// as JSON and fenced as untrusted data by lines that carry a nonce drawn
// from crypto/rand for every call (the agent wrote its text before the
// nonce existed, so it cannot close the fence), and the instructions are
// repeated after the data. The answer is constrained by a JSON schema
// (response_format json_schema, strict) and validated again here, since
// not every compatible server enforces it; a score that is not the
// ladder's value for the gates is a violation too. Models are tried in
// order at temperature 0, each request under a timeout; 429 and 5xx are
// retried with exponential backoff, and a malformed or invalid answer, a
// timeout or another error moves to the next model; a model whose
// answer could not be used is benched (skipped) for LLMOptions.BenchFor.
// When no model answers, the grounding verdict is returned with Fallback
// and Unavailable set, so a trajectory always gets a score, and
// Policy.Voids tells the validator whether a run judged that way is void
// (LLMOptions.OnUnavailable). A model's verdict is bounded by the
// grounding verdict, step by step: a model may see less than the
// evidence, never more, and a clipped verdict carries FindingClipped.
package judge
