// Raw JSON text of values inside a larger JSON text. JSON.parse loses how a
// value was written (1799.0 becomes 1799), and the validator compares some
// values as written (docs/protocol.md §9.4): a tool result in a verified
// step's prompt, a tool call's arguments. These read the text of values of a
// JSON text that JSON.parse has already accepted, so they need not validate.

/** members lists an object text's members: each decoded key and its value's text. */
export function members(text: string): [string, string][] {
  const out: [string, string][] = [];
  let i = skipSpace(text, 0) + 1; // past "{"
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length || text[i] === "}") return out;
    const keyEnd = skipValue(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    const start = skipSpace(text, skipSpace(text, keyEnd) + 1); // past ":"
    const end = skipValue(text, start);
    out.push([key, text.slice(start, end)]);
    i = skipSpace(text, end);
    if (text[i] === ",") i++;
  }
}

/** elements lists an array text's elements' texts. */
export function elements(text: string): string[] {
  const out: string[] = [];
  let i = skipSpace(text, 0) + 1; // past "["
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length || text[i] === "]") return out;
    const end = skipValue(text, i);
    out.push(text.slice(i, end));
    i = skipSpace(text, end);
    if (text[i] === ",") i++;
  }
}

/** member is the text of an object's last member named key (as JSON.parse keeps the last). */
export function member(text: string, key: string): string | undefined {
  let v: string | undefined;
  for (const [k, raw] of members(text)) if (k === key) v = raw;
  return v;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && (s[i] === " " || s[i] === "\t" || s[i] === "\n" || s[i] === "\r")) i++;
  return i;
}

/** skipValue returns the index just past the JSON value starting at i. */
function skipValue(s: string, i: number): number {
  if (s[i] === '"') {
    for (i++; i < s.length && s[i] !== '"'; i++) if (s[i] === "\\") i++;
    return i + 1;
  }
  if (s[i] === "{" || s[i] === "[") {
    let depth = 0;
    for (; i < s.length; i++) {
      const c = s[i];
      if (c === '"') i = skipValue(s, i) - 1;
      else if (c === "{" || c === "[") depth++;
      else if ((c === "}" || c === "]") && --depth === 0) return i + 1;
    }
    return i;
  }
  while (i < s.length && !",}] \t\n\r".includes(s[i])) i++;
  return i;
}
