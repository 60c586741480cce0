"""Which Triton launches get recorded, decided before any byte is copied.

The limits come from the environment that `tilescope-run capture` sets for the
child (the same variables the CUDA injection recorder reads):

  TILESCOPE_CAPTURE_DIR          where records go (required to record at all)
  TILESCOPE_CAPTURE_KERNEL       a Python `re` pattern searched in the kernel name
  TILESCOPE_CAPTURE_LAUNCH_SKIP  matching launches to pass over first (as ncu)
  TILESCOPE_CAPTURE_LAUNCH_COUNT matching launches to record after those
  TILESCOPE_CAPTURE_MAX_BYTES    a tensor larger than this is described, not saved
  TILESCOPE_CAPTURE_INJECTION    path of the CUDA injection library, if loaded

With neither skip nor count given, the first launch of each distinct
configuration is recorded: a training loop calling the same kernel on the same
shapes a million times yields one record, not a million.
"""
import itertools
import os
import re
import threading

from ..common.constants import CAPTURE_MAX_BYTES

GIB = 1 << 30

_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
          "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
          "g": GIB, "gb": GIB, "gib": GIB, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}


def parse_bytes(text, default):
    """'4294967296', '2G', '512MiB', '1.5g' -> bytes; `default` when unset or
    unreadable (a typo must not stop the user's program)."""
    if text is None or not str(text).strip():
        return default
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _UNITS:
        return default
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def parse_count(text):
    """A non-negative integer, or None when unset or unreadable."""
    if text is None or not str(text).strip():
        return None
    try:
        value = int(str(text).strip())
    except ValueError:
        return None
    return value if value >= 0 else None


def format_bytes(n):
    """Human size for notes: '5.0 GiB', '12.0 MiB', '100 B'."""
    for unit, size in (("TiB", 1 << 40), ("GiB", GIB), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return "%.1f %s" % (n / size, unit)
    return "%d B" % n


class Settings:
    """The environment, read once when the recorder starts."""

    def __init__(self, out_dir, max_bytes=CAPTURE_MAX_BYTES, kernel_pattern=None,
                 skip=None, count=None, injection=None):
        self.out_dir = out_dir
        self.max_bytes = max_bytes
        self.kernel_pattern = kernel_pattern
        self.skip = skip
        self.count = count
        self.injection = injection

    @classmethod
    def from_env(cls, env=None):
        env = os.environ if env is None else env
        return cls(out_dir=env.get("TILESCOPE_CAPTURE_DIR") or None,
                   max_bytes=parse_bytes(env.get("TILESCOPE_CAPTURE_MAX_BYTES"), CAPTURE_MAX_BYTES),
                   kernel_pattern=env.get("TILESCOPE_CAPTURE_KERNEL") or None,
                   skip=parse_count(env.get("TILESCOPE_CAPTURE_LAUNCH_SKIP")),
                   count=parse_count(env.get("TILESCOPE_CAPTURE_LAUNCH_COUNT")),
                   injection=env.get("TILESCOPE_CAPTURE_INJECTION") or None)


class Selector:
    """ncu-style selection: a name filter, then either a skip/count window over
    the matching launches or (neither given) one launch per distinct key.

    decide() is on every launch's path, so it does a cached regex lookup, an
    integer increment under a lock, and computes the distinct key (through
    `key_fn`, only in the default mode and only for matching names)."""

    def __init__(self, pattern=None, skip=None, count=None):
        self.error = None
        self.regex = None
        if pattern:
            try:
                self.regex = re.compile(pattern)
            except re.error as e:
                # A bad pattern records nothing rather than everything: the
                # user asked for a subset, and a flood of records is worse.
                self.error = "TILESCOPE_CAPTURE_KERNEL %r is not a Python regular expression (%s): " \
                             "no Triton launch is recorded" % (pattern, e)
        self.ranged = skip is not None or count is not None
        self.skip = skip or 0
        self.count = count
        self._matched = itertools.count()
        self._seen = set()
        self._names = {}
        self._lock = threading.Lock()

    def matches(self, name):
        hit = self._names.get(name)
        if hit is None:
            if self.error:
                hit = False
            else:
                hit = self.regex is None or self.regex.search(name) is not None
            self._names[name] = hit
        return hit

    def decide(self, name, key_fn):
        """True when this launch of kernel `name` is to be recorded."""
        if not self.matches(name):
            return False
        if self.ranged:
            i = next(self._matched)          # itertools.count: atomic under the GIL
            return i >= self.skip and (self.count is None or i < self.skip + self.count)
        key = key_fn()
        if key in self._seen:                # the common case, without the lock
            return False
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
            return True

    def forget(self, name, key_fn):
        """Undo a decide() whose launch could not be recorded after all (for
        the default mode, so a later launch of that configuration is taken)."""
        if not self.ranged:
            with self._lock:
                self._seen.discard(key_fn())

    def reset(self):
        """A forked child counts its own launches (as a new process would)."""
        self._lock = threading.Lock()
        self._matched = itertools.count()
        self._seen = set()
