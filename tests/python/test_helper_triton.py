"""Unit tests of the Triton helper's pure parts (resources/python/tilescope/
triton_helper): the JIT's specialisation (build_signature, int_type), the PTX
entry's parameter sizes, an exception as a result (error_result) and the
command line's answers that need no compiler. No GPU; the parts that import
triton skip where it is not installed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "resources", "python")
sys.path.insert(0, ROOT)

from tilescope.common.constants import EXIT_USAGE  # noqa: E402
from tilescope.triton_helper import errors, signature  # noqa: E402

try:
    import triton  # noqa: F401
except ImportError:
    triton = None
needs_triton = unittest.skipIf(triton is None, "triton is not installed")
HELPER = os.path.join(ROOT, "tilescope", "triton_helper", "__main__.py")


def param(name, constexpr=False, default=None, has_default=False, annotation_type=None,
          do_not_specialize=False, do_not_specialize_on_alignment=False):
    """A parameter with the attributes build_signature reads from Triton's KernelParam."""
    return SimpleNamespace(name=name, is_constexpr=constexpr, default=default, has_default=has_default,
                           annotation_type=annotation_type, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment)


def kernel(*params):
    return SimpleNamespace(__name__="k", params=list(params))


class IntType(unittest.TestCase):
    def test_the_jit_widths(self):
        self.assertEqual([signature.int_type(v) for v in (0, -2 ** 31, 2 ** 31 - 1)], ["i32"] * 3)
        self.assertEqual(signature.int_type(2 ** 31), "i64")
        self.assertEqual(signature.int_type(-2 ** 31 - 1), "i64")
        self.assertEqual(signature.int_type(2 ** 63), "u64")
        self.assertEqual(signature.int_type(2 ** 64 - 1), "u64")


class EntryParams(unittest.TestCase):
    def test_sizes_of_pointers_scalars_and_byte_arrays(self):
        ptx = (".visible .entry add_kernel(\n\t.param .u64 .ptr .global .align 1 add_kernel_param_0,\n"
               "\t.param .u32 add_kernel_param_1,\n\t.param .align 64 .b8 add_kernel_param_2[128]\n)\n{\n}\n")
        self.assertEqual(signature.entry_params(ptx, "add_kernel"), [8, 4, 128])
        self.assertIsNone(signature.entry_params(ptx, "other"))
        self.assertEqual(signature.entry_params(".entry e()\n{", "e"), [])


@needs_triton
class BuildSignature(unittest.TestCase):
    def test_pointers_ints_floats_and_constexprs(self):
        fn = kernel(param("x_ptr"), param("n"), param("scale"), param("one"), param("BLOCK", constexpr=True),
                    param("ACT", constexpr=True, default="relu", has_default=True))
        request = {"args": [{"kind": "pointer", "dtype": "fp16"}, {"kind": "int", "value": 1024},
                            {"kind": "float"}, {"kind": "int", "value": 1}],
                   "constexprs": {"BLOCK": 256}}
        sig, constexprs, attrs, described = signature.build_signature(fn, request)
        self.assertEqual(sig, {"x_ptr": "*fp16", "n": "i32", "scale": "fp32", "one": "constexpr",
                               "BLOCK": "constexpr", "ACT": "constexpr"})
        self.assertEqual(constexprs, {(3,): 1, (4,): 256, (5,): "relu"})
        self.assertEqual(attrs, {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
        self.assertEqual(described[3], {"name": "one", "type": "constexpr", "value": 1, "specialized": True})
        self.assertEqual(described[0], {"name": "x_ptr", "type": "*fp16", "divisible16": True})

    def test_what_is_not_specialised(self):
        fn = kernel(param("p", do_not_specialize_on_alignment=True), param("q"), param("n", do_not_specialize=True),
                    param("m", annotation_type="i64"), param("k"))
        request = {"args": [{"kind": "pointer", "dtype": "fp32"},
                            {"kind": "pointer", "dtype": "fp32", "aligned": False},
                            {"kind": "int", "value": 1}, {"kind": "int", "value": 1}, {"kind": "int", "value": 17}]}
        sig, constexprs, attrs, _ = signature.build_signature(fn, request)
        self.assertEqual(sig, {"p": "*fp32", "q": "*fp32", "n": "i32", "m": "i64", "k": "i32"})
        self.assertEqual((constexprs, attrs), ({}, {}))

    def test_a_triton_dtype_by_name(self):
        import triton.language as tl
        fn = kernel(param("DTYPE", constexpr=True))
        _, constexprs, _, described = signature.build_signature(fn, {"constexprs": {"DTYPE": "tl.float16"}})
        self.assertEqual(constexprs, {(0,): tl.float16})
        self.assertEqual(described[0]["value"], str(tl.float16))

    def test_errors_name_the_config_path(self):
        fn = kernel(param("x_ptr"), param("BLOCK", constexpr=True))
        cases = [({"args": []}, "args: kernel k takes 1 arguments besides its constexprs (x_ptr); the config gives 0"),
                 ({"args": [{"kind": "pointer", "dtype": "fp32"}], "constexprs": {"B": 1}},
                  "kernel.constexprs.B: kernel k has no parameter B"),
                 ({"args": [{"kind": "pointer", "dtype": "fp32"}], "constexprs": {"x_ptr": 1}},
                  "kernel.constexprs.x_ptr: parameter x_ptr of k is not a tl.constexpr"),
                 ({"args": [{"kind": "pointer", "dtype": "fp32"}]},
                  "kernel.constexprs: constexpr BLOCK of k has no value and no default"),
                 ({"args": [{"kind": "tensor"}], "constexprs": {"BLOCK": 1}},
                  "args[0]: unknown argument kind 'tensor'")]
        for request, message in cases:
            with self.assertRaises(ValueError) as e:
                signature.build_signature(fn, request)
            self.assertIn(message, str(e.exception))


@needs_triton
class ErrorResult(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ts-helper-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, text):
        path = os.path.join(self.tmp, "k.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path, textwrap.dedent(text)

    def test_a_syntax_error_has_its_line(self):
        path, text = self.write("x = 1\ndef f(:\n    pass\n")
        try:
            compile(text, path, "exec")
        except SyntaxError as exc:
            r = errors.error_result(exc, path)
        self.assertEqual((r["ok"], r["error_type"], r["line"], r["source_line"]), (False, "SyntaxError", 2, "def f(:"))
        self.assertTrue(r["message"].startswith("SyntaxError: "))

    def test_an_error_at_import_names_the_frame_in_the_file(self):
        path, text = self.write("import math\n\nundefined_name + 1\n")
        try:
            exec(compile(text, path, "exec"), {})
        except NameError as exc:
            r = errors.error_result(exc, path)
        self.assertEqual((r["error_type"], r["line"], r["source_line"].strip()), ("NameError", 3, "undefined_name + 1"))
        self.assertIn("NameError", r["log"])

    def test_any_other_exception(self):
        r = errors.error_result(LookupError("no function 'k' in x.py"), "/nonexistent/x.py")
        self.assertEqual((r["message"], r["line"], r["column"], r["file"]),
                         ("no function 'k' in x.py", 0, 0, "/nonexistent/x.py"))
        self.assertEqual(errors.error_result(ValueError(), "/x.py")["message"], "ValueError")

    def test_a_callee_line_maps_by_its_def_text(self):
        path, _ = self.write("import triton\n\n\ndef helper(x):\n    return x + 1\n")
        self.assertEqual(errors._file_line_of("def helper(x):\n    return x + 1\n", 2, path), 5)
        self.assertEqual(errors._file_line_of("def other():\n", 1, path), 0)
        self.assertEqual(errors._file_line_of("", 1, path), 0)


class CommandLine(unittest.TestCase):
    """The helper as the C++ runs it: by its path, or as python -m."""

    def run_helper(self, *args, module=False):
        argv = [sys.executable] + (["-m", "tilescope.triton_helper"] if module else [HELPER]) + list(args)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=ROOT if module else "")
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, cwd=tempfile.gettempdir())

    def test_version_by_path_and_as_a_module(self):
        for module in (False, True):
            p = self.run_helper("version", module=module)
            self.assertEqual(p.returncode, 0, p.stderr)
            v = json.loads(p.stdout)
            self.assertEqual(v["executable"], sys.executable)
            self.assertEqual(v["triton"] is None, triton is None)

    def test_a_bad_request_is_a_usage_error(self):
        for args in ((), ("compile", "only-one"), ("nonsense", "a", "b")):
            p = self.run_helper(*args)
            self.assertEqual(p.returncode, EXIT_USAGE, p.stderr)
            self.assertIn("tilescope.triton_helper: ", p.stderr)

    @needs_triton
    def test_signature_of_a_zoo_kernel(self):
        add = os.path.join(HERE, "..", "..", "kernels", "triton", "add.py")
        p = self.run_helper("signature", os.path.abspath(add), "add_kernel")
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual([(q["name"], q.get("kind"), q.get("stored")) for q in r["params"]],
                         [("x_ptr", "pointer", False), ("y_ptr", "pointer", False), ("out_ptr", "pointer", True),
                          ("n", "scalar", False), ("BLOCK", None, None), ("BUG_NO_STORE_MASK", None, None)])
        self.assertEqual((r["def_line"], r["program_id_axes"]), (12, [0]))


if __name__ == "__main__":
    unittest.main()
