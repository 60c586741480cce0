"""TileScope's Triton launch recorder (`tilescope-run capture`).

site/sitecustomize.py calls install() in every Python process of the captured
program when TILESCOPE_CAPTURE_DIR is set.  install() only registers an import
hook (postimport.py, no other imports): the recorder is built and the patches go
in when the program itself imports triton (and Inductor's runtime).  A Python
process that never uses Triton (pip, a compile worker, a tool the program runs)
pays about a millisecond, and one that does is not made to import anything
earlier than it would.

Layout:
  selection.py   environment settings and which launches are recorded
  describe.py    kernel and argument descriptions (pure, no device)
  tensors.py     dtype table and the device side (synchronize, copy, timing)
  output.py      events.jsonl, env-<pid>.json, sources/, atomic launch folders
  recorder.py    the enter/exit hook logic
  hooks.py       patching Triton/Inductor, the CUDA injection library's functions
  postimport.py  the import hook
  site/          the sitecustomize.py that tilescope-run puts on PYTHONPATH
The reader of a kernel's stores (kernel_ast) and the constants shared with the
C++ side come from tilescope.common.
"""
import os
import sys

RECORDER = None
_WATCHED = ("triton", "torch._inductor.runtime.triton_heuristics")


def install():
    """Arms the recorder in this process when TILESCOPE_CAPTURE_DIR is set
    (returns True then).  Safe to call twice."""
    if not os.environ.get("TILESCOPE_CAPTURE_DIR"):
        return False
    from .postimport import PostImportFinder
    if any(isinstance(f, PostImportFinder) for f in sys.meta_path):
        return True
    pending = {}
    for name in _WATCHED:
        if name in sys.modules:
            _on_import(sys.modules[name])   # imported before us (another sitecustomize)
        else:
            pending[name] = _on_import
    if pending:
        sys.meta_path.insert(0, PostImportFinder(pending))
    return True


def start(settings=None):
    """The process's Recorder, built on first use from the environment."""
    global RECORDER
    if RECORDER is None:
        import atexit
        from . import hooks
        from .recorder import Recorder
        from .selection import Settings
        settings = settings or Settings.from_env()
        injection = hooks.Injection(settings.injection) if settings.injection else None
        RECORDER = Recorder(settings, injection=injection)
        atexit.register(RECORDER.close)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=RECORDER.after_fork)
    return RECORDER


def _on_import(module):
    try:
        recorder = start()
    except Exception:
        return                          # no recorder, nowhere to note it: stay out of the way
    try:
        from . import hooks
        if module.__name__ == "triton":
            hooks.patch_triton(recorder)
        else:
            hooks.patch_inductor(recorder, module)
    except Exception as e:
        recorder.note("could not attach to %s (%s: %s): its Triton launches are not recorded; the CUDA "
                      "recorder still sees them as plain launches" % (module.__name__, type(e).__name__, e))
