// Package scoring computes arena's rule metrics for one answered problem,
// following ShoppingBench and ORO's strict variant (docs/scoring.md, "Metrics"):
//
//   - gt: the recommended id equals the target (multi-item: by position,
//     averaged);
//   - rule: hits/constraints per item, where a matching id counts as 1;
//     the constraints are each title phrase, each price bound, each
//     service and each SKU/attribute pair (best single SKU variant together
//     with the product's attributes); multi-item problems are scored by
//     position and averaged;
//   - shop: every item found and all from one shop_id;
//   - budget: the basket fits the budget, directly or after the voucher;
//   - format: the mean per step of "exactly one think, at least one tool
//     call or a response, and only well-formed calls";
//   - length: 1/steps if the episode ended with terminate, else 0;
//   - success (ASR) by problem type.
//
// Title phrases are matched by a pluggable TitleMatcher: Lexical (the
// default, a normalised token-set similarity) or Embeddings (an
// OpenAI-compatible /v1/embeddings endpoint, cosine ≥ 0.7 as in ORO).
//
// An answer that names a product id no tool returned to the agent in its
// own trajectory is ungrounded and scores 0; the caller passes the set of
// observed ids (ObservedIDs or ObservedAmong build it from a trajectory),
// so the package
// does no I/O apart from the optional embeddings call.
//
// Final combines success with the reasoning judge's score q:
// final = success × c(q), c(q) = 1 for q ≥ 0.8 else 0.3 + 0.7·q/0.8.
package scoring
