// Package verify checks that the steps of a protocol-version-2 episode
// came from the chat completions the validator's relay returned
// (docs/protocol.md, section 9.4; docs/scoring.md, "Verified inference").
//
// A step is verified when all of these hold:
//
//  1. it names a completion_id of a completion recorded in this episode
//     that succeeded and no earlier step named;
//  2. the completion was requested after the step's previous observation
//     (Completion.Observations equals the step's index): a completion
//     cannot have seen evidence that did not exist yet, and a stale one
//     cannot be replayed;
//  3. its think, tool calls (names, and arguments as canonical JSON, in
//     order) and response equal the completion's, normalised by
//     episode.StepFromCompletion;
//  4. the completion's prompt (the text of its messages) contains the
//     episode's query and every observation so far: each tool result the
//     validator returned, byte for byte or as canonical JSON, or an
//     error's message.
//
// A verified step is dictated when a value its completion chose appears
// verbatim in the prompt outside the query and the observations: a
// product or shop id, a string argument of 12 bytes or more, or the whole
// canonical arguments object; a value made only of the tools' own
// vocabulary (a service such as freeShipping, which the schemas and many
// system prompts list) is not counted. The text checked is every system and user
// message with the query cut out, every tool message that carries no
// observation, and every assistant message that is not the text of an
// earlier completion of the episode. That catches a scaffold that tells
// the model what to call or recommend ("call recommend_product with
// 1000012345"); it cannot catch advice that names no value verbatim ("take
// the cheaper one", an id spelled differently), a scaffold that samples
// many completions and keeps the one it likes, or a model fine-tuned to
// invert the generator. Those remain the reasoning judge's and the
// problems' job.
package verify
