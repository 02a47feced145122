#!/usr/bin/env python3
"""Record CPython's output for the python_execute corpora.

Usage (from the repository root):

    python3 shop/pyexec/testdata/record.py

For every snippet of realistic.txt it runs `python3 -I -c CODE` in a fresh
process and writes what the snippet printed and, when it raised, the last
line of the traceback, to realistic.golden.json. hostile.txt is not
recorded: several of its snippets would take CPython's memory or run until
killed, and its test checks pyexec's own errors. The Go tests read
that file; they never run Python. Record once and commit the result; record
again only when a snippet is added or changed.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def snippets(path):
    """Yields (name, code) for each "=== name" section of a corpus file."""
    name, lines = None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("=== "):
                if name is not None:
                    yield name, "".join(lines)
                name, lines = line[4:].strip(), []
            elif name is not None:
                lines.append(line)
    if name is not None:
        yield name, "".join(lines)


def run(code):
    p = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=30)
    err = ""
    if p.returncode != 0:
        tail = [l for l in p.stderr.splitlines() if l.strip()]
        err = tail[-1] if tail else "exit %d" % p.returncode
    return p.stdout, err


def main():
    out = {"python": sys.version.split()[0], "snippets": []}
    seen = set()
    for name, code in snippets(os.path.join(HERE, "realistic.txt")):
        if name in seen:
            sys.exit("duplicate snippet name: " + name)
        seen.add(name)
        stdout, err = run(code)
        out["snippets"].append({"name": name, "stdout": stdout, "error": err})
    with open(os.path.join(HERE, "realistic.golden.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("recorded %d snippets with Python %s" % (len(out["snippets"]), out["python"]))


if __name__ == "__main__":
    main()
