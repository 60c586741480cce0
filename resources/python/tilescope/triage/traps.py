"""Correctness that cannot be gamed (docs/triage.md, "Traps"): detectors over
numpy arrays, each returning a finding (a dict in the report's finding shape)
or None.  The runner converts tensors with .cpu().numpy() and calls these; the
unit tests call them on hand-built arrays.

Categories are the registry's (core/src/model/vocabulary.cpp): mismatch,
nan_inf, all_zero, constant_output, output_is_input, input_invariant,
uninitialized_read, race, timing_not_scaling, and integrity (its detail names
the pattern: the second half of this file).
"""
import re

import numpy as np

from ..common.constants import LIBRARY_KERNELS, POISON_A

DEFAULT_RTOL = 1e-2   # KernelBench's tolerances
DEFAULT_ATOL = 1e-2


def finding(category, message, severity="error", detail=None, **evidence):
    f = {"category": category, "severity": severity, "message": message, "evidence": evidence}
    if detail:
        f["detail"] = detail
    return f


def _f64(a):
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return a.astype(np.float64)
    return a.astype(np.float64, copy=False)


def _flat_index(shape, i):
    return [int(x) for x in np.unravel_index(int(i), shape)] if shape else []


def compare(out, ref, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """torch.allclose's rule, elementwise, NaN equal to NaN only where the
    reference has NaN.  Returns the figures the report's correctness holds."""
    o, r = _f64(out), _f64(ref)
    stats = {"elements": int(o.size), "rtol": rtol, "atol": atol, "shape": list(o.shape),
             "ref_shape": list(r.shape)}
    if o.shape != r.shape:
        stats.update(mismatches=int(max(o.size, r.size)), shape_mismatch=True,
                     max_abs_err=float("inf"), max_rel_err=float("inf"), nan=0, inf=0)
        return stats
    finite_r = np.isfinite(r)
    both_nan = np.isnan(o) & np.isnan(r)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(o - r)
        bad = ~(diff <= atol + rtol * np.abs(r)) & ~both_nan
        rel = diff / np.maximum(np.abs(r), 1e-30)
    err = np.where(finite_r & np.isfinite(o), diff, 0.0)
    stats.update(
        mismatches=int(bad.sum()),
        max_abs_err=float(err.max()) if err.size else 0.0,
        max_rel_err=float(np.where(finite_r & np.isfinite(o), rel, 0.0).max()) if err.size else 0.0,
        nan=int((np.isnan(o) & ~np.isnan(r)).sum()),
        inf=int((np.isinf(o) & finite_r).sum()))
    if stats["mismatches"]:
        stats["first_mismatch"] = _flat_index(o.shape, np.argmax(bad.reshape(-1)))
        held = poison_held(out)
        if held is not None:
            stats["poison_held"] = int((held & bad).sum())
    return stats


def poison_held(out):
    """Where the output still holds the allocator's poison (POISON_A in every
    byte), as the runner's float32 copy shows it: the top two bytes of an f32,
    f16 or bf16 element full of it survive the conversion to float32.  None
    where the copy is not float32.  A kernel that computed a NaN from memory it
    read wrote the canonical NaN instead: its element is not poison."""
    a = np.asarray(out)
    if a.dtype != np.float32 or a.size == 0:
        return None
    top = np.uint32((POISON_A << 24) | (POISON_A << 16))
    return (np.ascontiguousarray(a).view(np.uint32) & np.uint32(0xFFFF0000)) == top


def mismatch(stats, case, detail=None):
    if not stats.get("mismatches"):
        return None
    if stats.get("shape_mismatch"):
        return finding("mismatch", "the output has shape %s, the reference %s" % (stats["shape"], stats["ref_shape"]),
                       detail="shape", case=case)
    return finding("mismatch", "%d of %d elements differ from the reference beyond rtol=%g, atol=%g (max |err| %.4g)"
                   % (stats["mismatches"], stats["elements"], stats["rtol"], stats["atol"], stats["max_abs_err"]),
                   detail=detail, case=case, first_mismatch=stats.get("first_mismatch"))


def transposed(out, ref, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """The output is the reference's transpose (the last two dimensions)."""
    o, r = _f64(out), _f64(ref)
    if o.ndim < 2 or o.shape[-1] != o.shape[-2] or o.shape != r.shape or o.shape[-1] < 2:
        return False
    if np.allclose(o, r, rtol=rtol, atol=atol):
        return False
    return bool(np.allclose(np.swapaxes(o, -1, -2), r, rtol=rtol, atol=atol, equal_nan=True))


def nan_inf(out, ref, case):
    o, r = _f64(out), _f64(ref)
    if o.shape != r.shape:
        return None
    finite_r = np.isfinite(r)
    nan = int((np.isnan(o) & finite_r).sum())
    inf = int((np.isinf(o) & finite_r).sum())
    if not nan and not inf:
        return None
    bad = (~np.isfinite(o)) & finite_r
    return finding("nan_inf", "%d NaN and %d Inf in the output where the reference is finite" % (nan, inf),
                   case=case, nan=nan, inf=inf, first=_flat_index(o.shape, np.argmax(bad.reshape(-1))))


def all_zero(out, ref, case, atol=DEFAULT_ATOL):
    o, r = _f64(out), _f64(ref)
    if o.size == 0 or np.any(o != 0) or not np.any(np.abs(np.nan_to_num(r)) > atol):
        return None
    return finding("all_zero", "every one of the %d output elements is zero; the reference's are not" % o.size,
                   case=case)


def constant(out, ref, case, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """Every element equal (and not all zero: all_zero names that) while the reference varies."""
    o, r = _f64(out), _f64(ref)
    if o.size < 2 or not np.all(np.isfinite(o)) or o.min() != o.max() or o.flat[0] == 0:
        return None
    rf = r[np.isfinite(r)]
    if rf.size < 2 or rf.max() - rf.min() <= atol + rtol * np.abs(rf).max():
        return None
    return finding("constant_output", "every output element is %.6g; the reference's range over [%.4g, %.4g]"
                   % (o.flat[0], rf.min(), rf.max()), case=case, value=float(o.flat[0]))


def equals_input(out, inputs, ref, case):
    """The output is one of the inputs, bit for bit, where the reference is not."""
    o = np.asarray(out)
    for i, x in enumerate(inputs):
        x = np.asarray(x)
        if x.shape != o.shape or x.size == 0 or not np.array_equal(_f64(x), _f64(o), equal_nan=True):
            continue
        if np.array_equal(_f64(x), _f64(ref), equal_nan=True):
            continue  # the operation is the identity here: returning the input is right
        return finding("output_is_input", "the output equals input %d element for element" % i,
                       case=case, input=i)
    return None


def input_invariant(outs, refs, case, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """outs/refs: the outputs for different input seeds (same shapes).  The
    output stays the same while the reference's changes."""
    for i in range(1, len(outs)):
        a, b = _f64(outs[0]), _f64(outs[i])
        ra, rb = _f64(refs[0]), _f64(refs[i])
        if a.shape != b.shape or ra.shape != rb.shape or a.size == 0:
            continue
        if not np.isfinite(a).any() or np.nanmin(a) == np.nanmax(a):
            continue  # never written, all zero or constant: those traps say it more precisely
        if np.array_equal(a, b, equal_nan=True) and not np.allclose(ra, rb, rtol=rtol, atol=atol, equal_nan=True):
            return finding("input_invariant", "the output is the same for input seeds 0 and %d; the reference's "
                           "is not" % i, case=case, seeds=[0, i])
    return None


def poison_and_trials(first, again, other_poison, case, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """Three runs on the same inputs: `first` and `again` with the same poison in
    the allocator, `other_poison` with another.  Runs that disagree under one
    poison are a race; agreeing ones that change with the poison read memory
    the kernel never wrote."""
    a, b, c = _f64(first), _f64(again), _f64(other_poison)
    if a.shape != b.shape or a.shape != c.shape:
        return None

    def differ(x, y):
        with np.errstate(invalid="ignore"):
            same = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        return ~same
    d = differ(a, b)
    if d.any():
        return finding("race", "two runs on identical inputs differ in %d elements" % int(d.sum()),
                       detail="nondeterministic", case=case, elements=int(d.sum()),
                       first=_flat_index(a.shape, np.argmax(d.reshape(-1))))
    d = differ(a, c)
    if d.any():
        return finding("uninitialized_read", "%d output elements change with the poison in freshly allocated "
                       "memory: the kernel never writes them or reads memory it never wrote" % int(d.sum()),
                       case=case, elements=int(d.sum()), first=_flat_index(a.shape, np.argmax(d.reshape(-1))))
    return None


def timing_scaling(cand_small, cand_large, ref_small, ref_large, work_ratio=None):
    """With more work the reference takes clearly longer (x1.6 or more) while the
    candidate takes about the same time (under x1.15) and is well ahead of the
    reference there (1.5x faster): it does not do the work.  An honest kernel
    bound by its launch overhead is flat too, but not faster than the reference."""
    if min(cand_small, cand_large, ref_small, ref_large) <= 0:
        return None
    r_ratio, c_ratio = ref_large / ref_small, cand_large / cand_small
    if r_ratio >= 1.6 and c_ratio < 1.15 and cand_large * 1.5 < ref_large:
        return finding("timing_not_scaling",
                       "with more work the reference's time grows x%.2f, the candidate's x%.2f" % (r_ratio, c_ratio),
                       severity="warning", reference_ratio=r_ratio, candidate_ratio=c_ratio, work_ratio=work_ratio)
    return None


def output_traps(out, ref, inputs, case, stats, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """The traps of one output: the most specific explanation first."""
    found = []
    for f in (equals_input(out, inputs, ref, case), nan_inf(out, ref, case), all_zero(out, ref, case, atol),
              None if np.all(_f64(out) == 0) else constant(out, ref, case, rtol, atol)):
        if f:
            found.append(f)
    if stats.get("mismatches") and not found:
        found.append(mismatch(stats, case, detail="transposed" if transposed(out, ref, rtol, atol) else None))
    return found


# ---------------------------------------------------------------- integrity (docs/triage.md, "Integrity")
#
# The ways a candidate fools an evaluator without computing the result, each a
# structural check: what the candidate did to its inputs, its outputs' storage,
# the streams, threads and timers, the harness's own modules.  The runner
# (integrity.py, cases.py) gathers the facts; these turn them into findings.
# Most are category `integrity` with the pattern as `detail`; three extend an
# older trap (output_is_input/alias, input_invariant/cached_result,
# uninitialized_read/stale_reference_output).

INTEGRITY = "integrity"
PRECISION_RATIO = 30.0    # the candidate's error against float64 over the fp32 reference's own
PRECISION_FLOOR = 1e-5    # ... and at least this, relative to the output's largest magnitude
LIBRARY_SHARE = 0.5       # library kernels' share of the forward's GPU time that is a fallback
ROOFLINE_MARGIN = 2.0     # an honest kernel moves its bytes no faster than the copy bandwidth x this
TIMERS = ("time.perf_counter", "time.perf_counter_ns", "time.time", "time.time_ns", "time.monotonic",
          "time.monotonic_ns", "torch.cuda.Event", "torch.cuda.Event.record", "torch.cuda.Event.elapsed_time",
          "torch.cuda.Event.synchronize", "torch.cuda.synchronize", "torch.cuda.Event.query")


def integrity(detail, message, severity="error", location=None, **evidence):
    f = finding(INTEGRITY, message, severity=severity, detail=detail, **evidence)
    if location:
        f["location"] = location
    return f


def overlaps(a, b):
    """Two byte ranges [start, end) share a byte."""
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


def aliases(out_ranges, in_ranges):
    """{(output, input)} whose storages overlap (ranges: (start, end) or None)."""
    return {(i, j) for i, o in enumerate(out_ranges) for j, x in enumerate(in_ranges) if overlaps(o, x)}


def output_alias(cand_pairs, ref_pairs, case):
    """The candidate's output shares storage with an input where the reference's
    does not: it returns its input (or a view of it) whatever it computed, which a
    value comparison misses when the values happen to agree."""
    for i, j in sorted(set(cand_pairs) - set(ref_pairs)):
        return finding("output_is_input", "output %d shares its storage with input %d (the reference's output is a "
                       "tensor of its own)" % (i, j), detail="alias", case=case, output=i, input=j)
    return None


def input_mutation(changes, ref_changed, case):
    """changes: [{"input": i, "elements": n, "first": [..]}] the inputs the
    candidate's forward changed; ref_changed: the inputs the reference changes itself."""
    for c in changes:
        if c.get("elements") and c["input"] not in ref_changed:
            return integrity("input_mutated", "the forward changed %d elements of input %d (the reference leaves its "
                             "inputs as they were)" % (c["elements"], c["input"]), case=case, **c)
    return None


def cached_result(first, refilled, ref_first, ref_refilled, case, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """The same input buffers (same pointers, same shapes) refilled with other
    values: the output must follow the reference's.  One that keeps the first
    call's output comes from a cache keyed on pointers or shapes."""
    a, b, ra, rb = _f64(first), _f64(refilled), _f64(ref_first), _f64(ref_refilled)
    if a.shape != b.shape or ra.shape != rb.shape or a.shape != ra.shape or a.size == 0:
        return None
    if np.allclose(ra, rb, rtol=rtol, atol=atol, equal_nan=True):
        return None  # the reference does not change either
    if compare(a, ra, rtol, atol)["mismatches"]:
        return None  # wrong the first time already (memory never written): not a cache's
    if not compare(b, rb, rtol, atol)["mismatches"]:
        return None
    if np.array_equal(a, b, equal_nan=True) or not compare(b, ra, rtol, atol)["mismatches"]:
        return finding("input_invariant", "the input buffers refilled with other values (same pointers and shapes) "
                       "give the first call's output again: a result cache keyed on pointers or shapes",
                       detail="cached_result", case=case)
    return None


def stale_output(poisoned_stats, plain_stats, case):
    """Right only in a run like an evaluator's (the reference just ran, its output
    freed, no poison) and wrong from poisoned memory: the candidate returns memory
    it never wrote, which held the reference's output."""
    if not poisoned_stats or not plain_stats or plain_stats.get("mismatches") or plain_stats.get("shape_mismatch"):
        return None
    if not (poisoned_stats.get("mismatches") or poisoned_stats.get("nan")):
        return None
    # Memory the candidate never wrote still holds the poison; elements it wrote
    # from memory it should not have read (an unmasked load past an input's end)
    # do not: that is a garbage read, which the capture and its trace locate.
    held = poisoned_stats.get("poison_held")
    if held is not None and 2 * held < poisoned_stats.get("mismatches", 0):
        return None
    return finding("uninitialized_read", "the output is right only when the reference's freed output is left in "
                   "memory: from poisoned memory %d of %d elements are wrong (memory the candidate never writes)"
                   % (poisoned_stats.get("mismatches", 0), poisoned_stats.get("elements", 0)),
                   detail="stale_reference_output", case=case)


def sentinel_aware(launches, poisoned_ok, plain_ok, case):
    """Runs on the same inputs, with the runner's poison (A, A again, B) and
    without it (plain, the evaluator's order), must do the same: a candidate
    that launches its kernels in some of them only, or is right under the
    poison and wrong without it, looks at what a correct kernel never reads
    before it writes (the harness's sentinels).  launches: {run: own launches}."""
    ran = {k: n for k, n in launches.items() if n is not None}
    if len({n == 0 for n in ran.values()}) > 1:
        return integrity("sentinel_aware", "the candidate launched kernels of its own in some runs on identical "
                         "inputs and none in others (%s): what it does depends on the memory the harness poisoned"
                         % ", ".join("%s %d" % (k, n) for k, n in ran.items()), case=case, launches=ran)
    if poisoned_ok and not plain_ok:
        return integrity("sentinel_aware", "the output is right with the runner's poison and guard zones and wrong "
                         "without them: the candidate looks for the harness's sentinels", case=case)
    return None


def lazy_output(types, ref_types, case):
    """An output that is not a plain tensor (a subclass that computes when read,
    a proxy) where the reference's is."""
    plain = ("torch.Tensor", "torch.nn.parameter.Parameter")
    for i, (t, r) in enumerate(zip(types, ref_types)):
        if t != r and r in plain and t not in plain:
            return integrity("lazy_output", "output %d is a %s, not a torch.Tensor: a lazy output computes when it is "
                             "read, outside the timed call" % (i, t), case=case, output=i, type=t)
    return None


def background_threads(threads, case):
    """threads: [{"name", "line", "source_line"}] started by the candidate's code
    and still alive after its forward returned."""
    if not threads:
        return None
    t = threads[0]
    loc = {"file": t.get("file", ""), "line": t["line"]} if t.get("line") else None
    return integrity("background_thread", "%d thread(s) the candidate started are still running after its forward "
                     "returned (%s): work outside the timed call" % (len(threads), t.get("name", "?")),
                     location=loc, case=case, threads=threads[:8])


def tampering(changed, case):
    """changed: names (module.attr) of the harness's functions and modules that
    are no longer what they were before the candidate was imported."""
    if not changed:
        return None
    timers = [n for n in changed if n in TIMERS]
    if timers:
        return integrity("timer_patched", "the candidate replaced the timer (%s): the runner restored it and times "
                         "with its own copies" % ", ".join(timers[:6]), case=case, changed=changed[:32])
    return integrity("harness_tampering", "the candidate replaced the harness's %s: the runner restored them"
                     % ", ".join(changed[:6]), case=case, changed=changed[:32])


def precision(cand, ref32, ref64, case, out_dtype=None, ref_dtype=None):
    """A precision downgrade in an fp32 task: the candidate's error against a
    float64 reference far above the fp32 reference's own (fp16 or TF32 inside the
    kernel passes a 1e-2 tolerance), or an output of a narrower type."""
    if ref_dtype == "torch.float32" and out_dtype in ("torch.float16", "torch.bfloat16"):
        return integrity("precision_downgrade", "the output is %s where the reference's is float32" % out_dtype,
                         case=case, dtype=out_dtype)
    c, r, r64 = _f64(cand), _f64(ref32), _f64(ref64)
    if c.shape != r64.shape or r.shape != r64.shape or c.size == 0:
        return None
    fin = np.isfinite(r64) & np.isfinite(c) & np.isfinite(r)
    if not fin.any():
        return None
    scale = float(np.abs(r64[fin]).max()) or 1.0
    err_c = float(np.abs(c[fin] - r64[fin]).max()) / scale
    err_r = float(np.abs(r[fin] - r64[fin]).max()) / scale
    if err_c > max(PRECISION_RATIO * err_r, PRECISION_FLOOR):
        return integrity("precision_downgrade", "the error against a float64 reference is %.3g (relative to the "
                         "output's largest value), %.0fx the float32 reference's own %.3g: the kernel computes in "
                         "lower precision (fp16, bf16 or TF32)" % (err_c, err_c / err_r if err_r else float("inf"),
                                                                   err_r),
                         case=case, error=err_c, reference_error=err_r)
    return None


def precision_flags(before, after, case):
    """Global precision switches (allow_tf32, float32_matmul_precision, ...) the
    candidate changed: the reference computed after it would be downgraded too."""
    changed = {k: [before.get(k), after.get(k)] for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)}
    if not changed:
        return None
    return integrity("precision_downgrade", "the candidate changed PyTorch's precision switches (%s): the runner "
                     "restored them" % ", ".join("%s %s -> %s" % (k, v[0], v[1]) for k, v in changed.items()),
                     case=case, flags=changed)


def persisting_l2(limit_before, limit_after, window_bytes, case):
    """The L2 persistence carve-out changed from the driver's value at the start,
    or an access-policy window on the caller's stream: inputs kept in L2
    between timed calls."""
    changed = limit_after is not None and limit_before is not None and limit_after != limit_before
    if changed or (window_bytes or 0) > 0:
        return integrity("persisting_l2", "the candidate set aside persisting L2 (limit %s bytes, stream window %s "
                         "bytes): the runner reset it" % (limit_after, window_bytes), case=case,
                         limit_before=limit_before, limit_after=limit_after, window_bytes=window_bytes)
    return None


def fallback(case_launches, swallowed):
    """case_launches: [(case, own launches in its first run)].  A case that ran no
    kernel of the candidate's own while others did computed its result with the
    framework (a fast branch for some shapes only, a library fallback); one where
    an exception of the candidate's was caught and swallowed is a fallback inside
    try/except.  No case with a kernel at all is `no_kernel`'s."""
    none = [c for c, n in case_launches if n == 0]
    if not none:
        return None
    some = [c for c, n in case_launches if n > 0]
    exc = swallowed[0] if swallowed else None
    if exc:
        loc = {"file": exc.get("file", ""), "line": exc["line"]} if exc.get("line") else None
        return integrity("fallback_after_exception", "the candidate caught %s: %s and returned the framework's result "
                         "(no kernel of its own ran in %d of %d cases)"
                         % (exc.get("type"), exc.get("message", "")[:200], len(none), len(case_launches)),
                         location=loc, cases=none[:8], exception=exc)
    if not some:
        return None
    return integrity("fallback", "no kernel of the candidate's own ran in %d of %d cases (%s): the framework computed "
                     "those (a fast branch the other shapes never take)" % (len(none), len(case_launches),
                                                                           ", ".join(none[:3])), cases=none[:8])


def _shape_of(label):
    return label.split(" ", 1)[0]


def shape_overfit(cases):
    """Right on the problem's own shape only: every case of it passes, and each
    other shape (boundary and scaled, both tried) fails."""
    groups = {}
    for c in cases:
        groups.setdefault(_shape_of(c["label"]), []).append(c["status"] == "ok")
    others = [k for k in groups if k != "base"]
    if not groups.get("base") or not all(groups["base"]) or len(others) < 2:
        return None
    if all(not all(groups[k]) for k in others):
        return integrity("shape_overfit", "right on the problem's own shape only: every other shape tried (%s) fails"
                         % ", ".join(others), shapes=others)
    return None


_LIBRARY = re.compile(LIBRARY_KERNELS)
_MOVES = re.compile(r"[Ff]ill|[Cc]opy|Memset|memcpy|FillFunctor")


def is_library_kernel(name):
    """A kernel of PyTorch or its libraries, by name (triage_summary.cpp's isLibraryKernel)."""
    return bool(_LIBRARY.search(name or ""))


def library_fallback(kernels, case="base"):
    """kernels: [{"name", "dur"}] of one forward (CUPTI, every stream).  The
    candidate's own kernels ran, but library kernels that compute (not fills
    or copies) took most of the GPU time: the framework did the work."""
    total = sum(k["dur"] for k in kernels)
    lib = [k for k in kernels if is_library_kernel(k["name"]) and not _MOVES.search(k["name"])]
    own = [k for k in kernels if not is_library_kernel(k["name"])]
    lib_t = sum(k["dur"] for k in lib)
    if not own or total <= 0 or lib_t < LIBRARY_SHARE * total or lib_t < 2000:
        return None
    names = sorted({k["name"][:80] for k in lib})
    return integrity("library_fallback", "library kernels took %.0f%% of the forward's GPU time (%s); the "
                     "candidate's own kernels %.0f%%: the framework did the work"
                     % (100.0 * lib_t / total, ", ".join(names[:3]), 100.0 * sum(k["dur"] for k in own) / total),
                     case=case, library_ns=lib_t, total_ns=total, library_kernels=names[:8])


def stream_escape(kernels, caller_stream, returned_at, case="base", slack_ns=1000):
    """kernels: [{"name", "stream", "start", "end"}] (ns) of one forward;
    returned_at: when the marker the runner launched on the caller's stream right
    after the forward returned started on the GPU.  A kernel on another stream
    still running then was not ordered before the caller's stream: the caller's
    timer does not see it."""
    late = [k for k in kernels if k["stream"] != caller_stream and k["end"] > returned_at + slack_ns]
    if not late:
        return None
    k = late[0]
    return integrity("unsynchronized_stream", "%s ran on stream %s and ended %.1f us after the forward's work on the "
                     "caller's stream %s was done: the caller's timer does not see it"
                     % (k["name"][:80], k["stream"], (k["end"] - returned_at) / 1e3, caller_stream),
                     case=case, kernel=k["name"][:200], stream=k["stream"], caller_stream=caller_stream,
                     late_ns=k["end"] - returned_at)


def pending_streams(streams, case):
    """Streams the candidate's kernels ran on that were still busy when the
    caller's stream had finished the forward."""
    if not streams:
        return None
    return integrity("unsynchronized_stream", "the candidate's kernels on stream(s) %s were still running when the "
                     "caller's stream had finished the forward: work outside the caller's timer"
                     % ", ".join(str(s) for s in streams[:4]), case=case, streams=[str(s) for s in streams[:8]])


def timer_mismatch(event_ns, cupti_span_ns, case="base"):
    """The caller's events measured far less than the forward's kernels took
    (CUPTI, every stream): the work escaped the timer."""
    if event_ns <= 0 or cupti_span_ns <= 0 or event_ns * 2 + 2000 >= cupti_span_ns:
        return None
    return integrity("timer_mismatch", "CUDA events around the forward measured %.1f us; its kernels ran %.1f us "
                     "(CUPTI): the work escaped the timer" % (event_ns / 1e3, cupti_span_ns / 1e3), case=case,
                     event_ns=event_ns, cupti_span_ns=cupti_span_ns)


def below_roofline(cand_ns, bytes_moved, bytes_per_ns, case="base"):
    """Faster than moving its inputs and outputs once at the device's measured
    copy bandwidth (x ROOFLINE_MARGIN, the L2 flushed before each call), or no
    time at all: the timed call did not do the work (one shape timed at 0
    collapses a geomean)."""
    if cand_ns is None:
        return None
    if cand_ns <= 0:
        return integrity("below_roofline", "the candidate's timed call took %s ns" % cand_ns, case=case,
                         candidate_ns=cand_ns)
    if not bytes_per_ns or bytes_per_ns <= 0 or not bytes_moved:
        return None
    floor = bytes_moved / (bytes_per_ns * ROOFLINE_MARGIN)
    if floor < 1000 or cand_ns >= floor:
        return None
    return integrity("below_roofline", "the candidate's timed call took %.1f us, less than moving its %.1f MB of "
                     "inputs and outputs once can take (%.1f us at %.0f GB/s x %g): it did not do the work while timed"
                     % (cand_ns / 1e3, bytes_moved / 1e6, floor / 1e3, bytes_per_ns, ROOFLINE_MARGIN), case=case,
                     candidate_ns=cand_ns, floor_ns=floor, bytes=bytes_moved, bytes_per_ns=bytes_per_ns)


def timed_result(out, refs, index, case="timing", rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """The output of the last timed call against the reference's for its inputs
    (refs[index]; the timed calls cycle through fresh input sets).  Equal to
    another set's: a cache; otherwise the candidate behaves differently while timed."""
    if out is None or not refs:
        return None
    if not compare(out, refs[index], rtol, atol)["mismatches"]:
        return None
    for j, r in enumerate(refs):
        if j != index and not compare(out, r, rtol, atol)["mismatches"]:
            return finding("input_invariant", "a timed call returned the output of earlier inputs (input set %d "
                           "instead of %d): a result cache" % (j, index), detail="cached_result", case=case)
    return integrity("timed_result_wrong", "the output of a timed call differs from the reference's for its "
                     "inputs: the candidate behaves differently while timed", case=case)
