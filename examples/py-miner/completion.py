"""The step a chat completion makes, read as the validator reads it
(docs/protocol.md §9.4; Go: episode.StepFromCompletion), and the JSON text
of values as the validator wrote them.

A relayed step must be exactly its completion: the think, the tool calls
with their arguments as the model wrote them, the response only when there
are no calls. Tool results go into the next prompt as the text the
validator sent (the shop writes 1799.0; a re-encoded 1799 would not match).
"""

import json
import re

# Go's unicode.IsSpace; Python's str.strip() also strips \x1c-\x1f.
_GO_SPACE = "\t\n\v\f\r \u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def go_trim(s: str) -> str:
    return s.strip(_GO_SPACE)


_decoder = json.JSONDecoder()
_WS = " \t\n\r"


def _skip(s, i):
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def raw_members(s: str, i: int = 0):
    """The members of the JSON object starting at s[i] (after white space), as {key: raw text}."""
    i = _skip(s, i)
    if s[i:i + 1] != "{":
        raise ValueError("not an object")
    out, i = {}, _skip(s, i + 1)
    if s[i:i + 1] == "}":
        return out
    while True:
        key, i = _decoder.raw_decode(s, _skip(s, i))
        i = _skip(s, i)
        if s[i:i + 1] != ":":
            raise ValueError("want ':'")
        start = _skip(s, i + 1)
        _, end = _decoder.raw_decode(s, start)
        out[key] = s[start:end]
        i = _skip(s, end)
        if s[i:i + 1] == "}":
            return out
        if s[i:i + 1] != ",":
            raise ValueError("want ',' or '}'")
        i += 1


def raw_items(s: str):
    """The items of the JSON array s, as raw texts."""
    i = _skip(s, 0)
    if s[i:i + 1] != "[":
        raise ValueError("not an array")
    out, i = [], _skip(s, i + 1)
    if s[i:i + 1] == "]":
        return out
    while True:
        start = _skip(s, i)
        _, end = _decoder.raw_decode(s, start)
        out.append(s[start:end])
        i = _skip(s, end)
        if s[i:i + 1] == "]":
            return out
        if s[i:i + 1] != ",":
            raise ValueError("want ',' or ']'")
        i += 1


def _field(obj, name):
    """A member matched without regard to case, the last match winning, as Go's encoding/json fills a field."""
    v = None
    for k, val in obj.items():
        if k.lower() == name:
            v = val
    return v


def _str(obj, name):
    v = _field(obj, name)
    if v is None:
        return ""
    if not isinstance(v, str):
        raise ValueError(f"completion: {name} is not a string")
    return v


_HERMES = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)
_THINK = re.compile(r"<think>(.*?)</think>", re.S)


def _object_text(raw):
    """Arguments as the model wrote them when they are a JSON object, else {} (as the validator makes them)."""
    if isinstance(raw, str):
        try:
            if isinstance(json.loads(raw), dict):
                return go_trim(raw)
        except ValueError:
            pass
        return "{}"
    return json.dumps(raw) if isinstance(raw, dict) else "{}"


def step_from_completion(completion):
    """(think, [(name, arguments JSON text)], response) of a chat.completion object."""
    choices = _field(completion, "choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("completion: no choices[0]")
    msg = _field(choices[0], "message")
    if not isinstance(msg, dict):
        raise ValueError("completion: no choices[0].message")
    content = _str(msg, "content")
    calls = []
    native = _field(msg, "tool_calls")
    if native is not None and not isinstance(native, list):
        raise ValueError("completion: tool_calls is not an array")
    if native:
        for c in native:
            if not isinstance(c, dict) or _str(c, "type") not in ("", "function"):
                continue
            fn = _field(c, "function") or {}
            if not isinstance(fn, dict):
                raise ValueError("completion: function is not an object")
            args = _field(fn, "arguments")
            if args is not None and not isinstance(args, str):
                raise ValueError("completion: arguments is not a string")
            calls.append((_str(fn, "name"), _object_text(args or "")))
    elif native is None or native == []:
        def hermes(m):
            try:
                body = json.loads(m.group(1))
            except ValueError:
                return ""
            if isinstance(body, dict) and isinstance(body.get("name"), str) and body["name"]:
                args = body.get("arguments")
                calls.append((body["name"], _object_text(args if isinstance(args, str) else json.dumps(args) if isinstance(args, dict) else "")))
            return ""
        content = _HERMES.sub(hermes, content)
    think = go_trim(_str(msg, "reasoning_content")) or go_trim(_str(msg, "reasoning"))
    if not think:
        m = _THINK.search(content)
        if m:
            think, content = go_trim(m.group(1)), content[:m.start()] + content[m.end():]
        elif "</think>" in content:
            think, _, content = content.partition("</think>")
            think = go_trim(think)
        else:
            think, content = go_trim(content), ""
    response = "" if calls else go_trim(content)
    return think, calls, response
