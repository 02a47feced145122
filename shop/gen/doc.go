// Package gen generates deterministic synthetic marketplace catalogs.
//
// The same Options (product count and seed) always give the same products
// in the same order, and therefore byte-identical files, on any machine and
// Go release: the generator uses its own random streams and derives each
// product family's stream from the seed and the family number.
//
// The catalog is built to make search non-trivial, like a real marketplace:
//
//   - 26 top-level categories, each with its own leaf categories, attribute
//     vocabulary, SKU dimensions and brands;
//   - about N/50 shops, each selling in one to three top-level categories,
//     with long-tailed shop sizes, so assortments overlap;
//   - products come in families: the same item listed by several shops (at
//     least six) under near-duplicate titles, with different prices,
//     services, attributes and SKU variants. The words that make a title
//     specific (series name, model code, features) are shared within the
//     family, so a precise query returns several plausible distractors;
//   - long-tailed prices around each leaf's typical price, heavy-tailed
//     sales counts, and the four services at realistic rates (COD common,
//     LazMall rare and tied to official shops).
//
// Lot restocks the catalog: lot k of n products is new families listed by
// the catalog's own shops, with ids no other product or lot has, and
// depends only on the Options, k and n. A validator adds lot after lot on
// a block schedule every validator shares, so fresh products keep coming
// for the problems it poses while every validator serves the same shop.
package gen
