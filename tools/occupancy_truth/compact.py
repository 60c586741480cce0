#!/usr/bin/env python3
"""Re-encodes occupancy_truth's output losslessly into a compact table (one record a line).

usage: compact.py RAW.json > tests/data/occupancy/<gpu>_truth.json
Each record becomes [kernel, regs, smem_static, max_dynamic_smem, carveout, block,
smem_dynamic, blocks_per_sm]; per-kernel constants (local_bytes, max_threads_per_block)
go to "kernels". Records with a runtime error are kept with blocks_per_sm -1.
"""
import json
import sys

raw = json.load(open(sys.argv[1]))
kernels = {}
rows = []
for r in raw["records"]:
    kernels[r["kernel"]] = {"regs": r["regs"], "smem_static": r["smem_static"],
                            "local_bytes": r["local_bytes"],
                            "max_threads_per_block": r["max_threads_per_block"]}
    rows.append([r["kernel"], r["regs"], r["smem_static"], r["max_dynamic_smem"], r["carveout"],
                 r["block"], r["smem_dynamic"], r["blocks_per_sm"]])
out = ['{', '"schema": "tilescope.occupancy_truth/1",',
       '"source": "tools/occupancy_truth/occupancy_truth.cu: cudaOccupancyMaxActiveBlocksPerMultiprocessor on the real GPU",',
       '"device": ' + json.dumps(raw["device"]) + ',',
       '"kernels": ' + json.dumps(kernels) + ',',
       '"columns": ["kernel", "regs", "smem_static", "max_dynamic_smem", "carveout", "block", "smem_dynamic", "blocks_per_sm"],',
       '"records": [']
out.append(",\n".join(json.dumps(r) for r in rows))
out.append("]}")
print("\n".join(out))
