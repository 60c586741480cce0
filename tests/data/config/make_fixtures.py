#!/usr/bin/env python3
"""Writes the config fixtures of the unit tests (tests/unit/test_config*.cpp):
two valid configs and, for each error the loader must report, a copy of one
of them with exactly one thing broken. The expected messages live in the tests."""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# docs/config.md's example (the contract's own), with a real source file next to it.
GEMM = {
    "schema": "tilescope.config/1",
    "name": "gemm_tiled_f16",
    "kernel": {
        "source": "gemm_tiled.cu", "entry": "gemm_tiled", "compiler": "nvrtc", "options": ["-std=c++17"],
        "defines": {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "NUM_WARPS": 4, "STAGES": 2},
    },
    "params": {"M": 4096, "N": 4096, "K": 4096},
    "tensors": {
        "A": {"dtype": "f16", "shape": ["M", "K"], "init": "randn"},
        "B": {"dtype": "f16", "shape": ["K", "N"], "init": "randn"},
        "C": {"dtype": "f16", "shape": ["M", "N"], "output": True},
    },
    "args": ["A", "B", "C", "M", "N", "K"],
    "launch": {
        "grid": ["ceil_div(N, BLOCK_N)", "ceil_div(M, BLOCK_M)", 1],
        "block": ["NUM_WARPS * 32", 1, 1],
        "shared_bytes": "STAGES * (BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * 2",
    },
    "tiles": {"C": {"tile": ["BLOCK_M", "BLOCK_N"], "origin": ["pid_y * BLOCK_M", "pid_x * BLOCK_N"]}},
    "reference": {"op": "gemm", "a": "A", "b": "B", "out": "C"},
    "baseline": "cublas",
    "tolerance": {"rtol": 0.01, "atol": 0.01},
    "sweep": {"BLOCK_M": [64, 128], "BLOCK_N": [32, 64], "NUM_WARPS": [4, 8]},
}

# A small copy kernel with .npy input and expected output and every optional section.
SMALL = {
    "schema": "tilescope.config/1",
    "name": "copy_small",
    "description": "out = in * alpha on a 4x4 f32 tensor",
    "kernel": {"source": "copy.cu", "entry": "copy_scaled", "defines": {"TAG": "fast", "VEC": 1}},
    "params": {"R": 4, "S": 4},
    "tensors": {
        "in": {"dtype": "f32", "shape": ["R", "S"], "init": "npy:../npy/c_4x4_f32.npy"},
        "out": {"dtype": "f32", "shape": ["R", "S"], "output": True, "expected": "npy:../npy/c_4x4_f32.npy"},
    },
    "args": ["in", "out", "R * S:i64", "1.0:f32"],
    "launch": {"grid": ["ceil_div(R * S, 128)"], "block": [128], "shared_bytes": 0},
    "reference": {"op": "npy"},
    "baseline": {"command": "python3 bench.py", "parse": "json"},
    "run": {"timeout_s": 5, "slow_factor": 2.0, "min_reps": 5, "max_reps": 50, "warmup": 1},
    "trials": 3,
}


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def bad(name, base, mutate):
    doc = copy.deepcopy(base)
    mutate(doc)
    write("bad_" + name + ".tscfg.json", doc)


write("gemm_example.tscfg.json", GEMM)
write("small.tscfg.json", SMALL)

def setpath(path, value):
    def f(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return f

def delpath(path):
    def f(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return f

bad("unknown_top_key", GEMM, setpath(["tensor"], {}))
bad("unknown_tensor_key", GEMM, setpath(["tensors", "A", "dtpye"], "f16"))
bad("unknown_kernel_key", GEMM, setpath(["kernel", "define"], {}))
bad("unknown_launch_key", GEMM, setpath(["launch", "smem"], 0))
bad("unknown_run_key", SMALL, setpath(["run", "timeout"], 5))
bad("dtype", GEMM, setpath(["tensors", "A", "dtype"], "f8"))
bad("shape_syntax", GEMM, setpath(["tensors", "C", "shape", 1], "N *"))
bad("shape_operator", GEMM, setpath(["tensors", "C", "shape", 1], "N ^ 2"))
bad("unknown_symbol", GEMM, setpath(["tensors", "C", "shape", 1], "Q * 2"))
bad("string_define_symbol", SMALL, setpath(["tensors", "in", "shape", 0], "TAG"))
bad("div_zero", GEMM, setpath(["launch", "shared_bytes"], "BLOCK_M / (STAGES - 2)"))
bad("mod_zero", GEMM, setpath(["launch", "grid", 2], "M % (K - 4096)"))
bad("param_2p53", GEMM, setpath(["params", "M"], 9007199254740993))
bad("expr_2p53", GEMM, setpath(["tensors", "A", "shape", 0], "M * M * M * M * M"))
bad("huge_tensor", GEMM, lambda d: d["params"].update({"M": 1 << 20, "N": 1 << 20}))
bad("shape_zero", GEMM, setpath(["tensors", "B", "shape", 0], "K - 4096"))
bad("grid_zero", GEMM, setpath(["launch", "grid", 0], "N / BLOCK_N - 64"))
bad("missing_source", GEMM, setpath(["kernel", "source"], "no_such_kernel.cu"))
bad("source_type", GEMM, setpath(["kernel", "source"], "make_fixtures.py"))
bad("missing_entry", GEMM, delpath(["kernel", "entry"]))
bad("arg_suffix", GEMM, setpath(["args", 3], "M:i16"))
bad("arg_unknown_tensor", GEMM, setpath(["args", 2], "D"))
bad("arg_i32_range", GEMM, setpath(["args", 3], "M * M * 1024"))
bad("tiles_unknown_tensor", GEMM, setpath(["tiles", "D"], {"tile": [1, 1], "origin": [0, 0]}))
bad("tiles_input", GEMM, setpath(["tiles", "A"], {"tile": [1, 1], "origin": [0, 0]}))
bad("tiles_rank", GEMM, setpath(["tiles", "C", "tile"], ["BLOCK_M"]))
bad("reference_unknown_tensor", GEMM, setpath(["reference", "b"], "X"))
bad("reference_op", GEMM, setpath(["reference", "op"], "conv"))
bad("reference_npy_no_expected", GEMM, setpath(["reference"], {"op": "npy"}))
bad("baseline", GEMM, setpath(["baseline"], "cudnn"))
bad("sweep_key", GEMM, setpath(["sweep", "BLOCK_Q"], [1, 2]))
bad("sweep_empty", GEMM, setpath(["sweep", "BLOCK_M"], []))
bad("sweep_float", GEMM, setpath(["sweep", "BLOCK_N"], [32, 64.5]))
bad("trials_twice", SMALL, setpath(["sweep"], {"VEC": [1, 2], "trials": 2}))
bad("schema", GEMM, setpath(["schema"], "tilescope.config/2"))
bad("no_schema", GEMM, delpath(["schema"]))
bad("expected_on_input", SMALL, setpath(["tensors", "in", "expected"], "npy:../npy/c_4x4_f32.npy"))
bad("init", GEMM, setpath(["tensors", "A", "init"], "normal"))
bad("npy_missing", SMALL, setpath(["tensors", "in", "init"], "npy:../npy/nothing.npy"))
bad("npy_shape", SMALL, setpath(["tensors", "in", "init"], "npy:../npy/a_4x8_f32.npy"))
bad("npy_dtype", SMALL, lambda d: d["tensors"]["in"].update({"shape": ["R", "S * 2"], "init": "npy:../npy/a_4x8_f16.npy"}))
bad("npy_fortran", SMALL, setpath(["tensors", "in", "init"], "npy:../npy/fortran_2x2_f32.npy"))
bad("tolerance", SMALL, setpath(["tolerance"], {"rtol": -1}))
bad("strides_rank", GEMM, setpath(["tensors", "A", "strides"], [1]))
bad("run_metric_shape", SMALL, setpath(["run", "metrics"], ["dram__bytes_read.sum", "DRAM bytes read"]))
bad("run_counters_type", SMALL, setpath(["run", "counters"], "yes"))
bad("run_reps_order", SMALL, lambda d: d["run"].update({"min_reps": 100, "max_reps": 50}))
bad("define_function_name", GEMM, setpath(["kernel", "defines", "min"], 2))
bad("param_tile_name", GEMM, setpath(["params", "pid_x"], 1))

# Not JSON: a missing comma on line 3.
with open(os.path.join(HERE, "bad_json.tscfg.json"), "w") as f:
    f.write('{\n  "schema": "tilescope.config/1",\n  "name": "x"\n  "kernel": {}\n}\n')
