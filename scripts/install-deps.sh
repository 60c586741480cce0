#!/usr/bin/env bash
# Installs everything TileScope needs to build and test on Debian 12 (bookworm).
# Usage: scripts/install-deps.sh [--no-gui]
#   --no-gui   server build: no Qt, no QCustomPlot, no Xvfb
# CUDA comes from the toolkit at /usr/local/cuda and is not installed here.
# The cudnn-frontend C++ headers come from the `nvidia-cudnn-frontend` PyPI wheel
# (header-only) and are unpacked into build-deps/cudnn-frontend; Triton goes into
# the virtual environment build-deps/triton-venv, TileLang's headers into
# build-deps/tilelang.
set -euo pipefail
gui=1
[ "${1:-}" = "--no-gui" ] && gui=0
here=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(cmake ninja-build g++ pkg-config python3 python3-pip python3-venv ccache
      nlohmann-json3-dev libmuparser-dev libcli11-dev libgtest-dev libgmock-dev
      libsimdjson-dev             # large reports open in a fraction of the time
      libre2-dev                  # linear-time regular expressions over untrusted text
      clang libclang-rt-14-dev    # clang + libFuzzer/ASan/UBSan runtimes: the fuzz preset
      clang-format                # the pinned formatter (14 on Debian 12): ctest -R format
      openssh-client openssh-server   # --remote, tested against a local sshd
      bubblewrap                      # the sandbox of a Python kernel's compile (docs/security.md)
      strace                          # tests/cli/untrusted_limits.sh: what a refused run opened
      slurm-wlm munge)                # sweep --slurm, tested against a local slurmctld/slurmd
if [ "$gui" = 1 ]; then
  pkgs+=(qt6-base-dev qt6-base-dev-tools libqcustomplot-dev libgl-dev
         xvfb xauth fonts-dejavu-core
         poppler-utils)             # pdftoppm/pdfimages: gui.tst_pdfexport reads the PDF export
fi

sudo=""
[ "$(id -u)" != 0 ] && sudo="sudo"
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# cudnn-frontend: header-only, shipped inside the nvidia-cudnn-frontend wheel.
fe="$here/build-deps/cudnn-frontend"
if [ ! -f "$fe/include/cudnn_frontend.h" ]; then
  tmp=$(mktemp -d)
  if python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" nvidia-cudnn-frontend >/dev/null 2>&1; then
    mkdir -p "$fe"
    python3 - "$tmp" "$fe" <<'PY'
import glob, os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
for whl in glob.glob(os.path.join(src, "*.whl")):
    z = zipfile.ZipFile(whl)
    for n in z.namelist():
        if "/include/" in "/" + n and not n.endswith("/"):
            rel = n[n.index("include/"):]
            out = os.path.join(dst, rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(z.read(n))
PY
  else
    echo "note: could not download nvidia-cudnn-frontend; SDPA through cuDNN is disabled (sdpa_math still works)" >&2
  fi
  rm -rf "$tmp"
fi
# The Compute Sanitizer API (the tracer, `run --trace`): headers and
# libsanitizer-public.so from the nvidia-cuda-sanitizer-api wheel of the
# toolkit's CUDA version, unpacked into build-deps/sanitizer, for toolkits
# (like a pip-assembled one) that lack compute-sanitizer/.
san="$here/build-deps/sanitizer"
nvcc_bin=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
if [ ! -f "$san/include/sanitizer_patching.h" ] && [ -x "$nvcc_bin" ]; then
  cuda_ver=$("$nvcc_bin" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
  tmp=$(mktemp -d)
  if [ -n "$cuda_ver" ] && python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" \
       "nvidia-cuda-sanitizer-api==${cuda_ver}.*" >/dev/null 2>&1; then
    python3 - "$tmp" "$san" <<'PY'
import glob, os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
for whl in glob.glob(os.path.join(src, "*.whl")):
    z = zipfile.ZipFile(whl)
    for n in z.namelist():
        base = os.path.basename(n)
        if "/include/" in n and base.startswith("sanitizer") and base.endswith(".h"):
            out = os.path.join(dst, "include", base)
        elif base == "libsanitizer-public.so":
            out = os.path.join(dst, "lib", base)
        else:
            continue
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(z.read(n))
PY
  else
    echo "note: could not download nvidia-cuda-sanitizer-api ${cuda_ver}; the tracer (run --trace) is not built" >&2
  fi
  rm -rf "$tmp"
fi
# Triton from PyPI in a virtual environment (not the system Python): TileScope's
# Triton helper compiles Triton kernels with it, without a GPU (docs/triton.md).
# Pinned to the GPU host's version; reused while it is installed.
triton_version=3.6.0
venv="$here/build-deps/triton-venv"
if ! "$venv/bin/python3" -c "import importlib.metadata as m, sys; sys.exit(m.version('triton') != '$triton_version')" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check "triton==$triton_version" \
    || echo "note: could not install Triton $triton_version; Triton kernels will not compile" >&2
fi
# nvdisasm (the SASS of `check --stages`, docs/report.md "Compiler stages") from the
# nvidia-cuda-nvdisasm wheel, for toolkits without it (a pip-assembled one); any
# CUDA 13 nvdisasm reads the cubins of this toolkit and of Triton.
"$venv/bin/python3" -c "import glob, nvidia, sys; sys.exit(not glob.glob(nvidia.__path__[0] + '/*/bin/nvdisasm'))" \
    2>/dev/null \
  || "$venv/bin/python3" -m pip install -q --disable-pip-version-check "nvidia-cuda-nvdisasm>=13,<14" \
  || echo "note: could not install nvidia-cuda-nvdisasm into $venv; check --stages uses the toolkit's nvdisasm" >&2
# ruff (PyPI), the Python linter the test python.ruff runs (ruff.toml).
"$venv/bin/ruff" --version >/dev/null 2>&1 \
  || "$venv/bin/python3" -m pip install -q --disable-pip-version-check "ruff>=0.15,<0.18" \
  || echo "note: could not install ruff into $venv; the test python.ruff skips" >&2
# NumPy for the capture recorder's tests (.npy files; resources/python/tilescope/capture).
"$venv/bin/python3" -c "import numpy" 2>/dev/null \
  || "$venv/bin/python3" -m pip install -q --disable-pip-version-check numpy \
  || echo "note: could not install numpy into $venv; the capture recorder's tests skip" >&2

# TileLang's CUDA headers (tl_templates, its CUTLASS/CuTe), from the tilelang wheel
# without installing TileLang (it brings PyTorch): TileLang's generated .cu in the
# zoo (kernels/tilelang) compiles against them.
tl="$here/build-deps/tilelang"
if [ ! -f "$tl/src/tl_templates/cuda/common.h" ]; then
  tmp=$(mktemp -d)
  if python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "tilelang==0.1.15" >/dev/null 2>&1; then
    python3 - "$tmp" "$tl" <<'PY'
import glob, os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
for whl in glob.glob(os.path.join(src, "*.whl")):
    z = zipfile.ZipFile(whl)
    for n in z.namelist():
        if n.endswith("/"):
            continue
        for prefix in ("tilelang/src/tl_templates/", "tilelang/3rdparty/cutlass/include/"):
            if n.startswith(prefix):
                out = os.path.join(dst, n[len("tilelang/"):])
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with open(out, "wb") as f:
                    f.write(z.read(n))
PY
  else
    echo "note: could not download tilelang's headers; TileLang's generated .cu will not compile" >&2
  fi
  rm -rf "$tmp"
fi
echo "dependencies ready" >&2
