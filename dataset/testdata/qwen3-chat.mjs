// Renders SFT rows (lines of train.jsonl, picked by index) with the chat_template of Qwen3's
// tokenizer_config.json through @huggingface/jinja, the reference dataset.ChatText is tested
// against: node qwen3-chat.mjs train.jsonl 0 40 80 > qwen3-chat.jsonl (with
// QWEN3_TOKENIZER_CONFIG naming tokenizer_config.json).
import { Template } from "@huggingface/jinja";
import fs from "fs";
const tpl = JSON.parse(fs.readFileSync(process.env.QWEN3_TOKENIZER_CONFIG, "utf8")).chat_template;
const t = new Template(tpl);
const lines = fs.readFileSync(process.argv[2], "utf8").trim().split("\n");
const pick = process.argv.slice(3).map(Number);
for (const i of pick) {
  const r = JSON.parse(lines[i]);
  console.log(JSON.stringify({ row: lines[i], text: t.render({ messages: r.messages, tools: r.tools, add_generation_prompt: false }) }));
}
