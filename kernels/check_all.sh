#!/usr/bin/env bash
# Compiles every kernel of the zoo, for every config, with the config's defines
# and options (and every define combination of its sweep), for sm_90 with nvcc,
# and checks that the entry symbol is in the cubin. Reference kernels
# (reference.op == "kernel") are compiled the same way. Needs no GPU.
# Triton kernels (kernel.language "triton") are compiled by `tilescope-run check`
# (TILESCOPE_RUN below) through the Triton helper; their reference kernels here.
#
#   kernels/check_all.sh [CONFIG...]      (default: every kernels/**/*.tscfg.json)
#
# Environment:
#   NVCC            nvcc to use (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   ARCH            target (default sm_90, the H100)
#   TILESCOPE_RUN   a tilescope-run binary: also runs `check CONFIG --device h100`
#                   on each config (the NVRTC path), failing on exit status 2
#                   (configuration error) or 3
# Exit status: 0 when everything compiled, 1 otherwise (failures are listed).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ARCH="${ARCH:-sm_90}"
command -v python3 >/dev/null || { echo "check_all.sh: python3 is needed to read the configs" >&2; exit 1; }
[ -x "$NVCC" ] || { echo "check_all.sh: nvcc not found (set NVCC)" >&2; exit 1; }

if [ $# -gt 0 ]; then configs=("$@"); else mapfile -t configs < <(find "$here" -name '*.tscfg.json' | sort); fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

# One line per compile job: CONFIG<TAB>LABEL<TAB>SOURCE<TAB>ENTRY<TAB>FLAGS...
# (also validates the keys the zoo relies on; a bad config prints "BAD<TAB>...").
TS_ROOT="$here/.." python3 - "${configs[@]}" > "$tmp/jobs" <<'PY'
import itertools, json, os, sys
REQUIRED = ["schema", "name", "kernel", "params", "tensors", "args", "launch", "tiles", "reference", "baseline"]
def flags(defines, options):
    out = []
    for k, v in defines.items():
        out.append("-D%s=%s" % (k, v))
    for o in options:
        if o.startswith("--maxrregcount=") or o.startswith("-maxrregcount="):
            out.append("--maxrregcount=" + o.split("=", 1)[1])
        else:
            out.append(o)
    return out
def tilelang_includes(source):
    # TileLang's generated CUDA includes TileLang's headers (docs/triton.md): the
    # installed package's, else the copy scripts/install-deps.sh unpacks.
    if "tl_templates/" not in open(source, errors="replace").read():
        return []
    roots = [os.environ.get("TILESCOPE_TILELANG_HOME", "")]
    try:
        import importlib.util
        spec = importlib.util.find_spec("tilelang")
        roots.append(os.path.dirname(spec.origin) if spec and spec.origin else "")
    except Exception:
        pass
    roots.append(os.path.join(os.environ.get("TS_ROOT", "."), "build-deps", "tilelang"))
    for r in roots:
        if r and os.path.exists(os.path.join(r, "src", "tl_templates", "cuda", "common.h")):
            return ["-I" + os.path.join(r, "src"), "-I" + os.path.join(r, "3rdparty", "cutlass", "include")]
    return []
for path in sys.argv[1:]:
    try:
        cfg = json.load(open(path))
    except Exception as e:
        print("BAD\t%s\tinvalid JSON: %s" % (path, e)); continue
    k = cfg.get("kernel", {})
    python_kernel = k.get("language") in ("triton", "tilelang")
    # Triton kernels compile through tilescope-run (the Triton helper), not nvcc;
    # a reduction into one element (count_positive) declares no tiles.
    missing = [r for r in REQUIRED if r not in cfg and not (python_kernel and r == "tiles")]
    if cfg.get("schema") != "tilescope.config/1":
        print("BAD\t%s\tschema is not tilescope.config/1" % path); continue
    if missing:
        print("BAD\t%s\tmissing keys: %s" % (path, ", ".join(missing))); continue
    outputs = [n for n, t in cfg["tensors"].items() if t.get("output")]
    for n in outputs:
        if not python_kernel and n not in cfg["tiles"]:
            print("BAD\t%s\toutput %s has no tiles entry" % (path, n))
    d = os.path.dirname(path)
    k = cfg["kernel"]
    defines = dict(k.get("defines", {}))
    sweep = {a: v for a, v in cfg.get("sweep", {}).items() if a != "trials" and a in defines}
    axes = list(sweep.items())
    for combo in (itertools.product(*[v for _, v in axes]) if axes else [()]) if not python_kernel else []:
        dd = dict(defines)
        label = []
        for (name, _), value in zip(axes, combo):
            dd[name] = value; label.append("%s=%s" % (name, value))
        source = os.path.normpath(os.path.join(d, k["source"]))
        print("\t".join([path, " ".join(["kernel"] + label), source, k["entry"]]
                        + flags(dd, k.get("options", [])) + tilelang_includes(source)))
    ref = cfg["reference"]
    if ref.get("op") == "kernel":
        print("\t".join([path, "reference", os.path.normpath(os.path.join(d, ref["source"])), ref["entry"]]
                        + flags(ref.get("defines", {}), ref.get("options", []))))
PY

fail=0; n=0
while IFS=$'\t' read -r config label source entry rest; do
  if [ "$config" = BAD ]; then echo "FAIL $label: $source"; fail=$((fail + 1)); continue; fi
  IFS=$'\t' read -r -a extra <<< "$rest"
  n=$((n + 1))
  cubin="$tmp/$n.cubin"
  if ! "$NVCC" -arch="$ARCH" -cubin -o "$cubin" "${extra[@]}" "$source" > "$tmp/log" 2>&1; then
    echo "FAIL ${config#$here/} ($label): nvcc ${extra[*]} $source"; sed 's/^/    /' "$tmp/log"; fail=$((fail + 1)); continue
  fi
  if ! readelf -Ws "$cubin" 2>/dev/null | awk '$4 == "FUNC" && $5 == "GLOBAL"' | grep -qw -- "$entry"; then
    echo "FAIL ${config#$here/} ($label): entry '$entry' is not a global function of $source"; fail=$((fail + 1)); continue
  fi
  echo "ok   ${config#$here/} ($label)"
done < "$tmp/jobs"

if [ -n "${TILESCOPE_RUN:-}" ]; then
  for config in "${configs[@]}"; do
    "$TILESCOPE_RUN" check "$config" --device h100 > "$tmp/check.log" 2>&1; rc=$?
    if [ $rc -ge 2 ]; then
      echo "FAIL tilescope-run check ${config#$here/}: exit $rc"; sed 's/^/    /' "$tmp/check.log"; fail=$((fail + 1))
    else
      echo "ok   tilescope-run check ${config#$here/} (exit $rc)"
    fi
  done
fi

echo "check_all.sh: $n compiles, $fail failure(s)"
[ $fail -eq 0 ]
