#!/usr/bin/env python3
"""Small fuzz seeds cut from recorded reports and stream lines (docs/fuzzing.md).

Every harness input is parsed, written and read again several times under the
sanitizers, so a 1.8 MB report ran one input a second: these seeds keep each
section and kind of value of the originals (short arrays such as grid, block
and boxes whole, longer ones their first two entries, maps 2 x 2, strings 80
characters) at a few KB, and the fuzzer finds the rest. Files of 16 KB or
less are copied as they are. The recorded files
still replay whole in `ctest --preset fuzz`.

    fuzz/seeds/make_small.py OUT_DIR FILE...   (a .jsonl file: line by line)
"""
import json
import os
import sys


def trim(v):
    if isinstance(v, list):
        scalars = not any(isinstance(x, (list, dict)) for x in v)
        keep = v if len(v) <= 4 or (scalars and len(v) <= 8) else v[:2]
        return [trim(x) for x in keep]
    if isinstance(v, dict):
        if isinstance(v.get("rows"), int) and isinstance(v.get("cols"), int):  # a map: rows x cols cells
            n, r, c = v["rows"] * v["cols"], min(v["rows"], 2), min(v["cols"], 2)
            return {k: r if k == "rows" else c if k == "cols" else
                    x[:r * c] if isinstance(x, list) and len(x) == n else trim(x) for k, x in v.items()}
        return {k: trim(x) for k, x in v.items()}
    if isinstance(v, str) and len(v) > 80:
        return v[:80]
    return v


def small(line):
    """A JSON line trimmed; any other line (a stream's text) as it is, up to 1000 characters."""
    try:
        return json.dumps(trim(json.loads(line)), separators=(",", ":"))
    except ValueError:
        return line[:1000]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            raw = f.read()
        if len(raw) <= 16384:  # small already (and a malformed line stays exactly as it is)
            with open(os.path.join(out, os.path.basename(path)), "wb") as f:
                f.write(raw)
            continue
        try:
            whole = raw.decode("utf-8")
            try:  # one document (a report), or JSON lines (a stream)
                text = json.dumps(trim(json.loads(whole)), separators=(",", ":"))
            except ValueError:
                text = "".join(small(l) + "\n" for l in whole.splitlines())
        except (UnicodeDecodeError, RecursionError):
            continue  # large and not text: replayed by ctest only
        with open(os.path.join(out, os.path.basename(path)), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
