"""The candidate's line behind an exception (docs/triage.md, "Located line").

A Triton CompilationError says `at L:C:` with L counted from the kernel's `def`
line (Triton parses the function alone) and quotes the source up to the caret;
locate_triton() turns that into the file's line.  Other exceptions are located
at the innermost traceback frame in the candidate's file.  Pure: text and file
contents in, (line, column, text) out.
"""
import os
import re
import traceback

_AT = re.compile(r"at (\d+):(\d+):\s*$", re.M)
_DEF = re.compile(r"^\s*def\s+(\w+)\s*\(")


def _lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def locate_triton(message, source_lines):
    """(line, column, text) in the file whose lines are `source_lines`, or None.

    message: str(CompilationError):
        at 5:8:
        def k(a_ptr, ...):
            ...
            c = tl.dot(a, b)
                ^
        Input shapes should have ...
    """
    m = _AT.search(message)
    if not m:
        return None
    rel, col = int(m.group(1)), int(m.group(2))
    excerpt = message[m.end():].lstrip("\n").splitlines()
    caret = next((i for i, l in enumerate(excerpt) if l.strip() == "^"), None)
    offending = excerpt[caret - 1].strip() if caret else ""
    kernel = next((_DEF.match(l).group(1) for l in excerpt if _DEF.match(l)), None)
    defs = [i for i, l in enumerate(source_lines) if kernel and _DEF.match(l) and _DEF.match(l).group(1) == kernel]
    for d in defs:
        i = d + rel - 1
        if 0 <= i < len(source_lines) and (not offending or source_lines[i].strip() == offending):
            return i + 1, col + 1, source_lines[i]
    # The relative line did not land on the quoted text: the quoted text decides.
    if offending:
        start = defs[0] if defs else 0
        for i in range(start, len(source_lines)):
            if source_lines[i].strip() == offending:
                return i + 1, col + 1, source_lines[i]
    return None


def _same(a, b):
    return os.path.realpath(a) == os.path.realpath(b)


def locate_frames(frames, candidate):
    """frames: [(filename, lineno, text)] innermost last.  The innermost frame in
    the candidate's file, or None."""
    for filename, lineno, text in reversed(frames):
        if filename and _same(filename, candidate):
            return lineno, 0, text or ""
    return None


def locate(exc, candidate):
    """{file, line, column, source_line} for an exception raised while running
    the candidate, or {} when it cannot be placed in the candidate's file."""
    lines = _lines(candidate)
    where = None
    name = type(exc).__name__
    if name == "CompilationError" or "triton" in type(exc).__module__:
        where = locate_triton(str(exc), lines)
    if where is None and isinstance(exc, SyntaxError) and exc.filename and _same(exc.filename, candidate):
        where = (exc.lineno or 0, exc.offset or 0, (lines[exc.lineno - 1] if exc.lineno and exc.lineno <= len(lines)
                                                    else exc.text or ""))
    if where is None:
        frames = [(f.filename, f.lineno, f.line) for f in traceback.extract_tb(exc.__traceback__)]
        where = locate_frames(frames, candidate)
    if not where or not where[0]:
        return {}
    line, col, text = where
    out = {"file": candidate, "line": int(line), "source_line": (text or "").rstrip()}
    if col:
        out["column"] = int(col)
    return out
