"""tilescope-run triage's runner for one reference/candidate problem
(docs/triage.md, "The runner").  Run with TileScope's Python (pythonInterpreter()):

    python tilescope/triage/__main__.py --reference 17_relu.py --candidate 17_relu_new.py --out runner.json
    python tilescope/triage/__main__.py --replay --case "base seed 0" --reference ... --candidate ...

(or `python -m tilescope.triage ...` with resources/python on sys.path).
"""
import os
import sys

if not __package__:
    # Run by its path: Python put this folder first on sys.path. The package's
    # root (resources/python) takes its place, so `tilescope` imports.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tilescope.triage.run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
