"""The runner's sequence for one problem (docs/triage.md, "The runner"): import,
build, the cases (shapes x seeds, the candidate from poison), the traps, the
timing, and the integrity checks around them (docs/triage.md, "Integrity").
Every exception of the candidate ends the judgement where it happens,
located at the candidate's line; an exception of the reference means the
problem itself is broken (status "error").
"""
import os
import sys

from . import limits, problem, traps
from ..common.constants import INIT_SEED, POISON_A, POISON_B

_SEEDS = {"base": None, "boundary": 2, "scaled": 1}  # None: --seeds


def _build(answer, prob, args):
    T = prob.torch
    answer.phase("import_reference")
    try:
        ref = problem.load_module(args.reference, "tilescope_triage_reference")
        init = list(ref.get_init_inputs())
        T.manual_seed(INIT_SEED)
        ref_model = ref.Model(*init).to(prob.device).eval()
    except Exception as e:
        answer.doc["reference_exception"] = "%s: %s" % (type(e).__name__, e)
        hit = limits.fired(e, answer.doc.get("limits", {}))
        return None, answer.error("%sthe reference does not run: %s: %s"
                                  % (hit["message"] + ": " if hit else "", type(e).__name__, e))
    answer.phase("import_candidate")
    try:
        cand = problem.load_module(args.candidate, "tilescope_triage_candidate")
        if not hasattr(cand, "ModelNew"):
            raise AttributeError("module '%s' has no attribute 'ModelNew'" % args.candidate)
        _watch(answer, prob, "import")
        answer.phase("init_candidate")
        T.manual_seed(INIT_SEED)
        cand_model = cand.ModelNew(*init).to(prob.device).eval()
        _watch(answer, prob, "init")
    except Exception as e:
        answer.exception(e, prob.candidate_path)
        return None, answer.write()
    return (ref, ref_model, cand_model), None


def _watch(answer, prob, case):
    try:
        found = prob.watch(case)
    except Exception as e:  # the harness's own check: never the candidate's exception
        answer.doc.setdefault("notes", []).append("integrity check after %s: %s: %s" % (case, type(e).__name__, e))
        return
    for f in found:
        answer.add(f)


def _inputs(prob, ref, seed):
    prob.torch.manual_seed(seed)
    return prob.to_device(list(ref.get_inputs()))


def _add_once(answer, f):
    """A finding of the integrity checks that each run repeats: said once."""
    if f and not any(g["category"] == f["category"] and g.get("detail") == f.get("detail")
                     for g in answer.doc["findings"]):
        answer.add(f)
        return True
    return False


def _run_integrity(answer, prob, run, ref, label):
    """The structural checks of one candidate run against the reference's run."""
    _add_once(answer, traps.lazy_output(run.types, ref.types, label))
    _add_once(answer, traps.output_alias(run.alias, ref.alias, label))
    if not run.found:  # a write past an output's end may land in an input: the guard zone's finding says it
        _add_once(answer, traps.input_mutation(run.mutated, {m["input"] for m in ref.mutated}, label))
    _add_once(answer, traps.background_threads(run.threads, label))
    _add_once(answer, traps.pending_streams(run.pending, label))
    _watch(answer, prob, label)


def _check_case(answer, prob, models, label, seed, inputs, trio, rtol, atol):
    """One case: the reference, the candidate from poison A (and again, and from
    poison B when `trio`), the comparison, the traps and the integrity checks.
    Returns (candidate outputs, reference outputs, the case)."""
    _, ref_model, cand_model = models
    ref = prob.reference_run(ref_model, inputs)
    ref_out = ref.outs
    run = prob.run_candidate(cand_model, inputs, POISON_A, label, trace_exceptions=True)
    out = run.outs
    case = {"label": label, "seed": seed, "status": "ok", "launches": run.launches,
            "dtype": (run.dtypes or [None])[0], "reference_dtype": (ref.dtypes or [None])[0]}
    if run.swallowed:
        case["swallowed"] = run.swallowed
    for f in run.found:
        answer.add(f)
        case["status"] = "failed"
    _run_integrity(answer, prob, run, ref, label)
    if len(out) != len(ref_out):
        answer.add(traps.finding("mismatch", "the candidate returns %d outputs, the reference %d"
                                 % (len(out), len(ref_out)), detail="outputs", case=label))
        case["status"] = "failed"
        answer.doc["cases"].append(case)
        return out, ref_out, case
    np_inputs = prob.numpy_inputs(inputs)
    for i, (o, r) in enumerate(zip(out, ref_out)):
        stats = traps.compare(o, r, rtol, atol)
        stats["output"] = "out%d" % i if len(out) > 1 else "out"
        if i == 0:
            case["compare"] = stats
        found = traps.output_traps(o, r, np_inputs, label, stats, rtol, atol) if stats["mismatches"] else []
        for f in found:
            answer.add(f)
        if stats["mismatches"]:
            case["status"] = "failed"
    if trio:
        again = prob.run_candidate(cand_model, inputs, POISON_A, label, delay_streams=run.streams)
        _add_once(answer, traps.pending_streams(again.pending, label))
        other = prob.run_candidate(cand_model, inputs, POISON_B, label)
        case["launches_again"], case["launches_other"] = again.launches, other.launches
        f = traps.poison_and_trials(out[0], again.outs[0], other.outs[0], label, rtol, atol)
        if f:
            answer.add(f)
            case["status"] = "failed"
    answer.doc["cases"].append(case)
    return out, ref_out, case


def _base_trials(answer, prob, models, ref, inputs, out, ref_out, case, rtol, atol):
    """The base shape's extra trials, on seed 0: the same buffers refilled with
    seed 1's values (a result cache), and a float64 reference (a precision
    downgrade)."""
    _, ref_model, cand_model = models
    with problem.Shape(ref, dict(problem.variants(ref))["base"]):
        other = _inputs(prob, ref, 1)
    first, refilled = prob.refill_trial(cand_model, inputs, other)
    r1 = prob.reference(ref_model, other)
    if first and refilled and ref_out and r1:
        answer.add(traps.cached_result(first[0], refilled[0], ref_out[0], r1[0], case["label"], rtol, atol))
    # Right, or nearly (a downgrade can exceed the tolerance here and there): a wrong one is the traps'.
    stats = case.get("compare") or {}
    near = not stats.get("nan") and stats.get("mismatches", 0) <= 0.01 * max(stats.get("elements", 0), 1)
    r64 = prob.reference64(ref_model, inputs) if near and not stats.get("shape_mismatch") else None
    if r64 and r64[0] is not None and out and ref_out:
        answer.add(traps.precision(out[0], ref_out[0], r64[0], case["label"], out_dtype=case.get("dtype"),
                                   ref_dtype=case.get("reference_dtype")))


def _after_cases(answer, plain, base_case, base_stats):
    """The checks over every case: the launches per case (a fallback), the
    shapes (overfitting one), the evaluator's order (a stale output, a
    sentinel-aware candidate)."""
    cases = answer.doc["cases"]
    answer.add(traps.shape_overfit(cases))
    # A result cache explains runs that launch nothing and runs that differ: it is said as such.
    cached = any(f["category"] == "input_invariant" for f in answer.doc["findings"])
    if not cached:
        swallowed = [s for c in cases for s in c.get("swallowed", [])]
        # Cases whose result is right: one computed by the framework is a fallback, a wrong one is not.
        answer.add(traps.fallback([(c["label"], c.get("launches", 0)) for c in cases
                                   if c["status"] == "ok" or c.get("launches", 0)], swallowed))
    if plain is None or base_case is None:
        return
    run, stats = plain
    stale = traps.stale_output(base_stats, stats, base_case["label"])
    if stale:
        answer.doc["findings"].insert(0, stale)  # the lead among the uninitialized reads it explains
        return
    if cached:
        return
    launches = {"poison A": base_case.get("launches"), "poison A again": base_case.get("launches_again"),
                "poison B": base_case.get("launches_other"), "plain": run.launches}
    answer.add(traps.sentinel_aware(launches, base_stats is not None and not base_stats.get("mismatches"),
                                    not stats.get("mismatches"), base_case["label"]))


def _case_names(ref, args):
    """[(name, label, values, seed)] in the order the cases run."""
    out = []
    for label, values in problem.variants(ref):
        for seed in range(_SEEDS[label] or args.seeds):
            name = problem.shape_label(label, values if label != "base" else {}) + " seed %d" % seed
            out.append((name, label, values, seed))
    return out


def _replay(answer, prob, models, args):
    """The candidate's forward once on --case (the first case when it names none):
    what `tilescope-run capture` records."""
    ref = models[0]
    names = _case_names(ref, args)
    name, _, values, seed = next((c for c in names if c[0] == args.case), names[0])
    answer.phase("forward")
    with problem.Shape(ref, values):
        inputs = _inputs(prob, ref, seed)
        try:
            prob.run_candidate(models[2], inputs, POISON_A, name)
        except Exception as e:
            answer.exception(e, prob.candidate_path, case=name)
    answer.doc["replayed"] = name
    return answer.write()


def _cases(answer, prob, models, args, rtol, atol):
    ref = models[0]
    base_outs, base_refs = [], []
    skipped = set()
    plain = base_case = base_stats = None
    for name, label, values, seed in _case_names(ref, args):
        if label in skipped:
            continue
        with problem.Shape(ref, values):
            try:
                inputs = _inputs(prob, ref, seed)
                prob.reference(models[1], inputs)
            except Exception as e:
                if label == "base":
                    return answer.error("the reference does not run: %s: %s" % (type(e).__name__, e))
                answer.doc.setdefault("notes", []).append("%s: not applicable (%s)" % (name, e))
                skipped.add(label)
                continue
            answer.phase("forward")
            try:
                first = plain is None and label == "base"
                if first:  # before anything of the runner's is in memory: the evaluator's order
                    run, ref_outs = prob.plain_trial(models[1], models[2], inputs)
                    plain = (run, traps.compare(run.outs[0], ref_outs[0], rtol, atol) if run.outs and ref_outs
                             else {"mismatches": 1})
                out, refs, case = _check_case(answer, prob, models, name, seed, inputs, seed == 0, rtol, atol)
                if first:
                    base_case, base_stats = case, case.get("compare")
                    _base_trials(answer, prob, models, ref, inputs, out, refs, case, rtol, atol)
            except Exception as e:
                answer.exception(e, prob.candidate_path, case=name)
                return answer.write()
        if label == "base":
            base_outs.append(out[0])
            base_refs.append(refs[0])
    answer.add(traps.input_invariant(base_outs, base_refs, "base", rtol, atol))
    _after_cases(answer, plain, base_case, base_stats)
    _tail_detail(answer)
    return None


def _tail_detail(answer):
    """Mismatches only at the boundary shape (sizes + 1) while the problem's own
    shape passes: the partial tiles at the end are not masked."""
    cases = answer.doc["cases"]
    if not cases or any(c["status"] != "ok" for c in cases if c["label"].startswith("base")):
        return
    for f in answer.doc["findings"]:
        case = f.get("evidence", {}).get("case", "")
        if f["category"] in ("mismatch", "nan_inf") and case.startswith("boundary") and not f.get("detail"):
            f["detail"] = "tail_tiles"


def _input_sets(prob, ref, n=3):
    """Inputs of the current shape for seeds 0..n-1: fresh values per timed call."""
    return [_inputs(prob, ref, seed) for seed in range(n)]


def _timed(answer, prob, models, sets, refs, label):
    """Both models timed on `sets`; the candidate's last timed output checked
    against the reference's for its inputs.  (candidate ns, reference ns, reps)."""
    _, ref_model, cand_model = models
    c, reps, last, k = prob.time(cand_model, sets)
    _watch(answer, prob, "timing")
    _add_once(answer, traps.timed_result(last, refs, k, "timing " + label))
    r, _, _, _ = prob.time(ref_model, sets)
    return c, r, reps


def _scaling_confirmed(answer, prob, models, ref, variants, base, scaled, times):
    """The time-scaling trap, kept only if a second timing of both shapes shows it
    too: another process's kernels on the GPU (a triage's other slots) stretch a
    timing, never shorten one, so the shortest of the two timings of each is kept."""
    found = traps.timing_scaling(*times)
    if not found:
        return None
    again = []
    for name, (sets, refs) in (("base", base), ("scaled", scaled)):
        with problem.Shape(ref, variants[name]):
            again.append(_timed(answer, prob, models, sets, refs, name + " again")[:2])
    (cb, rb), (cs, rs) = again
    c, c2, r, r2 = times
    found = traps.timing_scaling(min(c, cb), min(c2, cs), min(r, rb), min(r2, rs))
    if found:
        found["evidence"]["timed_twice"] = True
    return found


def _timing(answer, prob, models, args):
    ref, ref_model, cand_model = models
    T = prob.torch
    answer.phase("timing")
    variants = dict(problem.variants(ref))
    with problem.Shape(ref, variants["base"]):
        sets = _input_sets(prob, ref)
        refs = [prob.reference(ref_model, s)[0] for s in sets]
        c, r, reps = _timed(answer, prob, models, sets, refs, "base")
        in_bytes = sum(x.numel() * x.element_size() for x in sets[0] if isinstance(x, T.Tensor))
        out_bytes = prob.reference_run(ref_model, sets[0]).out_bytes
        base_sets, base_refs = sets, refs
    timing = {"candidate_ns": c, "reference_ns": r, "speedup": r / c if c > 0 else None, "reps": reps,
              "fresh_inputs": len(sets), "l2_flushed": prob.device == "cuda"}
    if prob.device == "cuda":
        bw = prob.bandwidth()
        timing["copy_bytes_per_ns"] = bw
        answer.add(traps.below_roofline(c, in_bytes + out_bytes, bw))
    else:
        answer.add(traps.below_roofline(c, 0, 0))
    if "scaled" in variants:
        with problem.Shape(ref, variants["scaled"]):
            sets = _input_sets(prob, ref)
            refs = [prob.reference(ref_model, s)[0] for s in sets]
            c2, r2, _ = _timed(answer, prob, models, sets, refs, "scaled")
        timing["scaled"] = {"candidate_ns": c2, "reference_ns": r2}
        answer.add(_scaling_confirmed(answer, prob, models, ref, variants, (base_sets, base_refs),
                                      (sets, refs), (c, c2, r, r2)))
    # Last: CUPTI, once initialised, may leave every later launch a little slower.
    with problem.Shape(ref, variants["base"]):
        forwards = prob.profile(cand_model, base_sets[0])
    if forwards:
        caller, returned_at, kernels = forwards[0]
        timing["cupti"] = {"forwards": len(forwards), "kernels": len(kernels),
                           "kernel_ns": sum(k["dur"] for k in kernels),
                           "streams": sorted({str(k["stream"]) for k in kernels})}
        spans = [max(k["end"] for k in ks) - min(k["start"] for k in ks) for _, _, ks in forwards if ks]
        if spans:
            # The shortest of the forwards: another process's time slice may stretch one.
            timing["cupti"]["span_ns"] = min(spans)
            _add_once(answer, traps.timer_mismatch(c, min(spans)))
        for caller, returned_at, ks in forwards:
            if _add_once(answer, traps.stream_escape(ks, caller, returned_at)):
                break
        answer.add(traps.library_fallback(kernels))
    answer.doc["timing"] = timing


def _guard_pages(answer, prob, models, args):
    """The candidate once more, on inputs whose copies end where their device
    mapping ends (integrity.GuardPages), at the boundary shape (sizes that are
    no longer multiples of a block): a load past an input's end faults there,
    where the NaN guard zone only shows it when the value read reaches the
    output.  Last of the correctness runs: the fault ends the process's CUDA
    context.  True when the context is gone: the candidate's load faulted (the
    finding is added), or the harness's own setup did (a note says so)."""
    from . import integrity
    ref, _, cand_model = models
    T = prob.torch
    variants = dict(problem.variants(ref))
    label = "boundary" if "boundary" in variants else "base"
    name = next((c["label"] for c in answer.doc["cases"] if c["label"].startswith(label)), label)
    with problem.Shape(ref, variants[label]):
        inputs = _inputs(prob, ref, 0)
    try:
        pages = integrity.GuardPages(T, T.cuda.current_device())
        xs = [pages.copy(x) if isinstance(x, T.Tensor) and x.is_cuda and x.is_contiguous() and x.numel() else
              (x.clone() if isinstance(x, T.Tensor) else x) for x in inputs]
        # The copies read back whole before the candidate sees them: the mapping itself is sound.
        if not all(T.equal(a, b) for a, b in zip(xs, inputs) if isinstance(a, T.Tensor)):
            raise RuntimeError("a guard-page copy does not read back as its input")
        prob.sync()
    except Exception as e:  # no virtual memory management here (an old driver, a sandbox without it)
        answer.doc.setdefault("notes", []).append("guard pages not available: %s: %s" % (type(e).__name__, e))
        if "CUDA" in str(e) or type(e).__name__ == "AcceleratorError":  # the harness's own fault: nothing more runs
            answer.doc["guard_pages"] = {"case": name, "faulted": False, "setup_failed": True}
            return True
        return False
    answer.phase("guard_pages")
    try:
        with T.no_grad():
            cand_model(*xs)
        prob.sync()
        answer.doc["guard_pages"] = {"case": name, "faulted": False}
        return False
    except Exception as e:
        text = "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:300])
        if "illegal memory access" not in str(e) and "CUDA" not in str(e):
            answer.doc.setdefault("notes", []).append("guard pages: the candidate raised %s" % text)
            return False
        answer.doc["guard_pages"] = {"case": name, "faulted": True}
        # The case the capture replays (the first that failed): the trace may name the load.
        answer.doc["cases"].append({"label": name, "seed": 0, "status": "failed", "probe": "guard_pages"})
        answer.add(traps.finding("oob_read", "a load past the end of an input faulted at the %s shape, its copy "
                                 "ending where its device mapping ends (%s); the values read there never reached "
                                 "the output, so no comparison shows it" % (label, text), detail="guard_page",
                                 case=name, exception=text, sticky=True))
        return True


def judge(torch, args, answer, prob):
    models, code = _build(answer, prob, args)
    if models is None:
        return code
    if args.replay:
        return _replay(answer, prob, models, args)
    rtol, atol = problem.tolerances(models[0], traps.DEFAULT_RTOL, traps.DEFAULT_ATOL)
    code = _cases(answer, prob, models, args, rtol, atol)
    if code is not None:
        return code
    if prob.counter.own() == 0:
        answer.add(traps.finding("no_kernel", "no Triton kernel and no extension function of the candidate ran "
                                 "during its forward: the framework computed the result", launches=0))
    failed = any(f.get("severity", "error") == "error" for f in answer.doc["findings"])
    if not failed and prob.device == "cuda" and prob.counter.own() and _guard_pages(answer, prob, models, args):
        code = answer.write()  # the context is gone: nothing more runs, not even the allocator's teardown
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    if not args.no_timing and not failed:
        try:
            _timing(answer, prob, models, args)
        except Exception as e:
            answer.exception(e, prob.candidate_path, case="timing")
    return answer.write()
