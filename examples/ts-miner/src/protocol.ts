// The wire of docs/protocol.md: message shapes (§2, §9), canonical handshake
// payloads (§3.1) and checks of what the validator sends.
import { elements, member } from "./json.js";

/** The version carried in hello.version and in a version-1 hello_ack (§3). */
export const PROTOCOL_VERSION = 1;
/** The highest version this miner speaks: 2 adds the inference relay (§9). */
export const MAX_VERSION = 2;
/** The websocket path validators dial (§1). */
export const PATH = "/arena/v1";

/** Limits announced in episode_start (§2.3, §5). */
export interface Limits {
  max_frame_bytes: number;
  max_think_bytes: number;
  max_tool_calls: number;
  max_steps: number;
  step_timeout_ms: number;
  episode_timeout_ms: number;
  max_concurrent_episodes: number;
}

export interface Hello {
  type: "hello";
  version: number;
  validator_address: string;
  nonce: string;
  timestamp: number;
  signature: string;
  /** The highest version the validator speaks (§9.1); absent means 1. Not signed. */
  max_version?: number;
}

export interface HelloAck {
  type: "hello_ack";
  version: number;
  miner_address: string;
  nonce: string;
  timestamp: number;
  signature: string;
}

/** An OpenAI function-calling schema, as sent in episode_start.tools. */
export interface ToolSchema {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

/** The inference relay's offer in episode_start (§9.2), on a version-2 connection. */
export interface RelayOffer {
  models: string[];
  required: boolean;
  max_completions: number;
  max_prompt_tokens: number;
  max_completion_tokens: number;
  max_infer_bytes: number;
  max_tokens: number;
}

export interface EpisodeStart {
  type: "episode_start";
  episode_id: string;
  query: string;
  tools: ToolSchema[];
  limits: Limits;
  relay?: RelayOffer;
}

export interface ToolCall {
  id: string;
  name: string;
  parameters: Record<string, unknown>;
  /**
   * rawParameters, when set, is the JSON object text the model wrote; it is
   * sent instead of parameters, byte for byte, so the validator compares the
   * arguments exactly as the completion has them (§9.4).
   */
  rawParameters?: string;
}

export interface Step {
  type: "step";
  episode_id: string;
  think: string;
  tool_calls: ToolCall[];
  response?: string;
  /** The relay completion the step is (§9.3); version 2 only. */
  completion_id?: string;
}

/** infer (M → V, §9.3): one chat-completions request through the validator's relay. */
export interface Infer {
  type: "infer";
  episode_id: string;
  request_id: string;
  body: unknown;
}

/** infer_result (V → M, §9.3): the completion, or why there is none. */
export interface InferResult {
  type: "infer_result";
  episode_id: string;
  request_id: string;
  completion_id?: string;
  completion?: Record<string, unknown>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  error?: { code: string; message: string };
}

export interface ToolResult {
  tool_call_id: string;
  result?: unknown;
  error?: { code: string; message: string };
  /**
   * resultText is the result's JSON text as the validator sent it (not a
   * wire field): the shop writes numbers Python's way (1799.0), and a
   * verified step's prompt must hold each result as written (§9.4).
   */
  resultText?: string;
}

export interface Observation {
  type: "observation";
  episode_id: string;
  step: number;
  results: ToolResult[];
}

export interface EpisodeEnd {
  type: "episode_end";
  episode_id: string;
  reason: string;
  detail?: string;
}

export type Inbound = Hello | EpisodeStart | Observation | EpisodeEnd | InferResult;

/** hello's signed text (§3.1). */
export function helloPayload(h: { version: number; validator_address: string; nonce: string; timestamp: number }): string {
  return [
    "arena/v1 hello",
    `version:${h.version}`,
    `validator:${h.validator_address.toLowerCase()}`,
    `nonce:${h.nonce.toLowerCase()}`,
    `timestamp:${h.timestamp}`,
  ].join("\n");
}

/** hello_ack's signed text (§3.1): binds the validator's address and nonce. */
export function helloAckPayload(a: { version: number; miner_address: string; validator_address: string; nonce: string; timestamp: number }): string {
  return [
    "arena/v1 hello_ack",
    `version:${a.version}`,
    `miner:${a.miner_address.toLowerCase()}`,
    `validator:${a.validator_address.toLowerCase()}`,
    `nonce:${a.nonce.toLowerCase()}`,
    `timestamp:${a.timestamp}`,
  ].join("\n");
}

/** ProtocolError names the end reason (§6) a bad inbound message deserves. */
export class ProtocolError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
// JSON.parse cannot tell 1 from 1.0, so "no fraction or exponent" is checked
// only as far as the value being whole.
const isInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

function need(o: Obj, field: string, ok: (v: unknown) => boolean, want: string): void {
  if (!(field in o)) throw new ProtocolError("malformed", `${o.type}: missing field ${field}`);
  if (!ok(o[field])) throw new ProtocolError("malformed", `${o.type}: field ${field} must be ${want}`);
}

const str = (v: unknown) => typeof v === "string";
const nonEmpty = (v: unknown) => typeof v === "string" && v.length > 0;
const LIMIT_FIELDS: (keyof Limits)[] = [
  "max_frame_bytes",
  "max_think_bytes",
  "max_tool_calls",
  "max_steps",
  "step_timeout_ms",
  "episode_timeout_ms",
  "max_concurrent_episodes",
];

const RELAY_FIELDS = ["max_completions", "max_prompt_tokens", "max_completion_tokens", "max_infer_bytes", "max_tokens"];

/**
 * parseInbound decodes one text frame from the validator, checking the
 * required fields and their JSON types (§2). Unknown fields are ignored.
 */
export function parseInbound(text: string): Inbound {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ProtocolError("malformed", "not JSON");
  }
  if (!isObject(v)) throw new ProtocolError("malformed", "not a JSON object");
  if (typeof v.type !== "string") throw new ProtocolError("malformed", "missing string field type");
  switch (v.type) {
    case "hello":
      need(v, "version", isInteger, "an integer");
      need(v, "validator_address", (x) => str(x) && /^0[xX][0-9a-fA-F]{40}$/.test(x as string), "an address");
      need(v, "nonce", (x) => str(x) && /^[0-9a-fA-F]{64}$/.test(x as string), "64 hex digits");
      need(v, "timestamp", isInteger, "an integer");
      need(v, "signature", (x) => str(x) && /^0x[0-9a-fA-F]{130}$/.test(x as string), "0x + 130 hex digits");
      if ("max_version" in v) need(v, "max_version", isInteger, "an integer");
      return v as unknown as Hello;
    case "episode_start":
      need(v, "episode_id", nonEmpty, "a non-empty string");
      need(v, "query", str, "a string");
      need(v, "tools", Array.isArray, "an array");
      need(v, "limits", isObject, "an object");
      for (const f of LIMIT_FIELDS) need(v.limits as Obj, f, isInteger, "an integer");
      if ("relay" in v) {
        need(v, "relay", isObject, "an object");
        const r = v.relay as Obj;
        need(r, "models", (x) => Array.isArray(x) && x.every(str), "an array of strings");
        for (const f of RELAY_FIELDS) if (f in r) need(r, f, isInteger, "an integer");
      }
      return v as unknown as EpisodeStart;
    case "observation":
      need(v, "episode_id", nonEmpty, "a non-empty string");
      need(v, "step", (x) => isInteger(x) && x >= 0, "a non-negative integer");
      need(v, "results", Array.isArray, "an array");
      for (const r of v.results as unknown[]) {
        if (!isObject(r) || typeof r.tool_call_id !== "string") {
          throw new ProtocolError("malformed", "observation: each result needs a string tool_call_id");
        }
        if (("result" in r) === ("error" in r)) {
          throw new ProtocolError("malformed", "observation: each result has exactly one of result and error");
        }
      }
      {
        const raw = elements(member(text, "results") ?? "[]");
        (v.results as ToolResult[]).forEach((r, i) => {
          if ("result" in r && raw[i] !== undefined) r.resultText = member(raw[i], "result");
        });
      }
      return v as unknown as Observation;
    case "episode_end":
      need(v, "episode_id", nonEmpty, "a non-empty string");
      need(v, "reason", nonEmpty, "a non-empty string");
      return v as unknown as EpisodeEnd;
    case "infer_result":
      need(v, "episode_id", nonEmpty, "a non-empty string");
      need(v, "request_id", str, "a string");
      if (("completion" in v) === ("error" in v)) {
        throw new ProtocolError("malformed", "infer_result: exactly one of completion and error");
      }
      if ("error" in v) {
        need(v, "error", isObject, "an object");
        need(v.error as Obj, "code", str, "a string");
        need(v.error as Obj, "message", str, "a string");
      } else {
        need(v, "completion", isObject, "an object");
        need(v, "completion_id", nonEmpty, "a non-empty string");
      }
      return v as unknown as InferResult;
    case "hello_ack":
    case "step":
    case "infer":
      throw new ProtocolError("unexpected_message", `${v.type} goes from miner to validator`);
    default:
      throw new ProtocolError("unknown_type", `unknown message type ${JSON.stringify(v.type)}`);
  }
}

/**
 * encodeStep writes a step frame. It is JSON.stringify's output except that a
 * tool call's rawParameters, the object text the model wrote, goes out
 * verbatim: re-encoding a parsed object would turn 1.0 into 1 or round a
 * large integer, and the validator compares arguments as written (§9.4).
 */
export function encodeStep(step: Step): string {
  const calls = step.tool_calls.map(
    (c) => `{"id":${JSON.stringify(c.id)},"name":${JSON.stringify(c.name)},"parameters":${c.rawParameters ?? JSON.stringify(c.parameters)}}`,
  );
  let frame = `{"type":"step","episode_id":${JSON.stringify(step.episode_id)},"think":${JSON.stringify(step.think)},"tool_calls":[${calls.join(",")}]`;
  if (step.response !== undefined) frame += `,"response":${JSON.stringify(step.response)}`;
  if (step.completion_id !== undefined) frame += `,"completion_id":${JSON.stringify(step.completion_id)}`;
  return frame + "}";
}
