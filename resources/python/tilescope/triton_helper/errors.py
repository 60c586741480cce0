"""Any exception of a verb as the helper's result: the message, and where Triton
can say, the line and column in the kernel file (also for TileLang's verb, whose
errors take the general branches)."""
import os
import traceback


def _innermost_compilation_error(exc):
    from triton.compiler.errors import CompilationError
    found, seen = None, 0
    while exc is not None and seen < 16:
        if isinstance(exc, CompilationError) and hasattr(getattr(exc, "node", None), "lineno"):
            found = exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return found


def _file_line_of(src, node_line, path):
    """Maps line `node_line` of a function's source (1 = its def) to the file: the
    def line is found by its text, so callee functions map too."""
    if not src:
        return 0
    first = src.split("\n", 1)[0].rstrip()
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError:
        return 0
    matches = [i for i, text in enumerate(lines) if text.strip() == first.strip()]
    if len(matches) != 1:
        return 0
    return matches[0] + node_line


def error_result(exc, path):
    message = str(exc).strip() or type(exc).__name__
    result = {"ok": False, "error_type": type(exc).__name__,
              "log": "%s.%s: %s" % (type(exc).__module__, type(exc).__name__, message),
              "message": message.split("\n")[-1], "file": path, "line": 0, "column": 0}
    ce = _innermost_compilation_error(exc)
    if ce is not None:
        result["message"] = (ce.error_message or message).strip().split("\n")[-1]
        line = _file_line_of(ce.src, ce.node.lineno, path)
        if line > 0:
            result["line"] = line
            result["column"] = ce.node.col_offset + 1
            with open(path) as f:
                lines = f.read().split("\n")
            result["source_line"] = lines[line - 1] if line <= len(lines) else ""
    elif isinstance(exc, SyntaxError) and exc.lineno:
        result.update(line=exc.lineno, column=exc.offset or 0, source_line=(exc.text or "").rstrip("\n"),
                      message="SyntaxError: " + str(exc.msg))
    else:
        # A Python error in the kernel file itself (NameError at import, ...): its frame in FILE.py.
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename) == path]
        if frames:
            result.update(line=frames[-1].lineno, source_line=frames[-1].line or "")
        tail = traceback.format_exception_only(type(exc), exc)
        result["log"] = "".join(traceback.format_tb(exc.__traceback__)[-3:]) + "".join(tail)
    return result
