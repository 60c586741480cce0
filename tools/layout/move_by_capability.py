#!/usr/bin/env python3
"""One-off: moves core/, core/cuda/ and ui/ into capability folders and rewrites
every #include and path mention that names a moved file (docs/architecture.md). Kept in the
tree as the record of the move; running it again is a no-op."""
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
os.chdir(ROOT)

# core: module (file stem) -> capability folder
CORE = {
  "base": "dtype expr format json_input npy process python resources",
  "config": "config config_detail config_inputs config_json config_load config_npy config_python "
            "config_resolve config_sections config_sweep config_tensors includes trust tensor triton_init",
  "model": "report report_json report_meta json_fields json_io location location_json location_text "
           "trace_info counters_model vocabulary devices",
  "analysis": "tiles tiles_detail tiles_maps static_analysis static_merge occupancy compare "
              "compare_classify compare_geometry scan scan_oob locations",
  "logs": "logtext logtext_lines classify classify_rules sanitizer sanitizer_detail sanitizer_text "
          "sanitizer_xml device_output",
  "trace": "trace trace_detail trace_fold trace_json trace_lines",
  "counters": "counters counters_conclude counters_pc",
  "run": "session baseline remote slurm slurm_merge shard stream",
  "diagnose": "diagnose diagnose_detail diagnose_conclude diagnose_plan diagnose_shapes tree "
              "tree_predicates tree_walk compile_error",
  "export": "document document_detail document_points document_render summary",
}
# Public headers only the engine (core, core/cuda, tests) includes: core/internal.
INTERNAL = set("baseline compare config_inputs expr includes npy tensor tiles trace json_fields".split())

CUDA = {
  "driver": "driver driver_loader module nvml_clock live_device tensors tensors_guard",
  "compile": "compile compile_cache compile_detail compile_isolated compile_log compile_tilelang "
             "compile_tools compile_triton cubin_elf",
  "timing": "timing timing_stats cupti_collector cupti_errors",
  "profile": "profiler pc_sampling",
  "reference": "reference_gemm sdpa_cudnn sdpa_math",
  "trace": "trace_engine trace_sanitizer trace_abi trace_patches trace_reduce",
  "capture": "capture capture_counters capture_detail capture_launch capture_reference capture_trace",
}
UI_CONTROLLERS = "runcontroller runstream configcheck".split()

core_of = {m: cap for cap, ms in CORE.items() for m in ms.split()}
cuda_of = {m: cap for cap, ms in CUDA.items() for m in ms.split()}

def git_mv(src, dst):
    if not os.path.exists(src):
        return
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    subprocess.run(["git", "mv", src, dst], check=True)

moves = {}  # old path -> new path (repo-relative)
for f in sorted(os.listdir("core/include/tilescope")):
    stem = f[:-2]
    cap = core_of[stem]
    side = "internal" if stem in INTERNAL else "include"
    moves[f"core/include/tilescope/{f}"] = f"core/{side}/tilescope/{cap}/{f}"
for f in sorted(os.listdir("core/src")):
    if os.path.isdir(f"core/src/{f}"):
        continue
    stem, ext = os.path.splitext(f)
    cap = core_of[stem]
    if stem == "json_fields":
        moves[f"core/src/{f}"] = f"core/internal/tilescope/model/{f}"
    else:
        moves[f"core/src/{f}"] = f"core/src/{cap}/{f}"
for f in sorted(os.listdir("core/cuda/src")):
    if os.path.isdir(f"core/cuda/src/{f}"):
        continue
    stem, ext = os.path.splitext(f)
    moves[f"core/cuda/src/{f}"] = f"core/cuda/src/{cuda_of[stem]}/{f}"
for stem in UI_CONTROLLERS:
    for ext in (".h", ".cpp"):
        moves[f"ui/panels/{stem}{ext}"] = f"ui/controllers/{stem}{ext}"

for old, new in moves.items():
    git_mv(old, new)

# Include spellings: "tilescope/X.h" -> "tilescope/CAP/X.h"; core's source-private
# "X.h" stay (same folder) except json_fields.h; core/cuda's source-private headers
# are spelled from core/cuda/src ("capture/capture_detail.h").
pub_re = re.compile(r'(#include\s*[<"])tilescope/([a-z_]+)\.h([>"])')
def fix_pub(m):
    stem = m.group(2)
    if stem in core_of:
        return f'{m.group(1)}tilescope/{core_of[stem]}/{stem}.h{m.group(3)}'
    return m.group(0)
local_re = re.compile(r'#include\s*"([a-z_]+)\.(h|cuh)"')

def rewrite_cpp(path, text):
    text = pub_re.sub(fix_pub, text)
    text = text.replace('#include "json_fields.h"', '#include "tilescope/model/json_fields.h"')
    in_cuda = path.startswith("core/cuda/") or path.startswith("tests/cuda/")
    if in_cuda:
        def fix_local(m):
            stem = m.group(1)
            if stem in cuda_of:
                return f'#include "{cuda_of[stem]}/{stem}.{m.group(2)}"'
            return m.group(0)
        text = local_re.sub(fix_local, text)
    if path.startswith("ui/") or path.startswith("tests/gui/") or path.startswith("app/") or path.startswith("bench/"):
        for stem in UI_CONTROLLERS:
            text = text.replace(f'"panels/{stem}.h"', f'"controllers/{stem}.h"')
    return text

# Mentions of moved files in prose (docs, comments, scripts): the full old path.
def rewrite_mentions(text):
    for old, new in moves.items():
        text = re.sub(r'(?<![\w/])' + re.escape(old) + r'(?![\w])', new, text)
        # "src/capture.cpp" as core/cuda's or core's own comments spell them
    # tilescope/X.h in prose
    text = re.sub(r'(?<![\w/])tilescope/([a-z_]+)\.h', lambda m: f"tilescope/{core_of[m.group(1)]}/{m.group(1)}.h"
                  if m.group(1) in core_of else m.group(0), text)
    return text

files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
for path in files:
    if path.startswith(("tests/data/", "resources/sample/", "docs/screenshots/")) or path.endswith((".png", ".gz", ".json", ".npy")):
        continue
    if path == "tools/layout/move_by_capability.py":
        continue
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    new = text
    if path.endswith((".cpp", ".h", ".cu", ".cuh", ".hpp")):
        new = rewrite_cpp(path, new)
    new = rewrite_mentions(new)
    if new != text:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(new)
print(f"moved {len(moves)} files")
