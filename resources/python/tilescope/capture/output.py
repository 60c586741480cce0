"""Everything the recorder writes under TILESCOPE_CAPTURE_DIR.

  events.jsonl          one JSON line per recorded launch and per note, shared
                        with the CUDA recorder and with every process of the
                        program: each line goes out in one O_APPEND write(), so
                        lines from different processes interleave whole
  env-<pid>.json        the process's Python/Triton/torch facts, once
  sources/<file>.py     a copy of each kernel's Python file, once per path
  launches/<id>/        one recorded launch, created as launches/.tmp-<id> and
                        renamed when complete: a reader never sees half a record
"""
import hashlib
import json
import os
import shutil
import sys
import threading


def _json_default(v):
    return repr(v)[:200]


def dumps(obj, **kw):
    return json.dumps(obj, default=_json_default, allow_nan=False, **kw)


class Output:

    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.launches = os.path.join(self.root, "launches")
        self.sources = os.path.join(self.root, "sources")
        self._copied = {}            # absolute source path -> path relative to root
        self._lock = threading.Lock()
        self._note_counts = {}
        self._notes_written = 0

    # --- events ----------------------------------------------------------------

    def event(self, obj):
        line = (dumps(obj, separators=(",", ":")) + "\n").encode("utf-8")
        os.makedirs(self.root, exist_ok=True)
        fd = os.open(os.path.join(self.root, "events.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    MAX_NOTES = 200

    def note(self, message, limit=5):
        """A note event.  The same message is written at most `limit` times, and
        at most MAX_NOTES notes per process: a failure repeated on every launch
        must not fill the disk."""
        with self._lock:
            n = self._note_counts.get(message, 0) + 1
            self._note_counts[message] = n
            self._notes_written += n <= limit
            total = self._notes_written
        if n > limit or total > self.MAX_NOTES:
            return
        if total == self.MAX_NOTES:
            message += " (note limit reached; this process writes no further notes)"
        elif n == limit:
            message += " (repeated; further copies of this note are dropped)"
        self.event({"event": "note", "recorder": "triton", "pid": os.getpid(), "message": message})

    # --- per-process file --------------------------------------------------------

    def write_env(self, facts):
        path = os.path.join(self.root, "env-%d.json" % os.getpid())
        self.write_atomic(path, (dumps(facts, indent=1) + "\n").encode("utf-8"))

    def write_atomic(self, path, data):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = "%s.tmp-%d-%d" % (path, os.getpid(), threading.get_ident())
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    # --- sources -----------------------------------------------------------------

    def copy_source(self, path):
        """The copy of `path` under sources/, relative to the root; None when the
        file cannot be read.  The name is the file's own unless another process
        or kernel already put different bytes there: then a short hash of the
        path is added.  os.link publishes the file whole and fails if the name
        is taken, so concurrent processes cannot overwrite each other."""
        path = os.path.abspath(path)
        with self._lock:
            if path in self._copied:
                return self._copied[path]
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return None
        os.makedirs(self.sources, exist_ok=True)
        base = os.path.basename(path) or "kernel.py"
        stem, ext = os.path.splitext(base)
        short = hashlib.sha1(path.encode("utf-8")).hexdigest()[:8]
        rel = None
        for name in (base, "%s-%s%s" % (stem, short, ext)):
            target = os.path.join(self.sources, name)
            if self._publish(target, data):
                rel = os.path.join("sources", name)
                break
        with self._lock:
            self._copied[path] = rel
        return rel

    def _publish(self, target, data):
        """True when `target` now holds `data` (written here or already there)."""
        try:
            with open(target, "rb") as f:
                return f.read() == data
        except OSError:
            pass
        tmp = "%s.tmp-%d-%d" % (target, os.getpid(), threading.get_ident())
        with open(tmp, "wb") as f:
            f.write(data)
        try:
            os.link(tmp, target)
            return True
        except FileExistsError:
            with open(target, "rb") as f:
                return f.read() == data
        except OSError:
            # A file system without hard links: a rename is atomic too, but it
            # replaces; only take a name nobody holds.
            if not os.path.exists(target):
                os.replace(tmp, target)
                return True
            return False
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    # --- launch folders ------------------------------------------------------------

    def begin(self, rid):
        """The private folder a record is assembled in."""
        tmp = os.path.join(self.launches, ".tmp-" + rid)
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        return tmp

    def commit(self, tmp, rid):
        final = os.path.join(self.launches, rid)
        os.rename(tmp, final)
        return final

    @staticmethod
    def abort(tmp):
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def env_facts(device):
    """The process's facts: Python, Triton, and torch/GPU only if the program
    loaded torch (importing it here would change the program)."""
    import platform
    triton = sys.modules.get("triton")
    facts = {"pid": os.getpid(), "python": sys.executable,
             "python_version": platform.python_version(), "argv": list(sys.argv),
             "triton": getattr(triton, "__version__", None)}
    try:
        facts.update(device.describe())
    except Exception as e:
        facts["device_error"] = repr(e)[:200]
    return facts
