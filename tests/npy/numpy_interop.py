#!/usr/bin/env python3
"""numpy's side of test_npy_numpy: the .npy files numpy writes must read back in C++, and the
files tpu::npy writes must load in numpy and be byte for byte what np.save writes.

  numpy_interop.py write DIR   numpy writes good files (named DTYPE_SHAPE_vMAJOR.npy) and bad
                               ones (bad_*.npy, x.npz) into DIR
  numpy_interop.py check DIR   every DTYPE_SHAPE_vMAJOR.npy in DIR must load with that dtype,
                               shape and content and equal numpy's own bytes for that version

SHAPE is "scalar" or dimensions joined by "x" ("2x3", "0x4"). The content of every good file is
Pattern(): element i is (i * 2654435761 + 12345) mod 2^32, wrapped to the dtype.
"""
import io
import os
import re
import sys

import numpy as np
from numpy.lib import format as npformat

GOOD = [("int8", (2, 3), 1), ("int32", (5,), 1), ("int32", (), 1), ("int8", (0, 4), 1),
        ("int8", (2, 3, 1, 2), 1), ("int32", (3, 4), 2), ("int32", (2, 2), 3),
        ("int8", (4,), 3)]
NAME = re.compile(r"^(int8|int32)_([0-9x]+|scalar)_v([123])\.npy$")


def pattern(dtype, shape):
    count = int(np.prod(shape, dtype=np.int64))
    raw = (np.arange(count, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(12345))
    raw &= np.uint64(0xFFFFFFFF)
    if dtype == "int8":
        values = raw.astype(np.uint8).view(np.int8)
    else:
        values = raw.astype(np.uint32).view(np.int32)
    return values.reshape(shape)


def name_of(dtype, shape, major):
    dims = "x".join(str(d) for d in shape) if shape else "scalar"
    return f"{dtype}_{dims}_v{major}.npy"


def numpy_bytes(array, major):
    out = io.BytesIO()
    npformat.write_array(out, array, version=(major, 0))
    return out.getvalue()


def write(folder):
    for dtype, shape, major in GOOD:
        with open(os.path.join(folder, name_of(dtype, shape, major)), "wb") as f:
            f.write(numpy_bytes(pattern(dtype, shape), major))
    c_order = pattern("int8", (2, 3))
    np.save(os.path.join(folder, "bad_fortran.npy"), np.asfortranarray(c_order))
    np.save(os.path.join(folder, "bad_int16.npy"), np.zeros((2, 3), np.int16))
    np.save(os.path.join(folder, "bad_float32.npy"), np.zeros((2, 3), np.float32))
    np.save(os.path.join(folder, "bad_uint8.npy"), np.zeros((2, 3), np.uint8))
    np.save(os.path.join(folder, "bad_bool.npy"), np.zeros((2, 3), np.bool_))
    np.save(os.path.join(folder, "bad_bigendian.npy"), np.zeros(3, ">i4"))
    np.save(os.path.join(folder, "bad_structured.npy"), np.zeros(2, [("a", "<i4"), ("b", "i1")]))
    np.savez(os.path.join(folder, "x.npz"), a=c_order)


def check(folder):
    failures = []
    files = sorted(f for f in os.listdir(folder) if NAME.match(f))
    if not files:
        failures.append(f"no DTYPE_SHAPE_vMAJOR.npy files in {folder}")
    for name in files:
        dtype, dims, major = NAME.match(name).groups()
        shape = () if dims == "scalar" else tuple(int(d) for d in dims.split("x"))
        path = os.path.join(folder, name)
        try:
            array = np.load(path)
        except Exception as error:  # report every file, not just the first
            failures.append(f"{name}: numpy cannot load it: {error}")
            continue
        want = pattern(dtype, shape)
        if array.dtype != want.dtype or array.shape != want.shape:
            failures.append(f"{name}: {array.dtype} {array.shape}, expected {want.dtype} {shape}")
        elif not np.array_equal(array, want):
            failures.append(f"{name}: content differs from the pattern")
        with open(path, "rb") as f:
            if f.read() != numpy_bytes(want, int(major)):
                failures.append(f"{name}: bytes differ from numpy's for version {major}.0")
    for failure in failures:
        print("numpy_interop:", failure)
    print(f"numpy_interop: checked {len(files)} files, {len(failures)} problems")
    return 1 if failures else 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        print(__doc__)
        return 2
    if sys.argv[1] == "write":
        write(sys.argv[2])
        return 0
    return check(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
