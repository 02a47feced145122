// The wire of docs/protocol.md: message shapes (§2), canonical handshake
// payloads (§3.1) and checks of what the validator sends.

export const PROTOCOL_VERSION = 1;
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

export interface EpisodeStart {
  type: "episode_start";
  episode_id: string;
  query: string;
  tools: ToolSchema[];
  limits: Limits;
}

export interface ToolCall {
  id: string;
  name: string;
  parameters: Record<string, unknown>;
}

export interface Step {
  type: "step";
  episode_id: string;
  think: string;
  tool_calls: ToolCall[];
  response?: string;
}

export interface ToolResult {
  tool_call_id: string;
  result?: unknown;
  error?: { code: string; message: string };
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

export type Inbound = Hello | EpisodeStart | Observation | EpisodeEnd;

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
      return v as unknown as Hello;
    case "episode_start":
      need(v, "episode_id", nonEmpty, "a non-empty string");
      need(v, "query", str, "a string");
      need(v, "tools", Array.isArray, "an array");
      need(v, "limits", isObject, "an object");
      for (const f of LIMIT_FIELDS) need(v.limits as Obj, f, isInteger, "an integer");
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
      return v as unknown as Observation;
    case "episode_end":
      need(v, "episode_id", nonEmpty, "a non-empty string");
      need(v, "reason", nonEmpty, "a non-empty string");
      return v as unknown as EpisodeEnd;
    case "hello_ack":
    case "step":
      throw new ProtocolError("unexpected_message", `${v.type} goes from miner to validator`);
    default:
      throw new ProtocolError("unknown_type", `unknown message type ${JSON.stringify(v.type)}`);
  }
}
