"""TileScope's sitecustomize for `tilescope-run capture`.

tilescope-run puts this folder first on the child's PYTHONPATH, so Python's
site module imports this file at startup in every Python process of the
captured program.  It

1. starts the Triton launch recorder (tilescope.capture, the package around
   this folder) when TILESCOPE_CAPTURE_DIR is set, and does nothing otherwise;
2. then runs the sitecustomize that Python would have found without us (the
   next one on sys.path, e.g. Debian's), so the user's environment behaves as
   before.

The package's root (resources/python) is on sys.path only while the recorder
is imported: left there, it would put TileScope's modules in front of the
program's imports.
Nothing the recorder does may stop the program: a failure to load it becomes
a note in the capture's events.jsonl.
"""
import os
import sys


def _tilescope_note(out_dir, message):
    try:
        import json
        line = json.dumps({"event": "note", "recorder": "triton", "pid": os.getpid(),
                           "message": message}) + "\n"
        os.makedirs(out_dir, exist_ok=True)
        fd = os.open(os.path.join(out_dir, "events.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except Exception:
        pass


def _tilescope_start():
    out_dir = os.environ.get("TILESCOPE_CAPTURE_DIR")
    if not out_dir:
        return
    try:
        module = sys.modules.get("tilescope.capture")
        if module is None:
            # The root is on sys.path only for this one import: tilescope/capture/site/ -> resources/python.
            root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
            sys.path.insert(0, root)
            try:
                import tilescope.capture as module
            finally:
                sys.path.remove(root)
        module.install()
    except Exception as e:
        _tilescope_note(out_dir, "the Triton recorder did not start (%s: %s): Triton launches are "
                                 "not recorded; the program runs as usual" % (type(e).__name__, e))


def _tilescope_chain():
    """Runs the next sitecustomize on sys.path after this file's folder, as
    the module `sitecustomize`.  Its errors propagate: site reports them
    exactly as it would have without us."""
    # Not importlib.util: it costs milliseconds in every Python process.
    from importlib.machinery import PathFinder
    try:
        from importlib._bootstrap import module_from_spec
    except ImportError:
        from importlib.util import module_from_spec
    here = os.path.realpath(os.path.dirname(os.path.abspath(__file__)))
    paths = list(sys.path)
    real = [os.path.realpath(p or os.getcwd()) for p in paths]
    first = real.index(here) + 1 if here in real else 0
    rest = [p for p, r in zip(paths[first:], real[first:]) if r != here]
    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None or not spec.origin:
        return None
    if os.path.realpath(spec.origin) == os.path.realpath(__file__):
        return None
    module = module_from_spec(spec)
    ours = sys.modules.get("sitecustomize")
    sys.modules["sitecustomize"] = module      # it runs as Python's sitecustomize
    try:
        spec.loader.exec_module(module)
    finally:
        if ours is not None:
            sys.modules["sitecustomize"] = ours
    # Code that reads attributes of `sitecustomize` finds the chained module's.
    mine = globals()
    for name, value in vars(module).items():
        if not name.startswith("__") and name not in mine:
            mine[name] = value
    return module


_tilescope_start()
_tilescope_chained = _tilescope_chain()
