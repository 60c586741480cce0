"""Unit tests of tilescope.common (resources/python/tilescope/common): the
kernel file's loader, the reader of a kernel's stores, and the constants file
in the one form its C++ reader (tests/unit/test_python_constants.cpp) accepts.
No GPU, no triton."""
import ast
import os
import re
import shutil
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "resources", "python")
sys.path.insert(0, ROOT)

from tilescope.common import constants, kernel_ast, kernel_file  # noqa: E402

CONSTANTS = os.path.join(ROOT, "tilescope", "common", "constants.py")
# What the C++ reader takes: NAME = "string" | integer | integer << integer, then an optional comment.
LINE = re.compile(r'^([A-Z][A-Z0-9_]*) = ("[^"\\]*"|0x[0-9A-Fa-f]+|[0-9]+(?: << [0-9]+)?)(?:  # .*)?$')


class Constants(unittest.TestCase):
    def test_every_assignment_is_one_line_the_cpp_reader_takes(self):
        with open(CONSTANTS) as f:
            text = f.read()
        assigned = [n.targets[0].id for n in ast.parse(text).body if isinstance(n, ast.Assign)]
        read = [LINE.match(line).group(1) for line in text.splitlines() if LINE.match(line)]
        self.assertEqual(read, assigned)
        self.assertGreaterEqual(len(read), 15)

    def test_values(self):
        self.assertEqual((constants.POISON_A, constants.POISON_B, constants.INIT_SEED), (0xFF, 0x3C, 42))
        self.assertEqual(constants.GUARD_BYTES, 65536)
        self.assertTrue(constants.RUNNER_SCHEMA.startswith("tilescope.") and constants.RUNNER_SCHEMA.endswith("/1"))

    def test_it_imports_nothing(self):
        with open(CONSTANTS) as f:
            tree = ast.parse(f.read())
        self.assertFalse([n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))])


class KernelFile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ts-kernel-file-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.addCleanup(lambda: [sys.modules.pop(n) for n in list(sys.modules) if n.startswith("tilescope_kernel_")])

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text))
        return path

    def test_a_file_that_imports(self):
        self.write("neighbour_mod.py", "VALUE = 7\n")
        path = self.write("k-1.py", "import neighbour_mod\n\nBLOCK = neighbour_mod.VALUE\n")
        module, note = kernel_file.load_module(path)
        self.assertEqual((module.__name__, module.BLOCK, note), ("tilescope_kernel_k_1", 7, ""))
        self.assertIs(sys.modules["tilescope_kernel_k_1"], module)

    def test_host_imports_that_fail_leave_the_functions_at_their_lines(self):
        path = self.write("k.py", """\
            import math
            import not_installed_anywhere_xyz
            from typing import Optional

            SIZE = 4
            not_installed_anywhere_xyz.setup()


            def kernel(x):
                return math.sqrt(x) * SIZE
            """)
        module, note = kernel_file.load_module(path)
        self.assertIn("not_installed_anywhere_xyz", note)
        self.assertIn("loaded the file's Triton functions only", note)
        self.assertEqual(module.kernel(4), 8.0)
        self.assertEqual(module.kernel.__code__.co_firstlineno, 9)
        self.assertFalse(hasattr(module, "not_installed_anywhere_xyz"))

    def test_constexpr_values_that_are_not_triton_dtypes(self):
        for v in (1024, "relu", True, None, 1.5):
            self.assertEqual(kernel_file.constexpr_value(v), v)


class KernelAst(unittest.TestCase):
    def test_stores_trace_back_through_pointer_arithmetic(self):
        source = textwrap.dedent("""\
            def k(x_ptr, out_ptr, n, stride, BLOCK):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                row = out_ptr + offs * stride
                tl.store(row, tl.load(x_ptr + offs, mask=offs < n))
                tl.atomic_add(pointer=x_ptr + 1, val=1)
            """)
        self.assertEqual(kernel_ast.stored_params(source) & {"x_ptr", "out_ptr", "n", "stride", "BLOCK"},
                         {"out_ptr", "x_ptr"})
        self.assertEqual(kernel_ast.stored_params("def broken(:"), set())

    def test_call_names(self):
        call = ast.parse("tl.store(p, v)").body[0].value
        self.assertEqual(kernel_ast.call_name(call), "store")
        self.assertEqual(kernel_ast.call_name(ast.parse("store(p)").body[0].value), "store")


if __name__ == "__main__":
    unittest.main()
