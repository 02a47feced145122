// An OpenAI-compatible chat-completions endpoint on 127.0.0.1 that tunnels
// each request over the episode's own connection as an `infer` message
// (docs/protocol.md §9.3) and answers with the completion the validator's
// relay returned. An agent written for any OpenAI-compatible endpoint uses
// the validator's relay by changing its base URL, nothing else.
//
// Each relayed episode gets its own base URL, with an unguessable token in
// its path:
//
//   http://127.0.0.1:PORT/relay/TOKEN/v1/chat/completions   POST
//   http://127.0.0.1:PORT/relay/TOKEN/v1/models             GET (the allowlist)
//
// A completion is answered 200 with the provider's chat.completion object as
// the relay returned it, and the relay's completion id in the header
// x-arena-completion-id. An infer error is answered with an OpenAI-style
// error object {"error":{"message","type","code"}}, code being the protocol's
// infer error code, and the HTTP status of STATUS below.
import { randomBytes } from "node:crypto";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { errText, log } from "./log.js";

/** The answer to one infer: a completion, or the error the relay (or this miner) gave. */
export type InferOutcome =
  | { completionId: string; completion: Record<string, unknown> }
  | { error: { code: string; message: string } };

/** What the shim needs of an episode: a way to infer, and the allowlist. */
export interface ShimEpisode {
  models: string[];
  infer(body: unknown, signal: AbortSignal): Promise<InferOutcome>;
}

/** HTTP status per infer error code (§9.3), so that OpenAI clients react as to a provider. */
const STATUS: Record<string, number> = {
  model_not_allowed: 400,
  bad_request: 400,
  too_large: 413,
  budget_exceeded: 429,
  busy: 429,
  provider_error: 502,
  no_episode: 410,
  relay_unavailable: 503,
};

/** Bound on a request body read before the episode's max_infer_bytes applies. */
const MAX_BODY_BYTES = 16 << 20;

export class Shim {
  private readonly episodes = new Map<string, ShimEpisode>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** start listens on 127.0.0.1 on a free port. */
  static async start(): Promise<Shim> {
    let shim: Shim | undefined;
    const server = createServer((req, res) => {
      shim!.serve(req, res).catch((err) => {
        log.error("relay shim request failed", { err: errText(err) });
        if (!res.headersSent) reply(res, 500, { error: { message: errText(err), type: "internal", code: "internal" } });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    shim = new Shim(server, (server.address() as AddressInfo).port);
    return shim;
  }

  /** open gives an episode its base URL; close() withdraws it. */
  open(ep: ShimEpisode): { baseURL: string; close(): void } {
    const token = randomBytes(16).toString("hex");
    this.episodes.set(token, ep);
    return { baseURL: `http://127.0.0.1:${this.port}/relay/${token}/v1`, close: () => this.episodes.delete(token) };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const m = /^\/relay\/([0-9a-f]{32})\/v1\/(chat\/completions|models)$/.exec(req.url ?? "");
    const ep = m ? this.episodes.get(m[1]) : undefined;
    if (!m || !ep) {
      return reply(res, 404, { error: { message: "no such episode (it ended, or the URL is wrong)", type: "no_episode", code: "no_episode" } });
    }
    if (m[2] === "models") {
      if (req.method !== "GET") return reply(res, 405, { error: { message: "GET only", type: "bad_request", code: "bad_request" } });
      return reply(res, 200, { object: "list", data: ep.models.map((id) => ({ id, object: "model", owned_by: "arena-relay" })) });
    }
    if (req.method !== "POST") return reply(res, 405, { error: { message: "POST only", type: "bad_request", code: "bad_request" } });
    const text = await readBody(req);
    if (text === undefined) {
      return reply(res, 413, { error: { message: `request body above ${MAX_BODY_BYTES} bytes`, type: "too_large", code: "too_large" } });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return reply(res, 400, { error: { message: "the request body is not JSON", type: "bad_request", code: "bad_request" } });
    }
    // The client hanging up (its own timeout, the step deadline) abandons the infer.
    const ctrl = new AbortController();
    res.on("close", () => ctrl.abort());
    const out = await ep.infer(body, ctrl.signal);
    if ("error" in out) {
      const { code, message } = out.error;
      return reply(res, STATUS[code] ?? 502, { error: { message, type: code, code } });
    }
    res.setHeader("x-arena-completion-id", out.completionId);
    reply(res, 200, out.completion);
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  const data = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
  res.end(data);
}

/** readBody reads the request as UTF-8, or undefined past MAX_BODY_BYTES (read to its end, so the answer reaches the client). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (b: Buffer) => {
      size += b.length;
      if (size <= MAX_BODY_BYTES) parts.push(b);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}
