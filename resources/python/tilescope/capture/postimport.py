"""Run a callback right after a module is imported, without importing it.

A meta-path finder (first on sys.meta_path) answers only for the watched
names: it asks the other finders for the real spec and wraps its loader, so
the callback runs once the module's code has executed.  Duck-typed (no
importlib.abc) and free of other imports: it is loaded in every Python process
of a captured program, most of which never import triton.
"""
import sys


class _Loader:
    """Runs the real loader, then the callback; the module keeps the real
    loader as its __loader__ (inspect, importlib.resources look at it)."""

    def __init__(self, real, callback):
        self._real = real
        self._callback = callback

    def create_module(self, spec):
        create = getattr(self._real, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        module.__loader__ = self._real
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._real
        self._real.exec_module(module)
        try:
            self._callback(module)
        except Exception:
            pass        # the program's import must succeed whatever the recorder does

    def __getattr__(self, name):
        return getattr(self._real, name)


class PostImportFinder:
    """Calls callbacks[name](module) once module `name` has been imported."""

    def __init__(self, callbacks):
        self.callbacks = dict(callbacks)

    def find_spec(self, fullname, path, target=None):
        callback = self.callbacks.get(fullname)
        if callback is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is None or not hasattr(spec.loader, "exec_module"):
                    return spec
                del self.callbacks[fullname]      # once: a reload is the program's business
                spec.loader = _Loader(spec.loader, callback)
                return spec
        return None
