"""What the helpers, the recorder and the runner share (tilescope/__init__.py).
Imports nothing of ours, so every other subpackage may use it."""
