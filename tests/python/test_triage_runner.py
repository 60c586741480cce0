"""Unit tests of the triage runner's pure parts (resources/python/tilescope/triage):
pairing, the traps on numpy arrays, locating an exception's line, the problem's
shapes.  No GPU and no PyTorch: the tests that need numpy skip without it."""
import os
import sys
import tempfile
import textwrap
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "resources", "python"))

from tilescope.triage import locate, pairing, problem  # noqa: E402

try:
    import numpy as np
    from tilescope.triage import traps
except ImportError:  # a plain python3 without numpy
    np = None

REFERENCE = "import torch\nclass Model(torch.nn.Module):\n    pass\ndef get_inputs():\n    return []\n"
CANDIDATE = "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n"


def write(root, rel, text):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
    return p


class Pairing(unittest.TestCase):
    def test_roles(self):
        self.assertEqual(pairing.role(REFERENCE), "reference")
        self.assertEqual(pairing.role(CANDIDATE), "candidate")
        self.assertEqual(pairing.role(REFERENCE + CANDIDATE), "both")
        self.assertIsNone(pairing.role("class Model:\n    pass\n"))  # no get_inputs: not a problem
        self.assertIsNone(pairing.role("x = 'class ModelNew(' \n"))

    def test_the_three_rules_and_what_is_left(self):
        with tempfile.TemporaryDirectory() as d:
            r1 = write(d, "17_relu.py", REFERENCE)
            c1 = write(d, "17_relu_new.py", CANDIDATE)
            r2 = write(d, "set/reference/3_gemm.py", REFERENCE)
            c2 = write(d, "set/candidate/3_gemm.py", CANDIDATE)
            both = write(d, "solo.py", REFERENCE + CANDIDATE)
            lonely = write(d, "9_lonely.py", REFERENCE)
            orphan = write(d, "set/candidate/4_orphan_new.py", CANDIDATE)
            write(d, "helpers.py", "def f():\n    pass\n")
            pairs, unpaired = pairing.scan(d)
            self.assertIn((r1, c1), pairs)
            self.assertIn((r2, c2), pairs)
            self.assertIn((both, both), pairs)
            self.assertEqual(len(pairs), 3)
            self.assertIn((lonely, "reference"), unpaired)
            self.assertIn((orphan, "candidate"), unpaired)

    def test_a_reference_pairs_once(self):
        pairs, unpaired = pairing.pair([("a/x.py", "reference"), ("a/x_new.py", "candidate"),
                                        ("a/candidate/x.py", "candidate")])
        self.assertEqual(pairs, [("a/x.py", "a/x_new.py")])
        self.assertEqual(unpaired, [("a/candidate/x.py", "candidate")])


@unittest.skipIf(np is None, "numpy is not installed")
class Traps(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(0)
        self.ref = rng.standard_normal((16, 16)).astype(np.float32)
        self.x = rng.standard_normal((16, 16)).astype(np.float32)

    def test_compare_counts_and_tolerates(self):
        s = traps.compare(self.ref + 1e-4, self.ref)
        self.assertEqual(s["mismatches"], 0)
        bad = self.ref.copy()
        bad[3, 4] += 1.0
        s = traps.compare(bad, self.ref)
        self.assertEqual(s["mismatches"], 1)
        self.assertEqual(s["first_mismatch"], [3, 4])
        self.assertAlmostEqual(s["max_abs_err"], 1.0, places=5)
        self.assertTrue(traps.compare(np.zeros(3), np.zeros(4))["shape_mismatch"])

    def test_nan_where_the_reference_is_finite(self):
        out = self.ref.copy()
        out[0, 0] = np.nan
        f = traps.nan_inf(out, self.ref, "base seed 0")
        self.assertEqual(f["category"], "nan_inf")
        self.assertEqual(f["evidence"]["nan"], 1)
        ref_nan = self.ref.copy()
        ref_nan[0, 0] = np.nan
        self.assertIsNone(traps.nan_inf(out, ref_nan, "c"))  # NaN where the reference has NaN is right

    def test_all_zero_and_constant(self):
        self.assertEqual(traps.all_zero(np.zeros_like(self.ref), self.ref, "c")["category"], "all_zero")
        self.assertIsNone(traps.all_zero(np.zeros(4), np.zeros(4), "c"))  # the reference is zero too
        self.assertEqual(traps.constant(np.full_like(self.ref, 0.5), self.ref, "c")["category"], "constant_output")
        self.assertIsNone(traps.constant(np.full(4, 2.0), np.full(4, 2.0), "c"))
        self.assertIsNone(traps.constant(np.zeros(4), self.ref, "c"))  # all_zero names that one

    def test_output_equal_to_an_input(self):
        f = traps.equals_input(self.x, [self.ref, self.x], self.ref, "c")
        self.assertEqual(f["category"], "output_is_input")
        self.assertEqual(f["evidence"]["input"], 1)
        # An identity operation: the reference returns the input too.
        self.assertIsNone(traps.equals_input(self.x, [self.x], self.x, "c"))

    def test_output_that_ignores_its_inputs(self):
        refs = [self.ref, self.x]
        self.assertEqual(traps.input_invariant([self.ref, self.ref], refs, "base")["category"], "input_invariant")
        self.assertIsNone(traps.input_invariant(refs, refs, "base"))
        # Memory never written (the poison, NaN, every time): the uninitialised-read trap's, not this one's.
        nan = np.full_like(self.ref, np.nan)
        self.assertIsNone(traps.input_invariant([nan, nan.copy()], refs, "base"))

    def test_poison_and_trials_tell_a_race_from_unwritten_memory(self):
        unwritten = self.ref.copy()
        unwritten[-1, :] = np.nan            # poison A: NaN
        other = self.ref.copy()
        other[-1, :] = 0.0115                # poison B: finite
        f = traps.poison_and_trials(unwritten, unwritten.copy(), other, "c")
        self.assertEqual(f["category"], "uninitialized_read")
        self.assertEqual(f["evidence"]["elements"], 16)
        racy = self.ref.copy()
        racy[2, 2] += 3
        self.assertEqual(traps.poison_and_trials(self.ref, racy, self.ref, "c")["category"], "race")
        self.assertIsNone(traps.poison_and_trials(self.ref, self.ref + 1e-6, self.ref, "c"))

    def test_transposed_output_is_a_detail_of_the_mismatch(self):
        stats = traps.compare(self.ref.T, self.ref)
        found = traps.output_traps(self.ref.T, self.ref, [self.x], "c", stats)
        self.assertEqual([f["category"] for f in found], ["mismatch"])
        self.assertEqual(found[0]["detail"], "transposed")

    def test_timing_that_does_not_grow_with_the_work(self):
        f = traps.timing_scaling(10e3, 10.5e3, 20e3, 40e3)
        self.assertEqual(f["category"], "timing_not_scaling")
        self.assertEqual(f["severity"], "warning")
        self.assertIsNone(traps.timing_scaling(10e3, 19e3, 20e3, 40e3))
        self.assertIsNone(traps.timing_scaling(5e3, 5e3, 5e3, 5.1e3))  # launch-bound: neither grows
        # An honest launch-bound candidate: flat, but slower than the reference.
        self.assertIsNone(traps.timing_scaling(30e3, 31e3, 8e3, 14e3))

    def test_a_stretched_timing_is_timed_again_before_it_is_a_finding(self):
        from contextlib import nullcontext

        from tilescope.triage import cases

        def confirmed(second):
            """The first timing suspicious (the reference x3.7, the candidate flat);
            `second`: (candidate, reference) ns of the base and the scaled shape again."""
            scripted = iter(second)
            saved = cases._timed, problem.Shape
            cases._timed = lambda *a: (*next(scripted), 100)
            problem.Shape = lambda *a: nullcontext()
            try:
                return cases._scaling_confirmed(None, None, None, None, {"base": {}, "scaled": {}}, ([], []),
                                                ([], []), (5.0e3, 5.3e3, 5.4e3, 20e3))
            finally:
                cases._timed, problem.Shape = saved
        # Another slot's kernels stretched the reference's scaled timing: gone the second time.
        self.assertIsNone(confirmed([(5.0e3, 5.4e3), (5.2e3, 5.9e3)]))
        # A candidate that does no work stays flat however often it is timed.
        f = confirmed([(5.1e3, 5.5e3), (5.2e3, 19e3)])
        self.assertEqual(f["category"], "timing_not_scaling")
        self.assertTrue(f["evidence"]["timed_twice"])


TRITON_ERROR = textwrap.dedent("""\
    at 5:8:
    def add_kernel(x_ptr, y_ptr, n):
        pid = tl.program_id(0)
        offs = pid * 128 + tl.arange(0, n)
        x = tl.load(x_ptr + offs)
        y = tl.dot(x, x)
            ^
    Input shapes should have M >= 1, N >= 1 and K >= 16""")

CANDIDATE_SOURCE = textwrap.dedent("""\
    import triton
    import triton.language as tl


    @triton.jit
    def add_kernel(x_ptr, y_ptr, n):
        pid = tl.program_id(0)
        offs = pid * 128 + tl.arange(0, n)
        x = tl.load(x_ptr + offs)
        y = tl.dot(x, x)
        tl.store(y_ptr + offs, y)
    """).splitlines()


class Locate(unittest.TestCase):
    def test_triton_line_counts_from_the_def(self):
        line, col, text = locate.locate_triton(TRITON_ERROR, CANDIDATE_SOURCE)
        self.assertEqual(line, 10)  # def on line 6, relative line 5
        self.assertEqual(col, 9)
        self.assertEqual(text.strip(), "y = tl.dot(x, x)")

    def test_triton_quoted_text_decides_when_lines_moved(self):
        moved = CANDIDATE_SOURCE[:7] + ["    # a comment the compiler did not see"] + CANDIDATE_SOURCE[7:]
        self.assertEqual(locate.locate_triton(TRITON_ERROR, moved)[0], 11)
        self.assertIsNone(locate.locate_triton("no position here", CANDIDATE_SOURCE))

    def test_innermost_frame_of_the_candidate(self):
        frames = [("/x/runner.py", 10, "model(x)"), ("/p/cand.py", 20, "k[grid](x)"),
                  ("/site/torch/f.py", 99, "raise")]
        self.assertEqual(locate.locate_frames(frames, "/p/cand.py"), (20, 0, "k[grid](x)"))
        self.assertIsNone(locate.locate_frames(frames[:1], "/p/cand.py"))

    def test_an_exception_raised_in_the_candidate(self):
        with tempfile.TemporaryDirectory() as d:
            path = write(d, "cand.py", "def forward(x):\n    y = x + 1\n    return y.missing\n")
            mod = problem.load_module(path, "t28_locate_candidate")
            try:
                mod.forward(1)
            except AttributeError as e:
                where = locate.locate(e, path)
            self.assertEqual(where["line"], 3)
            self.assertEqual(where["source_line"].strip(), "return y.missing")


class Shapes(unittest.TestCase):
    def module(self, text):
        mod = types.ModuleType("t28_shapes")
        exec(textwrap.dedent(text), mod.__dict__)
        return mod

    def test_size_globals_are_the_inputs_own(self):
        ref = self.module("""
            batch_size = 16
            dim = 4096
            in_features = 64
            use_bias = True
            class Model:
                def __init__(self, f):
                    self.f = f
            def get_inputs():
                return [batch_size, dim, in_features]
            def get_init_inputs():
                return [in_features]
            """)
        self.assertEqual(problem.size_globals(ref), ["batch_size", "dim"])
        labels = [(l, v) for l, v in problem.variants(ref)]
        self.assertEqual(labels[0], ("base", {"batch_size": 16, "dim": 4096}))
        self.assertEqual(labels[1], ("boundary", {"batch_size": 17, "dim": 4097}))
        self.assertEqual(labels[2], ("scaled", {"batch_size": 32, "dim": 4096}))
        with problem.Shape(ref, labels[1][1]):
            self.assertEqual(ref.get_inputs()[:2], [17, 4097])
        self.assertEqual(ref.dim, 4096)

    def test_a_problem_may_name_its_sizes_and_tolerances(self):
        ref = self.module("""
            n = 8
            m = 3
            TRIAGE = {"size_globals": ["m"], "rtol": 1e-3, "atol": 1e-4}
            def get_inputs():
                return [n, m]
            def get_init_inputs():
                return []
            """)
        self.assertEqual(problem.size_globals(ref), ["m"])
        self.assertEqual(problem.tolerances(ref, 1e-2, 1e-2), (1e-3, 1e-4))


class Progress(unittest.TestCase):
    """Each phase leaves the runner's progress (status "running") where its answer
    goes: what a limit that kills it before the answer leaves the C++ side to report."""

    def test_each_phase_is_written_and_the_answer_replaces_it(self):
        import json

        from tilescope.triage import run
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "runner.json")
            args = types.SimpleNamespace(reference="r.py", candidate="c.py", out=out)
            a = run.Answer(args)
            a.phase("import_candidate")
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual(doc["status"], "running")
            self.assertEqual(doc["phase"], "import_candidate")
            a.doc["cases"].append({"label": "base seed 0", "status": "ok"})
            a.phase("forward")
            with open(out) as f:
                doc = json.load(f)
            self.assertEqual((doc["phase"], len(doc["cases"])), ("forward", 1))
            self.assertEqual(a.doc["status"], "ok")  # the answer itself is not changed
            self.assertEqual(a.write(), 0)
            with open(out) as f:
                self.assertEqual(json.load(f)["status"], "ok")


if __name__ == "__main__":
    unittest.main()
