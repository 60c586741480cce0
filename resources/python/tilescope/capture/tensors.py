"""Tensor arguments: what they are, and how their bytes reach the host.

The only step that touches the device is TorchDevice.copy_span (plus its
synchronize and timer); the recorder takes the device object as a parameter so
tests hand it fakes backed by numpy arrays.

The bytes are copied as the tensor's storage *span* (from its first to its last
element, a plain device-to-host memcpy) and the logical view is rebuilt on the
host with numpy strides.  `t.contiguous()` would give the same values but, for a
non-contiguous view, launches a copy kernel on the GPU: the CUDA injection
recorder would see that kernel as one of the program's launches and every later
launch index would shift.
"""
import hashlib

# torch dtype (as str(t.dtype)) -> (TileScope's name, numpy descr, note or None).
# The numpy descr is how the bytes are stored: bf16 and fp8 have no numpy type,
# so their raw bits are kept (the reader reinterprets them).
_DTYPES = {
    "torch.float32": ("f32", "<f4", None),
    "torch.float16": ("f16", "<f2", None),
    "torch.bfloat16": ("bf16", "<u2", "bf16 stored as its raw 16-bit patterns (<u2)"),
    "torch.float64": ("f64", "<f8", None),
    "torch.int32": ("i32", "<i4", None),
    "torch.int64": ("i64", "<i8", None),
    "torch.uint8": ("u8", "|u1", None),
    "torch.int8": ("i8", "|i1", None),
    "torch.bool": ("u8", "|u1", "bool stored as raw bytes (u8, 0 or 1)"),
}


def dtype_info(dtype):
    """(name, numpy descr, note) for a tensor dtype, or None if not saved."""
    key = str(dtype)
    info = _DTYPES.get(key)
    if info is None and key.startswith("torch.float8_"):
        info = ("u8", "|u1", "%s stored as raw bytes (u8)" % key[len("torch."):])
    return info


def is_tensor(value):
    """Duck typing, so neither torch nor a fake needs importing here."""
    return (hasattr(value, "data_ptr") and hasattr(value, "dtype")
            and hasattr(value, "shape") and hasattr(value, "stride"))


def shape_of(t):
    return [int(x) for x in t.shape]


def strides_of(t):
    return [int(x) for x in t.stride()]


def span_elements(shape, strides):
    """Elements from the first to the last one the view can reach (strides are
    never negative in torch; a zero extent means nothing is reachable)."""
    if any(int(n) == 0 for n in shape):
        return 0
    return 1 + sum((int(n) - 1) * abs(int(s)) for n, s in zip(shape, strides))


def logical_view(span, shape, strides):
    """The view's values, C-contiguous, from its storage span (1-D, host)."""
    import numpy as np
    item = span.dtype.itemsize
    if span.size == 0:
        return np.zeros(shape, dtype=span.dtype)
    view = np.lib.stride_tricks.as_strided(span, shape=tuple(shape),
                                           strides=tuple(int(s) * item for s in strides))
    return np.ascontiguousarray(view)


def digest(array):
    """A fingerprint of an array's bytes: `changed` compares before and after
    without holding the "before" copy in memory until the kernel ends."""
    import numpy as np
    flat = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    return hashlib.blake2b(flat, digest_size=16).hexdigest()


class TorchDevice:
    """The real device side, through the program's own torch."""

    @staticmethod
    def _torch():
        import sys
        return sys.modules.get("torch")

    def capturing(self):
        """True while the current stream is being captured into a CUDA graph:
        synchronising or copying then would break the program's capture."""
        torch = self._torch()
        if torch is None:
            return False
        try:
            # Only once torch itself started CUDA: asking earlier would start it.
            return torch.cuda.is_initialized() and bool(torch.cuda.is_current_stream_capturing())
        except Exception:
            return False

    def synchronize(self, tensors):
        """Waits for the device(s) of `tensors` (the current one if none), so
        the copies see what the program's earlier work wrote."""
        torch = self._torch()
        if torch is None or not torch.cuda.is_initialized():
            return
        devices = {t.device for t in tensors if getattr(t, "is_cuda", False)}
        if not devices:
            torch.cuda.synchronize()
        for device in devices:
            torch.cuda.synchronize(device)

    def copy_span(self, t, span_elems, descr):
        """The tensor's storage span as a 1-D host numpy array of `descr`."""
        import numpy as np
        torch = self._torch()
        if torch is None or not isinstance(t, torch.Tensor):
            raise TypeError("%s is not a torch.Tensor" % type(t).__name__)
        flat = t.detach().as_strided((span_elems,), (1,), t.storage_offset())
        if flat.dtype == torch.bfloat16:
            flat = flat.view(torch.int16)
        elif np.dtype(descr).itemsize == 1 and flat.dtype not in (torch.uint8, torch.int8):
            flat = flat.view(torch.uint8)     # bool and float8: raw bytes
        host = flat.cpu()                     # a contiguous range: one memcpy, no kernel
        return host.numpy().view(np.dtype(descr))

    def timer_start(self, stream):
        """A started CUDA event pair on the launch's stream, or None.  The GPU
        is idle when the start event is recorded (the copies synchronised it),
        so kernel_ns also holds the host's launch latency: an upper bound,
        good for tens of microseconds and up; the CUDA recorder's CUPTI
        timing is the exact one."""
        torch = self._torch()
        if torch is None or not torch.cuda.is_initialized():
            return None
        current = torch.cuda.current_stream()
        s = current if not stream or current.cuda_stream == stream else torch.cuda.ExternalStream(stream)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(s)
        return (start, end, s)

    def timer_stop(self, handle):
        """Kernel time in ns from timer_start's handle, after the launch."""
        if handle is None:
            return None
        start, end, s = handle
        end.record(s)
        end.synchronize()
        return start.elapsed_time(end) * 1e6

    def describe(self):
        """torch and GPU facts for env-<pid>.json (never imports torch)."""
        torch = self._torch()
        if torch is None:
            return {}
        info = {"torch": getattr(torch, "__version__", None),
                "cuda": getattr(getattr(torch, "version", None), "cuda", None)}
        try:
            if torch.cuda.is_initialized():
                info["gpu"] = torch.cuda.get_device_name()
        except Exception:
            pass
        return info
