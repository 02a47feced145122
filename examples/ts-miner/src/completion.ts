// The step a chat completion makes, normalised exactly as the validator
// verifies steps (docs/protocol.md §9.4; Go: episode.StepFromCompletion). A
// version-2 step that names a completion must be this step, or it is
// unverified. Every rule below mirrors the Go code, including its edges:
// JSON keys match case-insensitively as encoding/json matches struct fields,
// and "white space" is Go's unicode.IsSpace, not JavaScript's trim().
import { members } from "./json.js";
import type { ToolCall } from "./protocol.js";

export interface CompletionStep {
  think: string;
  toolCalls: ToolCall[];
  response: string;
}

/** NormaliseError is a completion the validator cannot read as a step either. */
export class NormaliseError extends Error {}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

// Go's unicode.IsSpace: JavaScript's trim() also strips U+FEFF and keeps U+0085.
const GO_SPACE = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const TRIM = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, "g");

/** goTrimSpace is Go's strings.TrimSpace. */
export function goTrimSpace(s: string): string {
  return s.replace(TRIM, "");
}

/**
 * field reads a member the way encoding/json fills a struct field: the key
 * matched without regard to ASCII case, the last match winning.
 */
function field(o: Obj, name: string): unknown {
  let v: unknown;
  for (const k of Object.keys(o)) if (k.toLowerCase() === name) v = o[k];
  return v;
}

/** str reads an optional string field; another JSON type fails decoding, as in Go. */
function str(o: Obj, name: string, where: string): string {
  const v = field(o, name);
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new NormaliseError(`completion: ${where}${name} is not a string`);
  return v;
}

/** obj reads an optional object field (null and absent are empty). */
function obj(o: Obj, name: string, where: string): Obj {
  const v = field(o, name);
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new NormaliseError(`completion: ${where}${name} is not an object`);
  return v;
}

/** arr reads an optional array field. */
function arr(o: Obj, name: string, where: string): unknown[] {
  const v = field(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new NormaliseError(`completion: ${where}${name} is not an array`);
  return v;
}

/**
 * stepFromCompletion normalises a chat.completion object (an infer_result's
 * completion) into the step it makes:
 *
 * - tool calls: the message's native tool_calls of type function, in order;
 *   with none at all, every Hermes <tool_call>{"name":…,"arguments":{…}}</tool_call>
 *   block of the content, in order (cut from the content);
 * - think: reasoning_content or reasoning when not blank, else the first
 *   <think>…</think> block (or, with only a closing tag, the text before it),
 *   else the remaining content; trimmed;
 * - response: the remaining content, trimmed, when there are no tool calls.
 *
 * Arguments keep the text the model wrote (rawParameters) when it is a JSON
 * object; anything else becomes {}, as the validator makes it.
 */
export function stepFromCompletion(completion: unknown): CompletionStep {
  if (!isObject(completion)) throw new NormaliseError("completion is not a JSON object");
  const choices = arr(completion, "choices", "");
  if (choices.length === 0) throw new NormaliseError("completion has no choices");
  const choice = choices[0] ?? {};
  if (!isObject(choice)) throw new NormaliseError("completion: choices[0] is not an object");
  const m = obj(choice, "message", "choices[0].");
  let content = str(m, "content", "message.");
  const native = arr(m, "tool_calls", "message.");
  const out: CompletionStep = { think: "", toolCalls: [], response: "" };
  native.forEach((tc, i) => {
    const c = tc ?? {};
    if (!isObject(c)) throw new NormaliseError(`completion: tool_calls[${i}] is not an object`);
    const type = str(c, "type", `tool_calls[${i}].`);
    const fn = obj(c, "function", `tool_calls[${i}].`);
    const name = str(fn, "name", `tool_calls[${i}].function.`);
    const args = str(fn, "arguments", `tool_calls[${i}].function.`);
    if (type !== "" && type !== "function") return;
    out.toolCalls.push({ id: str(c, "id", `tool_calls[${i}].`) || `call_${i}`, name, ...argumentsOf(args) });
  });
  if (native.length === 0) {
    const h = hermesCalls(content);
    content = h.rest;
    out.toolCalls = h.calls;
  }
  const { think, rest, found } = thinkBlock(content);
  let reasoning = goTrimSpace(str(m, "reasoning_content", "message."));
  if (reasoning === "") reasoning = goTrimSpace(str(m, "reasoning", "message."));
  if (reasoning !== "") out.think = reasoning;
  else if (found) out.think = goTrimSpace(think);
  else out.think = goTrimSpace(rest);
  if (out.toolCalls.length === 0) out.response = goTrimSpace(rest);
  return out;
}

/** argumentsOf keeps a JSON object's text as written; anything else is {}. */
function argumentsOf(text: string): Pick<ToolCall, "parameters" | "rawParameters"> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { parameters: {} };
  }
  return isObject(v) ? { parameters: v, rawParameters: text } : { parameters: {} };
}

/** thinkBlock cuts the first <think>…</think> block from s. */
function thinkBlock(s: string): { think: string; rest: string; found: boolean } {
  const open = "<think>";
  const close = "</think>";
  const end = s.indexOf(close);
  if (end < 0) return { think: "", rest: s, found: false };
  const start = s.slice(0, end).indexOf(open);
  // Some servers strip the opening tag the chat template added.
  if (start < 0) return { think: s.slice(0, end), rest: s.slice(end + close.length), found: true };
  return { think: s.slice(start + open.length, end), rest: s.slice(0, start) + s.slice(end + close.length), found: true };
}

/** hermesCalls cuts every <tool_call>{json}</tool_call> block from s. */
function hermesCalls(s: string): { rest: string; calls: ToolCall[] } {
  const open = "<tool_call>";
  const close = "</tool_call>";
  const calls: ToolCall[] = [];
  let rest = "";
  for (;;) {
    const i = s.indexOf(open);
    if (i < 0) break;
    const j = s.slice(i).indexOf(close);
    if (j < 0) break;
    const body = goTrimSpace(s.slice(i + open.length, i + j));
    rest += s.slice(0, i);
    s = s.slice(i + j + close.length);
    const call = hermesCall(body);
    // A block that is not a call is dropped from the content like the others.
    if (call) calls.push({ id: `call_${calls.length}`, ...call });
  }
  return { rest: rest + s, calls };
}

function hermesCall(body: string): Omit<ToolCall, "id"> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (!isObject(v)) return undefined;
  const name = field(v, "name");
  if (typeof name !== "string" || name === "") return undefined;
  // The arguments' text as written: the last member named arguments.
  let raw: string | undefined;
  for (const [k, text] of members(body)) if (k.toLowerCase() === "arguments") raw = text;
  if (raw === undefined) return { name, parameters: {} };
  const decoded: unknown = JSON.parse(raw);
  // Arguments given as a JSON string hold the object's text.
  if (typeof decoded === "string") return { name, ...argumentsOf(decoded) };
  return { name, ...argumentsOf(raw) };
}
