// Package index is the full-text search engine behind the shop's
// find_product tool.
//
// It is an immutable, in-memory inverted index built once over a catalog.
// Ranking is BM25F over four fields (title, brand, category and attribute
// values) with the title boosted. Because the catalog never changes after it
// is built, every posting stores its final BM25F contribution as a quantised
// 16-bit integer ("impact"). A query's score is then a sum of integers, so
// scores are exact, independent of evaluation order, and ties are broken
// deterministically by document number.
//
// A search returns the k best documents that pass the shop, price and
// service filters; the filters act inside retrieval, before the cut. Each
// query takes the cheapest of three exact strategies:
//
//   - filter-driven evaluation when a filter is selective (a small shop, a
//     narrow price range, a rare service): its documents are scored one by
//     one by probing the query's lists. A service combination that no
//     document has answers at once;
//   - MaxScore document-at-a-time retrieval with block-max skipping, for
//     queries with short lists: lists that cannot lift a document into the
//     top k are only probed, never scanned;
//   - windowed term-at-a-time accumulation once the lists are long (many
//     common words, or filters few documents pass, where MaxScore prunes
//     little): the document space is scored a cache-sized window at a
//     time, and windows whose best possible score cannot enter the top k
//     are skipped. Its cost is bounded by the postings of the query's
//     MaxQueryTerms terms plus one pass over the documents.
//
// The package knows nothing about products: callers describe each document
// with a Doc. Document numbers are the positions the caller gave, so a caller
// that orders its documents by product id gets ties broken by product id.
//
// An Index is safe for concurrent use by any number of readers.
package index
