"""tilescope-run triage's runner for one reference/candidate problem
(docs/triage.md, "The runner").  Run with TileScope's Python (pythonInterpreter()):

    python runner.py --reference 17_relu.py --candidate 17_relu_new.py --out runner.json
    python runner.py --replay --case "base seed 0" --reference ... --candidate ...
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tilescope_triage.run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
