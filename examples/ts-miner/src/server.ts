// The miner's side of docs/protocol.md: a websocket server at /arena/v1 that
// verifies the validator's hello (§3), answers a signed hello_ack in the
// highest version both sides speak (§9.1), and then serves any number of
// concurrent episodes on the connection (§4), sending exactly one step per
// episode_start or observation within the announced limits (§5). On a
// version-2 connection whose validator offers its inference relay, the agent
// reaches the relay through the local shim (shim.ts), and each step is the
// last completion the agent took for it, naming its completion_id (§9.3).
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import type { Action, Agent, EpisodeView } from "./agent.js";
import { NormaliseError, stepFromCompletion } from "./completion.js";
import { type Key, recoverAddress, sign } from "./crypto.js";
import { errText, log } from "./log.js";
import {
  type EpisodeStart,
  type Hello,
  type HelloAck,
  type InferResult,
  type Limits,
  MAX_VERSION,
  type Observation,
  PATH,
  PROTOCOL_VERSION,
  ProtocolError,
  type RelayOffer,
  type Step,
  type ToolCall,
  encodeStep,
  helloAckPayload,
  helloPayload,
  parseInbound,
} from "./protocol.js";
import { type InferOutcome, Shim } from "./shim.js";

export interface ServerOptions {
  host: string;
  port: number;
  key: Key;
  agent: Agent;
  /** Episodes served at once across all connections; more are refused with terminate(failure). */
  maxEpisodes: number;
  /** Bound on |now − hello.timestamp|, in seconds (§3: 30 s). */
  skewSeconds?: number;
  /** Time a connection has to send hello, in ms. */
  handshakeTimeoutMs?: number;
  /** Share of step_timeout_ms the agent may use; the rest is margin for the network. */
  stepShare?: number;
  /** The highest protocol version to answer with (default MAX_VERSION); 1 keeps the miner on version 1. */
  maxVersion?: number;
}

export interface Server {
  address: AddressInfo;
  close(): Promise<void>;
}

/** Close code for a refused handshake (§3: policy violation, reason = end reason). */
const CLOSE_POLICY = 1008;

/** Bound on the replay cache, against a flood of handshakes signed with valid keys. */
const MAX_REMEMBERED_NONCES = 1 << 16;

/** Bound on one inbound frame: observations carry tool results, which the validator bounds itself. */
const MAX_INBOUND_BYTES = 64 << 20;

export async function startServer(opts: ServerOptions): Promise<Server> {
  const wss = new WebSocketServer({ host: opts.host, port: opts.port, path: PATH, maxPayload: MAX_INBOUND_BYTES });
  await new Promise<void>((resolve, reject) => {
    wss.once("listening", resolve);
    wss.once("error", reject);
  });
  wss.on("error", (err) => log.error("server error", { err: errText(err) }));
  let shim: Shim;
  try {
    shim = await Shim.start();
  } catch (err) {
    wss.close();
    throw err;
  }
  const shared = new Shared(opts, shim);
  wss.on("connection", (ws, req) => new Connection(ws, `${req.socket.remoteAddress}:${req.socket.remotePort}`, shared));
  return {
    address: wss.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of wss.clients) ws.close(1001, "shutting down");
        clearInterval(shared.sweeper);
        void Promise.all([shim.close(), new Promise<void>((done) => wss.close(() => done()))]).then(() => resolve());
      }),
  };
}

/** State shared by every connection: the key, the agent, the replay cache and the episode count. */
class Shared {
  readonly skewMs: number;
  /** validator address + nonce → when the entry may be forgotten (ms). */
  readonly seen = new Map<string, number>();
  readonly sweeper: NodeJS.Timeout;
  active = 0;

  constructor(
    readonly opts: ServerOptions,
    readonly shim: Shim,
  ) {
    this.skewMs = (opts.skewSeconds ?? 30) * 1000;
    // Nonces older than twice the skew bound can be forgotten: their hellos
    // fail the timestamp check anyway (§3 step 2).
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [k, until] of this.seen) if (until < now) this.seen.delete(k);
    }, this.skewMs);
    this.sweeper.unref();
  }
}

interface Episode {
  id: string;
  query: string;
  tools: EpisodeStart["tools"];
  limits: Limits;
  startedAt: number;
  turns: EpisodeView["turns"];
  /** The step sent last, awaiting its observation. */
  pending?: Step;
  /** Whether a step is owed (after episode_start or an observation). */
  owed: boolean;
  stepIndex: number;
  ended: boolean;
  /** Aborts the agent's work for the current step. */
  ctrl?: AbortController;
  watchdog?: NodeJS.Timeout;
  /** The relay's offer (version 2 with the relay on), and the episode's base URL on the shim. */
  relay?: RelayOffer;
  shim?: { baseURL: string; close(): void };
  /** Completions the agent took for the step now owed, in order of arrival. */
  completions: { id: string; completion: Record<string, unknown> }[];
  /** Completions and provider failures so far: what the relay counts against max_completions (§9.5). */
  taken: number;
}

/** An infer waiting for its infer_result. */
interface PendingInfer {
  ep: Episode;
  /** The step it was asked for; a late answer cannot make another step. */
  stepIndex: number;
  /** The agent stopped waiting: the answer still counts against the budget, but backs no step. */
  abandoned: boolean;
  done(out: InferOutcome): void;
}

class Connection {
  private validator = "";
  private ready = false;
  /** The negotiated protocol version (§9.1). */
  private version = PROTOCOL_VERSION;
  private readonly pending = new Map<string, PendingInfer>();
  private requests = 0;
  private readonly episodes = new Map<string, Episode>();
  private readonly handshakeTimer: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    private readonly peer: string,
    private readonly shared: Shared,
  ) {
    log.debug("connection", { peer });
    this.handshakeTimer = setTimeout(() => this.refuse("handshake_timeout", "no hello in time"), shared.opts.handshakeTimeoutMs ?? 10_000);
    ws.on("message", (data, isBinary) => {
      try {
        this.onMessage(data, isBinary);
      } catch (err) {
        log.error("handling a message failed", { peer, err: errText(err) });
      }
    });
    ws.on("error", (err) => log.warn("connection error", { peer, err: errText(err) }));
    ws.on("close", (code, reason) => this.onClose(code, reason.toString()));
  }

  private onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) return this.violation("malformed", "binary frame");
    const text = (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString("utf8");
    let msg;
    try {
      msg = parseInbound(text);
    } catch (err) {
      if (err instanceof ProtocolError) return this.violation(err.reason, err.message, text);
      throw err;
    }
    if (!this.ready) {
      if (msg.type !== "hello") return this.refuse("unexpected_message", `${msg.type} before hello`);
      return this.onHello(msg);
    }
    switch (msg.type) {
      case "hello":
        return log.warn("second hello ignored", { peer: this.peer });
      case "episode_start":
        return this.onEpisodeStart(msg);
      case "observation":
        return this.onObservation(msg);
      case "episode_end":
        return this.onEpisodeEnd(msg.episode_id, msg.reason, msg.detail);
      case "infer_result":
        return this.onInferResult(msg);
    }
  }

  /**
   * violation refuses a bad handshake. After it, a bad frame is logged and
   * ignored, except that a frame we cannot read in place of an episode's
   * observation ends that episode with terminate, so it does not wait for
   * a step_timeout.
   */
  private violation(reason: string, detail: string, text?: string): void {
    if (!this.ready) return this.refuse(reason, detail);
    log.warn("ignoring a bad frame", { peer: this.peer, reason, detail });
    let id: unknown;
    try {
      id = (JSON.parse(text ?? "") as { episode_id?: unknown })?.episode_id;
    } catch {
      return;
    }
    const ep = typeof id === "string" ? this.episodes.get(id) : undefined;
    if (ep && ep.pending && !ep.owed) {
      ep.pending = undefined;
      ep.owed = true;
      this.fallback(ep, `unreadable message from the validator: ${detail}`);
    }
  }

  /** refuse closes the connection with code 1008 and the end reason as its text (§3 step 2). */
  private refuse(reason: string, detail: string): void {
    log.warn("handshake refused", { peer: this.peer, reason, detail });
    clearTimeout(this.handshakeTimer);
    this.ws.close(CLOSE_POLICY, reason);
  }

  /** onHello verifies the hello as §3 step 2 says, in its order, then answers hello_ack (step 3). */
  private onHello(h: Hello): void {
    if (h.version !== PROTOCOL_VERSION) return this.refuse("version_mismatch", `version ${h.version}, want ${PROTOCOL_VERSION}`);
    const now = Date.now();
    if (Math.abs(now - h.timestamp * 1000) > this.shared.skewMs) {
      return this.refuse("replay", `timestamp ${h.timestamp} is more than ${this.shared.skewMs / 1000}s from now`);
    }
    let signer: string;
    try {
      signer = recoverAddress(helloPayload(h), h.signature);
    } catch (err) {
      return this.refuse("bad_signature", errText(err));
    }
    if (signer.toLowerCase() !== h.validator_address.toLowerCase()) {
      return this.refuse("bad_signature", `signed by ${signer}, not ${h.validator_address}`);
    }
    // Only a verified hello takes room in the replay cache.
    const seenKey = `${h.validator_address.toLowerCase()}/${h.nonce.toLowerCase()}`;
    if (this.shared.seen.has(seenKey)) return this.refuse("replay", "nonce already used");
    if (this.shared.seen.size >= MAX_REMEMBERED_NONCES) {
      // Full of live entries: refuse rather than forget a nonce that could then be replayed.
      return this.refuse("replay", "too many recent handshakes");
    }
    this.shared.seen.set(seenKey, now + 2 * this.shared.skewMs);
    // A miner may also refuse validators here, e.g. ones without a permit.

    const { key } = this.shared.opts;
    // The highest version both speak (§9.1): a validator that offers only
    // version 1 gets exactly the version-1 miner.
    const offered = Math.max(h.version, h.max_version ?? PROTOCOL_VERSION);
    this.version = Math.max(Math.min(offered, this.shared.opts.maxVersion ?? MAX_VERSION, MAX_VERSION), PROTOCOL_VERSION);
    const ack: Omit<HelloAck, "signature"> = {
      type: "hello_ack",
      version: this.version,
      miner_address: key.address,
      nonce: h.nonce,
      timestamp: Math.floor(Date.now() / 1000),
    };
    const payload = helloAckPayload({ ...ack, validator_address: h.validator_address });
    clearTimeout(this.handshakeTimer);
    this.validator = h.validator_address;
    this.ready = true;
    this.send({ ...ack, signature: sign(payload, key) });
    log.info("validator connected", { peer: this.peer, validator: h.validator_address, version: this.version });
  }

  private onEpisodeStart(m: EpisodeStart): void {
    if (this.episodes.has(m.episode_id)) {
      return log.warn("episode_start for a live episode ignored", { episode: m.episode_id });
    }
    if (this.shared.active >= this.shared.opts.maxEpisodes) {
      // §5: a miner that cannot take another episode answers at once with terminate(failure).
      log.warn("busy: refusing an episode", { episode: m.episode_id, active: this.shared.active });
      this.sendStep(m.limits, { type: "step", episode_id: m.episode_id, think: "The miner is busy.", tool_calls: [terminateCall(0, "failure")] });
      return;
    }
    const ep: Episode = {
      id: m.episode_id,
      query: m.query,
      tools: m.tools,
      limits: m.limits,
      startedAt: Date.now(),
      turns: [],
      owed: true,
      stepIndex: 0,
      ended: false,
      completions: [],
      taken: 0,
    };
    if (this.version >= 2 && m.relay) {
      ep.relay = m.relay;
      ep.shim = this.shared.shim.open({ models: m.relay.models, infer: (body, signal) => this.infer(ep, body, signal) });
    }
    this.episodes.set(ep.id, ep);
    this.shared.active++;
    log.info("episode started", { episode: ep.id, validator: this.validator, query: ep.query, relay: ep.relay !== undefined });
    this.nextStep(ep);
  }

  private onObservation(m: Observation): void {
    const ep = this.episodes.get(m.episode_id);
    if (!ep) return log.debug("observation for an unknown episode ignored", { episode: m.episode_id });
    if (ep.owed || !ep.pending || m.step !== ep.stepIndex - 1) {
      return log.warn("unexpected observation ignored", { episode: ep.id, step: m.step, want: ep.stepIndex - 1 });
    }
    const step = ep.pending;
    ep.pending = undefined;
    ep.turns.push({ step, observation: m });
    // After a terminate that succeeded, or the last allowed step, the
    // validator ends the episode (§4): no step is owed.
    const terminated = step.tool_calls.some((c) => c.name === "terminate" && m.results.some((r) => r.tool_call_id === c.id && !r.error));
    if (terminated || ep.stepIndex >= ep.limits.max_steps) return;
    ep.owed = true;
    this.nextStep(ep);
  }

  private onEpisodeEnd(id: string, reason: string, detail?: string): void {
    const ep = this.episodes.get(id);
    if (!ep) return;
    const fields = { episode: id, reason, detail, steps: ep.stepIndex };
    if (reason === "terminated" || reason === "max_steps") log.info("episode ended", fields);
    else log.warn("episode ended", fields);
    this.finish(ep);
  }

  private finish(ep: Episode): void {
    if (ep.ended) return;
    ep.ended = true;
    ep.owed = false;
    ep.ctrl?.abort();
    clearTimeout(ep.watchdog);
    ep.shim?.close();
    for (const [id, p] of this.pending) {
      if (p.ep !== ep) continue;
      this.pending.delete(id);
      p.done({ error: { code: "no_episode", message: "the episode ended" } });
    }
    this.episodes.delete(ep.id);
    this.shared.active--;
  }

  /**
   * infer sends one infer for the episode's owed step and resolves with its
   * infer_result. What the relay would refuse for certain is refused here,
   * without a frame: a request while no step is owed, beyond max_completions,
   * or above max_infer_bytes (a frame that large would end the connection).
   */
  private infer(ep: Episode, body: unknown, signal: AbortSignal): Promise<InferOutcome> {
    const refuse = (code: string, message: string) => Promise.resolve({ error: { code, message } });
    const offer = ep.relay!;
    if (ep.ended || !ep.owed) return refuse("no_episode", "the episode is not waiting for a step: infer only between a prompt and its step");
    if (ep.taken >= offer.max_completions) {
      return refuse("budget_exceeded", `the episode's ${offer.max_completions} completions are spent (refused by the miner, not sent)`);
    }
    const requestId = `r${++this.requests}`;
    const frame = JSON.stringify({ type: "infer", episode_id: ep.id, request_id: requestId, body });
    const size = Buffer.byteLength(frame);
    if (offer.max_infer_bytes > 0 && size > offer.max_infer_bytes) {
      return refuse("too_large", `the infer frame would be ${size} bytes, max_infer_bytes ${offer.max_infer_bytes} (refused by the miner, not sent)`);
    }
    if (this.ws.readyState !== WebSocket.OPEN) return refuse("no_episode", "the connection is closed");
    return new Promise((resolve) => {
      const p: PendingInfer = {
        ep,
        stepIndex: ep.stepIndex,
        abandoned: false,
        done: (out) => {
          signal.removeEventListener("abort", onAbort);
          resolve(out);
        },
      };
      const onAbort = () => {
        p.abandoned = true;
        p.done({ error: { code: "no_episode", message: "the request was abandoned" } });
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.pending.set(requestId, p);
      this.ws.send(frame);
      log.debug("infer", { episode: ep.id, step: ep.stepIndex, request: requestId, bytes: size });
    });
  }

  private onInferResult(m: InferResult): void {
    const p = this.pending.get(m.request_id);
    if (!p || p.ep.id !== m.episode_id) return log.debug("infer_result for no pending request ignored", { episode: m.episode_id, request: m.request_id });
    this.pending.delete(m.request_id);
    const { ep } = p;
    if (m.error) {
      if (m.error.code === "provider_error") ep.taken++;
      log.warn("infer refused", { episode: ep.id, step: p.stepIndex, code: m.error.code, message: m.error.message });
      if (!p.abandoned) p.done({ error: m.error });
      return;
    }
    ep.taken++;
    if (p.abandoned) return;
    if (ep.owed && !ep.ended && p.stepIndex === ep.stepIndex) ep.completions.push({ id: m.completion_id!, completion: m.completion! });
    p.done({ completionId: m.completion_id!, completion: m.completion! });
  }

  private onClose(code: number, reason: string): void {
    clearTimeout(this.handshakeTimer);
    for (const ep of [...this.episodes.values()]) this.finish(ep);
    if (this.ready) log.info("validator disconnected", { peer: this.peer, validator: this.validator, code, reason });
  }

  /**
   * nextStep asks the agent for the owed step, bounded by a share of the
   * step timeout and by what is left of the episode timeout; when the agent
   * fails or runs out of time the step is terminate(failure).
   */
  private nextStep(ep: Episode): void {
    const now = Date.now();
    const share = this.shared.opts.stepShare ?? 0.85;
    const episodeLeft = ep.startedAt + ep.limits.episode_timeout_ms - now;
    const budget = Math.min(ep.limits.step_timeout_ms * share, episodeLeft - 1000);
    if (budget < 500) return this.fallback(ep, "no time left in the episode");
    const deadline = now + budget;
    const ctrl = new AbortController();
    ep.ctrl = ctrl;
    ep.completions = [];
    ep.watchdog = setTimeout(() => {
      ctrl.abort();
      this.fallback(ep, "the agent did not answer before the step deadline");
    }, budget);
    const view: EpisodeView = { id: ep.id, query: ep.query, tools: ep.tools, limits: ep.limits, turns: ep.turns, stepIndex: ep.stepIndex };
    if (ep.relay && ep.shim) view.relay = { baseURL: ep.shim.baseURL, models: ep.relay.models, offer: ep.relay };
    this.shared.opts.agent
      .step(view, ctrl.signal, deadline)
      .then(
        (action) => {
          if (!ep.owed || ctrl.signal.aborted) return;
          clearTimeout(ep.watchdog);
          this.sendAction(ep, action);
        },
        (err) => {
          if (!ep.owed || ctrl.signal.aborted) return;
          clearTimeout(ep.watchdog);
          this.fallback(ep, errText(err));
        },
      )
      .catch((err) => {
        log.error("sending a step failed", { episode: ep.id, err: errText(err) });
        this.fallback(ep, errText(err));
      });
  }

  /** fallback ends the episode cleanly: a step calling terminate (§5). */
  private fallback(ep: Episode, why: string): void {
    if (!ep.owed) return;
    log.warn("ending the episode with terminate", { episode: ep.id, step: ep.stepIndex, why });
    const status = recommended(ep) ? "success" : "failure";
    this.emit(ep, { type: "step", episode_id: ep.id, think: `Stopping: ${why}`, tool_calls: [terminateCall(ep.stepIndex, status)] });
  }

  /**
   * bind makes the step the last completion the agent took for it, named by
   * its completion_id, so the validator can verify it (§9.3, §9.4); without
   * one the agent's own action goes out, naming no completion.
   */
  private bind(ep: Episode, a: Action): { action: Action; completionId?: string } {
    const last = ep.completions.at(-1);
    if (!last) {
      if (ep.relay) log.warn("step without a relay completion: it cannot verify", { episode: ep.id, step: ep.stepIndex });
      return { action: a };
    }
    let st;
    try {
      st = stepFromCompletion(last.completion);
    } catch (err) {
      if (!(err instanceof NormaliseError)) throw err;
      log.warn("the completion is not a step the validator can read; sending the agent's action", { episode: ep.id, err: errText(err) });
      return { action: a };
    }
    // A call without a name would make the whole step malformed.
    const calls = st.toolCalls.filter((c) => c.name !== "");
    if (calls.length < st.toolCalls.length) log.warn("nameless tool calls dropped: the step no longer is its completion", { episode: ep.id });
    return { action: { think: st.think, toolCalls: calls, response: st.response || undefined }, completionId: last.id };
  }

  /** sendAction turns the agent's action into a step within the limits. */
  private sendAction(ep: Episode, agentAction: Action): void {
    const { limits } = ep;
    const { action: a, completionId } = this.bind(ep, agentAction);
    const ids = new Set<string>();
    let calls: ToolCall[] = a.toolCalls.map((c, i) => {
      let id = c.id && !ids.has(c.id) ? c.id : `call_${ep.stepIndex}_${i}`;
      while (ids.has(id)) id += "_";
      ids.add(id);
      return { id, name: c.name, parameters: c.parameters, ...(c.rawParameters !== undefined ? { rawParameters: c.rawParameters } : {}) };
    });
    // On the last allowed step, end the episode ourselves rather than run out
    // of steps; not a step that is a completion, which an added call would
    // leave unverified (max_steps is a normal ending).
    if (completionId === undefined && ep.stepIndex === limits.max_steps - 1 && !calls.some((c) => c.name === "terminate")) {
      const done = recommended(ep) || calls.some((c) => c.name === "recommend_product");
      const end = terminateCall(ep.stepIndex, done ? "success" : "failure");
      while (ids.has(end.id)) end.id += "_";
      calls = [...calls.slice(0, Math.max(0, limits.max_tool_calls - 1)), end];
    }
    if (calls.length > limits.max_tool_calls) {
      log.warn("tool calls cut to the limit", { episode: ep.id, calls: calls.length, max: limits.max_tool_calls });
      calls = calls.slice(0, Math.max(0, limits.max_tool_calls));
    }
    const think = clipUTF8(a.think, limits.max_think_bytes);
    if (think.length < a.think.length) {
      log.warn("think cut to the limit", { episode: ep.id, bytes: Buffer.byteLength(a.think), max: limits.max_think_bytes });
    }
    const step: Step = { type: "step", episode_id: ep.id, think, tool_calls: calls };
    if (a.response !== undefined) step.response = a.response;
    if (completionId !== undefined && this.version >= 2) step.completion_id = completionId;
    this.emit(ep, step);
  }

  /** emit sends the owed step of a live episode and records it. */
  private emit(ep: Episode, step: Step): void {
    if (!ep.owed || ep.ended) return;
    ep.owed = false;
    ep.ctrl = undefined;
    clearTimeout(ep.watchdog);
    const sent = this.sendStep(ep.limits, step);
    ep.pending = sent;
    ep.stepIndex++;
    log.debug("step", { episode: ep.id, step: ep.stepIndex - 1, tools: sent.tool_calls.map((c) => c.name).join(","), completion: sent.completion_id });
  }

  /** sendStep writes a step, shrinking it to max_frame_bytes if needed (§5); it returns what was sent. */
  private sendStep(limits: Limits, step: Step): Step {
    let frame = encodeStep(step);
    const over = Buffer.byteLength(frame) - limits.max_frame_bytes;
    if (over > 0) {
      log.warn("step cut to max_frame_bytes", { episode: step.episode_id, bytes: Buffer.byteLength(frame), max: limits.max_frame_bytes });
      // Drop the response and cut think (each byte cut shortens the JSON by at
      // least one); if the tool calls alone are too big, terminate instead.
      step = { ...step, think: clipUTF8(step.think, Buffer.byteLength(step.think) - over), response: undefined };
      frame = encodeStep(step);
      if (Buffer.byteLength(frame) > limits.max_frame_bytes) {
        step = { type: "step", episode_id: step.episode_id, think: "The step was too large to send.", tool_calls: [terminateCall(0, "failure")] };
        frame = encodeStep(step);
      }
    }
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(frame);
    return step;
  }

  private send(msg: object): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }
}

function terminateCall(step: number, status: "success" | "failure"): ToolCall {
  return { id: `call_${step}_terminate`, name: "terminate", parameters: { status } };
}

/** recommended reports whether a recommend_product call of the episode succeeded. */
function recommended(ep: Episode): boolean {
  return ep.turns.some(({ step, observation }) =>
    step.tool_calls.some((c) => c.name === "recommend_product" && observation.results.some((r) => r.tool_call_id === c.id && !r.error)),
  );
}

/** clipUTF8 cuts s to at most max UTF-8 bytes without splitting a character. */
export function clipUTF8(s: string, max: number): string {
  const b = Buffer.from(s, "utf8");
  if (b.length <= max) return s;
  let end = Math.max(0, max);
  while (end > 0 && (b[end] & 0xc0) === 0x80) end--; // b[end] continues a character begun before the cut
  return b.subarray(0, end).toString("utf8");
}
