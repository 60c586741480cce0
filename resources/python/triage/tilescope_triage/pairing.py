"""Which Python files are problems, and which reference goes with which
candidate (docs/triage.md, "Inputs").  The C++ side (core/src/triage/
triage_inputs.cpp) applies the same rule when it plans a triage; the runner
uses this one for a folder given to it directly and for the bench's manifest.

The rule, in order:
  1. a file that holds both `class Model` and `class ModelNew` is a problem alone;
  2. DIR/NAME_new.py (candidate) pairs with DIR/NAME.py (reference);
  3. .../candidate[s]/NAME[_new].py pairs with .../reference[s]/NAME.py.
"""
import os
import re

_MODEL = re.compile(r"^class\s+Model\s*[(:]", re.M)
_MODEL_NEW = re.compile(r"^class\s+ModelNew\s*[(:]", re.M)
_GET_INPUTS = re.compile(r"^def\s+get_inputs\s*\(", re.M)


def role(text):
    """'reference', 'candidate', 'both' or None for a file's text."""
    m = bool(_MODEL.search(text)) and bool(_GET_INPUTS.search(text))
    n = bool(_MODEL_NEW.search(text))
    if m and n:
        return "both"
    if m:
        return "reference"
    if n:
        return "candidate"
    return None


def stem(path):
    s = os.path.splitext(os.path.basename(path))[0]
    return s[:-4] if s.endswith("_new") else s


def pair(files):
    """files: [(path, role)].  Returns (pairs, unpaired): pairs as
    (reference, candidate) sorted by reference; unpaired as (path, role)."""
    refs = {os.path.normpath(p): p for p, r in files if r == "reference"}
    used, pairs, unpaired = set(), [], []
    for p, r in sorted(set(files)):
        if r == "both":
            pairs.append((p, p))
        if r != "candidate":
            continue
        s, d = stem(p), os.path.dirname(p)
        wanted = []
        if os.path.splitext(os.path.basename(p))[0].endswith("_new"):
            wanted.append(os.path.join(d, s + ".py"))
        if os.path.basename(d) in ("candidate", "candidates"):
            wanted += [os.path.join(os.path.dirname(d), rd, s + ".py") for rd in ("reference", "references")]
        found = next((refs[os.path.normpath(w)] for w in wanted
                      if os.path.normpath(w) in refs and os.path.normpath(w) not in used), None)
        if found is None:
            unpaired.append((p, r))
            continue
        used.add(os.path.normpath(found))
        pairs.append((found, p))
    unpaired += [(p, "reference") for k, p in refs.items() if k not in used]
    return sorted(pairs), sorted(unpaired)


def scan(folder):
    """Every problem under `folder` (recursively): (pairs, unpaired)."""
    files = []
    for d, dirs, names in os.walk(folder):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__")
        for n in sorted(names):
            if n.endswith(".py"):
                p = os.path.join(d, n)
                try:
                    with open(p, encoding="utf-8", errors="replace") as f:
                        r = role(f.read(4 << 20))
                except OSError:
                    continue
                if r:
                    files.append((p, r))
    return pair(files)
