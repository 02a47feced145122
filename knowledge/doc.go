// Package knowledge is the arena's offline web: a corpus of pages
// {url, title, snippet, text} and the search behind the web_search tool.
//
// ShoppingBench's web_simpleqa tasks ask for a product through a fact the
// catalog does not state ("a horsetail bow for the instrument Alec Aitken
// played"), and its agents look the fact up with web_search, which calls
// a live search API (src/agent/toolkit/web_search.py in ShoppingBench's
// repository). A validator must answer every miner the same way, offline
// and reproducibly, so the arena serves a corpus of its own instead:
//
//   - Build derives pages from a catalog, deterministically. Every brand
//     that is unambiguous in the catalog gets a profile page with invented
//     details the catalog never states (where and when it was founded, and
//     by whom); every glossary term that product titles use (TWS, HEPA,
//     IPX7, ...) gets a page explaining it. Each such page backs a Fact:
//     the answer (the brand or term, ShoppingBench's Knowledge_Attribute),
//     questions that identify it without naming it, and the catalog
//     products that carry it.
//   - ImportSimpleQA turns ShoppingBench's web_simpleqa records into pages
//     that answer their questions, so imported knowledge tasks are
//     solvable offline too.
//   - Corpus.WebSearch ranks pages for a query with the BM25F engine of
//     package shop/index (title boosted over snippet and text) and returns
//     ShoppingBench's result shape: url, title and content (the snippet).
//
// A fact's answer is accepted as knowledge only when no other brand's
// product text contains it: the scoring rule (the answer appears in the
// recommended product's title or description, as in ShoppingBench) must
// not be met by a product the question does not mean.
//
// The package knows nothing about problems or scores; suite builds
// knowledge problems on its facts.
package knowledge
