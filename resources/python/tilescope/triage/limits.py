"""The runner's resource limits (docs/triage.md, "The sandbox"): set on itself,
soft and hard (the CPU limit's hard value 5 s above), before the problem's files are imported, so that nothing the
problem does can raise them again; and which of them an exception shows fired.

RLIMIT_DATA bounds the heap and private mappings only: CUDA reserves its
address space without backing it, which RLIMIT_AS would count and refuse.
"""
import errno
import resource

_CPU_GRACE_S = 5

_LIMITS = (
    ("max_file_bytes", "RLIMIT_FSIZE", resource.RLIMIT_FSIZE),
    ("max_cpu_s", "RLIMIT_CPU", resource.RLIMIT_CPU),
    ("max_memory_bytes", "RLIMIT_DATA", resource.RLIMIT_DATA),
)


def apply(file_bytes, cpu_s, memory_bytes):
    """Sets each limit > 0 (never above the hard limit there is); returns the soft limits in force."""
    wanted = {"max_file_bytes": file_bytes, "max_cpu_s": cpu_s, "max_memory_bytes": memory_bytes}
    out = {}
    for key, _, res in _LIMITS:
        v = int(wanted[key] or 0)
        if v > 0:
            _, hard = resource.getrlimit(res)
            if hard != resource.RLIM_INFINITY:
                v = min(v, hard)
            # At the CPU limit's hard value the kernel sends SIGKILL, which names
            # nothing: SIGXCPU comes at the soft one, a few seconds before.
            top = v + _CPU_GRACE_S if res == resource.RLIMIT_CPU else v
            if hard != resource.RLIM_INFINITY:
                top = min(top, hard)
            resource.setrlimit(res, (v, top))
        soft, _ = resource.getrlimit(res)
        out[key] = None if soft == resource.RLIM_INFINITY else soft
    return out


def _chain(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def fired(exc, in_force):
    """{"limit", "message"} when `exc` (or what caused it) is a limit firing, else None."""
    for e in _chain(exc):
        if isinstance(e, OSError) and e.errno == errno.EFBIG and in_force.get("max_file_bytes"):
            return {"limit": "RLIMIT_FSIZE",
                    "message": "the runner's file-size limit (RLIMIT_FSIZE, %d bytes) was reached"
                    % in_force["max_file_bytes"]}
        if isinstance(e, MemoryError) and in_force.get("max_memory_bytes"):
            return {"limit": "RLIMIT_DATA",
                    "message": "the runner's memory limit (RLIMIT_DATA, %d bytes) was reached"
                    % in_force["max_memory_bytes"]}
    return None
