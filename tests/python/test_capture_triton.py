"""Tests of the Triton recorder wired into Triton 3.6 itself: a real
CompiledKernel (compiled for sm_90 without a GPU), the wrapped
CompiledKernel.launch_metadata, knobs.runtime's HookChains and the Autotuner.
Skipped where triton or numpy is not installed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture_fakes as fk  # noqa: E402

fk.load_capture()
try:
    import triton
except ImportError:
    triton = None

needs_triton = unittest.skipIf(triton is None or fk.np is None, "triton and numpy needed")


@needs_triton
class TritonTests(fk.RecorderBase):
    """The recorder wired into Triton 3.6 itself: the real CompiledKernel
    (compiled without a GPU), launch_metadata and the knobs' HookChains."""

    @classmethod
    def setUpClass(cls):
        cls.cache = tempfile.mkdtemp(prefix="tscap-triton-")
        cls.saved_cache = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = cls.cache         # compile into a throwaway cache
        import capture_kernels
        cls.kernels = capture_kernels
        cls.kernel = capture_kernels.compile_add()
        cls.kernel.module = object()             # skip _init_handles (it needs a GPU)
        cls.kernel.function = 0xBEEF

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.cache, True)
        if cls.saved_cache is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = cls.saved_cache

    def setUp(self):
        super().setUp()
        from tilescope.capture import hooks
        self.rec = self.recorder()
        hooks.patch_triton(self.rec)
        self.addCleanup(hooks.unpatch, self.rec)

    def launch(self, grid, args, effect=None):
        from triton import knobs
        md = self.kernel.launch_metadata(grid, 0, *args)
        knobs.runtime.launch_enter_hook(md)      # what the C launcher does
        if effect:
            effect()
        knobs.runtime.launch_exit_hook(md)

    def test_real_kernel_through_triton_hooks(self):
        x, y, out = fk.tensor([1.0] * 300), fk.tensor([2.0] * 300), fk.tensor([0.0] * 300)
        self.launch((2,), [x, y, out, 300, 256], lambda: out.buf.__setitem__(slice(None), 3.0))
        r = self.record("t%d-0000" % os.getpid())
        md = self.kernel.metadata
        self.assertEqual((r["symbol"], r["shared_bytes"], r["block"]), (md.name, md.shared, [128, 1, 1]))
        self.assertEqual(r["triton"]["constexprs"], {"BLOCK": 256})
        self.assertEqual(r["triton"]["version"], triton.__version__)
        self.assertEqual(r["triton"]["signature"]["n"], "i32")
        self.assertEqual(r["source"]["file"], os.path.abspath(self.kernels.__file__))
        with open(os.path.join(self.root, "launches", r["id"], "kernel.cubin"), "rb") as f:
            self.assertEqual(f.read(), self.kernel.asm["cubin"])
        self.assertEqual([a["changed"] for a in r["args"][:3]], [False, False, True])
        self.assertEqual(self.inj.claims, [0xBEEF])

    def test_autotuner_benchmarks_are_not_recorded(self):
        from triton.runtime.autotuner import Autotuner, Config
        test = self

        class Fn:                                # a JITFunction as the autotuner sees it
            fn = staticmethod(test.kernels.add_kernel.fn)
            arg_names = test.kernels.add_kernel.arg_names

            def run(self, *args, BLOCK, **options):
                test.launch((1,), [*args, BLOCK])

        tuner = Autotuner(Fn(), Fn.arg_names, [Config({"BLOCK": 128}), Config({"BLOCK": 256}, num_warps=8)],
                          ["n"], None, None, do_bench=lambda call, quantiles: (call(), [1.0, 1.0, 1.0])[1])
        x = fk.tensor([1.0] * 64)
        tuner.run(x, x, x, 64)
        self.assertEqual(len(self.inj.claims), 3)          # two benchmark runs and the real one
        self.assertEqual([os.path.basename(d) for d in fk.launch_dirs(self.root)], ["t%d-0000" % os.getpid()])
        r = self.record("t%d-0000" % os.getpid())
        self.assertEqual((r["seq"], r["triton"]["autotuned"]), (0, True))
        self.assertEqual(r["triton"]["config"]["BLOCK"], 128)
        self.assertEqual(r["triton"]["config"]["num_warps"], 4)

    def test_program_replacing_the_hook_chain_is_followed(self):
        from triton import knobs
        saved = knobs.runtime.launch_enter_hook
        knobs.runtime.launch_enter_hook = type(saved)()      # a fresh HookChain
        self.addCleanup(setattr, knobs.runtime, "launch_enter_hook", saved)
        x = fk.tensor([1.0] * 8)
        self.launch((1,), [x, x, x, 8, 256])
        self.assertIn(self.rec.enter_hook, knobs.runtime.launch_enter_hook.calls)
        self.assertEqual(len(fk.launch_dirs(self.root)), 1)

    def test_import_hook_patches_triton_in_a_child(self):
        code = ("import triton, json; from triton.compiler.compiler import CompiledKernel as K; "
                "from triton import knobs; import tilescope.capture as t; "
                "print(json.dumps([hasattr(K.launch_metadata, '_tilescope_original'), "
                "t.RECORDER.enter_hook in knobs.runtime.launch_enter_hook.calls]))")
        env = dict(os.environ, PYTHONPATH=fk.SITE, TILESCOPE_CAPTURE_DIR=self.root)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout.splitlines()[-1]), [True, True])


if __name__ == "__main__":
    unittest.main()
