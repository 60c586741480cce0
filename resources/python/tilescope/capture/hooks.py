"""Attaching the recorder to Triton (and to Inductor) without editing the program.

Nothing here imports triton or torch: postimport.py waits for the program to
import them, and the patches below go in right after the module has executed.

What is patched, and why this is the least invasive way that gives every
argument (Triton 3.6):

* CompiledKernel.launch_metadata(grid, stream, *args).  Both launch paths call
  it right before the launcher with every parameter value in order: the JIT
  (JITFunction.run: `kernel.launch_metadata(grid, stream, *bound_args.values())`)
  and Inductor's generated launcher (TritonCompileResult.make_launcher:
  `bin.launch_metadata((grid_0, grid_1, grid_2), stream, *call_args)`).  The
  wrapper calls the original and hangs (kernel, grid, stream, args) on the
  LazyDict it returns; Triton passes that same object to the enter and exit
  hooks.  The alternative, setting JITFunction.launch_metadata from
  jit_cache_hook, would replace a function the user may own, is only called
  for ASTSource kernels, and needs LazyDict.get() to run it.
* knobs.runtime.launch_enter_hook / launch_exit_hook: HookChain.add().  Other
  tools' hooks (proton, the user's) stay in the chain.
* Autotuner._bench (a thread-local flag: benchmark launches are not recorded)
  and Autotuner.run (which autotuner a final launch comes from, for
  "autotuned" and its config); the same for Inductor's CachingAutotuner.bench
  and .run.
"""
import functools
import os
import sys

_PATCHED = "_tilescope_original"


class Injection:
    """The CUDA injection library's two C entry points, found lazily: it is
    loaded by libcuda at cuInit, which comes after Python starts but before the
    first Triton launch (Triton loads its cubin first)."""

    def __init__(self, path):
        self.path = path
        self._resolved = False
        self._claim = None
        self._next = None
        self._select = None

    def _resolve(self):
        import ctypes            # here, not at import: most processes never get this far
        self._resolved = True
        if not self.path:
            return
        try:
            # RTLD_NOLOAD: the handle of the copy already loaded, or an error;
            # never a second load that would run its constructors again.
            lib = ctypes.CDLL(self.path, mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_GLOBAL)
        except OSError:
            return
        claim = getattr(lib, "tilescope_capture_claim", None)
        if claim is not None:
            claim.argtypes = [ctypes.c_ulonglong]
            claim.restype = ctypes.c_int
            self._claim = claim
        sel = getattr(lib, "tilescope_capture_select", None)
        if sel is not None:
            sel.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
            sel.restype = ctypes.c_int
            self._select = sel
        nxt = getattr(lib, "tilescope_capture_next_index", None)
        if nxt is not None:
            nxt.argtypes = []
            nxt.restype = ctypes.c_longlong
            self._next = nxt

    def claim(self, function):
        if not self._resolved:
            self._resolve()
        if self._claim is not None:
            self._claim(int(function) & 0xFFFFFFFFFFFFFFFF)   # a CUfunction is a pointer

    def select(self, name):
        """The CUDA recorder's launch window (--launch-skip/--launch-count) for a
        Triton launch, so that both recorders count matching launches in one
        sequence, as ncu does; None when the library is not there."""
        if not self._resolved:
            self._resolve()
        if self._select is None:
            return None
        return bool(self._select(str(name).encode("utf-8", "replace"), b""))

    def next_index(self):
        if not self._resolved:
            self._resolve()
        if self._next is None:
            return None
        value = self._next()
        return value if value >= 0 else None


def _wrap(owner, attr, make):
    """owner.attr = make(original), once; the original is kept for unwrap()."""
    original = owner.__dict__.get(attr)
    if original is None or getattr(original, _PATCHED, None) is not None:
        return False
    wrapper = make(original)
    functools.update_wrapper(wrapper, original)
    setattr(wrapper, _PATCHED, original)
    setattr(owner, attr, wrapper)
    return True


def _unwrap(owner, attr):
    current = owner.__dict__.get(attr)
    original = getattr(current, _PATCHED, None)
    if original is not None:
        setattr(owner, attr, original)


def _bench_wrapper(recorder):
    def make(original):
        def bench(self, *args, **kwargs):
            recorder.local.bench += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                recorder.local.bench -= 1
        return bench
    return make


def _run_wrapper(recorder, kind):
    def make(original):
        def run(self, *args, **kwargs):
            stack = recorder.local.tuners
            stack.append((kind, self))
            try:
                return original(self, *args, **kwargs)
            finally:
                stack.pop()
        return run
    return make


def patch_triton(recorder):
    """Wires the recorder into an imported triton; idempotent."""
    from triton import knobs
    from triton.compiler import compiler
    from triton.runtime import autotuner

    chains = {"enter": knobs.runtime.launch_enter_hook, "exit": knobs.runtime.launch_exit_hook}

    def rehook():
        # The program replaced a chain: join the new one, or say we cannot.
        for which, hook in (("enter", recorder.enter_hook), ("exit", recorder.exit_hook)):
            current = getattr(knobs.runtime, "launch_%s_hook" % which)
            if current is chains[which]:
                continue
            chains[which] = current
            if hasattr(current, "add") and hasattr(current, "calls"):
                current.add(hook)
            else:
                recorder.note("the program replaced triton.knobs.runtime.launch_%s_hook with %r: "
                              "later Triton launches are not recorded" % (which, current))

    def make_launch_metadata(original):
        def launch_metadata(self, grid, stream, *args):
            md = original(self, grid, stream, *args)
            if md is not None:
                try:
                    md._tilescope_launch = (self, grid, stream, args)
                    if knobs.runtime.launch_enter_hook is not chains["enter"] or \
                            knobs.runtime.launch_exit_hook is not chains["exit"]:
                        rehook()
                except Exception as e:
                    recorder._failed("launch_metadata", e)
            return md
        return launch_metadata

    _wrap(compiler.CompiledKernel, "launch_metadata", make_launch_metadata)
    chains["enter"].add(recorder.enter_hook)
    chains["exit"].add(recorder.exit_hook)
    _wrap(autotuner.Autotuner, "_bench", _bench_wrapper(recorder))
    _wrap(autotuner.Autotuner, "run", _run_wrapper(recorder, "triton"))


def patch_inductor(recorder, module):
    """Inductor's runtime (torch._inductor.runtime.triton_heuristics): its
    autotuner benchmarks launchers through the same Triton launcher, so those
    runs are flagged like Autotuner._bench's."""
    tuner = getattr(module, "CachingAutotuner", None)
    if tuner is None:
        recorder.note("torch._inductor.runtime.triton_heuristics has no CachingAutotuner: "
                      "Inductor's autotuning runs may be recorded as launches")
        return
    _wrap(tuner, "bench", _bench_wrapper(recorder))
    _wrap(tuner, "run", _run_wrapper(recorder, "inductor"))


def unpatch(recorder):
    """Undoes patch_triton/patch_inductor (tests)."""
    triton = sys.modules.get("triton")
    if triton is not None:
        from triton import knobs
        from triton.compiler import compiler
        from triton.runtime import autotuner
        knobs.runtime.launch_enter_hook.remove(recorder.enter_hook)
        knobs.runtime.launch_exit_hook.remove(recorder.exit_hook)
        _unwrap(compiler.CompiledKernel, "launch_metadata")
        _unwrap(autotuner.Autotuner, "_bench")
        _unwrap(autotuner.Autotuner, "run")
    th = sys.modules.get("torch._inductor.runtime.triton_heuristics")
    tuner = getattr(th, "CachingAutotuner", None)
    if tuner is not None:
        _unwrap(tuner, "bench")
        _unwrap(tuner, "run")
