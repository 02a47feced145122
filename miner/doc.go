// Package miner is arena's reference miner: agents that play shopping
// episodes through the episode.Server library.
//
// The heuristic agent reads a query for product words, price bounds and
// services, searches, views candidates, checks them against the
// constraints and recommends the best, writing think text that cites the
// ids, prices and attributes it observed. Its Skill knob (0..1) degrades
// it — fewer pages and views, skipped checks, random picks, thin thinking —
// so that a devnet can run miners of different strength.
//
// The validator must never import this package.
package miner
