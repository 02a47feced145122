// Package suite owns the problems the arena poses: their ShoppingBench
// compatible JSON with ground truth (Problem), generators that make
// problems solvable through the shop tools and grade their difficulty,
// importers for ShoppingBench's data/*.jsonl and ORO's problem suite, leak
// clusters (shared targets or near-duplicate queries, merged with
// union-find) and the exposure ledger that keeps race problems hidden
// until a race and retires them afterwards.
//
// The pieces:
//
//   - Problem is one task with ground truth; Public strips everything a
//     miner must not see. Ids are content hashes (ContentID), so the same
//     problem always has the same id, wherever it came from.
//   - ImportShoppingBench and ImportORO read the reference formats and keep
//     the good records when some are malformed; WriteShoppingBench and
//     WriteORO write them back (round trip).
//   - Generator makes product, shop, voucher and (given the web corpus)
//     knowledge problems from a catalog.
//     Every problem is verified with the search index the agents use
//     (every target within 5 pages of find_product for a query made of the
//     constraint words) and graded by how many products satisfy it and how
//     many steps it takes.
//   - Cluster groups problems into leak clusters with deterministic ids.
//   - Ledger persists problems, clusters, partitions and exposures in the
//     store; Draw, MarkExposed, MarkCompromised and Refill guard the race.
//   - Paraphraser optionally rewrites generated queries with a chat model
//     and keeps a rewrite only when CheckParaphrase finds every constraint
//     still stated and no id, whole title or knowledge answer in it; the
//     rewrite and the offline phrasing it replaced are stored with the
//     problem.
//
// Tests: plain `go test ./suite` runs issue 4's solvability check at full
// size (500 problems per type on a 100k catalog, about 10 s); -short uses
// a 20k catalog with 150 per type. The
// benchmarks (BenchmarkGenerate10kFrom100k, BenchmarkCluster100k) are in
// bench_test.go and cluster_test.go.
//
// Importers read ShoppingBench's product, shop, voucher and web_simpleqa
// (knowledge) tasks and ORO's problem suite.
//
// The package never talks to miners: it hands Public views to whoever does.
package suite
