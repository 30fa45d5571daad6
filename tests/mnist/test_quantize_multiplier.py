#!/usr/bin/env python3
"""examples/mnist/quant.py's quantize_multiplier() against golden::QuantizeMultiplier
(GOLDEN_TOOL: quantize_multiplier_golden) on 200,000 seeded random reals over 2^-40 .. 2^34
(log-uniform), the range ends, exact powers of two and ties of the 31-bit rounding, and the
values next to each. Usage: test_quantize_multiplier.py GOLDEN_TOOL
"""
import os
import random
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples", "mnist"))
import quant  # noqa: E402


def cases():
    rng = random.Random(15)
    values = [0.0, 1.0, 0.5, 2.0**30, 2.0**30 * (1 - 2.0**-40), 2.0**-32, 2.0**-31, 2.0**-33,
              1 - 2.0**-33, 1 - 2.0**-32, 1 - 2.0**-31, 1 / 255, 0.0005, 1e-10, 12345.678]
    for e in range(-40, 35):
        for m in (0.5, 0.75, 1 - 2.0**-32, 0.5 + 2.0**-33, 0.5 + 2.0**-32, 0.5 + 3 * 2.0**-32):
            values.append(m * 2.0**e)
    values += [2.0**rng.uniform(-40, 34) for _ in range(200000)]
    # the neighbours of every value so far (one ulp either side)
    arr = np.array(values, dtype=np.float64)
    return np.concatenate([arr, np.nextafter(arr, np.inf), np.nextafter(arr[arr > 0], 0)])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    values = cases()
    text = "".join(f"{v!r}\n" for v in values.tolist())
    out = subprocess.run([sys.argv[1]], input=text, capture_output=True, text=True, check=True)
    golden = [tuple(map(int, line.split())) for line in out.stdout.splitlines()]
    if len(golden) != len(values):
        sys.exit(f"FAIL: {len(golden)} answers from {sys.argv[1]} for {len(values)} values")
    bad = [(v, g, quant.quantize_multiplier(v)) for v, g in zip(values.tolist(), golden)
           if quant.quantize_multiplier(v) != g]
    for v, g, p in bad[:10]:
        print(f"FAIL: {v!r}: golden {g}, quant.py {p}")
    if bad:
        sys.exit(f"FAIL: {len(bad)} of {len(values)} values differ")
    print(f"PASS: {len(values)} values: quant.quantize_multiplier == golden::QuantizeMultiplier")


if __name__ == "__main__":
    main()
