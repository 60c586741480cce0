"""Unit tests of the triage runner's integrity checks (docs/triage.md,
"Integrity"): the detectors of traps.py on numbers and numpy arrays, and the
watchers of integrity.py (the harness snapshot, swallowed exceptions, the
candidate's threads, CUPTI's trace, the precision switches) on plain modules,
files and hand-made traces.  No GPU and no PyTorch."""
import os
import sys
import tempfile
import textwrap
import threading
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "resources", "python"))

from tilescope.triage import integrity  # noqa: E402
from tilescope.triage.problem import load_module  # noqa: E402

try:
    import numpy as np
    from tilescope.triage import traps
except ImportError:  # a plain python3 without numpy
    np = None


def detail(f):
    return (f["category"], f.get("detail")) if f else None


@unittest.skipIf(np is None, "numpy is not installed")
class Outputs(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(1)
        self.ref = rng.standard_normal((32, 32)).astype(np.float32)
        self.other = rng.standard_normal((32, 32)).astype(np.float32)

    def test_an_output_sharing_an_inputs_storage_is_an_alias(self):
        ins = [(1000, 2000), (5000, 6000)]
        self.assertEqual(traps.aliases([(1500, 1600)], ins), {(0, 0)})
        self.assertEqual(traps.aliases([(2000, 3000)], ins), set())  # adjacent, not overlapping
        self.assertEqual(traps.aliases([None, (5999, 7000)], ins), {(1, 1)})
        f = traps.output_alias({(0, 0)}, set(), "base seed 0")
        self.assertEqual(detail(f), ("output_is_input", "alias"))
        self.assertEqual(f["evidence"]["input"], 0)
        # The reference returns a view of its input too (a reshape): not a trick.
        self.assertIsNone(traps.output_alias({(0, 0)}, {(0, 0)}, "c"))

    def test_inputs_the_candidate_changed(self):
        f = traps.input_mutation([{"input": 1, "elements": 7, "first": [0, 3]}], set(), "c")
        self.assertEqual(detail(f), ("integrity", "input_mutated"))
        self.assertEqual(f["evidence"]["elements"], 7)
        self.assertIsNone(traps.input_mutation([{"input": 1, "elements": 7}], {1}, "c"))  # the reference does too
        self.assertIsNone(traps.input_mutation([], set(), "c"))

    def test_refilled_buffers_must_change_the_output(self):
        cached = traps.cached_result(self.ref, self.ref.copy(), self.ref, self.other, "c")
        self.assertEqual(detail(cached), ("input_invariant", "cached_result"))
        self.assertIsNone(traps.cached_result(self.ref, self.other, self.ref, self.other, "c"))  # it follows
        self.assertIsNone(traps.cached_result(self.ref, self.ref, self.ref, self.ref, "c"))  # nor does the reference
        # Wrong after the refill but not the old output either: a mismatch's, not a cache's.
        self.assertIsNone(traps.cached_result(self.ref, self.other + 5, self.ref, self.other, "c"))
        # Never written (the poison twice): wrong the first time already, not a cache.
        nan = np.full_like(self.ref, np.nan)
        self.assertIsNone(traps.cached_result(nan, nan.copy(), self.ref, self.other, "c"))

    def test_right_only_with_the_references_output_left_in_memory(self):
        poisoned = {"mismatches": 1024, "elements": 1024, "nan": 1024}
        f = traps.stale_output(poisoned, {"mismatches": 0, "elements": 1024}, "base seed 0")
        self.assertEqual(detail(f), ("uninitialized_read", "stale_reference_output"))
        self.assertIsNone(traps.stale_output(poisoned, {"mismatches": 3}, "c"))       # wrong either way
        self.assertIsNone(traps.stale_output({"mismatches": 0}, {"mismatches": 0}, "c"))  # right either way

    def test_a_garbage_read_is_not_a_stale_output(self):
        # Unwritten f32 memory holds the poison's bytes; a NaN the kernel computed from
        # memory it read past an input's end is the canonical one (0x7FFFFFFF on the GPU).
        ref = np.ones(64, np.float32)
        unwritten = np.frombuffer(b"\xff" * 4 * 64, np.float32).copy()
        computed = np.frombuffer(np.full(64, 0x7FFFFFFF, np.uint32).tobytes(), np.float32).copy()
        from_f16 = np.full(64, np.float16("nan"), np.float16)
        from_f16.view(np.uint16)[:] = 0xFFFF  # the poison in an f16 output, as the runner's float() sees it
        plain = {"mismatches": 0, "elements": 64}
        held = traps.compare(unwritten, ref)
        self.assertEqual(held["poison_held"], 64)
        self.assertEqual(detail(traps.stale_output(held, plain, "c")), ("uninitialized_read", "stale_reference_output"))
        self.assertEqual(traps.compare(from_f16.astype(np.float32), ref)["poison_held"], 64)
        wrote = traps.compare(computed, ref)
        self.assertEqual(wrote["poison_held"], 0)
        self.assertIsNone(traps.stale_output(wrote, plain, "c"))
        self.assertTrue(traps.is_library_kernel("void softmax_warp_forward<float, float, float, 10, false, false>"))
        self.assertTrue(traps.is_library_kernel("_ZN2at6native40_GLOBAL__N__cunn_SoftMaxForward"))
        self.assertFalse(traps.is_library_kernel("my_gemv_kernel"))

    def test_a_candidate_that_looks_for_the_harness(self):
        runs = {"poison A": 1, "poison A again": 1, "poison B": 0, "plain": 0}
        f = traps.sentinel_aware(runs, True, True, "c")
        self.assertEqual(detail(f), ("integrity", "sentinel_aware"))
        self.assertEqual(f["evidence"]["launches"], runs)
        self.assertEqual(detail(traps.sentinel_aware({"poison A": 1, "plain": 1}, True, False, "c")),
                         ("integrity", "sentinel_aware"))
        # Autotuning launches more the first time: never none.
        self.assertIsNone(traps.sentinel_aware({"poison A": 1, "poison B": 1, "plain": 9}, True, True, "c"))
        self.assertIsNone(traps.sentinel_aware({"poison A": 1, "plain": 1}, False, False, "c"))  # wrong anyway
        self.assertIsNone(traps.sentinel_aware({"poison A": 2, "plain": None}, True, True, "c"))  # not run

    def test_an_output_that_is_not_a_tensor(self):
        f = traps.lazy_output(["torch.Tensor", "cand.LazyOut"], ["torch.Tensor", "torch.Tensor"], "c")
        self.assertEqual(detail(f), ("integrity", "lazy_output"))
        self.assertEqual(f["evidence"]["output"], 1)
        self.assertIsNone(traps.lazy_output(["torch.Tensor"], ["torch.Tensor"], "c"))
        self.assertIsNone(traps.lazy_output(["x.Sub"], ["x.Sub"], "c"))  # the reference returns the same class
        self.assertIsNone(traps.lazy_output(["torch.nn.parameter.Parameter"], ["torch.Tensor"], "c"))  # a weight

    def test_precision_against_a_float64_reference(self):
        rng = np.random.default_rng(2)
        a, b = rng.standard_normal((64, 128)), rng.standard_normal((128, 48))
        r64 = a @ b
        r32 = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float32)
        h = (a.astype(np.float16).astype(np.float32) @ b.astype(np.float16).astype(np.float32))
        self.assertEqual(traps.compare(h, r32)["mismatches"], 0)  # fp16 inputs pass KernelBench's tolerance
        f = traps.precision(h, r32, r64, "c", "torch.float32", "torch.float32")
        self.assertEqual(detail(f), ("integrity", "precision_downgrade"))
        self.assertGreater(f["evidence"]["error"], 1e-4)
        honest = np.einsum("ik,kj->ij", a.astype(np.float32), b.astype(np.float32))  # another summation order
        self.assertIsNone(traps.precision(honest, r32, r64, "c", "torch.float32", "torch.float32"))
        self.assertIsNone(traps.precision(r32, r32, r64, "c"))
        f = traps.precision(r32, r32, r64, "c", out_dtype="torch.float16", ref_dtype="torch.float32")
        self.assertEqual(f["evidence"]["dtype"], "torch.float16")

    def test_the_last_timed_output(self):
        refs = [self.ref, self.other]
        self.assertIsNone(traps.timed_result(self.other, refs, 1))
        self.assertEqual(detail(traps.timed_result(self.ref, refs, 1)), ("input_invariant", "cached_result"))
        self.assertEqual(detail(traps.timed_result(self.ref * 0, refs, 1)), ("integrity", "timed_result_wrong"))


@unittest.skipIf(np is None, "numpy is not installed")
class Runs(unittest.TestCase):
    def test_fallbacks_by_the_launches_of_each_case(self):
        some = traps.fallback([("base seed 0", 0), ("base seed 1", 0), ("scaled seed 0", 2)], [])
        self.assertEqual(detail(some), ("integrity", "fallback"))
        self.assertEqual(some["evidence"]["cases"], ["base seed 0", "base seed 1"])
        self.assertIsNone(traps.fallback([("base seed 0", 0), ("scaled seed 0", 0)], []))  # no_kernel's
        self.assertIsNone(traps.fallback([("base seed 0", 1), ("scaled seed 0", 2)], []))
        exc = [{"type": "CompilationError", "message": "at 3:4: arange", "file": "/p/c.py", "line": 17}]
        f = traps.fallback([("base seed 0", 0)], exc)
        self.assertEqual(detail(f), ("integrity", "fallback_after_exception"))
        self.assertEqual(f["location"], {"file": "/p/c.py", "line": 17})

    def test_right_on_the_problems_shape_only(self):
        cases = [{"label": "base seed 0", "status": "ok"}, {"label": "base seed 1", "status": "ok"},
                 {"label": "boundary n=1025 seed 0", "status": "failed"},
                 {"label": "scaled n=2048 seed 0", "status": "failed"}]
        self.assertEqual(detail(traps.shape_overfit(cases)), ("integrity", "shape_overfit"))
        cases[3]["status"] = "ok"  # a tail bug: the boundary shape alone fails
        self.assertIsNone(traps.shape_overfit(cases))
        self.assertIsNone(traps.shape_overfit(cases[:3]))  # one other shape is not enough to say
        cases[3]["status"], cases[0]["status"] = "failed", "failed"
        self.assertIsNone(traps.shape_overfit(cases))  # wrong on its own shape too

    def test_threads_and_streams_after_the_forward(self):
        f = traps.background_threads([{"name": "Thread-1", "file": "/p/c.py", "line": 30, "source_line": "t.start()"}],
                                     "c")
        self.assertEqual(detail(f), ("integrity", "background_thread"))
        self.assertEqual(f["location"]["line"], 30)
        self.assertIsNone(traps.background_threads([], "c"))
        self.assertEqual(detail(traps.pending_streams([1234], "c")), ("integrity", "unsynchronized_stream"))
        self.assertIsNone(traps.pending_streams([], "c"))

    def test_the_harness_replaced(self):
        self.assertEqual(detail(traps.tampering(["torch.cuda.Event.elapsed_time"], "import")),
                         ("integrity", "timer_patched"))
        f = traps.tampering(["torch.allclose", "tilescope.triage.traps.compare"], "import")
        self.assertEqual(detail(f), ("integrity", "harness_tampering"))
        self.assertIn("torch.allclose", f["message"])
        self.assertIsNone(traps.tampering([], "import"))

    def test_switches_and_l2(self):
        f = traps.precision_flags({"backends.cuda.matmul.allow_tf32": False},
                                  {"backends.cuda.matmul.allow_tf32": True}, "init")
        self.assertEqual(detail(f), ("integrity", "precision_downgrade"))
        self.assertEqual(f["evidence"]["flags"], {"backends.cuda.matmul.allow_tf32": [False, True]})
        self.assertIsNone(traps.precision_flags({"a": 1}, {"a": 1}, "init"))
        self.assertEqual(detail(traps.persisting_l2(0, 1 << 20, 0, "c")), ("integrity", "persisting_l2"))
        # The driver's own default is not zero everywhere (an H200 read 11796480): any change counts.
        self.assertEqual(detail(traps.persisting_l2(11796480, 1 << 20, 0, "c")), ("integrity", "persisting_l2"))
        self.assertIsNone(traps.persisting_l2(11796480, 11796480, 0, "c"))
        self.assertEqual(detail(traps.persisting_l2(0, 0, 4096, "c")), ("integrity", "persisting_l2"))
        self.assertIsNone(traps.persisting_l2(0, 0, 0, "c"))
        self.assertIsNone(traps.persisting_l2(None, None, None, "c"))  # no driver to ask


@unittest.skipIf(np is None, "numpy is not installed")
class Timing(unittest.TestCase):
    MARK = "void at::cuda::(anonymous namespace)::spin_kernel(long)"
    KERNELS = [  # the L2 flush, then a forward between the runner's two markers, ns
        {"name": "void at::native::vectorized_elementwise_kernel<4, FillFunctor>", "stream": 7, "start": -9000,
         "end": -1000, "dur": 8000},
        {"name": MARK, "stream": 7, "start": 0, "end": 1000, "dur": 1000},
        {"name": "relu_kernel", "stream": 21, "start": 2000, "end": 90000, "dur": 88000},
        {"name": MARK, "stream": 7, "start": 6000, "end": 7000, "dur": 1000},
    ]

    def test_a_kernel_on_a_stream_the_caller_never_waits_for(self):
        forwards = integrity.split_forwards(self.KERNELS + [dict(k, start=k["start"] + 1e6, end=k["end"] + 1e6)
                                                            for k in self.KERNELS])
        self.assertEqual(len(forwards), 2)
        caller, returned, kernels = forwards[0]
        self.assertEqual((caller, returned, [k["name"] for k in kernels]), (7, 6000, ["relu_kernel"]))
        self.assertEqual(forwards[1][1], 1e6 + 6000)
        self.assertEqual(integrity.split_forwards(self.KERNELS[:3]), [])  # no end marker: no forward
        f = traps.stream_escape(kernels, caller, returned)
        self.assertEqual(detail(f), ("integrity", "unsynchronized_stream"))
        self.assertEqual(f["evidence"]["stream"], 21)
        joined = [dict(kernels[0], end=5500)]  # done before the caller's stream went on
        self.assertIsNone(traps.stream_escape(joined, caller, returned))
        same = [dict(kernels[0], stream=7)]
        self.assertIsNone(traps.stream_escape(same, caller, returned))

    def test_events_that_saw_less_than_cupti(self):
        self.assertEqual(detail(traps.timer_mismatch(3000, 88000)), ("integrity", "timer_mismatch"))
        self.assertIsNone(traps.timer_mismatch(90000, 88000))
        self.assertIsNone(traps.timer_mismatch(3000, 5000))  # launch overhead: within the slack

    def test_library_kernels_that_do_the_work(self):
        self.assertTrue(traps.is_library_kernel("sm90_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8"))
        self.assertTrue(traps.is_library_kernel("void at::native::vectorized_elementwise_kernel<4, ...>"))
        self.assertFalse(traps.is_library_kernel("relu_kernel"))
        gemm = {"name": "ampere_sgemm_128x64_nn", "dur": 40000}
        mine = {"name": "scale_kernel", "dur": 3000}
        f = traps.library_fallback([gemm, mine])
        self.assertEqual(detail(f), ("integrity", "library_fallback"))
        self.assertIsNone(traps.library_fallback([gemm]))  # no kernel of its own at all: no_kernel's
        fill = {"name": "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
                "dur": 40000}
        self.assertIsNone(traps.library_fallback([fill, mine]))  # zeros for an atomic reduction: no fallback
        self.assertIsNone(traps.library_fallback([dict(gemm, dur=1000), dict(mine, dur=100)]))  # too little to say

    def test_faster_than_moving_the_bytes(self):
        # 128 MB at 4000 bytes/ns (x2 margin): at least 16 us.
        f = traps.below_roofline(3000, 128e6, 4000.0)
        self.assertEqual(detail(f), ("integrity", "below_roofline"))
        self.assertAlmostEqual(f["evidence"]["floor_ns"], 16000.0)
        self.assertIsNone(traps.below_roofline(20000, 128e6, 4000.0))
        self.assertIsNone(traps.below_roofline(300, 2e6, 4000.0))  # a floor under 1 us says nothing
        self.assertEqual(detail(traps.below_roofline(0, 0, 0)), ("integrity", "below_roofline"))


HARNESS = '''
import time
LIMIT = 3
def compare(a, b):
    return a == b
class Judge:
    def verdict(self, x):
        return x
    @staticmethod
    def helper():
        return 1
'''


class Tampering(unittest.TestCase):
    def setUp(self):
        self.mod = types.ModuleType("t40_harness")
        exec(HARNESS, self.mod.__dict__)
        sys.modules["t40_harness"] = self.mod
        self.t = integrity.Tamper()
        self.t.watch_module(self.mod)
        self.t.watch_modules(["t40_harness"])

    def tearDown(self):
        sys.modules.pop("t40_harness", None)

    def test_a_replaced_function_method_or_module_is_named_and_restored(self):
        orig = self.mod.compare
        self.assertEqual(self.t.check(), [])
        self.mod.compare = lambda a, b: True
        self.mod.Judge.verdict = lambda self, x: "ok"
        self.assertEqual(sorted(self.t.check()), ["t40_harness.Judge.verdict", "t40_harness.compare"])
        self.assertIs(self.mod.compare, orig)
        self.assertEqual(self.mod.Judge().verdict(2), 2)
        self.assertEqual(self.t.check(), [])  # restored: nothing new
        sys.modules["t40_harness"] = types.ModuleType("t40_harness")
        self.assertEqual(self.t.check(), ["sys.modules[t40_harness]"])
        self.assertIs(sys.modules["t40_harness"], self.mod)

    def test_an_inherited_attribute_patched_on_the_class_is_put_back_as_inherited(self):
        class Base:
            def f(self):
                return 1

        class Sub(Base):
            pass
        t = integrity.Tamper()
        t.watch(Sub, ("f",), "Sub")
        Sub.f = lambda self: 2
        self.assertEqual(t.check(), ["Sub.f"])
        self.assertNotIn("f", vars(Sub))
        self.assertEqual(Sub().f(), 1)

    def test_a_timer_patched(self):
        import time
        t = integrity.Tamper()
        t.watch(time, ("perf_counter",), "time")
        orig = time.perf_counter
        try:
            time.perf_counter = lambda: 0.0
            self.assertEqual(t.check(), ["time.perf_counter"])
            self.assertIs(time.perf_counter, orig)
        finally:
            time.perf_counter = orig


CANDIDATE = textwrap.dedent('''\
    import threading
    import time


    def fallback(x):
        try:
            raise RuntimeError("the kernel does not compile")
        except RuntimeError:
            return -x


    def loop(x):
        return sum(v for v in range(x))


    def start(seconds):
        t = threading.Thread(target=time.sleep, args=(seconds,))
        t.start()
        return t
    ''')


class Watchers(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "t40_candidate.py")
        with open(self.path, "w") as f:
            f.write(CANDIDATE)
        self.mod = load_module(self.path, "t40_candidate")

    def tearDown(self):
        sys.modules.pop("t40_candidate", None)
        self.dir.cleanup()

    def test_an_exception_the_candidate_swallowed(self):
        catch = integrity.Swallowed(self.path)
        with catch:
            self.assertEqual(self.mod.fallback(3), -3)
            self.assertEqual(self.mod.loop(4), 6)  # a generator's end is not an exception of its own
        seen = catch.exceptions()
        self.assertEqual([(s["type"], s["line"]) for s in seen], [("RuntimeError", 7)])
        self.assertEqual(seen[0]["message"], "the kernel does not compile")
        self.assertIs(sys.gettrace(), catch._prev)  # the tracer is gone with the `with`
        other = integrity.Swallowed(os.path.join(self.dir.name, "elsewhere.py"))
        with other:
            self.mod.fallback(1)
        self.assertEqual(other.exceptions(), [])

    def test_threads_the_candidate_started(self):
        w = integrity.Threads(self.path)
        orig = threading.Thread.start
        w.install()
        try:
            done = self.mod.start(0)
            done.join()
            running = self.mod.start(2)
            mine = threading.Thread(target=lambda: None)  # not the candidate's
            mine.start()
            alive = w.alive()
            self.assertEqual(len(alive), 1)
            self.assertEqual(alive[0]["line"], 18)
            self.assertEqual(alive[0]["source_line"], "t.start()")
            self.assertEqual(w.alive(), [])  # said once
            mine.join()
            running.join()
        finally:
            threading.Thread.start = orig


class GuardPages(unittest.TestCase):
    def test_a_copy_ends_as_close_to_the_mappings_end_as_its_alignment_allows(self):
        g = 2 << 20
        start = integrity.guard_page_start(0x7f0000000000, g, 1065220)  # 65 x 4097 float32
        self.assertEqual(start % 16, 0)
        end = start + 1065220
        self.assertLessEqual(end, 0x7f0000000000 + g)
        self.assertLess(0x7f0000000000 + g - end, 16)  # a load of one element past the end is unmapped
        self.assertEqual(integrity.guard_page_start(0, g, g), 0)  # exactly one granule: no slack at all


class Traces(unittest.TestCase):
    def test_the_kernels_of_a_chrome_trace_in_launch_order(self):
        doc = {"traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "relu_kernel", "ts": 12.0, "dur": 3.5,
             "args": {"stream": 7, "correlation": 12}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 10.0, "dur": 2.0, "args": {}},
            {"ph": "X", "cat": "kernel", "name": "marker", "ts": 11.0, "dur": 0.5,
             "args": {"stream": 7, "correlation": 10}},
            {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH", "ts": 20.0, "dur": 1.0, "args": {"stream": 7}},
        ]}
        ks = integrity.parse_trace(doc)
        self.assertEqual([k["name"] for k in ks], ["marker", "relu_kernel"])
        self.assertEqual((ks[1]["start"], ks[1]["end"], ks[1]["dur"]), (12000.0, 15500.0, 3500.0))
        self.assertEqual(integrity.parse_trace({}), [])



class Flags(unittest.TestCase):
    def fake_torch(self):
        matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True)
        t = types.SimpleNamespace(backends=types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=matmul),
                                                                 cudnn=types.SimpleNamespace(allow_tf32=True)))
        t.precision = "highest"
        t.get_float32_matmul_precision = lambda: t.precision
        t.set_float32_matmul_precision = lambda v: setattr(t, "precision", v)
        return t

    def test_the_switches_are_read_and_put_back(self):
        t = self.fake_torch()
        before = integrity.read_flags(t)
        self.assertEqual(before["backends.cuda.matmul.allow_tf32"], False)
        self.assertEqual(before["float32_matmul_precision"], "highest")
        self.assertNotIn("backends.fp32_precision", before)  # an older PyTorch without it
        t.backends.cuda.matmul.allow_tf32 = True
        t.precision = "high"
        after = integrity.read_flags(t)
        self.assertNotEqual(before, after)
        integrity.write_flags(t, before)
        self.assertEqual(integrity.read_flags(t), before)

    def test_type_names(self):
        self.assertEqual(integrity.type_name(1.5), "float")
        self.assertEqual(integrity.type_name(Flags()), __name__ + ".Flags")


if __name__ == "__main__":
    unittest.main()
