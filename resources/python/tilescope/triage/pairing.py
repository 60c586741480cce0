"""Which Python files are problems, and which reference goes with which
candidate (docs/triage.md, "Inputs").  The C++ side (core/src/triage/
triage_pairing.cpp) applies the same rule when it plans a triage; the runner
uses this one for a folder given to it directly and for the bench's manifest.

The rule, in order:
  1. a file that holds both `class Model` and `class ModelNew` is a problem alone
     (unless it is a KernelBench sample, rule 5, whose problem is found);
  2. DIR/NAME_new.py (candidate) pairs with DIR/NAME.py, else DIR/NAME_ref.py;
  3. DIR/NAME.py (candidate) pairs with DIR/NAME_ref.py;
  4. .../candidate[s]/SUB/NAME[_new].py pairs with .../reference[s]/SUB/NAME.py
     (the nearest candidate[s]/ above the file, SUB any folders);
  5. KernelBench: level_L_problem_P_sample_S_kernel.py pairs with levelL/P_*.py.
A reference may serve several candidates; a KernelBench sample without class
ModelNew is left unpaired (role "none").

A file's role is read line by line, each line up to MAX_ROLE_LINE characters
(no regular expression over a file's text: linear in the text, as the C++ side;
the KernelBench names are matched on file names, bounded).  A folder search
reads nothing outside the folder (see scan).
"""
import os
import re

# The same numbers as the C++ side's (tests/unit/test_python_constants.cpp checks them).
from ..common.constants import (MAX_DEPTH, MAX_MIRROR_DEPTH, MAX_ROLE_LINE, MAX_SEARCH_ENTRIES, MAX_SEARCH_FOLDERS,
                                MAX_SOURCE_BYTES)
_BLANKS = " \t\f\v\r"


def _defines(line, word, name, then):
    """Whether `line` starts WORD<blanks>NAME<blanks?> and then one of `then`."""
    line = line[:MAX_ROLE_LINE]
    if not line.startswith(word):
        return False
    rest = line[len(word):]
    body = rest.lstrip(_BLANKS)
    if len(body) == len(rest) or not body.startswith(name):
        return False
    tail = body[len(name):].lstrip(_BLANKS)
    return bool(tail) and tail[0] in then


def role(text):
    """'reference', 'candidate', 'both' or None for a file's text."""
    model = model_new = inputs = False
    for line in text.split("\n"):
        model = model or _defines(line, "class", "Model", "(:")
        model_new = model_new or _defines(line, "class", "ModelNew", "(:")
        inputs = inputs or _defines(line, "def", "get_inputs", "(")
    m = model and inputs
    if m and model_new:
        return "both"
    if m:
        return "reference"
    if model_new:
        return "candidate"
    return None


_SAMPLE = re.compile(r"level_([0-9]{1,6})_problem_([0-9]{1,6})_sample_([0-9]{1,6})(?:_kernel)?\.py")
_LEVEL = re.compile(r"level_?([0-9]{1,6})")
_PROBLEM = re.compile(r"([0-9]{1,6})(?:_.*)?\.py", re.S)
_CANDIDATE_DIRS = ("candidate", "candidates")
_REFERENCE_DIRS = ("reference", "references")


def kernelbench_sample(path):
    """(level, problem, sample) of KernelBench's level_L_problem_P_sample_S_kernel.py, else None."""
    m = _SAMPLE.fullmatch(os.path.basename(path))
    return tuple(int(g) for g in m.groups()) if m else None


def kernelbench_problem(path):
    """(level, problem) of KernelBench's levelL/P_Name.py (also level_L/), else None."""
    d = _LEVEL.fullmatch(os.path.basename(os.path.dirname(path)))
    f = _PROBLEM.fullmatch(os.path.basename(path))
    return (int(d.group(1)), int(f.group(1))) if d and f else None


def stem(path):
    s = os.path.splitext(os.path.basename(path))[0]
    if kernelbench_sample(path):
        return s[:-len("_kernel")] if s.endswith("_kernel") else s
    return s[:-4] if s.endswith(("_new", "_ref")) else s


def _mirror(path):
    """(base, sub, candidate_side) for the nearest reference[s]/ or candidate[s]/ above path."""
    d, sub = os.path.dirname(path), ""
    for _ in range(MAX_MIRROR_DEPTH):
        name = os.path.basename(d)
        if name in _CANDIDATE_DIRS or name in _REFERENCE_DIRS:
            return os.path.dirname(d), sub, name in _CANDIDATE_DIRS
        if name in ("", ".", ".."):
            return None
        sub = os.path.join(name, sub) if sub else name
        d = os.path.dirname(d)
    return None


def _wanted(path, sample):
    s, d = stem(path), os.path.dirname(path)
    base = os.path.splitext(os.path.basename(path))[0]
    wanted = []
    if not sample and base.endswith("_new"):
        wanted.append(os.path.join(d, s + ".py"))
    if not sample and not base.endswith("_ref"):
        wanted.append(os.path.join(d, s + "_ref.py"))
    m = _mirror(path)
    if m and m[2]:
        wanted += [os.path.join(m[0], rd, m[1], s + ".py") for rd in _REFERENCE_DIRS]
    return wanted


def pair(files):
    """files: [(path, role)].  Returns (pairs, unpaired): pairs as
    (reference, candidate) sorted by reference; unpaired as (path, role)."""
    files = sorted(set(files), key=lambda f: (f[0], f[1] or ""))
    refs = {os.path.normpath(p): p for p, r in files if r == "reference" and not kernelbench_sample(p)}
    by_problem = {}
    for p in refs.values():
        k = kernelbench_problem(p)
        if k and k not in by_problem:
            by_problem[k] = p
    used, pairs, unpaired = set(), [], []
    for p, r in files:
        sample = kernelbench_sample(p)
        if sample and r in (None, "reference"):
            unpaired.append((p, r or "none"))  # named as a sample, no ModelNew in it
            continue
        if r not in ("candidate", "both"):
            continue
        wanted = [os.path.normpath(w) for w in _wanted(p, sample)]
        found = next((refs[w] for w in wanted if w in refs), None)
        if found is None and sample:
            found = by_problem.get(sample[:2])
        if r == "both" and (not sample or found is None):
            pairs.append((p, p))
            continue
        if found is None:
            unpaired.append((p, r))
            continue
        used.add(os.path.normpath(found))  # a reference may serve several candidates
        pairs.append((found, p))
    unpaired += [(p, "reference") for k, p in refs.items() if k not in used]
    return sorted(pairs), sorted(unpaired)


def _inside(path, root):
    return os.path.commonpath([path, root]) == root


def _read_role(path):
    """The role of a .py file; None for one over MAX_SOURCE_BYTES (not a problem)."""
    try:
        if os.path.getsize(path) > MAX_SOURCE_BYTES:
            return None
        with open(path, "rb") as f:
            return role(f.read().decode("latin-1"))  # a character per byte, as the C++ side
    except OSError:
        return None


class _Search:
    """One folder search: nothing outside `root` is read; a folder or file
    reached twice (a link to ".") is taken once; at most MAX_SEARCH_ENTRIES
    configs and problem files and MAX_SEARCH_FOLDERS folders."""

    def __init__(self, folder, problems):
        self.root = os.path.realpath(folder)
        self.problems = problems
        self.seen, self.links, self.outside, self.files = set(), [], [], []
        self.taken = self.folders = 0
        self.full = False

    def take_once(self, path):
        real = os.path.realpath(path)
        if not _inside(real, self.root) or real in self.seen:
            return False
        self.seen.add(real)
        return True

    def room(self, where):
        if self.full:
            return False
        if self.taken < MAX_SEARCH_ENTRIES and self.folders <= MAX_SEARCH_FOLDERS:
            return True
        self.full = True
        cap = ("%d folders" % MAX_SEARCH_FOLDERS if self.folders > MAX_SEARCH_FOLDERS
               else "%d entries" % MAX_SEARCH_ENTRIES)
        self.problems.append("%s: the search stopped at %s (configs, launches and problem files); "
                             "what lies beyond is not triaged: name smaller folders" % (where, cap))
        return False


def _child(path, depth, s):
    name = os.path.basename(path)
    if os.path.isdir(path):
        if depth < MAX_DEPTH and name and not name.startswith(".") and name != "__pycache__":
            _folder(path, depth + 1, s)
    elif not os.path.isfile(path):
        return
    elif name.endswith(".tscfg.json") or name.endswith(".py"):
        if not s.take_once(path) or not s.room(path):
            return
        s.taken += 1
        r = _read_role(path) if name.endswith(".py") else None
        if r or (name.endswith(".py") and kernelbench_sample(path)):
            s.files.append((path, r))  # a sample without ModelNew is kept: it is reported


def _folder(folder, depth, s):
    if not s.take_once(folder):
        return
    s.folders += 1
    if not s.room(folder):
        return
    capture = os.path.join(folder, "capture.json")
    if os.path.isfile(capture) and _inside(os.path.realpath(capture), s.root):
        return  # a capture folder: its launches are entries, its files are not problems
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for n in names:
        if s.full:
            return
        p = os.path.join(folder, n)
        if os.path.islink(p):
            s.links.append((p, depth))
        else:
            _child(p, depth, s)


def scan(folder, problems=None):
    """Every problem under `folder` (8 levels, hidden folders and __pycache__
    skipped): (pairs, unpaired).  The rule of the C++ folder search: the tree
    without links first, then each link met, followed only when its target lies
    inside `folder`; messages (links not followed, a cap reached) go to
    `problems` when a list is given."""
    problems = [] if problems is None else problems
    s = _Search(folder, problems)
    _folder(folder, 0, s)
    i = 0
    while i < len(s.links) and not s.full:
        link, depth = s.links[i]
        i += 1
        if not _inside(os.path.realpath(link), s.root):
            s.outside.append(os.path.basename(link))
            continue
        _child(link, depth, s)
    if s.outside:
        names = ", ".join(s.outside[:5]) + (", ..." if len(s.outside) > 5 else "")
        problems.append("%s: %d symbolic link(s) lead out of the folder and were not followed (%s)"
                        % (s.root, len(s.outside), names))
    return pair(s.files)
