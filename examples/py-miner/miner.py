#!/usr/bin/python3
"""An arena miner in Python, written from docs/protocol.md, on Debian's
packages only (python3-websockets, python3-pycryptodome).

It serves the episode protocol at ws://HOST:PORT/arena/v1 and plays each
episode with a model: through the validator's inference relay when the
validator offers one (protocol version 2, §9), so that every step is
exactly a relayed completion and verifies, and otherwise through an
OpenAI-compatible endpoint of its own (LLM_BASE_URL), if it has one.

On start it prints one JSON line on stdout: where it listens, the address
it signs with and the hotkey to register (the address's mirror). Logs go
to stderr.
"""

import argparse
import asyncio
import json
import logging
import os
import re
import secrets
import signal
import sys
import time
import urllib.error
import urllib.request
from http import HTTPStatus

import websockets

import arena_crypto as ac
from completion import raw_items, raw_members, step_from_completion

PATH = "/arena/v1"
MAX_VERSION = 2
SKEW = 30  # seconds a hello's timestamp may be off (§3)
CLOSE_POLICY = 1008

SYSTEM_PROMPT = """You are a shopping assistant working in an online shop through tools.
The user describes what they want to buy. Find products that meet every requirement: the kind of product, its attributes and options, the price bound, the services (free shipping, COD, official shop, flash sale), items from the same shop, and any budget or voucher.
Work step by step: search with find_product (use its price, service, sort and shop_id filters), check candidates with view_product_information, use web_search when the request depends on a fact you do not know, and python_execute for arithmetic.
When you are sure, call recommend_product once with the product ids, in the order the items were asked for, then call terminate with status "success" (or "failure" if nothing fits).
Before every tool call, say briefly what you saw and why you act: cite the product ids, prices, shops and attributes you compare."""

ADDRESS_RE = re.compile(r"^0[xX][0-9a-fA-F]{40}$")
NONCE_RE = re.compile(r"^[0-9a-fA-F]{64}$")
log = logging.getLogger("py-miner")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def hello_payload(version, validator, nonce, ts):
    return "\n".join(["arena/v1 hello", f"version:{version}", f"validator:{validator}", f"nonce:{nonce}", f"timestamp:{ts}"])


def ack_payload(version, miner, validator, nonce, ts):
    return "\n".join(["arena/v1 hello_ack", f"version:{version}", f"miner:{miner}", f"validator:{validator}", f"nonce:{nonce}", f"timestamp:{ts}"])


class Miner:
    def __init__(self, key: int, max_version: int, max_episodes: int, llm: dict):
        self.key = key
        self.address = ac.address_of(ac.public_key(key))
        self.max_version = max_version
        self.max_episodes = max_episodes
        self.llm = llm
        self.live = 0  # episodes being played, across connections
        self.seen = {}  # (validator address, nonce) -> when accepted

    # ---- handshake (§3) ----

    def check_hello(self, frame):
        """(end reason, hello): the reason is set when the hello must be refused."""
        if not isinstance(frame, str):
            return "malformed", None
        try:
            h = json.loads(frame)
        except ValueError:
            return "malformed", None
        if not isinstance(h, dict) or not isinstance(h.get("type"), str):
            return "malformed", None
        if h["type"] != "hello":
            return "unexpected_message", None
        if not (is_int(h.get("version")) and isinstance(h.get("validator_address"), str) and ADDRESS_RE.match(h["validator_address"])
                and isinstance(h.get("nonce"), str) and NONCE_RE.match(h["nonce"]) and is_int(h.get("timestamp"))
                and isinstance(h.get("signature"), str) and ("max_version" not in h or is_int(h["max_version"]))):
            return "malformed", None
        if h["version"] != 1:
            return "version_mismatch", None
        now = time.time()
        if abs(now - h["timestamp"]) > SKEW:
            return "replay", None
        validator = "0x" + h["validator_address"][2:].lower()
        try:
            signer = ac.recover(hello_payload(1, validator, h["nonce"].lower(), h["timestamp"]), h["signature"])
        except ValueError:
            return "bad_signature", None
        if "0x" + signer.hex() != validator:
            return "bad_signature", None
        self.seen = {k: t for k, t in self.seen.items() if now - t < 2 * SKEW}
        if (validator, h["nonce"]) in self.seen:
            return "replay", None
        self.seen[(validator, h["nonce"])] = now
        return None, h

    async def handler(self, ws, path=None):
        try:
            first = await asyncio.wait_for(ws.recv(), 30)
        except (asyncio.TimeoutError, websockets.ConnectionClosed):
            return
        reason, hello = self.check_hello(first)
        if reason:
            log.info("hello refused: %s", reason)
            await ws.close(CLOSE_POLICY, reason)
            return
        version = max(min(max(hello["version"], hello.get("max_version", 1)), self.max_version), 1)
        ts = int(time.time())
        miner = "0x" + self.address.hex()
        validator = "0x" + hello["validator_address"][2:].lower()
        sig = ac.sign(self.key, ack_payload(version, miner, validator, hello["nonce"].lower(), ts))
        await ws.send(json.dumps({"type": "hello_ack", "version": version, "miner_address": ac.checksum_address(self.address),
                                  "nonce": hello["nonce"], "timestamp": ts, "signature": sig}))
        log.info("validator %s connected, protocol version %d", validator, version)
        await Connection(self, ws, version).serve()


class Connection:
    """One validator's connection: its episodes, multiplexed by episode_id."""

    def __init__(self, miner: Miner, ws, version: int):
        self.miner, self.ws, self.version = miner, ws, version
        self.episodes = {}

    async def send(self, frame: str):
        try:
            await self.ws.send(frame)
        except websockets.ConnectionClosed:
            pass

    async def serve(self):
        try:
            async for frame in self.ws:
                if isinstance(frame, str):
                    self.dispatch(frame)
        except websockets.ConnectionClosed:
            pass
        finally:
            for ep in list(self.episodes.values()):
                ep.task.cancel()

    def dispatch(self, frame: str):
        try:
            msg = raw_members(frame)
            kind = json.loads(msg.get("type", "null"))
            eid = json.loads(msg.get("episode_id", "null"))
        except ValueError:
            log.warning("a frame that is not a JSON object: ignored")
            return
        if not isinstance(eid, str):
            return
        ep = self.episodes.get(eid)
        if kind == "episode_start" and ep is None:
            start = json.loads(frame)
            if self.miner.live >= self.miner.max_episodes:
                # Full: refuse at once rather than stall (§5).
                asyncio.ensure_future(self.send(step_frame(eid, "This miner is at capacity.", [("terminate", '{"status":"failure"}')])))
                return
            ep = Episode(self, start)
            self.episodes[eid] = ep
            ep.task = asyncio.ensure_future(ep.run())
        elif kind == "observation" and ep is not None:
            ep.observations.put_nowait(msg)
        elif kind == "infer_result" and ep is not None:
            res = json.loads(frame)
            fut = ep.pending.pop(res.get("request_id"), None)
            if fut is not None and not fut.done():
                fut.set_result(res)
        elif kind == "episode_end" and ep is not None:
            ep.task.cancel()
            del self.episodes[eid]


def step_frame(eid, think, calls, response="", completion_id=None):
    """A step message; each call's arguments go in as the JSON object text the model wrote (§9.4)."""
    parts = ['{"type":"step","episode_id":', json.dumps(eid)]
    if completion_id:
        parts += [',"completion_id":', json.dumps(completion_id)]
    parts += [',"think":', json.dumps(think), ',"tool_calls":[']
    parts.append(",".join('{"id":%s,"name":%s,"parameters":%s}' % (json.dumps(f"call_{i}"), json.dumps(name), args)
                          for i, (name, args) in enumerate(calls)))
    parts.append("]")
    if response:
        parts += [',"response":', json.dumps(response)]
    parts.append("}")
    return "".join(parts)


class Episode:
    def __init__(self, conn: Connection, start: dict):
        self.conn = conn
        self.id = start["episode_id"]
        self.query = start["query"]
        self.tools = start["tools"]
        self.limits = start["limits"]
        self.relay = start.get("relay") if conn.version >= 2 else None
        self.observations = asyncio.Queue()
        self.pending = {}
        self.turns = []  # (think, calls, results): results by call index, each raw JSON text or an error line
        self.completions = 0
        self.requests = 0
        self.recommended = False
        self.task = None

    async def run(self):
        loop = asyncio.get_running_loop()
        self.conn.miner.live += 1
        try:
            prompt_at = loop.time()
            for n in range(self.limits["max_steps"]):
                deadline = prompt_at + 0.9 * self.limits["step_timeout_ms"] / 1000
                think, calls, response, cid = await self.decide(n, deadline)
                await self.conn.send(step_frame(self.id, think, calls, response, cid))
                obs = await self.observations.get()
                prompt_at = loop.time()
                results = self.read_results(obs, calls)
                self.turns.append((think, calls, results))
                ended = False
                for (name, _), res in zip(calls, results):
                    ok = not res.startswith("error (")
                    self.recommended |= name == "recommend_product" and ok
                    ended |= name == "terminate" and ok
                if ended:
                    break
            await asyncio.Event().wait()  # episode_end cancels the task
        except asyncio.CancelledError:
            pass
        finally:
            self.conn.miner.live -= 1

    def read_results(self, obs: dict, calls):
        """Each call's result as the model reads it: the JSON text as the validator wrote it, or the error's code and message."""
        by_id = {}
        for item in raw_items(obs.get("results", "[]")):
            r = raw_members(item)
            cid = json.loads(r.get("tool_call_id", '""'))
            if "error" in r:
                e = json.loads(r["error"])
                by_id[cid] = f"error ({e.get('code')}): {e.get('message')}"
            else:
                by_id[cid] = r.get("result", "null")
        return [by_id.get(f"call_{i}", "error (missing): the validator returned no result for this call") for i in range(len(calls))]

    def end(self, why):
        status = "success" if self.recommended else "failure"
        return why, [("terminate", json.dumps({"status": status}))], "", None

    def messages(self, n):
        out = [{"role": "system", "content": f"{SYSTEM_PROMPT}\nAt most {self.limits['max_tool_calls']} tool calls per turn; {self.limits['max_steps']} turns in all."},
               {"role": "user", "content": self.query}]
        for t, (think, calls, results) in enumerate(self.turns):
            tc = [{"id": f"call_{t}_{i}", "type": "function", "function": {"name": name, "arguments": args}} for i, (name, args) in enumerate(calls)]
            msg = {"role": "assistant", "content": think or (None if tc else "(no tool call)")}
            if tc:
                msg["tool_calls"] = tc
            out.append(msg)
            for i, res in enumerate(results):
                out.append({"role": "tool", "tool_call_id": f"call_{t}_{i}", "content": res})
            if not tc:
                out.append({"role": "user", "content": "Continue with the tools. When you are done, call recommend_product, then terminate."})
        if n == self.limits["max_steps"] - 1:
            out.append({"role": "user", "content": "This is your last turn: call recommend_product now if you have not, and terminate."})
        return out

    async def decide(self, n, deadline):
        """(think, calls, response, completion_id) of step n, due before deadline (loop time)."""
        loop = asyncio.get_running_loop()
        llm = self.conn.miner.llm
        if self.relay:
            models = self.relay.get("models") or []
            model = llm["model"] if llm["model"] in models else (models[0] if models else "")
        elif llm["base_url"]:
            model = llm["model"]
        else:
            return self.end("No model endpoint of my own (LLM_BASE_URL), and this validator relays no inference.")
        body = {"model": model, "messages": self.messages(n), "tools": self.tools, "tool_choice": "auto", "temperature": 0}
        for attempt in range(2):
            left = deadline - loop.time()
            if left <= 0.5:
                return self.end("Out of time for this step.")
            if self.relay:
                completion, cid, err = await self.infer(body, left)
            else:
                completion, err = await asyncio.to_thread(own_endpoint, llm, body, min(left, llm["timeout"]))
                cid = None
            if err:
                log.warning("episode %s step %d: %s", self.id, n, err)
                if err.startswith(("provider_error", "busy", "http")) and attempt == 0:
                    continue
                return self.end(f"The model could not answer: {err}")
            try:
                think, calls, response = step_from_completion(completion)
            except ValueError as e:
                return self.end(f"The model's answer cannot be read: {e}")
            return self.clip(think, calls, response, cid)
        return self.end("The model did not answer.")

    def clip(self, think, calls, response, cid):
        """Holds the step to the announced limits; a clipped step no longer verifies, but it is no violation."""
        lim = self.limits
        if len(think.encode()) > lim["max_think_bytes"] or len(calls) > lim["max_tool_calls"]:
            think = think.encode()[: lim["max_think_bytes"]].decode(errors="ignore")
            calls = calls[: lim["max_tool_calls"]]
            cid = None
        return think, calls, response, cid

    async def infer(self, body, timeout):
        """(completion, completion_id, error) of one infer over the episode's connection (§9.3)."""
        if self.completions >= self.relay.get("max_completions", 1 << 30):
            return None, None, "budget_exceeded: the episode's completions are spent"
        self.requests += 1
        rid = f"r{self.requests}"
        frame = json.dumps({"type": "infer", "episode_id": self.id, "request_id": rid, "body": body})
        if len(frame.encode()) > self.relay.get("max_infer_bytes", 1 << 20):
            return None, None, "too_large: the prompt exceeds max_infer_bytes"
        fut = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        self.completions += 1  # provider failures count too (§9.2)
        await self.conn.send(frame)
        try:
            res = await asyncio.wait_for(fut, timeout)
        except asyncio.TimeoutError:
            self.pending.pop(rid, None)
            return None, None, "timeout: no infer_result in time"
        if "error" in res:
            e = res["error"]
            return None, None, f"{e.get('code')}: {e.get('message')}"
        return res.get("completion"), res.get("completion_id"), None


def own_endpoint(llm, body, timeout):
    """(completion, error) from the agent's own OpenAI-compatible endpoint."""
    req = urllib.request.Request(llm["base_url"].rstrip("/") + "/chat/completions", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"})
    if llm["api_key"]:
        req.add_header("authorization", "Bearer " + llm["api_key"])
    try:
        with urllib.request.urlopen(req, timeout=max(timeout, 0.1)) as resp:
            return json.loads(resp.read()), None
    except urllib.error.HTTPError as e:
        return None, f"http {e.code}: {e.read()[:200]!r}"
    except (OSError, ValueError) as e:
        return None, f"http: {e}"


def load_key(key_file):
    hexkey = os.environ.get("MINER_PRIVATE_KEY", "").strip()
    if not hexkey and key_file:
        if os.path.exists(key_file):
            with open(key_file) as f:
                hexkey = f.read().strip()
        else:
            hexkey = secrets.token_hex(32)
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(hexkey + "\n")
            log.info("created a new key in %s", key_file)
    if not hexkey:
        log.warning("no MINER_PRIVATE_KEY or key file: a throwaway key, new at every start (fine for practice, useless once registered)")
        hexkey = secrets.token_hex(32)
    key = int(hexkey.removeprefix("0x"), 16)
    if not 0 < key < ac.N:
        raise SystemExit("py-miner: the key is not a secp256k1 private key")
    return key


def main():
    p = argparse.ArgumentParser(description="An arena miner in Python (docs/protocol.md).")
    p.add_argument("--listen", default="0.0.0.0:8091", help="HOST:PORT validators dial (ws://HOST:PORT/arena/v1)")
    p.add_argument("--max-episodes", type=int, default=16, help="episodes served at once, across validators")
    p.add_argument("--max-version", type=int, default=MAX_VERSION, choices=[1, 2], help="highest protocol version to speak")
    p.add_argument("--key-file", default=os.environ.get("MINER_KEY_FILE", ""), help="file holding the hex key (created if missing)")
    args = p.parse_args()
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("LOG_LEVEL", "info").upper(), format="%(asctime)s %(levelname)s %(message)s")
    host, _, port = args.listen.rpartition(":")
    llm = {"base_url": os.environ.get("LLM_BASE_URL", ""), "model": os.environ.get("LLM_MODEL", ""),
           "api_key": os.environ.get("LLM_API_KEY", ""), "timeout": int(os.environ.get("LLM_TIMEOUT_MS", "50000")) / 1000}
    miner = Miner(load_key(args.key_file), args.max_version, args.max_episodes, llm)
    asyncio.run(serve(miner, host, int(port)))


async def serve(miner, host, port):
    def only_our_path(path, headers):
        if path.split("?")[0] != PATH:
            return HTTPStatus.NOT_FOUND, [], f"the arena protocol is served at {PATH}\n".encode()
        return None

    server = await websockets.serve(miner.handler, host, port, process_request=only_our_path, max_size=64 << 20,
                                    ping_interval=None, compression=None)
    bound = server.sockets[0].getsockname()
    hostport = f"{bound[0]}:{bound[1]}"
    print(json.dumps({"listening": hostport, "endpoint": f"ws://{hostport}{PATH}", "address": ac.checksum_address(miner.address),
                      "hotkey": ac.mirror_hotkey(miner.address)}), flush=True)
    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    await stop
    server.close()
    await server.wait_closed()


if __name__ == "__main__":
    main()
