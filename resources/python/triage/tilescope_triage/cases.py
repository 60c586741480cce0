"""The runner's sequence for one problem (docs/triage.md, "The runner"): import,
build, the cases (shapes x seeds, the candidate from poison), the traps, the
timing.  Every exception of the candidate ends the judgement where it happens,
located at the candidate's line; an exception of the reference means the
problem itself is broken (status "error").
"""
import statistics
import time

from . import limits, problem, traps
from .run import INIT_SEED, POISON_A, POISON_B

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
        answer.phase("init_candidate")
        T.manual_seed(INIT_SEED)
        cand_model = cand.ModelNew(*init).to(prob.device).eval()
    except Exception as e:
        answer.exception(e, prob.candidate_path)
        return None, answer.write()
    return (ref, ref_model, cand_model), None


def _inputs(prob, ref, seed):
    prob.torch.manual_seed(seed)
    return prob.to_device(list(ref.get_inputs()))


def _check_case(answer, prob, models, label, seed, inputs, trio, rtol, atol):
    """One case: the reference, the candidate from poison A (and again, and from
    poison B when `trio`), the comparison and the traps.  Returns the outputs."""
    _, ref_model, cand_model = models
    ref_out = prob.reference(ref_model, inputs)
    out, guard_findings = prob.run_candidate(cand_model, inputs, POISON_A, label)
    case = {"label": label, "seed": seed, "status": "ok"}
    for f in guard_findings:
        answer.add(f)
        case["status"] = "failed"
    if len(out) != len(ref_out):
        answer.add(traps.finding("mismatch", "the candidate returns %d outputs, the reference %d"
                                 % (len(out), len(ref_out)), detail="outputs", case=label))
        case["status"] = "failed"
        answer.doc["cases"].append(case)
        return out, ref_out
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
        again, _ = prob.run_candidate(cand_model, inputs, POISON_A, label)
        other, _ = prob.run_candidate(cand_model, inputs, POISON_B, label)
        f = traps.poison_and_trials(out[0], again[0], other[0], label, rtol, atol)
        if f:
            answer.add(f)
            case["status"] = "failed"
    answer.doc["cases"].append(case)
    return out, ref_out


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
                out, refs = _check_case(answer, prob, models, name, seed, inputs, seed == 0, rtol, atol)
            except Exception as e:
                answer.exception(e, prob.candidate_path, case=name)
                return answer.write()
        if label == "base":
            base_outs.append(out[0])
            base_refs.append(refs[0])
    answer.add(traps.input_invariant(base_outs, base_refs, "base", rtol, atol))
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


def _time(prob, fn, inputs, budget_s=0.2, max_reps=50):
    """Median ns of fn(*inputs): 3 warm-up calls, then CUDA events around each call."""
    T = prob.torch
    xs = prob.clone(inputs)
    with T.no_grad():
        for _ in range(3):
            fn(*xs)
        prob.sync()
        times, end = [], time.perf_counter() + budget_s
        while len(times) < max_reps and (len(times) < 5 or time.perf_counter() < end):
            if prob.device == "cuda":
                s, e = T.cuda.Event(enable_timing=True), T.cuda.Event(enable_timing=True)
                s.record()
                fn(*xs)
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e) * 1e6)
            else:
                t0 = time.perf_counter()
                fn(*xs)
                times.append((time.perf_counter() - t0) * 1e9)
    return statistics.median(times), len(times)


def _timing(answer, prob, models, args):
    ref, ref_model, cand_model = models
    answer.phase("timing")
    variants = dict(problem.variants(ref))
    with problem.Shape(ref, variants["base"]):
        inputs = _inputs(prob, ref, 0)
        c, reps = _time(prob, cand_model, inputs)
        r, _ = _time(prob, ref_model, inputs)
    timing = {"candidate_ns": c, "reference_ns": r, "speedup": r / c if c > 0 else None, "reps": reps}
    if "scaled" in variants:
        with problem.Shape(ref, variants["scaled"]):
            inputs = _inputs(prob, ref, 0)
            c2, _ = _time(prob, cand_model, inputs)
            r2, _ = _time(prob, ref_model, inputs)
        timing["scaled"] = {"candidate_ns": c2, "reference_ns": r2}
        answer.add(traps.timing_scaling(c, c2, r, r2))
    answer.doc["timing"] = timing


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
    if not args.no_timing and not failed:
        try:
            _timing(answer, prob, models, args)
        except Exception as e:
            answer.exception(e, prob.candidate_path, case="timing")
    return answer.write()
