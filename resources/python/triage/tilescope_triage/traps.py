"""Correctness that cannot be gamed (docs/triage.md, "Traps"): detectors over
numpy arrays, each returning a finding (a dict in the report's finding shape)
or None.  The runner converts tensors with .cpu().numpy() and calls these; the
unit tests call them on hand-built arrays.

Categories are the registry's (core/src/model/vocabulary.cpp): mismatch,
nan_inf, all_zero, constant_output, output_is_input, input_invariant,
uninitialized_read, race, timing_not_scaling.
"""
import numpy as np

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
    return stats


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
        if np.nanmin(a) == np.nanmax(a):
            continue  # all zero or constant: those traps say it more precisely
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
