// Entry point: reads the key and the LLM settings, starts the websocket
// server and prints one JSON line on stdout with where it listens, its EVM
// address and the hotkey to register.
//
//   node dist/main.js [--listen HOST:PORT] [--key-file FILE] [--max-episodes N] [--max-version 1|2]
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { LLMAgent } from "./agent.js";
import { type Key, generateKey, hotkeyOf, keyHex, parseKey } from "./crypto.js";
import { errText, log } from "./log.js";
import { MAX_VERSION, PATH, PROTOCOL_VERSION } from "./protocol.js";
import { startServer } from "./server.js";

const USAGE = `usage: node dist/main.js [--listen HOST:PORT] [--key-file FILE] [--max-episodes N] [--max-version 1|2]

  --listen HOST:PORT   where validators dial ws://HOST:PORT${PATH} (default 0.0.0.0:8091; port 0 picks a free one)
  --key-file FILE      hex private key; created with a fresh key if missing (or env MINER_KEY_FILE)
  --max-episodes N     episodes served at once across all validators (default 16)
  --max-version N      highest protocol version to speak (default ${MAX_VERSION}: take completions through a
                       validator's inference relay when it offers one; 1: never)

environment:
  MINER_PRIVATE_KEY    hex private key (wins over --key-file); with neither, a throwaway key is generated
  LLM_BASE_URL         the agent's own OpenAI-compatible API base, e.g. https://openrouter.ai/api/v1; without
                       it the agent plays only for validators that relay inference (protocol version 2)
  LLM_MODEL            model name (required with LLM_BASE_URL; through a relay that does not allow it,
                       the relay's first model)
  LLM_API_KEY          the endpoint's API key (optional for local servers)
  LLM_TIMEOUT_MS       bound on one chat request (default 50000; always within the step timeout)
  LLM_RETRIES          further attempts after a failed request (default 1)
  LOG_LEVEL            debug, info, warn or error (default info); logs go to stderr`;

function fail(msg: string): never {
  process.stderr.write(`ts-miner: ${msg}\n`);
  process.exit(2);
}

/** splitHostPort reads HOST:PORT, [IPv6]:PORT or :PORT. */
function splitHostPort(s: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(s);
  if (!m) fail(`--listen ${JSON.stringify(s)}: want HOST:PORT`);
  const port = Number(m[3]);
  if (port > 65535) fail(`--listen ${JSON.stringify(s)}: port out of range`);
  return { host: m[1] ?? (m[2] || "0.0.0.0"), port };
}

function loadKey(keyFile: string | undefined): Key {
  const env = process.env.MINER_PRIVATE_KEY;
  if (env) return parseKey(env);
  if (keyFile) {
    if (existsSync(keyFile)) return parseKey(readFileSync(keyFile, "utf8"));
    const key = generateKey();
    writeFileSync(keyFile, keyHex(key) + "\n", { mode: 0o600, flag: "wx" });
    log.info("wrote a new key", { file: keyFile, address: key.address });
    return key;
  }
  const key = generateKey();
  log.warn("no MINER_PRIVATE_KEY or key file: using a throwaway key (its hotkey changes every start)", { address: key.address });
  return key;
}

function intEnv(name: string, def: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) fail(`${name}=${v}: want a non-negative integer`);
  return n;
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        listen: { type: "string", default: "0.0.0.0:8091" },
        "key-file": { type: "string" },
        "max-episodes": { type: "string", default: "16" },
        "max-version": { type: "string", default: String(MAX_VERSION) },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    fail(`${errText(err)}\n${USAGE}`);
  }
  if (args.help) {
    process.stdout.write(USAGE + "\n");
    return;
  }
  const { host, port } = splitHostPort(args.listen!);
  const maxEpisodes = Number(args["max-episodes"]);
  if (!Number.isInteger(maxEpisodes) || maxEpisodes < 1) fail("--max-episodes: want a positive integer");
  const maxVersion = Number(args["max-version"]);
  if (!Number.isInteger(maxVersion) || maxVersion < PROTOCOL_VERSION || maxVersion > MAX_VERSION) {
    fail(`--max-version: want ${PROTOCOL_VERSION} or ${MAX_VERSION}`);
  }
  const baseURL = process.env.LLM_BASE_URL || undefined;
  const model = process.env.LLM_MODEL || undefined;
  if (baseURL && !model) fail(`LLM_MODEL must be set with LLM_BASE_URL\n${USAGE}`);
  if (!baseURL && maxVersion < 2) fail(`LLM_BASE_URL must be set with --max-version 1 (no relay to fall back on)\n${USAGE}`);
  if (!baseURL) log.warn("no LLM_BASE_URL: the agent plays only for validators that relay inference; other episodes end at once with terminate(failure)");

  let key: Key;
  try {
    key = loadKey(args["key-file"] ?? process.env.MINER_KEY_FILE);
  } catch (err) {
    fail(errText(err));
  }
  const agent = new LLMAgent({
    baseURL,
    model,
    apiKey: process.env.LLM_API_KEY,
    timeoutMs: intEnv("LLM_TIMEOUT_MS", 50_000),
    retries: intEnv("LLM_RETRIES", 1),
  });
  let server;
  try {
    server = await startServer({ host, port, key, agent, maxEpisodes, maxVersion });
  } catch (err) {
    fail(`listen on ${args.listen}: ${errText(err)}`);
  }
  const a = server.address;
  const listening = a.family === "IPv6" ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
  const hotkey = hotkeyOf(key.address);
  process.stdout.write(JSON.stringify({ listening, endpoint: `ws://${listening}${PATH}`, address: key.address, hotkey }) + "\n");
  log.info("miner listening", { endpoint: `ws://${listening}${PATH}`, address: key.address, hotkey, model, maxVersion });

  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.once(sig, () => {
      log.info("shutting down", { signal: sig });
      void server.close().then(() => process.exit(0));
    });
  }
}

main().catch((err) => {
  log.error("fatal", { err: errText(err) });
  process.exit(1);
});
