// relay-tokens.mjs counts the tokens of the calls TestRelayCost recorded
// (practice/cost_test.go), per episode, with OpenAI's cl100k_base: what
// docs/operations.md's relay cost table is made from.
//
// Usage, from a scratch directory (the tokenizer is not a dependency of
// the project):
//   npm install js-tiktoken@1.0.21
//   node /path/to/arena/scripts/relay-tokens.mjs CALLS.jsonl
import { createRequire } from "module";
import fs from "fs";

const require = createRequire(process.cwd() + "/");
const { getEncoding } = require("js-tiktoken");
const enc = getEncoding("cl100k_base");
const count = (s) => enc.encode(s).length;

const calls = fs.readFileSync(process.argv[2], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const episodes = new Map();
let prompt = 0, body = 0, completion = 0, largest = 0;
for (const c of calls) {
  // What a chat template renders: the tools' schemas, each message's text
  // and tool calls, and a few tokens of role and separators a message.
  let p = count(JSON.stringify(c.request.tools || []));
  for (const m of c.request.messages) {
    p += 4;
    if (typeof m.content === "string") p += count(m.content);
    if (m.tool_calls) p += count(JSON.stringify(m.tool_calls));
  }
  const msg = c.response.choices[0].message;
  let q = count((msg.reasoning_content || "") + (msg.content || ""));
  if (msg.tool_calls) q += count(JSON.stringify(msg.tool_calls.map((t) => t.function)));
  const e = episodes.get(c.episode) || { prompt: 0 };
  e.prompt += p;
  episodes.set(c.episode, e);
  prompt += p;
  completion += q;
  body += count(JSON.stringify(c.request));
  largest = Math.max(largest, p);
}
const n = episodes.size;
const per = [...episodes.values()].map((e) => e.prompt).sort((a, b) => a - b);
console.log(JSON.stringify({
  episodes: n,
  completions_per_episode: calls.length / n,
  prompt_tokens_per_episode: Math.round(prompt / n),
  prompt_tokens_episode_median: per[Math.floor(n / 2)],
  prompt_tokens_episode_max: per[n - 1],
  largest_prompt_tokens: largest,
  request_body_tokens_per_episode: Math.round(body / n),
  completion_tokens_per_episode: Math.round(completion / n),
}, null, 1));
