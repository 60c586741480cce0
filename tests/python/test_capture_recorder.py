"""Tests of TileScope's Triton launch recorder (resources/python/tilescope/capture).

Run with the Triton venv (numpy added) for everything, or with any python3 >=
3.10: tests needing numpy or triton then skip.  No GPU and no torch needed:
launches are handed to the recorder with fake tensors, a fake device and a
fake injection library (capture_fakes.py).  test_capture_triton.py drives
Triton's own hook chain with a real kernel.
"""
import ctypes
import ctypes.util
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import capture_fakes as fk  # noqa: E402

fk.load_capture()
from tilescope.capture import selection  # noqa: E402

read_events, launch_dirs = fk.read_events, fk.launch_dirs
needs_numpy = unittest.skipIf(fk.np is None, "numpy is not installed in this Python")


class SelectionTests(unittest.TestCase):

    def test_regex_is_searched_in_the_name(self):
        s = selection.Selector("add|mul", skip=0)
        self.assertTrue(s.decide("fused_add_kernel", None))
        self.assertFalse(s.decide("softmax", None))

    def test_skip_and_count_window_over_matching_launches(self):
        s = selection.Selector("^k", skip=2, count=3)
        picks = [s.decide(name, None) for name in ["k", "x", "k", "k", "x", "k", "k", "k", "k"]]
        # matching launches are k#0..k#6; #2, #3, #4 are taken
        self.assertEqual([i for i, p in enumerate(picks) if p], [3, 5, 6])

    def test_count_alone_and_skip_alone(self):
        s = selection.Selector(None, count=2)
        self.assertEqual([s.decide("k", None) for _ in range(4)], [True, True, False, False])
        s = selection.Selector(None, skip=3)
        self.assertEqual([s.decide("k", None) for _ in range(5)], [False, False, False, True, True])

    def test_default_records_first_launch_of_each_distinct_key(self):
        s = selection.Selector(None)
        keys = ["a", "a", "b", "a", "b", "c"]
        self.assertEqual([s.decide("k", lambda k=k: k) for k in keys], [True, False, True, False, False, True])

    def test_bad_regex_selects_nothing_and_says_why(self):
        s = selection.Selector("(")
        self.assertFalse(s.decide("k", lambda: 1))
        self.assertIn("not a Python regular expression", s.error)

    def test_settings_from_env(self):
        st = selection.Settings.from_env({"TILESCOPE_CAPTURE_DIR": "/x", "TILESCOPE_CAPTURE_MAX_BYTES": "2G",
                                          "TILESCOPE_CAPTURE_LAUNCH_SKIP": "4", "TILESCOPE_CAPTURE_KERNEL": "mm"})
        self.assertEqual((st.out_dir, st.max_bytes, st.skip, st.count, st.kernel_pattern), ("/x", 2 << 30, 4, None, "mm"))
        self.assertEqual(selection.Settings.from_env({}).max_bytes, 4 << 30)
        self.assertEqual(selection.parse_bytes("junk", 7), 7)


@needs_numpy
class RecorderTests(fk.RecorderBase):

    def test_launch_json_and_npy_files(self):
        rec = self.recorder()
        x, y, out = self.add_launch(rec)
        rid = "t%d-0000" % os.getpid()
        r = self.record(rid)
        self.assertEqual((r["schema"], r["recorder"], r["language"], r["id"], r["pid"], r["seq"]),
                         ("tilescope.launch/1", "triton", "triton", rid, os.getpid(), 0))
        self.assertEqual((r["kernel"], r["symbol"], r["grid"], r["block"], r["shared_bytes"], r["cluster"]),
                         ("add_kernel", "add_kernel", [4, 1, 1], [128, 1, 1], 1024, [1, 1, 1]))
        t = r["triton"]
        self.assertEqual((t["num_warps"], t["num_stages"], t["num_ctas"], t["constexprs"], t["specialized"]),
                         (4, 3, 1, {"BLOCK": 256}, {}))
        self.assertEqual(t["signature"]["x_ptr"], "*fp32")
        self.assertEqual(t["attrs"], {"x_ptr": [["tt.divisibility", 16]]})
        self.assertFalse(t["autotuned"])
        self.assertEqual((r["index"], r["kernel_ns"]), (100, 1234.5))
        self.assertEqual(self.inj.claims, [0x5A5A])
        names = [a["name"] for a in r["args"]]
        self.assertEqual(names, ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"])
        xa, oa = r["args"][0], r["args"][2]
        self.assertEqual((xa["kind"], xa["dtype"], xa["torch_dtype"], xa["shape"], xa["strides"], xa["nbytes_span"]),
                         ("tensor", "f32", "torch.float32", [1000], [1], 4000))
        self.assertEqual((xa["before"], xa["after"], xa["changed"], oa["changed"]),
                         ("x_ptr.before.npy", "x_ptr.after.npy", False, True))
        self.assertEqual(r["args"][3], {"name": "n", "kind": "scalar", "type": "i32", "value": 1000})
        self.assertEqual(r["args"][4], {"name": "BLOCK", "kind": "constexpr", "value": 256})
        folder = os.path.join(self.root, "launches", rid)
        before = fk.np.load(os.path.join(folder, "out_ptr.before.npy"))
        after = fk.np.load(os.path.join(folder, "out_ptr.after.npy"))
        self.assertEqual((before.dtype.str, before.shape), ("<f4", (1000,)))
        self.assertTrue((before == 0).all() and (after == x.values() + 2).all())
        with open(os.path.join(folder, "kernel.cubin"), "rb") as f:
            self.assertEqual(f.read(), b"\x7fELF-fake-cubin")
        src = r["source"]
        self.assertEqual((src["file"], src["function"]), (os.path.abspath(fk.__file__), "add_kernel"))
        with open(src["file"]) as f:
            self.assertTrue(f.readlines()[src["def_line"] - 1].startswith("def add_kernel("))
        with open(os.path.join(self.root, src["copy"]), "rb") as a, open(src["file"], "rb") as b:
            self.assertEqual(a.read(), b.read())
        events = read_events(self.root)
        self.assertEqual(events[-1], {"event": "launch", "recorder": "triton", "id": rid, "pid": os.getpid(),
                                      "kernel": "add_kernel", "grid": [4, 1, 1], "index": 100})
        self.assertTrue(os.path.exists(os.path.join(self.root, "env-%d.json" % os.getpid())))

    def test_specialized_scalar_and_none_argument(self):
        rec = self.recorder()
        x = fk.tensor([1.0] * 8)
        fk.launch(rec, fk.fake_kernel(n_specialized=True), (1, 2), [x, None, x, 1, 256])
        r = self.record("t%d-0000" % os.getpid())
        self.assertEqual(r["grid"], [1, 2, 1])
        self.assertEqual(r["triton"]["specialized"], {"n": 1})
        self.assertEqual(r["args"][1], {"name": "y_ptr", "kind": "none"})
        self.assertEqual(r["args"][3], {"name": "n", "kind": "scalar", "type": "i32", "value": 1, "specialized": True})
        self.assertEqual(r["aliases"], [["x_ptr", "out_ptr"]])

    def test_folder_appears_only_when_complete(self):
        rec = self.recorder()
        x = fk.tensor([1.0] * 8)
        md = fk.Md()
        md._tilescope_launch = (fk.fake_kernel(), (1,), 0, (x, x, x, 8, 256))
        rec.enter_hook(md)
        rid = "t%d-0000" % os.getpid()
        self.assertEqual([os.path.basename(d) for d in launch_dirs(self.root)], [".tmp-" + rid])
        rec.exit_hook(md)
        self.assertEqual([os.path.basename(d) for d in launch_dirs(self.root)], [rid])
        self.assertTrue(os.path.exists(os.path.join(self.root, "launches", rid, "launch.json")))

    def test_launch_that_never_exits_is_dropped_whole(self):
        rec = self.recorder(skip=0)
        x = fk.tensor([1.0] * 8)
        md = fk.Md()
        md._tilescope_launch = (fk.fake_kernel(), (1,), 0, (x, x, x, 8, 256))
        rec.enter_hook(md)                       # the launch raised: no exit hook
        self.add_launch(rec)
        pid = os.getpid()
        self.assertEqual([os.path.basename(d) for d in launch_dirs(self.root)], ["t%d-0001" % pid])
        self.assertTrue(any("t%d-0000" % pid in e.get("message", "") for e in read_events(self.root)))

    def test_tensor_over_max_bytes_is_described_not_saved(self):
        rec = self.recorder(max_bytes=100)
        self.add_launch(rec)
        r = self.record("t%d-0000" % os.getpid())
        self.assertEqual(r["skipped"][0], {"arg": "x_ptr", "reason": "3.9 KiB above --max-bytes (100 B): not saved"})
        self.assertEqual(len(r["skipped"]), 3)
        self.assertEqual(r["args"][0]["shape"], [1000])
        self.assertNotIn("before", r["args"][0])
        self.assertEqual(glob.glob(os.path.join(self.root, "launches", "*", "*.npy")), [])

    def test_unsupported_dtype_bf16_bool_and_strided_view(self):
        rec = self.recorder()
        c = fk.tensor([1.0, 2.0], dtype="torch.complex64")
        bf = fk.tensor([0x3F80, 0x4000], dtype="torch.bfloat16", np_dtype=fk.np.uint16)
        flags = fk.tensor([1, 0, 1], dtype="torch.bool", np_dtype=fk.np.uint8)
        base = fk.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        view = fk.FakeTensor(base.buf, (3, 2), strides=(1, 3), base=base.base)  # base.T
        fk.launch(rec, fk.fake_kernel(), (1,), [c, (bf, flags), view, 3, 256])
        rid = "t%d-0000" % os.getpid()
        r = self.record(rid)
        folder = os.path.join(self.root, "launches", rid)
        self.assertIn("unsupported", r["args"][0])
        self.assertNotIn("before", r["args"][0])
        self.assertFalse(glob.glob(os.path.join(folder, "x_ptr.*")))
        items = r["args"][1]["items"]
        self.assertEqual((items[0]["dtype"], items[1]["dtype"], items[1]["torch_dtype"]), ("bf16", "u8", "torch.bool"))
        bits = fk.np.load(os.path.join(folder, items[0]["before"]))
        self.assertEqual((bits.dtype.str, bits.tolist()), ("<u2", [0x3F80, 0x4000]))
        self.assertTrue(any("bool" in n for n in r["notes"]) and any("bf16" in n for n in r["notes"]))
        t = fk.np.load(os.path.join(folder, "out_ptr.before.npy"))
        self.assertEqual(t.tolist(), [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]])
        self.assertEqual(r["args"][2]["strides"], [1, 3])

    def test_exception_inside_recorder_becomes_a_note(self):
        rec = self.recorder()
        self.device.fail_sync = True
        self.add_launch(rec)                     # must not raise
        self.assertEqual(launch_dirs(self.root), [])
        self.assertTrue(any("enter step failed" in e.get("message", "") and "device lost" in e["message"]
                            for e in read_events(self.root)))
        self.device.fail_sync = False
        self.device.fail_timer = True
        self.add_launch(rec, n=10)
        self.assertEqual(launch_dirs(self.root), [])
        self.assertTrue(any("exit step failed" in e.get("message", "") for e in read_events(self.root)))
        rec.enter_hook(fk.Md())                  # a launch not seen by launch_metadata: ignored

    def test_benchmark_launches_are_claimed_not_recorded(self):
        rec = self.recorder()
        rec.local.bench += 1
        self.add_launch(rec)
        rec.local.bench -= 1
        self.assertEqual((launch_dirs(self.root), self.inj.claims), ([], [0x5A5A]))
        self.add_launch(rec)
        self.assertEqual(self.record("t%d-0000" % os.getpid())["seq"], 0)

    def test_selection_end_to_end(self):
        rec = self.recorder()
        for n in (1000, 1000, 64):               # default: one record per distinct shape
            self.add_launch(rec, n=n)
        self.assertEqual(len(launch_dirs(self.root)), 2)
        self.assertEqual(self.record("t%d-0001" % os.getpid())["seq"], 2)
        shutil.rmtree(self.root)
        rec = self.recorder(kernel_pattern="^add", skip=1, count=1)
        for n in (1000, 1000, 1000):
            self.add_launch(rec, n=n)
        self.assertEqual(len(launch_dirs(self.root)), 1)
        self.assertEqual(self.record("t%d-0000" % os.getpid())["seq"], 1)
        self.assertEqual(len(self.inj.claims), 6)   # every launch seen is claimed

    def test_the_cuda_recorder_counts_the_launch_window(self):
        # With the injection library loaded, --launch-skip/--launch-count are its:
        # one count over the process's matching launches, Triton's and CUDA's.
        answers = iter([False, True, False])
        self.inj.select = lambda name: next(answers)
        rec = self.recorder(kernel_pattern="^add", skip=1, count=1)
        for _ in range(3):
            self.add_launch(rec, n=1000)
        self.assertEqual(len(launch_dirs(self.root)), 1)
        self.assertEqual(self.record("t%d-0000" % os.getpid())["seq"], 1)

    def test_unselected_launches_are_cheap(self):
        rec = self.recorder()
        self.add_launch(rec, n=16)
        kernel, x = fk.fake_kernel(), fk.tensor([1.0] * 16)
        copies = self.device.copies
        start = time.perf_counter()
        for _ in range(2000):
            fk.launch(rec, kernel, (1,), [x, x, x, 16, 256])
        per_launch = (time.perf_counter() - start) / 2000
        self.assertEqual(self.device.copies, copies)
        self.assertLess(per_launch, 200e-6)      # generous: a loaded 2-core CI machine


class InjectionTests(unittest.TestCase):
    """The ctypes side of the coordination with the CUDA injection library."""

    def test_absent_library_or_symbols_are_tolerated(self):
        from tilescope.capture.hooks import Injection
        inj = Injection("/nonexistent/libtilescope_capture.so")
        inj.claim(5)
        self.assertIsNone(inj.next_index())
        libc = ctypes.util.find_library("c")
        if libc:
            inj = Injection(libc)                # loaded, but without the two functions
            inj.claim(5)
            self.assertIsNone(inj.next_index())

    @unittest.skipIf(shutil.which("cc") is None, "no C compiler")
    def test_loaded_library_is_called(self):
        from tilescope.capture.hooks import Injection
        tmp = tempfile.mkdtemp(prefix="tscap-inj-")
        self.addCleanup(shutil.rmtree, tmp, True)
        src, lib = os.path.join(tmp, "inj.c"), os.path.join(tmp, "libinj.so")
        with open(src, "w") as f:
            f.write("static unsigned long long last; static long long idx = 41;\n"
                    "int tilescope_capture_claim(unsigned long long f) { last = f; return 1; }\n"
                    "long long tilescope_capture_next_index(void) { return ++idx; }\n"
                    "unsigned long long test_last(void) { return last; }\n")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, src], check=True)
        self.assertIsNone(Injection(lib).next_index())      # not loaded yet: never loaded by us
        loaded = ctypes.CDLL(lib)                            # what libcuda does at cuInit
        loaded.test_last.restype = ctypes.c_ulonglong
        inj = Injection(lib)
        inj.claim(0x7F12DEADBEEF)
        self.assertEqual((loaded.test_last(), inj.next_index(), inj.next_index()), (0x7F12DEADBEEF, 42, 43))


class SitecustomizeTests(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tscap-site-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.other = os.path.join(self.tmp, "other")
        os.makedirs(self.other)
        with open(os.path.join(self.other, "sitecustomize.py"), "w") as f:
            f.write("import os\nos.environ['OTHER_SITECUSTOMIZE'] = 'ran'\nMARK = 42\n")

    def run_child(self, site, **env):
        code = ("import sys, os, json, sitecustomize; print(json.dumps({'loaded': 'tilescope.capture' in sys.modules, "
                "'other': os.environ.get('OTHER_SITECUSTOMIZE'), 'mark': getattr(sitecustomize, 'MARK', None), "
                "'ours': sitecustomize.__file__}))")
        full = dict(os.environ)
        full.pop("TILESCOPE_CAPTURE_DIR", None)
        full.update(env, PYTHONPATH=os.pathsep.join([site, self.other]))
        out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout.splitlines()[-1])

    def test_without_capture_dir_does_nothing_but_chains(self):
        r = self.run_child(fk.SITE)
        self.assertEqual((r["loaded"], r["other"], r["mark"]), (False, "ran", 42))
        self.assertEqual(os.path.realpath(r["ours"]), os.path.realpath(os.path.join(fk.SITE, "sitecustomize.py")))

    def test_with_capture_dir_starts_recorder_and_chains(self):
        out_dir = os.path.join(self.tmp, "capture")
        r = self.run_child(fk.SITE, TILESCOPE_CAPTURE_DIR=out_dir)
        self.assertEqual((r["loaded"], r["other"], r["mark"]), (True, "ran", 42))

    def test_recorder_that_fails_to_load_is_a_note(self):
        broken = os.path.join(self.tmp, "root-copy")
        capture = os.path.join(broken, "tilescope", "capture")
        shutil.copytree(fk.SITE, os.path.join(capture, "site"))
        with open(os.path.join(broken, "tilescope", "__init__.py"), "w") as f:
            f.write("")
        with open(os.path.join(capture, "__init__.py"), "w") as f:
            f.write("raise RuntimeError('broken recorder')\n")
        out_dir = os.path.join(self.tmp, "capture")
        r = self.run_child(os.path.join(capture, "site"), TILESCOPE_CAPTURE_DIR=out_dir)
        self.assertEqual((r["loaded"], r["other"]), (False, "ran"))
        notes = [e["message"] for e in read_events(out_dir)]
        self.assertTrue(notes and re.search("did not start.*broken recorder", notes[0]), notes)


if __name__ == "__main__":
    unittest.main()
