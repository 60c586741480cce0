#!/usr/bin/env python3
"""Writes the small .npy fixtures of the unit tests without NumPy (struct only),
following numpy.lib.format: magic, version, header length, a Python dict
literal padded with spaces to a 64-byte boundary, then the raw data.
Values are simple formulas so the tests can check them element by element."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(name, descr, shape, payload, version=1, fortran=False):
    tup = "()" if not shape else "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, tup)
    prefix = 10 if version == 1 else 12
    total = (prefix + len(header) + 1 + 63) // 64 * 64
    header = header + " " * (total - prefix - len(header) - 1) + "\n"
    lenfmt = "<H" if version == 1 else "<I"
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]) + struct.pack(lenfmt, len(header)) + header.encode("latin1"))
        f.write(payload)


def pack(fmt, values):
    return b"".join(struct.pack(fmt, v) for v in values)


# a[i] = 0.5 * i, row-major 4x8
npy("a_4x8_f32.npy", "<f4", (4, 8), pack("<f", [0.5 * i for i in range(32)]))
# same values as half precision
npy("a_4x8_f16.npy", "<f2", (4, 8), pack("<e", [0.5 * i for i in range(32)]))
# version 2 header, f64, v[i] = i - 1.25
npy("v2_3_f64.npy", "<f8", (3,), pack("<d", [i - 1.25 for i in range(3)]), version=2)
# version 3 header, i32 2x2, v[i] = -i * 1000
npy("v3_2x2_i32.npy", "<i4", (2, 2), pack("<i", [-i * 1000 for i in range(4)]), version=3)
# bf16 stored as raw bits in <u2: 1.0, -2.0, 0.5, 3.0 (bf16 = upper 16 bits of the f32)
bf16 = [struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in (1.0, -2.0, 0.5, 3.0)]
npy("bf16_2x2_u2.npy", "<u2", (2, 2), pack("<H", bf16))
# rejected: Fortran order, big-endian, truncated data
npy("fortran_2x2_f32.npy", "<f4", (2, 2), pack("<f", [1, 2, 3, 4]), fortran=True)
npy("bigendian_4_f32.npy", ">f4", (4,), pack(">f", [1, 2, 3, 4]))
npy("truncated_4x4_f32.npy", "<f4", (4, 4), pack("<f", [1, 2, 3]))
# expected output of the small config: c[i] = i, 4x4 f32
npy("c_4x4_f32.npy", "<f4", (4, 4), pack("<f", [float(i) for i in range(16)]))
