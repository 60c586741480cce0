"""The runner's hands on one problem (docs/triage.md, "The runner" and
"Integrity"): it runs the reference and the candidate, each call's facts
gathered in a Run (its outputs on the host, the launches of the candidate's own
kernels, the outputs' types and storage, the inputs it changed, the threads it
left running, the exceptions it swallowed, the streams still busy), and the
trials an evaluator is fooled by: the evaluator's own order (plain_trial), the
same buffers refilled (refill_trial), a float64 reference, the timed calls.

The timers and synchronisation it uses are the ones PyTorch and `time` had when
the runner started (before the candidate was imported): a candidate that
patches them changes the harness's view of nothing.
"""
import copy
import os
import statistics
import time

from ..common.constants import POISON_A
from . import integrity, traps

_perf = time.perf_counter
_DELAY_CYCLES = 50_000_000  # about 25 ms of torch.cuda._sleep at 2 GHz


def _flat(out):
    if isinstance(out, (list, tuple)):
        r = []
        for o in out:
            r += _flat(o)
        return r
    return [out]


class Run:
    """What one call of a model did."""

    def __init__(self):
        self.outs = []        # the outputs on the host (numpy float32), or the objects themselves
        self.found = []       # the guard zones' findings
        self.launches = 0     # kernels of the candidate's own
        self.types = []       # the outputs' types, by name
        self.dtypes = []
        self.alias = set()    # {(output, input)} sharing storage
        self.mutated = []     # [{"input", "elements", "first"}] changed by the call
        self.threads = []     # the candidate's threads alive after it
        self.swallowed = []   # exceptions of the candidate's frames it caught
        self.pending = []     # streams of its kernels still busy when the caller's stream was done
        self.streams = []     # the streams of its Triton launches other than the caller's
        self.out_bytes = 0


class Problem:
    def __init__(self, torch, args, answer, counter):
        self.torch, self.args, self.answer, self.counter = torch, args, answer, counter
        self.device = args.device
        self.candidate_path = os.path.abspath(args.candidate)
        self.guards = None
        self.threads = None      # integrity.Threads, installed before the candidate is imported
        self.tamper = None       # integrity.Tamper, its snapshot taken then too
        self.l2 = None           # integrity.DriverL2 (CUDA)
        self.reported = set()    # (category, detail) of the harness checks said once
        T = torch
        self.flags = integrity.read_flags(T)
        self._bandwidth = None
        self._flush = None
        self._sync = self._event = self._record = self._elapsed = self._esync = None
        if self.device == "cuda":
            self._sync = T.cuda.synchronize
            self._event = T.cuda.Event
            self._record = T.cuda.Event.record
            self._elapsed = T.cuda.Event.elapsed_time
            self._esync = T.cuda.Event.synchronize
            T.zeros(1, device="cuda")  # the context exists: the driver's limits can be read
            self.l2 = integrity.DriverL2()
            self.l2_limit = self.l2.limit()  # the driver's default, before the candidate is imported

    # ------------------------------------------------------------ basics

    def sync(self):
        if self.device == "cuda":
            self._sync()

    def to_device(self, xs):
        T = self.torch
        return [x.to(self.device) if isinstance(x, T.Tensor) else x for x in xs]

    def clone(self, xs):
        T = self.torch
        return [x.clone() if isinstance(x, T.Tensor) else x for x in xs]

    def host(self, flat):
        T = self.torch
        return [o.detach().float().cpu().numpy() if isinstance(o, T.Tensor) else o for o in flat]

    def numpy_inputs(self, inputs):
        T = self.torch
        return [x.detach().float().cpu().numpy() for x in inputs if isinstance(x, T.Tensor) and x.numel() < (1 << 26)]

    def _empty(self, n):
        T = self.torch
        alloc = self.guards.originals["empty"] if self.guards else T.empty
        return alloc(n, dtype=T.uint8, device="cuda")

    # ------------------------------------------------------------ poison

    def poison(self, byte, inputs):
        """Fills the caching allocator's free memory with `byte`: every free block
        it holds (the reference's freed outputs and temporaries among them) and a
        fresh stretch, so that the outputs the candidate allocates start from
        it and elements it never writes show."""
        T = self.torch
        if self.device != "cuda" or self.args.replay:  # under capture: each tensor its own allocation
            return
        held = []
        try:
            sizes = [b["size"] for seg in T.cuda.memory_snapshot() for b in seg.get("blocks", [])
                     if b.get("state") == "inactive" and b.get("size")]
        except Exception:
            sizes = []
        for n in sorted(sizes, reverse=True)[:4096]:
            try:
                held.append(self._empty(n).fill_(byte))
            except RuntimeError:
                break
        in_bytes = sum(x.numel() * x.element_size() for x in inputs if isinstance(x, T.Tensor))
        free, _ = T.cuda.mem_get_info()
        n = int(min(max(64 << 20, 4 * in_bytes), free // 4))
        held.append(self._empty(n).fill_(byte))
        held += [self._empty((1 << 20) - 512).fill_(byte) for _ in range(8)]
        self.sync()
        del held

    def _poison_storage(self, t, keep, byte):
        """Overwrites t's storage with `byte` unless it overlaps a range of `keep`."""
        T = self.torch
        r = integrity.storage_range(T, t)
        if r is None or t.device.type != "cuda" or any(traps.overlaps(r, k) for k in keep):
            return
        try:
            T.empty(0, dtype=T.uint8, device=t.device).set_(t.untyped_storage()).fill_(byte)
        except Exception:
            pass

    # ------------------------------------------------------------ one call

    def _mutations(self, inputs, xs):
        out = []
        for i, (a, b) in enumerate(zip(inputs, xs)):
            c = integrity.changed_elements(self.torch, a, b)
            if c:
                out.append(dict(input=i, **c))
        return out

    def _describe(self, run, flat, xs, inputs):
        T = self.torch
        run.types = [integrity.type_name(o) for o in flat]
        run.dtypes = [str(o.dtype) if isinstance(o, T.Tensor) else None for o in flat]
        run.alias = traps.aliases([integrity.storage_range(T, o) for o in flat],
                                  [integrity.storage_range(T, x) for x in xs])
        run.mutated = self._mutations(inputs, xs)
        run.out_bytes = sum(o.numel() * o.element_size() for o in flat if isinstance(o, T.Tensor))

    def _others(self, caller):
        """The streams of the candidate's Triton launches other than the caller's."""
        return [] if caller is None else sorted(s for s in self.counter.streams if s != caller.cuda_stream)

    def _delay(self, streams):
        """Holds `streams` back (a sleep kernel at their head) before the
        candidate enqueues its work there: a caller's stream that waits for them
        then waits visibly, one that does not is done while they still sleep."""
        T = self.torch
        for h in streams:
            try:
                with T.cuda.stream(T.cuda.ExternalStream(h)):
                    T.cuda._sleep(_DELAY_CYCLES)
            except Exception:
                pass

    def _pending(self, caller):
        """Streams of the candidate's Triton launches, other than the caller's,
        still busy once the caller's stream has done the forward's work."""
        T = self.torch
        others = self._others(caller)
        if not others:
            return []
        ev = self._event()
        self._record(ev, caller)
        self._esync(ev)
        busy = []
        for h in others:
            try:
                if not T.cuda.ExternalStream(h).query():
                    busy.append(h)
            except Exception:
                pass
        return busy

    def run_candidate(self, model, inputs, poison, case="", trace_exceptions=False, delay_streams=()):
        """One forward of the candidate on guarded copies of `inputs`, from poison: a
        Run.  delay_streams: side streams an earlier run used, held back so that
        whether the caller's stream waits for them shows whatever the timing."""
        T = self.torch
        guards = self.guards
        xs = guards.guard_inputs(inputs) if guards else self.clone(inputs)
        self.poison(poison, xs)
        run = Run()
        caller = T.cuda.current_stream() if self.device == "cuda" else None
        n0 = self.counter.own()
        self.counter.streams.clear()
        self._delay(delay_streams)
        catch = integrity.Swallowed(self.candidate_path) if trace_exceptions else None
        self.counter.active = True
        if guards:
            guards.poison, guards.active = poison, True
        try:
            with T.no_grad():
                if catch:
                    with catch:
                        out = model(*xs)
                else:
                    out = model(*xs)
            run.pending = self._pending(caller)
            self.sync()
        finally:
            self.counter.active = False
            if guards:
                guards.active = False
        run.streams = self._others(caller)
        run.launches = self.counter.own() - n0
        run.swallowed = catch.exceptions() if catch else []
        run.threads = self.threads.alive() if self.threads else []
        flat = _flat(out)
        self._describe(run, flat, xs, inputs)
        run.found = guards.check(case) if guards else []
        run.outs = self.host(flat)
        return run

    def reference_run(self, model, inputs, poison_after=True):
        """The reference on copies of `inputs`: a Run.  Its outputs are then
        overwritten with poison before they are freed (unless they share a
        parameter's storage), so that no candidate finds them in freed memory."""
        T = self.torch
        xs = self.clone(inputs)
        with T.no_grad():
            out = model(*xs)
        self.sync()
        run = Run()
        flat = _flat(out)
        self._describe(run, flat, xs, inputs)
        run.outs = self.host(flat)
        if poison_after and self.device == "cuda" and not self.args.replay:
            keep = [integrity.storage_range(T, p) for p in list(model.parameters()) + list(model.buffers())]
            for o in flat:
                self._poison_storage(o, keep, POISON_A)
            self.sync()
        return run

    def reference(self, model, inputs):
        return self.reference_run(model, inputs).outs

    # ------------------------------------------------------------ the trials

    def plain_trial(self, ref_model, cand_model, inputs):
        """The evaluator's order, nothing of the runner's: the reference runs, its
        output is read and freed, then the candidate runs from the allocator as
        the reference left it (no poison, no guard zones).  (Run, reference outputs)."""
        T = self.torch
        xs = self.clone(inputs)        # the candidate's inputs, allocated before the reference's output
        ref_in = self.clone(inputs)    # kept until the candidate ran: only the output is freed
        with T.no_grad():
            r = ref_model(*ref_in)
        self.sync()
        ref_outs = self.host(_flat(r))
        del r
        run = Run()
        n0 = self.counter.own()
        self.counter.active = True
        try:
            with T.no_grad():
                out = cand_model(*xs)
            self.sync()
        finally:
            self.counter.active = False
        run.launches = self.counter.own() - n0  # its threads are judged in the runs that follow
        run.outs = self.host(_flat(out))
        del ref_in
        return run, ref_outs

    def refill_trial(self, model, inputs, other):
        """The candidate on guarded copies of `inputs`, then on the same buffers
        (same pointers, same shapes) refilled with `other`: its two outputs."""
        T = self.torch
        xs = self.guards.guard_inputs(inputs) if self.guards else self.clone(inputs)
        outs = []
        self.counter.active = True
        if self.guards:  # its allocations from poison, as in the case's own run
            self.guards.poison, self.guards.active = POISON_A, True
        try:
            with T.no_grad():
                outs.append(self.host(_flat(model(*xs))))
                self.sync()
                for x, y in zip(xs, other):
                    if isinstance(x, T.Tensor) and isinstance(y, T.Tensor) and x.shape == y.shape:
                        x.copy_(y)
                outs.append(self.host(_flat(model(*xs))))
                self.sync()
        finally:
            self.counter.active = False
            if self.guards:
                self.guards.active = False
        if self.guards:
            self.guards.check("")  # the guard zones were judged in the case's own run
        return outs

    def reference64(self, model, inputs):
        """The reference in float64 on the same inputs (numpy float64), or None
        when the task is not float32 or the model cannot run in float64."""
        T = self.torch
        floats = [x for x in inputs if isinstance(x, T.Tensor) and x.is_floating_point()]
        if not floats or any(x.dtype != T.float32 for x in floats):
            return None
        try:
            m = copy.deepcopy(model).double()
            xs = [x.double() if isinstance(x, T.Tensor) and x.is_floating_point() else
                  (x.clone() if isinstance(x, T.Tensor) else x) for x in inputs]
            with T.no_grad():
                out = m(*xs)
            self.sync()
            return [o.detach().double().cpu().numpy() if isinstance(o, T.Tensor) else None for o in _flat(out)]
        except Exception:
            return None

    # ------------------------------------------------------------ the harness's own state

    def watch(self, case):
        """Findings about the harness itself after a call of the candidate's:
        its functions replaced (tampering, a timer), PyTorch's precision switches
        flipped, persisting L2 set aside, Triton's launch hook removed.  Each is
        put back as it was; each is said once."""
        T = self.torch
        found = []
        if self.tamper is not None:
            changed = self.tamper.check()
            if not self.counter.installed():
                changed.append("triton.knobs.runtime.launch_enter_hook")
                self.counter.rehook()
            found.append(traps.tampering(changed, case))
        now = integrity.read_flags(T)
        if now != self.flags:
            found.append(traps.precision_flags(self.flags, now, case))
            integrity.write_flags(T, self.flags)
        if self.l2 is not None and self.l2.lib is not None:
            stream = T.cuda.current_stream().cuda_stream
            limit, window = self.l2.limit(), self.l2.window(stream)
            f = traps.persisting_l2(self.l2_limit, limit, window, case)
            if f:
                found.append(f)
                self.l2.set_limit(self.l2_limit)
                self.l2.clear_window(stream)
        out = []
        for f in found:
            if f and (f["category"], f.get("detail")) not in self.reported:
                self.reported.add((f["category"], f.get("detail")))
                out.append(f)
        return out

    # ------------------------------------------------------------ timing

    def bandwidth(self):
        """Bytes per ns of a device-to-device copy (read + write), measured once (0: not measured)."""
        try:
            return self._measure_bandwidth()
        except Exception:  # the harness's own measurement: never the candidate's failure
            self._bandwidth = 0.0
            return 0.0

    def _measure_bandwidth(self):
        T = self.torch
        if self._bandwidth is None:
            free, _ = T.cuda.mem_get_info()
            n = int(min(256 << 20, free // 8))
            a, b = self._empty(n), self._empty(n)
            b.copy_(a)
            times = []
            for _ in range(5):
                s, e = self._event(enable_timing=True), self._event(enable_timing=True)
                self._record(s)
                b.copy_(a)
                self._record(e)
                self._esync(e)
                times.append(self._elapsed(s, e) * 1e6)
            t = statistics.median(times)
            self._bandwidth = 2.0 * n / t if t > 0 else 0.0
            del a, b
        return self._bandwidth

    def flush_l2(self):
        """Evicts the L2 (writes twice its size): each timed call reads its inputs from DRAM."""
        T = self.torch
        if self._flush is None:
            try:
                l2 = int(T.cuda.get_device_properties(T.cuda.current_device()).L2_cache_size)
            except Exception:
                l2 = 64 << 20
            try:
                self._flush = self._empty(max(2 * l2, 8 << 20))
            except Exception:  # no memory for it: the timing goes on with a warm L2
                self._flush = False
        if self._flush is not False:
            self._flush.zero_()

    def refill(self, xs, values):
        T = self.torch
        for x, y in zip(xs, values):
            if isinstance(x, T.Tensor) and isinstance(y, T.Tensor) and x.shape == y.shape:
                x.copy_(y)

    def time(self, fn, input_sets, budget_s=0.2, max_reps=50):
        """Median ns of fn(*inputs) over fresh inputs per timed call (the sets in
        turn, copied into the same buffers), the L2 flushed before each, CUDA
        events of the runner's own around each call; and the last call's output
        with the index of its set: (median, reps, output, set)."""
        T = self.torch
        xs = self.clone(input_sets[0])
        out = None
        with T.no_grad():
            for _ in range(3):
                fn(*xs)
            self.sync()
            times, end, i = [], _perf() + budget_s, 0
            while len(times) < max_reps and (len(times) < 5 or _perf() < end):
                self.refill(xs, input_sets[i % len(input_sets)])
                if self.device == "cuda":
                    self.flush_l2()
                    s, e = self._event(enable_timing=True), self._event(enable_timing=True)
                    self._record(s)
                    out = fn(*xs)
                    self._record(e)
                    self._esync(e)
                    times.append(self._elapsed(s, e) * 1e6)
                else:
                    t0 = _perf()
                    out = fn(*xs)
                    times.append((_perf() - t0) * 1e9)
                i += 1
        last = self.host(_flat(out))
        return statistics.median(times), len(times), (last[0] if last else None), (i - 1) % len(input_sets)

    def profile(self, fn, inputs):
        """The candidate's kernels of three forwards as CUPTI saw them, each
        (caller stream, when the forward had returned, kernels); [] when the
        profiler cannot run."""
        if self.device != "cuda":
            return []
        xs = self.clone(inputs)
        folder = os.environ.get("TMPDIR") or os.path.dirname(os.path.abspath(self.answer.out))
        kernels = integrity.profile_forward(self.torch, fn, xs, folder, before=self.flush_l2)
        return integrity.split_forwards(kernels) if kernels else []
