"""Which Python files are problems, and which reference goes with which
candidate (docs/triage.md, "Inputs").  The C++ side (core/src/triage/
triage_inputs.cpp) applies the same rule when it plans a triage; the runner
uses this one for a folder given to it directly and for the bench's manifest.

The rule, in order:
  1. a file that holds both `class Model` and `class ModelNew` is a problem alone;
  2. DIR/NAME_new.py (candidate) pairs with DIR/NAME.py (reference);
  3. .../candidate[s]/NAME[_new].py pairs with .../reference[s]/NAME.py.

A file's role is read line by line, each line up to MAX_ROLE_LINE characters
(no regular expression: linear in the text, as the C++ side).  A folder search
reads nothing outside the folder (see scan).
"""
import os

# The same numbers as core/include/tilescope/triage/triage_inputs.h.
MAX_SEARCH_ENTRIES = 10000  # kMaxTriageSearchEntries
MAX_SEARCH_FOLDERS = 10000  # kMaxTriageSearchFolders
MAX_ROLE_LINE = 256  # kMaxRoleLineChars
MAX_DEPTH = 8
MAX_SOURCE_BYTES = 4 << 20
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
        if r:
            s.files.append((path, r))


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
