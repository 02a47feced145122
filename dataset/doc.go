// Package dataset exports the validator's judged trajectories as training
// data: SFT conversations with tool calls, per-step samples, DPO pairs and
// GRPO groups, filtered to genuinely agentic traces and split by leak
// cluster so that no cluster spans train and eval.
//
// The package only reads the store (records keyspaces and the suite
// ledger); it never writes to it. Export streams episodes one at a time.
// The pair and group formats need every episode of a problem together, so
// they make two passes: the first keeps one small tuple per episode
// (id, problem, final), the second reads each problem's episodes back by id.
//
// Every export writes a dataset card (README.md) next to the data. See
// docs/dataset.md for the formats and how to train on them.
package dataset
