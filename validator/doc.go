// Package validator is the arena daemon: a block-driven scheduler that, on
// each head, syncs the metagraph and hyperparameters every
// sync_every_blocks, qualifies new or changed miners on the public set,
// runs a race on fresh hidden problems at each race window, judges every
// trajectory, and sets (or commits and reveals) weights through the policy
// and the SDK-exact conversion.
//
// Everything that matters across a crash is in the store before the action
// it guards: a race's problems and their exposure commit together before
// any is sent; a weights submission, with its salt, is written before its
// transaction. On restart a race that was mid-episodes is aborted and
// re-run on problems never exposed, a race being judged is finished, and a
// pending submission is reconciled against the chain. The operator
// surface (metrics, health, the read-only JSON API) is in server.go.
package validator
