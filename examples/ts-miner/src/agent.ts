// An agent over any OpenAI-compatible chat-completions endpoint. Each step
// replays the episode as a chat: the system prompt, the user's query, then per
// step the assistant's tool calls and one `tool` message per validator result.
// The tool schemas from episode_start are passed as OpenAI `tools`. When the
// validator relays inference (protocol version 2, docs/protocol.md §9), the
// endpoint is the episode's relay shim instead of the agent's own: the same
// requests, answered by the validator's provider, so the steps verify.
import { errText, log } from "./log.js";
import type { Limits, Observation, RelayOffer, Step, ToolResult, ToolSchema } from "./protocol.js";

/** What the agent sees of an episode when asked for its next step. */
export interface EpisodeView {
  id: string;
  query: string;
  tools: ToolSchema[];
  limits: Limits;
  /** The steps sent so far, each with the observation that answered it. */
  turns: { step: Step; observation: Observation }[];
  /** Index of the step being asked for (0-based). */
  stepIndex: number;
  /**
   * relay is set when the validator relays inference for this episode: an
   * OpenAI-compatible base URL on this machine that tunnels chat completions
   * over the episode's connection, and the models the relay allows. The step
   * the server sends is then the last completion taken through it.
   */
  relay?: { baseURL: string; models: string[]; offer: RelayOffer };
}

/** The agent's answer; the server clips it to the limits and sends it. */
export interface Action {
  think: string;
  toolCalls: { id?: string; name: string; parameters: Record<string, unknown>; rawParameters?: string }[];
  response?: string;
}

export interface Agent {
  /**
   * step decides the next step. It must settle before deadline (ms since the
   * epoch) and stop when signal aborts; a rejection ends the episode with
   * terminate(failure).
   */
  step(view: EpisodeView, signal: AbortSignal, deadline: number): Promise<Action>;
}

export interface LLMOptions {
  /**
   * Base URL of the agent's own API, e.g. https://openrouter.ai/api/v1
   * (…/chat/completions is appended). Optional: without it the agent plays
   * only episodes whose validator relays inference.
   */
  baseURL?: string;
  /** The model; through a relay that does not allow it, the relay's first model. */
  model?: string;
  apiKey?: string;
  /** Bound on one request, in ms (always also bounded by the step's deadline). */
  timeoutMs: number;
  /** Further attempts after a failed request, while the deadline allows. */
  retries: number;
  temperature?: number;
}

const SYSTEM_PROMPT = `You are a shopping assistant working in an online shop through tools.
The user describes what they want to buy. Find products that meet every requirement: the kind of product, its attributes and options, the price bound, the services (free shipping, COD, official shop, flash sale), items from the same shop, and any budget or voucher.
Work step by step: search with find_product (use its price, service, sort and shop_id filters), check candidates with view_product_information, use web_search when the request depends on a fact you do not know, and python_execute for arithmetic.
When you are sure, call recommend_product once with the product ids, in the order the items were asked for, then call terminate with status "success" (or "failure" if nothing fits).
Before every tool call, say briefly what you saw and why you act: cite the product ids, prices, shops and attributes you compare.`;

/** LLMError is a failed chat request (network, HTTP status, or an answer that cannot be read). */
export class LLMError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when the endpoint answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * Statuses a retry cannot change: the request itself is refused (through the
 * relay: model_not_allowed, bad_request, too_large, no_episode).
 */
const FINAL_STATUS = new Set([400, 401, 403, 404, 410, 413, 422]);

type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * Tool results are fed back up to this many characters each, except through
 * the relay: a verified step's prompt must hold every observation in full.
 */
const MAX_TOOL_CONTENT = 24_000;

export class LLMAgent implements Agent {
  constructor(private readonly opts: LLMOptions) {}

  async step(view: EpisodeView, signal: AbortSignal, deadline: number): Promise<Action> {
    const { relay } = view;
    const baseURL = relay?.baseURL ?? this.opts.baseURL;
    if (!baseURL) throw new LLMError("this agent has no endpoint of its own (LLM_BASE_URL) and the validator relays no inference");
    let model = this.opts.model;
    if (relay && (model === undefined || !relay.models.includes(model))) model = relay.models[0];
    const body = {
      model,
      messages: this.messages(view),
      tools: view.tools,
      tool_choice: "auto",
      temperature: this.opts.temperature ?? 0,
    };
    let lastErr: unknown;
    for (let attempt = 0; attempt <= this.opts.retries; attempt++) {
      const left = deadline - Date.now();
      if (attempt > 0 && left < 1000) break; // no time for a useful retry
      try {
        // The key is for the agent's own endpoint; the relay needs none.
        return await this.request(baseURL, relay ? undefined : this.opts.apiKey, body, Math.min(this.opts.timeoutMs, left), signal);
      } catch (err) {
        lastErr = err;
        if (signal.aborted || (err instanceof LLMError && err.status !== undefined && FINAL_STATUS.has(err.status))) break;
        log.warn("llm request failed", { episode: view.id, step: view.stepIndex, attempt: attempt + 1, err: errText(err) });
        await sleep(Math.min(250 * (attempt + 1), Math.max(0, deadline - Date.now() - 1000)));
      }
    }
    throw lastErr instanceof Error ? lastErr : new LLMError(String(lastErr));
  }

  /** messages replays the episode as a chat. */
  private messages(view: EpisodeView): ChatMessage[] {
    const out: ChatMessage[] = [
      { role: "system", content: `${SYSTEM_PROMPT}\nAt most ${view.limits.max_tool_calls} tool calls per turn; ${view.limits.max_steps} turns in all.` },
      { role: "user", content: view.query },
    ];
    for (const { step, observation } of view.turns) {
      const calls: OpenAIToolCall[] = step.tool_calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.rawParameters ?? JSON.stringify(c.parameters) },
      }));
      // Some servers refuse an assistant message with neither text nor tool calls.
      const content = step.think || (calls.length ? null : "(no tool call)");
      out.push({ role: "assistant", content, ...(calls.length ? { tool_calls: calls } : {}) });
      const byId = new Map(observation.results.map((r) => [r.tool_call_id, r]));
      for (const c of step.tool_calls) {
        let content = toolContent(byId.get(c.id));
        if (!view.relay && content.length > MAX_TOOL_CONTENT) content = content.slice(0, MAX_TOOL_CONTENT) + " …(cut)";
        out.push({ role: "tool", tool_call_id: c.id, content });
      }
      if (calls.length === 0) {
        out.push({ role: "user", content: "Continue with the tools. When you are done, call recommend_product, then terminate." });
      }
    }
    if (view.stepIndex === view.limits.max_steps - 1) {
      out.push({ role: "user", content: "This is your last turn: call recommend_product now if you have not, and terminate." });
    }
    return out;
  }

  private async request(baseURL: string, apiKey: string | undefined, body: unknown, timeoutMs: number, signal: AbortSignal): Promise<Action> {
    const url = baseURL.replace(/\/+$/, "") + "/chat/completions";
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, timeoutMs))]),
      });
      text = await res.text();
    } catch (err) {
      throw new LLMError(`POST ${url}: ${errText(err)}`);
    }
    if (!res.ok) throw new LLMError(`POST ${url}: HTTP ${res.status}: ${text.slice(0, 200)}`, res.status);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new LLMError(`POST ${url}: the answer is not JSON: ${text.slice(0, 200)}`);
    }
    return parseCompletion(data);
  }
}

/** parseCompletion reads choices[0].message of a chat completion into an Action. */
export function parseCompletion(data: unknown): Action {
  const msg = (data as { choices?: { message?: unknown }[] })?.choices?.[0]?.message as
    | { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: unknown }
    | undefined;
  if (typeof msg !== "object" || msg === null) throw new LLMError("the answer has no choices[0].message");
  const text = typeof msg.content === "string" ? msg.content.trim() : "";
  const reasoning = [msg.reasoning_content, msg.reasoning].find((r): r is string => typeof r === "string" && r.trim() !== "")?.trim();
  const action: Action = { think: reasoning ?? text, toolCalls: [] };
  if (reasoning && text) action.response = text;
  const calls = Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
  for (const c of calls as { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[]) {
    const name = c?.function?.name;
    if (typeof name !== "string" || name === "") continue;
    action.toolCalls.push({
      id: typeof c.id === "string" ? c.id : undefined,
      name,
      parameters: parseArguments(c.function?.arguments),
    });
  }
  return action;
}

/**
 * toolContent is a result as the model reads it: the tool's JSON output, or
 * the error's code and message. Both keep the validator's text (the message
 * verbatim, the output as the JSON text it came in), which a verified step's
 * prompt must contain (docs/protocol.md §9.4).
 */
function toolContent(r: ToolResult | undefined): string {
  if (!r) return "error (missing): the validator returned no result for this call";
  if (r.error) return `error (${r.error.code}): ${r.error.message}`;
  return r.resultText ?? JSON.stringify(r.result ?? null);
}

/**
 * parseArguments turns OpenAI's `arguments` (a JSON-encoded string, or an
 * object from some servers) into the object the protocol wants (§2.4). What
 * cannot be read becomes {}; the validator then answers with a tool error the
 * model sees.
 */
function parseArguments(args: unknown): Record<string, unknown> {
  let v = args;
  if (typeof v === "string") {
    try {
      v = v.trim() === "" ? {} : JSON.parse(v);
    } catch {
      return {};
    }
  }
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
