// Package miner is arena's reference miner: agents that play shopping
// episodes through the episode.Server library. NewAgent picks one by name
// for `arena miner --agent`.
//
// Both agents are stateless: each step is decided from the episode view
// (the query, the agent's earlier steps and the validator's results), so
// one value serves any number of concurrent episodes.
//
// The heuristic agent (Heuristic) reads the query with ParseTask: the task
// kind (one product, several items from one shop, or items under a budget
// with a voucher), each item's product phrase, price bound, services and
// attribute or SKU wishes, and the voucher's budget, threshold, discount
// and cap. It searches with the matching filters (shop_id for same-shop
// tasks, probing several shops per step), views the listings whose titles
// carry the phrase, checks every wish against the viewed details, does the
// voucher arithmetic, and recommends; its think text cites the ids, prices,
// shops and attributes it observed and compares the choice with a
// runner-up and the rejected listings. The Skill knob (0..1) degrades it —
// fewer pages and shops, no filters or checks below 0.5, random picks,
// thin thinking — so that a devnet can run miners of different strength.
//
// The LLM agent (LLM) drives any OpenAI-compatible chat endpoint through
// openai-go with native function calling, the tool schemas from
// episode_start and a ShoppingBench-style system prompt, at temperature 0.
// Reasoning content becomes think; an endpoint error ends the episode with
// terminate(failure) and a logged reason.
//
// Tests: TestHeuristicSkill plays 300 easy problems from the suite
// generator (150 product, 30 shop, 120 voucher; a 20k-product catalog)
// through a real Runner and Server over loopback at skill 1 and 0.2, and
// scores them with the suite solver test's rule check, since the scoring
// package does not exist yet. TestLLMAgent runs real episodes against an
// httptest server speaking the chat-completions wire format, tool calls
// included.
//
// The validator must never import this package.
package miner
