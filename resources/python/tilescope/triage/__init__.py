"""The Python side of `tilescope-run triage` (docs/triage.md): the runner that
judges a KernelBench-style problem (a reference `Model` and a candidate
`ModelNew`) and the pure parts it is built from.

pairing.py, traps.py and locate.py need no GPU and no PyTorch (traps.py needs
numpy); run.py is the runner itself and imports torch only when it runs;
__main__.py is what the C++ starts. run.py imports the others and none of them
imports run.py; shared numbers come from tilescope.common (both checked by
tests/layering/check_layers.py).
"""
