// Package shop is the shopping environment every trajectory runs in: the
// product catalog, its loaders and writer, the search index wrapper and the
// agent tools (find_product, view_product_information, recommend_product,
// terminate, and for knowledge problems web_search over an offline corpus
// and python_execute, a bounded Python interpreter in package shop/pyexec) with
// ShoppingBench's names, arguments and result shapes, so that agents and
// data move between ShoppingBench and arena unchanged.
//
// The pieces, in the order a validator uses them:
//
//   - Load / LoadFile read ShoppingBench product JSONL (plain or gzip) and
//     report malformed, invalid and duplicate lines with line numbers.
//     The generator in shop/gen makes synthetic catalogs instead.
//   - NewCatalog freezes products into an immutable Catalog with lookups by
//     product id and by shop. All methods are safe for concurrent readers.
//   - BuildIndex builds the BM25F search index (package shop/index) over a
//     catalog; Index.Find implements find_product's retrieval semantics.
//   - NewTools executes tool calls by name with raw JSON arguments and
//     returns a JSON result or an error result, never a panic. ToolSchemas
//     gives the OpenAI function-calling schemas sent to agents. A Session
//     wraps Tools for one episode: recommend_product once, nothing after
//     terminate.
//
// Memory matters at catalog scale. A Catalog holds no Product values: each
// product is one compact record (text inline, repeated strings as numbers
// into one table) in large blocks, with price, sales and services in
// columns; a Product is decoded when asked for. OpenCatalog streams a file
// into that form without holding the products as values. OpenIndexFile
// goes further, as the validator does: it writes the compact catalog and
// its index once to a file beside the catalog (keyed by the catalog's
// SHA-256, checksummed, written atomically), streaming each record into the
// file as it is parsed and building the index from the file, and maps that
// file at later starts, reading product records from it as results are
// rendered, so a restart takes about a second and the catalog's text stays
// out of the process's memory. Loaders and the generator still store products they
// return as values in shared blocks (ProductArena).
//
// find_product follows ShoppingBench's sandbox exactly: filters (shop,
// price, services) are applied while retrieving the 50 most relevant
// products, and a sort other than relevance reorders those 50; it does not
// search the whole catalog for the cheapest match. Pages are 10 results.
//
// The package knows nothing about miners, problems or scores.
package shop
