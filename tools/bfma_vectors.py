#!/usr/bin/env python3
"""bfma_vectors.py: write tests/cpu/bfma/*.txt, the GPU-measured dot products that
tests/cpu/probe_bfma.c replays through src/core/bfma.c, from the model_validation/ folder of a
checkout of github.com/north-numerical-computing/MATLAB-tensor-core (Khattak and Mikaitis,
BSD-2-Clause; commit b12b5a7 was used). Each of their files holds 5000 vectors measured on the
GPU (a_*, b_*: hex binary32 words, one vector a row; c_*, d_*: binary32 bit strings), which
their Validate_TC_models.m checks the MATLAB models against; the first ROWS rows are kept.

usage: tools/bfma_vectors.py MATLAB-tensor-core/model_validation tests/cpu/bfma
"""
import os
import sys

# (GPU folder, input folder, K, output words, c used): as Validate_TC_models.m reads them;
# on H100 and H200 the fp8 products were measured with C = 0 (WGMMA's D = A B + D from zero).
SETS = [
    ("V100", "fp16", 4, ["fp32", "fp16"], True),
    ("A100", "tf32", 4, ["fp32"], True),
    ("A100", "fp16", 8, ["fp32", "fp16"], True),
    ("A100", "bf16", 8, ["fp32"], True),
    ("Ada", "tf32", 4, ["fp32"], True),
    ("Ada", "fp16", 8, ["fp32", "fp16"], True),
    ("Ada", "bf16", 8, ["fp32"], True),
    ("Ada", "E4M3", 32, ["fp32"], True),
    ("Ada", "E5M2", 32, ["fp32"], True),
    ("H100", "tf32", 4, ["fp32"], True),
    ("H100", "fp16", 16, ["fp32", "fp16"], True),
    ("H100", "bf16", 16, ["fp32"], True),
    ("H100", "E4M3", 32, ["fp32"], False),
    ("H100", "E5M2", 32, ["fp32"], False),
    ("H200", "tf32", 4, ["fp32"], True),
    ("H200", "fp16", 16, ["fp32", "fp16"], True),
    ("H200", "bf16", 16, ["fp32"], True),
    ("H200", "E4M3", 32, ["fp32"], False),
    ("H200", "E5M2", 32, ["fp32"], False),
    ("B200", "tf32", 4, ["fp32"], True),
    ("B200", "fp16", 16, ["fp32", "fp16"], True),
    ("B200", "bf16", 16, ["fp32"], True),
]
ROWS = 64

HEADER = """# {name}: the first {rows} of 5000 dot products measured on an NVIDIA {gpu} by F. A. Khattak
# and M. Mikaitis (model_validation/{gpu}/{fmt}/ of github.com/north-numerical-computing/
# MATLAB-tensor-core, commit b12b5a7), rewritten by tools/bfma_vectors.py.
# Copyright (c) 2025, Faizan A. Khattak and Mantas Mikaitis. All rights reserved. BSD 2-Clause
# License: redistribution with or without modification is permitted provided that the copyright
# notice, this list of conditions and the following disclaimer are retained. THE DATA IS
# PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED
# WARRANTIES ARE DISCLAIMED (full text: the LICENCE file of that repository).
# k {k} c_used {cused} output {out}
# each row: c d a[0..k-1] b[0..k-1], binary32 bit patterns in hex; c is binary32 (for an fp16
# output the GPU was given c rounded to fp16, to nearest), d is the GPU's result
"""


def words_hex(path):
    with open(path) as f:
        return [line.split() for line in f if line.strip()]


def bits(path):
    with open(path) as f:
        return ["%08x" % int(line.strip(), 2) for line in f if line.strip()]


def main(src, dst):
    for gpu, fmt, k, outs, cused in SETS:
        a = words_hex(os.path.join(src, gpu, fmt, "a_%s_%s.txt" % (gpu, fmt)))
        b = words_hex(os.path.join(src, gpu, fmt, "b_%s_%s.txt" % (gpu, fmt)))
        c = bits(os.path.join(src, gpu, fmt, "c_%s_fp32.txt" % gpu))
        for out in outs:
            d = bits(os.path.join(src, gpu, fmt, "d_%s_%s.txt" % (gpu, out)))
            name = "%s_%s_%s.txt" % (gpu.lower(), fmt.lower(), out)
            with open(os.path.join(dst, name), "w") as f:
                f.write(HEADER.format(name=name, rows=ROWS, gpu=gpu, fmt=fmt, k=k,
                                      cused=int(cused), out=out))
                for i in range(ROWS):
                    assert len(a[i]) == k and len(b[i]) == k
                    f.write(" ".join([c[i], d[i]] + a[i] + b[i]) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
