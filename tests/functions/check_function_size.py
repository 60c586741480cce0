#!/usr/bin/env python3
"""The function-size test (ctest -R function_size): every function body of core/,
ui/, app/ (the engine, the GUI, the programs) spans at most LIMIT lines, counted
as clang-tidy's readability-function-size counts them: the line of the closing
brace minus the line of the opening one. A lambda counts as part of the function
it is written in. The Python package (resources/python/tilescope) is held to the
same limit: a function's last line minus the line of its `def` (Python's own
parser, so decorators, docstrings and nested functions are read exactly; a
nested function counts in the one around it and on its own). The house rule:
functions mostly fit on a screen; a longer one is split at the phases its
comments mark.

It reads the C++ sources as text (comments, strings and preprocessor lines removed,
then braces matched), so it runs in a second with no compile database. A brace
opens a function when the text before it ends like a function's head: `)`,
optionally followed by qualifiers, a trailing return type or a constructor's
initialiser list.

Usage: check_function_size.py [SOURCE_DIR] [--limit N] [--list N] [--self-test]
  --limit N:   the limit (default 100); exit 1 when a function is longer
  --list N:    print every function longer than N lines (no failure), longest first
  --self-test: check the reader itself on sources written for it"""
import ast
import os
import re
import sys

LIMIT = 100
FOLDERS = ("core", "ui", "app")
# Functions over the limit that wait for work in flight on the same lines, each
# held to its length today: it may shrink, not grow. Empty it as they are split.
PENDING = {
}
SUFFIXES = (".h", ".hpp", ".cpp", ".cu", ".cuh")
PY_FOLDERS = (os.path.join("resources", "python", "tilescope"),)

# What may stand between a function's `)` and its `{`.
QUALIFIERS = r"(?:\s|const|volatile|noexcept(?:\([^()]*\))?|override|final|mutable|&|&&|->\s*[\w:<>,\s*&]+)*"
FUNCTION_HEAD = re.compile(r"\)" + QUALIFIERS + r"$")
# `Foo() : m_a(1), m_b{2}, m_c(x)`: a constructor's initialiser list.
INIT_LIST = re.compile(r"\)" + QUALIFIERS + r":(?!:)[^;]*$")
NOT_FUNCTIONS = re.compile(r"^\s*(?:if|for|while|switch|catch|return)\b")


def strip(text):
    """The text with comments, string and character literals and preprocessor
    lines blanked out (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        if c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
            continue
        if c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            end = text.find(")" + delim + '"', open_paren)
            end = n if end < 0 else end + len(delim) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator (1'000)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        line_start = c == "\n" or (line_start and c in " \t")
        i += 1
    return "".join(out)


def functions(text):
    """(first line, lines, head) of each function body in the text."""
    s = strip(text)
    found = []
    stack = []  # per open brace: "function", "inner" (inside a function), "scope" or "init"
    head_start = 0
    line = 1
    open_line = []
    for i, c in enumerate(s):
        if c == "\n":
            line += 1
        elif c in ";":
            if not stack or stack[-1] == "scope":
                head_start = i + 1
        elif c == "{":
            inside = bool(stack) and stack[-1] in ("function", "inner")
            head = s[head_start:i].strip()
            if inside:
                kind = "inner"
            elif FUNCTION_HEAD.search(head) and not NOT_FUNCTIONS.search(head):
                kind = "function"
            elif INIT_LIST.search(head):
                kind = "init"  # m_b{2} in an initialiser list: part of the head
            else:
                kind = "scope"
            stack.append(kind)
            open_line.append(line)
            if kind in ("scope",):
                head_start = i + 1
            if kind == "function":
                found.append([line, 0, " ".join(head.split())])
        elif c == "}":
            if not stack:
                continue
            kind = stack.pop()
            first = open_line.pop()
            if kind == "function":
                for f in reversed(found):
                    if f[0] == first and f[1] == 0:
                        f[1] = line - first
                        break
            if kind in ("function", "scope"):
                head_start = i + 1
    return found


def sources(root):
    for top in FOLDERS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(SUFFIXES):
                    yield os.path.relpath(os.path.join(d, f), root)


def python_functions(text, path="<text>"):
    """(first line, lines, qualified name) of each def in Python source."""
    found = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((child.lineno, child.end_lineno - child.lineno, prefix + child.name))
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")
            else:
                walk(child, prefix)

    walk(ast.parse(text, path), "")
    return found


def python_sources(root):
    for top in PY_FOLDERS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(".py"):
                    yield os.path.relpath(os.path.join(d, f), root)


NOT_NAMES = {"decltype", "alignas", "sizeof", "noexcept", "requires", "__attribute__", "__launch_bounds__"}


def name_of(head):
    """The function's name as the head spells it: the first identifier followed by `(`."""
    for m in re.finditer(r"(operator\s*[^\s(]+|[~\w:]+)\s*\(", head):
        if m.group(1) not in NOT_NAMES:
            return m.group(1)
    return head[-60:]


def main():
    args = sys.argv[1:]
    if "--self-test" in args:
        return self_test()
    limit, listing = LIMIT, None
    if "--limit" in args:
        limit = int(args[args.index("--limit") + 1])
    if "--list" in args:
        listing = int(args[args.index("--list") + 1])
    paths = [a for k, a in enumerate(args) if not a.startswith("--") and (k == 0 or not args[k - 1].startswith("--"))]
    root = os.path.abspath(paths[0] if paths else os.path.join(os.path.dirname(__file__), "..", ".."))
    rows = []
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            for first, lines, head in functions(fh.read()):
                rows.append((lines, rel, first, name_of(head)))
    py_files = 0
    for rel in python_sources(root):
        py_files += 1
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            for first, lines, name in python_functions(fh.read(), rel):
                rows.append((lines, rel, first, name))
    py_rows = sum(1 for r in rows if r[1].endswith(".py"))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    if listing is not None:
        over = [r for r in rows if r[0] > listing]
        for lines, rel, first, name in over:
            print(f"{lines:5d}  {rel}:{first}  {name}")
        print(f"{len(over)} function(s) over {listing} lines, of {len(rows)}")
        return 0
    over = [r for r in rows if r[0] > max(limit, PENDING.get((r[1], r[3]), 0))]
    for lines, rel, first, name in over:
        print(f"{rel}:{first}: {name} spans {lines} lines, over the limit of {limit}: split it at its phases")
    pending = [r for r in rows if r[0] > limit and r not in over]
    for lines, rel, first, name in pending:
        print(f"pending: {rel}:{first}: {name} spans {lines} lines (held at {PENDING[(rel, name)]})")
    print(f"{len(rows)} functions read, {len(over)} over {limit} lines")
    print(f"  of them Python: {py_rows} functions in {py_files} files of {', '.join(PY_FOLDERS)}, "
          f"{sum(1 for r in over if r[1].endswith('.py'))} over {limit} lines")
    return 1 if over else 0


SELF_TEST = {
    # (source, [(name, lines)]): what the reader must find.
    "plain": ("int f(int a) {\n" + "  a++;\n" * 101 + "  return a;\n}\n", [("f", 103)]),
    "braces in strings, characters and comments do not count": (
        'void g() {\n  const char* s = "{{{";\n  char c = \'{\';\n  // }\n  /* { */\n}\n', [("g", 5)]),
    "a lambda is part of its function": (
        "void h() {\n  auto l = [] {\n    return 1;\n  };\n  l();\n}\n", [("h", 5)]),
    "a constructor's initialiser list with braces": (
        "A::A() : m_a{1}, m_b(2) {\n  x();\n}\n", [("A::A", 2)]),
    "namespaces, classes and enums are scopes, their methods functions": (
        "namespace n {\nclass C {\n  int m() const {\n    return 1;\n  }\n  enum E { a, b };\n};\n}\n",
        [("m", 2)]),
    "control statements are not functions": (
        "void k() {\n  if (a) {\n    b();\n  }\n}\n", [("k", 4)]),
    "a macro's body is skipped": ("#define M(x) { x; \\\n  }\nvoid m() {\n}\n", [("m", 1)]),
    "a raw string": ('void r() {\n  auto s = R"(}\n{)";\n}\n', [("r", 3)]),
}


PY_SELF_TEST = {
    "python: def to last line": ("def f(a):\n" + "    a += 1\n" * 101 + "    return a\n", [("f", 102)]),
    "python: decorators do not count, a docstring does": (
        '@dec\n@dec2(x=1)\ndef g():\n    """Doc.\n\n    More."""\n    return 1\n', [("g", 4)]),
    "python: methods, nested and async functions by their qualified names": (
        "class C:\n    def m(self):\n        def inner():\n            pass\n        return inner\n\n\n"
        "async def h():\n    await x\n", [("C.m", 3), ("C.m.inner", 1), ("h", 1)]),
    "python: a multi-line string that holds braces and defs": (
        'def s():\n    return """\ndef fake():\n{\n"""\n', [("s", 4)]),
}


def self_test():
    failed = 0
    cases = [(what, source, expected, lambda src: [(name_of(h), n) for _, n, h in functions(src)])
             for what, (source, expected) in SELF_TEST.items()]
    cases += [(what, source, expected, lambda src: [(name, n) for _, n, name in python_functions(src)])
              for what, (source, expected) in PY_SELF_TEST.items()]
    for what, source, expected, read in cases:
        got = read(source)
        if got != expected:
            print(f"FAIL {what}: found {got}, expected {expected}")
            failed += 1
    print(f"{len(cases) - failed} of {len(cases)} self-test cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
