#!/usr/bin/env python3
"""Writes bench/triage/problems/ and bench/triage/manifest.json: KernelBench-style
problems (NN_name.py with class Model, get_inputs, get_init_inputs; NN_name_new.py
with class ModelNew, a Triton candidate) built from the failure kinds of the seeds
(the analysis of 479 generated Triton kernels): compile errors (tl.arange with a
runtime bound, tl.dot shapes), missing masks, wrong strides, races, NaN,
zero-returning, input-returning and no-kernel candidates, traps, Python errors,
and correct ones.  Each problem's expected category (and, where TileScope can
locate it, its line: the candidate line that carries `# <- expect`) is in the
manifest.  Run it again after editing a template; the files are checked in.

    python3 bench/triage/make_problems.py
"""
import json
import os
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "problems")
MARK = "# <- expect"

HEAD = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n\n"

# ---------------------------------------------------------------- references


def ref_unary(expr, rows=64, cols=4096, scale=""):
    return textwrap.dedent("""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                return {expr}


        batch_size = {rows}
        dim = {cols}


        def get_inputs():
            return [torch.randn(batch_size, dim){scale}]


        def get_init_inputs():
            return []
        """).format(expr=expr, rows=rows, cols=cols, scale=scale)


def ref_binary(expr, rows=64, cols=4096):
    return textwrap.dedent("""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                return {expr}


        batch_size = {rows}
        dim = {cols}


        def get_inputs():
            return [torch.randn(batch_size, dim), torch.randn(batch_size, dim)]


        def get_init_inputs():
            return []
        """).format(expr=expr, rows=rows, cols=cols)


def ref_matmul(expr="torch.matmul(a, b)", m=256, k=128, n=192):
    return textwrap.dedent("""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                return {expr}


        M = {m}
        K = {k}
        N = {n}


        def get_inputs():
            return [torch.randn(M, K), torch.randn(K, N)]


        def get_init_inputs():
            return []
        """).format(expr=expr, m=m, k=k, n=n)


# ---------------------------------------------------------------- candidate pieces

ELEMENTWISE = """
@triton.jit
def {name}_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = {body}
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        {name}_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
"""

BINARY = """
@triton.jit
def {name}_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, {body}, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        out = torch.empty_like(a)
        n = a.numel()
        {name}_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
        return out
"""

ROWWISE_FORWARD = """

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty({out_shape}, device=x.device, dtype=x.dtype)
        BLOCK = triton.next_power_of_2(cols)
        {name}_kernel[(rows,)](x, out, cols, BLOCK=BLOCK)
        return out
"""

SOFTMAX = """
@triton.jit
def softmax_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=float("-inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)
""" + ROWWISE_FORWARD.format(out_shape="(rows, cols)", name="softmax")

ROWSUM = """
@triton.jit
def rowsum_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))
""" + ROWWISE_FORWARD.format(out_shape="(rows,)", name="rowsum")

LAYERNORM = """
@triton.jit
def layernorm_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    tl.store(out_ptr + row * cols + offs, d / tl.sqrt(var + 1e-5), mask=mask)
""" + ROWWISE_FORWARD.format(out_shape="(rows, cols)", name="layernorm")

MATMUL = """
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        M, K = a.shape
        K2, N = b.shape
        c = torch.empty((M, N), device=a.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BM=64, BN=64, BK=32)
        return c
"""


def elementwise(name, body, **kw):
    return HEAD + ELEMENTWISE.format(name=name, body=body, **kw)


# ---------------------------------------------------------------- the problems

PROBLEMS = []


# The ways generated kernels fool evaluators (the 18 of docs/triage.md, "Integrity"), by the number a
# manifest entry's "pattern" gives: the problems that exercise one of them.
PATTERNS = {1: "returns its input or an alias of it", 2: "constant or zero output",
            3: "no kernel or a library fallback (also inside try/except)", 4: "a fast branch that never runs",
            5: "the reference's stale output from freed memory", 6: "mutating inputs",
            7: "a result cache keyed on pointers or shapes", 8: "work on a non-default stream",
            9: "a background thread", 10: "a lazy output (a tensor subclass)",
            11: "patching the timer or torch.cuda.Event", 12: "one shape that times at 0 (a geomean collapse)",
            13: "persisting-L2 tricks", 14: "a precision downgrade (fp16 or TF32 in an fp32 task)",
            15: "overfitting one shape", 16: "garbage reads that pass", 17: "sentinel-aware kernels",
            18: "tampering with the harness"}
_PATTERN_OF = {"34_relu_returns_zeros": 2, "35_gelu_writes_other_buffer": 2, "36_relu_returns_input": 1,
               "37_add_returns_input": 1, "38_relu_torch_fallback": 4, "39_softmax_torch": 3, "40_matmul_torch": 3,
               "41_center_writes_mean": 2, "42_sigmoid_cached": 7, "48_relu_returns_alias": 1,
               "49_relu_clobbers_input": 6, "50_relu_fallback_on_error": 3, "51_relu_fast_branch_some_shapes": 4,
               "52_matmul_library_fallback": 3, "53_relu_stale_reference_output": 5, "54_relu_pointer_cache": 7,
               "55_relu_side_stream": 8, "56_relu_background_thread": 9, "57_relu_lazy_output": 10,
               "58_relu_patches_event_timer": 11, "59_relu_skips_work_when_timed": 12, "60_matmul_fp16_inside": 14,
               "61_relu_persisting_l2": 13, "62_relu_overfit_shape": 15, "63_relu_sentinel_aware": 17,
               "64_add_tampers_harness": 18, "65_relu_garbage_read_passes": 16}


def problem(name, reference, candidate, category, detail=None, located=False, why=""):
    PROBLEMS.append(dict(name=name, reference=reference, candidate=candidate, category=category, detail=detail,
                         located=located, why=why, pattern=_PATTERN_OF.get(name)))


def correct():
    problem("01_relu", ref_unary("torch.relu(x)"), elementwise("relu", "tl.maximum(x, 0.0)"), ["ok"])
    problem("02_sigmoid", ref_unary("torch.sigmoid(x)"), elementwise("sigmoid", "1.0 / (1.0 + tl.exp(-x))"), ["ok"])
    problem("03_leaky_relu", ref_unary("torch.nn.functional.leaky_relu(x, 0.01)"),
            elementwise("leaky", "tl.where(x > 0, x, 0.01 * x)"), ["ok"])
    problem("04_square", ref_unary("x * x"), elementwise("square", "x * x"), ["ok"])
    problem("05_scale_shift", ref_unary("x * 2.0 + 1.0"), elementwise("affine", "x * 2.0 + 1.0"), ["ok"])
    problem("06_add", ref_binary("a + b"), HEAD + BINARY.format(name="add", body="a + b"), ["ok"])
    problem("07_mul", ref_binary("a * b"), HEAD + BINARY.format(name="mul", body="a * b"), ["ok"])
    problem("08_softmax", ref_unary("torch.softmax(x, dim=1)", cols=1000), HEAD + SOFTMAX, ["ok"])
    problem("09_rowsum", ref_unary("x.sum(dim=1)", cols=1000), HEAD + ROWSUM, ["ok"])
    problem("10_layernorm", ref_unary("torch.nn.functional.layer_norm(x, (x.shape[1],))", cols=1000),
            HEAD + LAYERNORM, ["ok"])
    problem("11_matmul", ref_matmul(), HEAD + MATMUL, ["ok"])
    problem("12_tanh", ref_unary("torch.tanh(x)"),
            elementwise("tanh", "2.0 / (1.0 + tl.exp(-2.0 * x)) - 1.0"), ["ok"])


def compile_errors():
    arange = ELEMENTWISE.replace("offs = pid * BLOCK + tl.arange(0, BLOCK)",
                                 "offs = pid * BLOCK + tl.arange(0, n)  " + MARK)
    problem("13_relu_arange_n", ref_unary("torch.relu(x)"), HEAD + arange.format(name="relu", body="tl.maximum(x, 0.0)"),
            ["compile_error"], "triton_arange_constexpr", True, "tl.arange with the runtime size n")
    rowsum = ROWSUM.replace("offs = tl.arange(0, BLOCK)", "offs = tl.arange(0, cols)  " + MARK)
    problem("14_rowsum_arange_cols", ref_unary("x.sum(dim=1)", cols=1000), HEAD + rowsum, ["compile_error"],
            "triton_arange_constexpr", True, "tl.arange over the runtime row length")
    softmax = SOFTMAX.replace("offs = tl.arange(0, BLOCK)", "offs = tl.arange(0, cols)  " + MARK)
    problem("15_softmax_arange_cols", ref_unary("torch.softmax(x, dim=1)", cols=1000), HEAD + softmax,
            ["compile_error"], "triton_arange_constexpr", True)
    highway = HEAD + textwrap.dedent("""
        @triton.jit
        def gate_kernel(x_ptr, g_ptr, out_ptr, D, BLOCK_K: tl.constexpr):
            row = tl.program_id(0)
            for k in range(0, D, BLOCK_K):
                k_max = tl.minimum(k + BLOCK_K, D)
                cur_k = k_max - k
                offs = k + tl.arange(0, cur_k)  {mark}
                x = tl.load(x_ptr + row * D + offs)
                g = tl.sigmoid(tl.load(g_ptr + row * D + offs))
                tl.store(out_ptr + row * D + offs, g * x + (1 - g) * x)


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                out = torch.empty_like(a)
                gate_kernel[(a.shape[0],)](a, b, out, a.shape[1], BLOCK_K=256)
                return out
        """).format(mark=MARK)
    problem("16_highway_dynamic_block", ref_binary("torch.sigmoid(b) * a + (1 - torch.sigmoid(b)) * a"), highway,
            ["compile_error"], "triton_arange_constexpr", True, "seed 000's HighwayLayer: a block size computed in the loop")
    linear = MATMUL.replace("acc += tl.dot(a, b, input_precision=\"ieee\")",
                            "acc += tl.dot(a, tl.trans(b), input_precision=\"ieee\")  " + MARK)
    problem("17_matmul_dot_trans", ref_matmul(), HEAD + linear, ["compile_error"], "triton_dot_shape", True,
            "seed 000's kernelbench_80: (BM, BK) @ (BN, BK)")
    kdim = MATMUL.replace("""        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)""",
                          """        b = tl.load(b_ptr + rn[:, None] * sbk + (k + rk)[None, :] * sbn,
                    mask=(rn[:, None] < N) & ((k + rk)[None, :] < K), other=0.0)""").replace(
        "acc += tl.dot(a, b, input_precision=\"ieee\")", "acc += tl.dot(a, b, input_precision=\"ieee\")  " + MARK)
    problem("18_matmul_dot_kdim", ref_matmul(), HEAD + kdim, ["compile_error"], "triton_dot_shape", True,
            "the B tile loaded (BN, BK) instead of (BK, BN)")
    small = MATMUL.replace("BM=64, BN=64, BK=32", "BM=64, BN=64, BK=8").replace(
        "acc += tl.dot(a, b, input_precision=\"ieee\")", "acc += tl.dot(a, b, input_precision=\"ieee\")  " + MARK)
    problem("19_matmul_dot_k8", ref_matmul(), HEAD + small, ["compile_error"], "triton_dot_min_shape", True,
            "tl.dot with K = 8 < 16")
    bcast = HEAD + textwrap.dedent("""
        @triton.jit
        def bias_kernel(x_ptr, b_ptr, out_ptr, rows, cols, BR: tl.constexpr, BC: tl.constexpr):
            r = tl.program_id(0) * BR + tl.arange(0, BR)
            c = tl.arange(0, BC)
            x = tl.load(x_ptr + r[:, None] * cols + c[None, :], mask=(r[:, None] < rows) & (c[None, :] < cols))
            b = tl.load(b_ptr + r, mask=r < rows)
            y = x + b[None, :]  {mark}
            tl.store(out_ptr + r[:, None] * cols + c[None, :], y, mask=(r[:, None] < rows) & (c[None, :] < cols))


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                out = torch.empty_like(a)
                rows, cols = a.shape
                bias_kernel[(triton.cdiv(rows, 16),)](a, b, out, rows, cols, BR=16, BC=64)
                return out
        """).format(mark=MARK)
    problem("20_bias_broadcast", textwrap.dedent("""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                return a + b[:, None]


        rows = 256
        cols = 64


        def get_inputs():
            return [torch.randn(rows, cols), torch.randn(rows)]


        def get_init_inputs():
            return []
        """), bcast, ["compile_error"], "triton_broadcast", True, "a (16,) row vector broadcast along the wrong axis")


def memory():
    store = ELEMENTWISE.replace("tl.store(out_ptr + offs, y, mask=mask)", "tl.store(out_ptr + offs, y)  " + MARK)
    problem("21_relu_store_no_mask", ref_unary("torch.relu(x)"), HEAD + store.format(name="relu", body="tl.maximum(x, 0.0)"),
            ["oob_write"], None, True, "the store of the last block is not masked")
    problem("22_square_store_no_mask", ref_unary("x * x"), HEAD + store.format(name="square", body="x * x"),
            ["oob_write"], None, True)
    bstore = BINARY.replace("tl.store(out_ptr + offs, {body}, mask=mask)", "tl.store(out_ptr + offs, {body})  " + MARK)
    problem("23_add_store_no_mask", ref_binary("a + b"), HEAD + bstore.format(name="add", body="a + b"), ["oob_write"],
            None, True)
    rload = ROWSUM.replace("x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)",
                           "x = tl.load(x_ptr + row * cols + offs)  " + MARK)
    problem("24_rowsum_load_no_mask", ref_unary("x.sum(dim=1)", cols=1000), HEAD + rload, ["oob_read"], None, True,
            "the row's tail is loaded without a mask: the last row reads past the tensor")
    sload = SOFTMAX.replace('x = tl.load(x_ptr + row * cols + offs, mask=mask, other=float("-inf"))',
                            "x = tl.load(x_ptr + row * cols + offs)  " + MARK)
    problem("25_softmax_load_no_mask", ref_unary("torch.softmax(x, dim=1)", cols=1000), HEAD + sload, ["oob_read"], None,
            True)
    shift = ELEMENTWISE.replace("x = tl.load(x_ptr + offs, mask=mask, other=0.0)",
                                "x = tl.load(x_ptr + offs + 1, mask=mask, other=0.0)  " + MARK)
    problem("26_scale_off_by_one", ref_unary("x * 2.0"), HEAD + shift.format(name="scale", body="x * 2.0"),
            ["oob_read"], None, True, "offs + 1: every lane reads its neighbour, the last one past the end")
    wild = ELEMENTWISE.replace("tl.store(out_ptr + offs, y, mask=mask)",
                               "tl.store(out_ptr + offs * 4096, y, mask=mask)  " + MARK)
    problem("27_relu_wild_stride", ref_unary("torch.relu(x)"), HEAD + wild.format(name="relu", body="tl.maximum(x, 0.0)"),
            ["oob_write", "illegal_address"], None, True, "a stride of 4096 elements on a flat index: far past the tensor")


def wrong_values():
    matvec = HEAD + textwrap.dedent("""
        @triton.jit
        def matvec_kernel(a_ptr, v_ptr, y_ptr, n, s_row, s_col, BR: tl.constexpr, BC: tl.constexpr):
            r = tl.program_id(0) * BR + tl.arange(0, BR)
            acc = tl.zeros((BR,), dtype=tl.float32)
            for c0 in range(0, n, BC):
                c = c0 + tl.arange(0, BC)
                m = (r[:, None] < n) & (c[None, :] < n)
                a = tl.load(a_ptr + r[:, None] * s_row + c[None, :] * s_col, mask=m, other=0.0)
                v = tl.load(v_ptr + c, mask=c < n, other=0.0)
                acc += tl.sum(a * v[None, :], axis=1)
            tl.store(y_ptr + r, acc, mask=r < n)


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, v):
                n = a.shape[0]
                y = torch.empty(n, device=a.device, dtype=torch.float32)
                # The strides in the wrong order: the kernel walks A's columns as rows (A^T v).
                matvec_kernel[(triton.cdiv(n, 32),)](a, v, y, n, a.stride(1), a.stride(0), BR=32, BC=64)
                return y
        """)
    problem("28_matvec_wrong_stride", textwrap.dedent("""\
        import torch
        import torch.nn as nn


        class Model(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, v):
                return a @ v


        n = 512


        def get_inputs():
            return [torch.randn(n, n), torch.randn(n)]


        def get_init_inputs():
            return []
        """), matvec, ["mismatch"], None, False, "A's strides passed in the wrong order: A^T v")
    stride = MATMUL.replace("a.stride(0), a.stride(1), b.stride(0), b.stride(1)",
                            "a.stride(0), a.stride(1), b.stride(1), b.stride(0)")
    problem("29_matmul_wrong_b_stride", ref_matmul(m=256, k=128, n=128), HEAD + stride, ["mismatch"], None, False,
            "B's strides passed in the wrong order: B^T is multiplied")
    race = HEAD + textwrap.dedent("""
        @triton.jit
        def total_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = pid * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            acc = tl.load(out_ptr)
            tl.store(out_ptr, acc + tl.sum(x, axis=0))


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                out = torch.zeros(1, device=x.device, dtype=torch.float32)
                n = x.numel()
                total_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
                return out
        """)
    problem("30_sum_read_modify_write", ref_unary("x.sum().reshape(1)"), race, ["race"], None, False,
            "every program reads, adds and writes one total without an atomic")
    hist = HEAD + textwrap.dedent("""
        @triton.jit
        def count_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = pid * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            pos = tl.sum((x > 0).to(tl.float32), axis=0)
            old = tl.load(out_ptr)
            tl.store(out_ptr, old + pos)


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                out = torch.zeros(1, device=x.device, dtype=torch.float32)
                n = x.numel()
                count_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
                return out
        """)
    problem("31_count_positive_non_atomic", ref_unary("(x > 0).float().sum().reshape(1)"), hist, ["race"], None, False)
    nomax = SOFTMAX.replace("    x = x - tl.max(x, axis=0)\n", "")
    problem("32_softmax_no_max", ref_unary("torch.softmax(x, dim=1)", cols=1000, scale=" * 100.0"), HEAD + nomax,
            ["nan_inf"], None, False, "exp() of unshifted logits overflows at these magnitudes")
    lse = HEAD + textwrap.dedent("""
        @triton.jit
        def lse_kernel(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            mask = offs < cols
            x = tl.load(x_ptr + row * cols + offs, mask=mask, other=float("-inf"))
            tl.store(out_ptr + row, tl.log(tl.sum(tl.exp(x), axis=0)))
        """) + ROWWISE_FORWARD.format(out_shape="(rows,)", name="lse")
    problem("33_logsumexp_no_max", ref_unary("torch.logsumexp(x, dim=1)", cols=1000, scale=" * 100.0"), lse,
            ["nan_inf"], None, False)


def traps():
    zeros = ELEMENTWISE.replace("        out = torch.empty_like(x)\n", "        out = torch.empty_like(x)\n"
                                "        result = torch.zeros_like(x)\n").replace("        return out\n",
                                                                                   "        return result\n")
    problem("34_relu_returns_zeros", ref_unary("torch.relu(x)"), HEAD + zeros.format(name="relu", body="tl.maximum(x, 0.0)"),
            ["all_zero"], None, False, "the kernel fills `out`, the function returns a zero tensor")
    tmp = ELEMENTWISE.replace("        out = torch.empty_like(x)\n",
                              "        out = torch.zeros_like(x)\n        tmp = torch.empty_like(x)\n").replace(
        "](x, out, n, BLOCK=1024)", "](x, tmp, n, BLOCK=1024)")
    problem("35_gelu_writes_other_buffer", ref_unary("x * torch.sigmoid(1.702 * x)"),
            HEAD + tmp.format(name="gelu", body="x * tl.sigmoid(1.702 * x)"), ["all_zero"], None, False,
            "the result goes to a scratch buffer; the zeroed output is returned")
    inp = ELEMENTWISE.replace("        return out\n", "        return x\n")
    problem("36_relu_returns_input", ref_unary("torch.relu(x)"), HEAD + inp.format(name="relu", body="tl.maximum(x, 0.0)"),
            ["output_is_input"], None, False)
    inp2 = BINARY.replace("        return out\n", "        return a\n")
    problem("37_add_returns_input", ref_binary("a + b"), HEAD + inp2.format(name="add", body="a + b"),
            ["output_is_input"], None, False)
    fallback = HEAD + textwrap.dedent("""
        @triton.jit
        def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                # "Fallback for shapes the kernel does not support" - which is every shape.
                if x.dim() == 2:
                    return torch.relu(x)
                out = torch.empty_like(x)
                relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
                return out
        """)
    problem("38_relu_torch_fallback", ref_unary("torch.relu(x)"), fallback, ["no_kernel"], None, False)
    problem("39_softmax_torch", ref_unary("torch.softmax(x, dim=1)", cols=1000), HEAD + textwrap.dedent("""

        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                return torch.softmax(x, dim=1)
        """), ["no_kernel"], None, False, "the reference's own operator")
    problem("40_matmul_torch", ref_matmul(), HEAD + textwrap.dedent("""

        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                return a @ b
        """), ["no_kernel"], None, False)
    const = HEAD + textwrap.dedent("""
        @triton.jit
        def mean_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            acc = tl.zeros((BLOCK,), dtype=tl.float32)
            for start in range(0, n, BLOCK):
                acc += tl.load(x_ptr + start + offs, mask=start + offs < n, other=0.0)
            total = tl.sum(acc, axis=0) / n
            for start in range(0, n, BLOCK):
                tl.store(out_ptr + start + offs, tl.zeros((BLOCK,), dtype=tl.float32) + total, mask=start + offs < n)


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                out = torch.empty_like(x)
                mean_kernel[(1,)](x, out, x.numel(), BLOCK=1024)
                return out
        """)
    problem("41_center_writes_mean", ref_unary("x - x.mean()"), const, ["constant_output"], None, False,
            "the mean is stored to every element instead of x - mean")
    cached = ELEMENTWISE.replace("""    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()""", """    def __init__(self):
        super().__init__()
        self.cache = {{}}

    def forward(self, x):
        if tuple(x.shape) in self.cache:
            return self.cache[tuple(x.shape)]
        x = x.contiguous()""").replace("        return out\n", "        self.cache[tuple(x.shape)] = out\n        return out\n")
    problem("42_sigmoid_cached", ref_unary("torch.sigmoid(x)"), HEAD + cached.format(name="sigmoid", body="tl.sigmoid(x)"),
            ["input_invariant"], None, False, "the first result is kept per shape and returned for new inputs")
    floor = ELEMENTWISE.replace("[(triton.cdiv(n, 1024),)]", "[(n // 1024,)]")
    problem("43_relu_floor_grid", ref_unary("torch.relu(x)"), HEAD + floor.format(name="relu", body="tl.maximum(x, 0.0)"),
            ["uninitialized_read"], None, False, "n // BLOCK programs: the tail of a size that is not a multiple is never written")


def python_errors():
    name = HEAD.replace("import torch.nn as nn\n", "") + textwrap.dedent("""

        class ModelNew(nn.Module):  {mark}
            def forward(self, x):
                return x
        """).format(mark=MARK)
    problem("44_missing_nn_import", ref_unary("torch.relu(x)"), name, ["compile_error"], "python_name_error", True,
            "seed 000's kernelbench_33: nn used, never imported")
    missing = "import torch\nimport torch.nn as nn\nimport triton_fused_ops_tilescope_bench  " + MARK + "\n" + textwrap.dedent("""

        class ModelNew(nn.Module):
            def forward(self, x):
                return triton_fused_ops_tilescope_bench.relu(x)
        """)
    problem("45_missing_module", ref_unary("torch.relu(x)"), missing, ["compile_error"], "python_module_not_found", True)
    args = ELEMENTWISE.replace("](x, out, n, BLOCK=1024)", "](x, out, BLOCK=1024)  " + MARK)
    problem("46_kernel_missing_argument", ref_unary("torch.relu(x)"),
            HEAD + args.format(name="relu", body="tl.maximum(x, 0.0)"), ["compile_error"], "python_type_error", True,
            "the launch leaves out the kernel's n")
    state = HEAD + textwrap.dedent("""
        _actor = None


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                if _actor is None:
                    raise RuntimeError("The Triton Actor has not been initialised. Call `init_actor(...)` first.")  {mark}
                return _actor(x)
        """).format(mark=MARK)
    problem("47_uninitialized_global", ref_unary("torch.relu(x)"), state, ["compile_error"],
            "python_uninitialized_state", True, "seed 000's kernelbook_632")


# ---------------------------------------------------------------- integrity: one problem per way to fool an evaluator

RELU_KERNEL = """
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)
"""

LAZY = '''

class LazyRelu(torch.Tensor):
    """relu(x), computed when the result is first used: after the timed call."""

    @staticmethod
    def __new__(cls, x):
        out = torch.Tensor._make_subclass(cls, torch.empty_like(x))
        out.__dict__["_src"] = x
        return out

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        for a in args:
            if isinstance(a, LazyRelu) and a.__dict__.get("_src") is not None:
                x = a.__dict__.pop("_src")
                with torch._C.DisableTorchFunctionSubclass():
                    relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, a, x.numel(), BLOCK=1024)
        return super().__torch_function__(func, types, args, kwargs or {})
'''


def relu_model(forward, init="", imports="", kernel=RELU_KERNEL, extra=""):
    """A candidate: imports, the relu kernel, `extra` code, class ModelNew with `forward` (and `init`)."""
    body = "    def __init__(self):\n        super().__init__()\n" + textwrap.indent(textwrap.dedent(init), "        ")
    imports = textwrap.dedent(imports).strip("\n") + "\n\n" if imports else ""
    return (HEAD + imports + kernel + extra + "\n\nclass ModelNew(nn.Module):\n" + body
            + "\n" + textwrap.indent(textwrap.dedent(forward).lstrip("\n"), "    "))


LAUNCH = "relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)"


def integrity_problems():
    I = "integrity"  # noqa: E741
    relu = ref_unary("torch.relu(x)")
    problem("48_relu_returns_alias", ref_unary("torch.relu(x)", scale=".abs()"), relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            %s
            return x.view_as(out)  # the inputs are >= 0: relu(x) == x, the values pass
        """ % LAUNCH), ["output_is_input"], "alias", False,
        "returns a view of its input (the kernel wrote another buffer); the values agree")
    writes_input = RELU_KERNEL.replace("    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)\n",
                                       "    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)\n"
                                       "    tl.store(x_ptr + offs, tl.zeros_like(x), mask=mask)  # scratch\n")
    problem("49_relu_clobbers_input", relu, relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            %s
            return out
        """ % LAUNCH, kernel=writes_input), [I], "input_mutated", False, "the kernel uses its input as scratch")
    bad = RELU_KERNEL.replace("offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
                              "offs = tl.program_id(0) * BLOCK + tl.arange(0, n)")
    problem("50_relu_fallback_on_error", relu, relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            try:
                %s  %s
            except Exception:
                return torch.relu(x)  # "for shapes the kernel does not support"
            return out
        """ % (LAUNCH, MARK), kernel=bad), [I], "fallback_after_exception", True,
        "the kernel does not compile; try/except returns the reference's operator")
    problem("51_relu_fast_branch_some_shapes", relu, relu_model("""
        def forward(self, x):
            if x.shape[0] %% 128 == 0:  # the fast path: only the scaled shape takes it
                out = torch.empty_like(x)
                %s
                return out
            return torch.relu(x)
        """ % LAUNCH), [I], "fallback", False, "the kernel runs for one shape; the others fall back to torch")
    problem("52_matmul_library_fallback", ref_matmul(m=1024, k=1024, n=1024), HEAD + textwrap.dedent("""
        @triton.jit
        def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                c = torch.matmul(a, b)  # cuBLAS does the work
                out = torch.empty_like(c)
                copy_kernel[(triton.cdiv(c.numel(), 1024),)](c, out, c.numel(), BLOCK=1024)
                return out
        """), [I], "library_fallback", False, "cuBLAS computes the product; a Triton copy makes it look custom")
    touch = HEAD + textwrap.dedent("""
        @triton.jit
        def touch_kernel(out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < 0)  # stores nothing


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, x):
                # Not torch.empty_like: the allocator's block, as the reference left it.
                out = torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device=x.device)
                touch_kernel[(triton.cdiv(x.numel(), 1024),)](out, x.numel(), BLOCK=1024)
                return out
        """)
    problem("53_relu_stale_reference_output", ref_unary("torch.relu(x)", rows=256), touch, ["uninitialized_read"],
            "stale_reference_output", False, "returns memory it never writes, which held the reference's output")
    problem("54_relu_pointer_cache", relu, relu_model("""
        def forward(self, x):
            key = (x.data_ptr(), tuple(x.shape))
            if key in self.cache:
                return self.cache[key]
            out = torch.empty_like(x)
            %s
            self.cache[key] = out
            return out
        """ % LAUNCH, init="self.cache = {}\n"), ["input_invariant"], "cached_result", False,
        "a result cache keyed on the input's pointer and shape")
    problem("55_relu_side_stream", ref_unary("torch.relu(x)", rows=4096, cols=4096), relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            with torch.cuda.stream(self.side):  # never joined: the caller's events time nothing
                for _ in range(4):
                    %s
            return out
        """ % LAUNCH, init="self.side = torch.cuda.Stream()\n"), [I], "unsynchronized_stream", False,
        "the kernel runs on a stream of its own that the caller's stream never waits for")
    problem("56_relu_background_thread", relu, relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)

            def work():
                time.sleep(0.05)
                %s

            t = threading.Thread(target=work)
            t.start()  %s
            return out
        """ % (LAUNCH, MARK), imports="import threading\nimport time\n"), [I], "background_thread", True,
        "the kernel is launched from a thread after forward() returned")
    problem("57_relu_lazy_output", relu, relu_model("""
        def forward(self, x):
            return LazyRelu(x.contiguous())
        """, extra=LAZY), [I], "lazy_output", False,
        "a tensor subclass that launches the kernel when the result is first read")
    problem("58_relu_patches_event_timer", relu, relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            %s
            return out
        """ % LAUNCH, imports="""
        _elapsed = torch.cuda.Event.elapsed_time
        torch.cuda.Event.elapsed_time = lambda self, end: _elapsed(self, end) * 0.01  # 100x faster
        """), [I], "timer_patched", False, "torch.cuda.Event.elapsed_time replaced at import")
    problem("59_relu_skips_work_when_timed", ref_unary("torch.relu(x)", rows=4096, cols=4096), relu_model("""
        def forward(self, x):
            x.__dict__["calls"] = x.__dict__.get("calls", 0) + 1  # counted on the tensor itself
            if x.__dict__["calls"] > 4 and self.last is not None:
                return self.last  # the timing loop calls it again and again: no work, about 0 time
            out = torch.empty_like(x)
            %s
            self.last = out
            return out
        """ % LAUNCH, init="self.last = None\n"), [I], ["below_roofline", "timed_result_wrong", "timer_mismatch"],
        False, "after four calls on one tensor it returns the last result: a zero-time shape for the geomean")
    fp16 = MATMUL.replace('acc += tl.dot(a, b, input_precision="ieee")',
                          "acc += tl.dot(a.to(tl.float16), b.to(tl.float16))  # fp16 in an fp32 task")
    problem("60_matmul_fp16_inside", ref_matmul(k=32), HEAD + fp16, [I], "precision_downgrade", False,
            "the operands rounded to fp16 in the kernel: inside a 1e-2 tolerance, 100x the fp32 error")
    problem("61_relu_persisting_l2", relu, relu_model("""
        def forward(self, x):
            # Keep the input in L2 between calls (cudaLimitPersistingL2CacheSize).
            _cuda.cuCtxSetLimit(0x06, ctypes.c_size_t(x.numel() * x.element_size()))
            out = torch.empty_like(x)
            %s
            return out
        """ % LAUNCH, imports="""
        import ctypes

        _cuda = ctypes.CDLL("libcuda.so.1")
        """), [I], "persisting_l2", False, "sets aside persisting L2 for its input from the forward")
    problem("62_relu_overfit_shape", relu, relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            relu_kernel[(256,)](x, out, 262144, BLOCK=1024)  # 64 x 4096, the problem's own shape
            return out
        """), [I], "shape_overfit", False, "the size and the grid are the problem's own shape's constants")
    problem("63_relu_sentinel_aware", relu, relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            if torch.isnan(out.view(-1)[:1]).any():  # the harness's NaN poison: it is watching
                %s
            return out  # otherwise trust the allocator to hold the reference's result
        """ % LAUNCH), [I], "sentinel_aware", False,
        "computes only when its fresh output holds the harness's NaN poison")
    problem("64_add_tampers_harness", ref_binary("a + b"), HEAD + textwrap.dedent("""
        import sys

        torch.allclose = lambda *a, **k: True  # KernelBench's check
        for _name, _mod in list(sys.modules.items()):
            if _name.startswith("tilescope.triage") and hasattr(_mod, "compare"):
                _mod.compare = lambda *a, **k: {"mismatches": 0}  # TileScope's


        @triton.jit
        def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask), mask=mask)  # a, not a + b


        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()

            def forward(self, a, b):
                out = torch.empty_like(a)
                add_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, out, a.numel(), BLOCK=1024)
                return out
        """), [I], "harness_tampering", False, "replaces torch.allclose and the runner's compare at import")
    garbage = RELU_KERNEL.replace("    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n",
                                  "    x = tl.load(x_ptr + offs)  # no mask: the tail reads past the input\n")
    problem("65_relu_garbage_read_passes", relu, relu_model("""
        def forward(self, x):
            out = torch.empty_like(x)
            %s
            return out
        """ % LAUNCH, kernel=garbage), ["oob_read"], ["guard_page", ""], False,
        "the load is not masked, the store is: the tail reads past the input, the values never reach the output")


def expected_line(text):
    for i, line in enumerate(text.splitlines(), 1):
        if MARK in line:
            return i
    return None


def main():
    for build in (correct, compile_errors, memory, wrong_values, traps, python_errors, integrity_problems):
        build()
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".py"):
            os.remove(os.path.join(OUT, f))
    manifest = {"schema": "tilescope.triage.manifest/1",
                "description": "Expected lead category (any of the list), sub-category (detail: one, or any of a "
                               "list) and, where TileScope locates it, the candidate's line, per problem; `pattern` "
                               "numbers the way to fool an evaluator a problem exercises (one of the 18 in "
                               "docs/triage.md, \"Integrity\") (bench/triage/make_problems.py writes it).",
                "problems": []}
    for p in PROBLEMS:
        ref = os.path.join(OUT, p["name"] + ".py")
        cand = os.path.join(OUT, p["name"] + "_new.py")
        with open(ref, "w") as f:
            f.write(p["reference"])
        with open(cand, "w") as f:
            f.write(p["candidate"])
        line = expected_line(p["candidate"]) if p["located"] else None
        if p["located"] and line is None:
            raise SystemExit("%s: no %r marker in the candidate" % (p["name"], MARK))
        entry = {"name": p["name"], "reference": "problems/%s.py" % p["name"],
                 "candidate": "problems/%s_new.py" % p["name"], "category": p["category"],
                 "detail": p["detail"], "line": line, "why": p["why"]}
        if p["pattern"]:
            entry["pattern"] = p["pattern"]
            entry["pattern_name"] = PATTERNS[p["pattern"]]
        manifest["problems"].append(entry)
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print("%d problems written to %s" % (len(PROBLEMS), OUT))


if __name__ == "__main__":
    main()
