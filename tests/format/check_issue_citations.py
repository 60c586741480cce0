#!/usr/bin/env python3
"""The issue-citation check (ctest -R issue_citations): no comment or string of
the code cites "issue N". The repository has no issue tracker, so such a number
points nowhere: cite the docs page and section that states the rule instead
((docs/triage.md, "Integrity")), or state the reason in the comment itself.

Looks at the files git tracks (every file, where the folder is not a checkout)
under core, app, ui, tests, bench, fuzz, kernels, resources, scripts, cmake,
tools, packaging and the top CMakeLists.txt; docs/ and this file are not looked
at. Exit 1 listing FILE:LINE for each citation, 0 when there is none.

    tests/format/check_issue_citations.py [SOURCE_DIR]
"""
import os
import re
import subprocess
import sys

PATHS = ["core", "app", "ui", "tests", "bench", "fuzz", "kernels", "resources", "scripts", "cmake", "tools",
         "packaging", "CMakeLists.txt"]
# "issue" or "issues", a blank, a number (or #number): self_check() lists what it takes and what not.
CITATION = re.compile(r"\b[Ii]ssues? #?[0-9]+")
SELF = "tests/format/check_issue_citations.py"


def self_check():
    # Spelt with %s so that a grep for citations does not list this file.
    cites = [s % "ssue" for s in ["i%s 40", "(i%s 31, N19)", "I%s 38's reproducers", "i%ss 31 and 38", "see i%s #12"]]
    plain = [s % "ssue" for s in ["ti%s 3", "github.com/o/r/i%ss/123", "no i%s here", "i%s31"]]
    bad = [s for s in cites if not CITATION.search(s)] + [s for s in plain if CITATION.search(s)]
    if bad:
        sys.exit("check_issue_citations: the pattern is wrong for: %s" % ", ".join(bad))


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--"] + PATHS, capture_output=True, check=True)
        files = [p for p in out.stdout.decode("utf-8", "replace").split("\0") if p]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for top in PATHS:
        if os.path.isfile(os.path.join(root, top)):
            files.append(top)
        for d, subdirs, names in os.walk(os.path.join(root, top)):
            subdirs[:] = sorted(s for s in subdirs if not s.startswith("."))
            files += [os.path.relpath(os.path.join(d, n), root) for n in sorted(names)]
    return files


def citations(root, rel):
    try:
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
    except OSError:
        return []
    if b"\0" in data[:8192]:
        return []
    text = data.decode("utf-8", "replace")
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if CITATION.search(line)]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
    self_check()
    files = [p.replace(os.sep, "/") for p in tracked_files(root)]
    files = [p for p in files if p != SELF]
    found = [(p, n, line) for p in files for n, line in citations(root, p)]
    print("issue citations: %d files looked at, %d lines cite an issue" % (len(files), len(found)))
    for p, n, line in found:
        print("  %s:%d: %s" % (p, n, line[:160]))
    if found:
        print("The repository has no issue tracker: cite the docs page and section that states the rule "
              "((docs/PAGE.md, \"Section\")), or state the reason in the comment itself.")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
