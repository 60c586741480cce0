"""The Triton helper's entry: `python3 .../tilescope/triton_helper/__main__.py
VERB ...` (what the C++ runs: tritonHelperScript()), or `python3 -m
tilescope.triton_helper VERB ...` with resources/python on sys.path."""
import os
import sys

if not __package__:
    # Run by its path: Python put this folder first on sys.path. The package's
    # root (resources/python) takes its place, so `tilescope` imports; the
    # kernel file's folder goes in front of it when the kernel is loaded.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tilescope.triton_helper.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
