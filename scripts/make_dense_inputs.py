#!/usr/bin/env python3
"""Writes a seeded random int8 dense layer as .npy files for `tpu dense`: x.npy (M, K) int8,
w.npy (K, N) int8 and b.npy (N,) int32 in OUT_DIR; with --conv H,W,KH,KW a conv2d layer for
`tpu conv2d` instead: x.npy (M, H, W, K) and w.npy (KH, KW, K, N). Standard library only (no
NumPy needed): the files are NumPy format 1.0, as np.save writes them.

  scripts/make_dense_inputs.py --m 256 --k 512 --n 256 --seed 1 build/run
  scripts/make_dense_inputs.py --m 1 --k 32 --n 32 --conv 8,8,3,3 build/waves/conv
"""
import argparse
import math
import os
import random
import struct


def save_npy(path, dtype, shape, values):
    """Writes values (a flat list) as a C-order array of the dtype ('|i1' or '<i4')."""
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, shape_text)
    # Magic (6) + version (2) + header length (2) + header + newline: a multiple of 64 bytes.
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    code = {"|i1": "b", "<i4": "i"}[dtype]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--m", type=int, default=256, help="rows of x (batch)")
    p.add_argument("--k", type=int, default=512, help="inputs per row")
    p.add_argument("--n", type=int, default=256, help="outputs per row")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--conv", metavar="H,W,KH,KW",
                   help="a conv2d layer: M images of H x W pixels of K channels, KH x KW kernel")
    p.add_argument("out_dir")
    a = p.parse_args()
    for name, value in (("--m", a.m), ("--k", a.k), ("--n", a.n)):
        if value < 1:
            p.error("%s must be at least 1, got %d" % (name, value))
    conv = None
    if a.conv is not None:
        try:
            conv = [int(v) for v in a.conv.split(",")]
        except ValueError:
            conv = []
        if len(conv) != 4 or min(conv) < 1:
            p.error("--conv wants H,W,KH,KW (four integers >= 1), got %r" % a.conv)
    x_shape = (a.m, a.k) if conv is None else (a.m, conv[0], conv[1], a.k)
    w_shape = (a.k, a.n) if conv is None else (conv[2], conv[3], a.k, a.n)
    size = math.prod
    rng = random.Random(a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    int8 = lambda count: [rng.randint(-128, 127) for _ in range(count)]
    save_npy(os.path.join(a.out_dir, "x.npy"), "|i1", x_shape, int8(size(x_shape)))
    save_npy(os.path.join(a.out_dir, "w.npy"), "|i1", w_shape, int8(size(w_shape)))
    save_npy(os.path.join(a.out_dir, "b.npy"), "<i4", (a.n,),
             [rng.randint(-20000, 20000) for _ in range(a.n)])
    print("wrote x.npy %s int8, w.npy %s int8, b.npy (%d,) int32 in %s"
          % (x_shape, w_shape, a.n, a.out_dir))


if __name__ == "__main__":
    main()
