"""The helper's command line (see tilescope/triton_helper/__init__.py): one verb
per run, every compiler error a result rather than a crash."""
import json
import os
import sys

from ..common.constants import EXIT_USAGE
from ..tilelang_helper.compiler import compile_tilelang
from .compiler import compile_kernel
from .describe import describe_signature
from .errors import error_result


def fail_usage(message):
    sys.stderr.write("tilescope.triton_helper: " + message + "\n")
    sys.exit(EXIT_USAGE)


def confine_file_sizes():
    """Under TileScope's sandbox (docs/security.md) the kernel file's own code may
    write only in a private folder; this bounds how large a file it can make
    there. A hard limit: the code cannot raise it again."""
    if os.environ.get("TILESCOPE_CONFINED"):
        import resource
        limit = 256 << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def main(argv):
    confine_file_sizes()
    if len(argv) < 2:
        fail_usage("usage: triton_helper/__main__.py version | compile REQUEST OUTDIR | signature FILE.py KERNEL"
                   " | tilelang REQUEST OUTDIR")
    verb = argv[1]
    if verb == "version":
        try:
            import importlib.metadata as md
            version = md.version("triton")
        except Exception:
            version = None
        print(json.dumps({"python": sys.version.split()[0], "executable": sys.executable, "triton": version}))
        return 0
    if verb in ("compile", "tilelang") and len(argv) == 4:
        with open(argv[2]) as f:
            request = json.load(f)
        outdir = argv[3]
        path = os.path.abspath(request.get("source", ""))
        try:
            result = (compile_kernel if verb == "compile" else compile_tilelang)(request, outdir)
        except Exception as exc:  # every compiler error becomes a result, not a crash
            result = error_result(exc, path)
        with open(os.path.join(outdir, "result.json"), "w") as f:
            json.dump(result, f)
        return 0
    if verb == "signature" and len(argv) == 4:
        try:
            result = describe_signature(argv[2], argv[3])
        except Exception as exc:
            result = error_result(exc, os.path.abspath(argv[2]))
        print(json.dumps(result))
        return 0
    fail_usage("unknown verb or wrong arguments: " + " ".join(argv[1:]))
