"""Guard zones and poison for the candidate's tensors (docs/triage.md, "Traps"):
TileScope's worker puts every tensor between guard zones; the runner does the
same for what the candidate touches, in PyTorch.

* Inputs are copied into buffers followed by a guard of 0xFF bytes (NaN in every
  float format): a load past an input's end reads NaN, which shows in the output.
* Outputs the candidate allocates during its forward (torch.empty, empty_like,
  zeros, zeros_like, ones_like, full_like, Tensor.new_empty, new_zeros) come from
  buffers followed by a guard of 0xA5 bytes; empty/empty_like/new_empty start
  from the poison byte instead of whatever the allocator held.
* After the forward, a guard byte that changed is a write past the end of that
  tensor: an oob_write finding naming the tensor's allocation line.

Contiguous CUDA tensors only (others are left alone).
"""
import traceback

from ..common.constants import GUARD_BYTES, INPUT_GUARD, OUTPUT_GUARD, POISON_A

_WRAPPED = (("empty", True), ("empty_like", True), ("zeros", False), ("zeros_like", False),
            ("ones_like", False), ("full_like", False))
_METHODS = (("new_empty", True), ("new_zeros", False))


def _site(candidate):
    """(line, text) of the innermost frame in the candidate's file, or (None, "")."""
    import os
    cand = os.path.realpath(candidate)
    for f in reversed(traceback.extract_stack()):
        if os.path.realpath(f.filename) == cand:
            return f.lineno, (f.line or "").strip()
    return None, ""


class Guards:
    def __init__(self, torch, candidate):
        self.torch, self.candidate = torch, candidate
        self.active = False
        self.poison = POISON_A
        self.records = []      # (kind, name, buffer, nbytes, guard byte, line, text)
        self.originals = {}

    # ------------------------------------------------------------ allocation

    def _guarded(self, like, poison_main):
        T = self.torch
        if not isinstance(like, T.Tensor) or like.device.type != "cuda" or like.numel() == 0 \
                or not like.is_contiguous():
            return like
        nbytes = like.numel() * like.element_size()
        buf = self.originals["empty"](nbytes + GUARD_BYTES, dtype=T.uint8, device=like.device)
        buf[nbytes:].fill_(OUTPUT_GUARD)
        view = buf[:nbytes].view(like.dtype).view(like.shape)
        if poison_main:
            buf[:nbytes].fill_(self.poison)
        else:
            view.copy_(like)
        line, text = _site(self.candidate)
        self.records.append(("output", "tensor allocated by the candidate", buf, nbytes, OUTPUT_GUARD, line, text))
        return view

    def _wrap(self, orig, poison_main):
        guards = self

        def alloc(*a, **kw):
            t = orig(*a, **kw)
            if not guards.active:
                return t
            try:
                return guards._guarded(t, poison_main)
            except Exception:  # an allocation we cannot mirror keeps its own memory
                return t
        alloc.__wrapped__ = orig
        return alloc

    def install(self):
        T = self.torch
        for name, poison_main in _WRAPPED:
            self.originals[name] = getattr(T, name)
            setattr(T, name, self._wrap(self.originals[name], poison_main))
        for name, poison_main in _METHODS:
            self.originals["Tensor." + name] = getattr(T.Tensor, name)
            setattr(T.Tensor, name, self._wrap(self.originals["Tensor." + name], poison_main))

    # ------------------------------------------------------------ inputs

    def guard_inputs(self, inputs):
        """Copies of `inputs`, each CUDA tensor followed by a NaN guard."""
        T = self.torch
        out = []
        for i, x in enumerate(inputs):
            if not isinstance(x, T.Tensor) or x.device.type != "cuda" or x.numel() == 0 or not x.is_contiguous():
                out.append(x.clone() if isinstance(x, T.Tensor) else x)
                continue
            nbytes = x.numel() * x.element_size()
            buf = self.originals["empty"](nbytes + GUARD_BYTES, dtype=T.uint8, device=x.device)
            buf[nbytes:].fill_(INPUT_GUARD)
            view = buf[:nbytes].view(x.dtype).view(x.shape)
            view.copy_(x)
            self.records.append(("input", "input %d" % i, buf, nbytes, INPUT_GUARD, None, ""))
            out.append(view)
        return out

    # ------------------------------------------------------------ checking

    def check(self, case):
        """oob_write findings for guard bytes that changed; forgets the buffers."""
        T = self.torch
        found = []
        for kind, name, buf, nbytes, byte, line, text in self.records:
            changed = (buf[nbytes:] != byte).nonzero()
            if changed.numel() == 0:
                continue
            first, last = int(changed[0]), int(changed[-1])
            f = {"category": "oob_write", "severity": "error",
                 "message": "%d bytes written past the end of %s (bytes %d-%d past it)"
                            % (changed.numel(), name, first, last),
                 "tensor": name,
                 "evidence": {"case": case, "bytes_written": int(changed.numel()), "guard_bytes": GUARD_BYTES,
                              "source": "runner guard zone"},
                 "location": {"byte_offset_past_end": [first, last]}}
            if line:
                f["evidence"]["allocated_at"] = {"file": self.candidate, "line": line, "source_line": text}
            found.append(f)
        self.records = []
        del T
        return found
