"""PyTorch's matmul judged by gpuval, and a hand-written "fast" matmul with a planted bug: it
multiplies in float16 and casts back, so its inputs lose 13 of float32's 24 bits. gpuval must
PASS torch.matmul and FAIL the half-precision one. Also: TF32 (torch's allow_tf32) PASSes when
judged as mode "tf32" and FAILs when claimed as native float32.

    python examples/python/torch_matmul.py
    pytest examples/python/test_torch_matmul.py
"""

import sys

import torch

import gpuval


def matmul(A, B):
    return torch.matmul(A, B)


def matmul_half(A, B):
    """The planted bug: products and sums in float16, returned in the inputs' dtype."""
    return torch.matmul(A.half(), B.half()).to(A.dtype)


def tf32(enabled):
    """Turn TF32 for float32 matmuls on or off; returns the previous setting."""
    before = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = enabled
    return before


def main():
    tf32(False)  # float32 is float32 (PyTorch's default since 1.12, set here to be sure)
    ok = True
    for dtype in ("f32", "f64"):
        good = gpuval.check(matmul, op="gemm", dtype=dtype, framework="torch")
        bad = gpuval.check(matmul_half, op="gemm", dtype=dtype, framework="torch")
        print(f"== torch.matmul {dtype}: {sum(map(bool, good))} of {len(good)} PASS")
        print("\n".join(r.row for r in good))
        print(f"== matmul_half {dtype} (planted bug): "
              f"{sum(r.verdict == 'FAIL' for r in bad)} of {len(bad)} FAIL")
        print("\n".join(r.row for r in bad))
        ok = ok and all(good) and any(r.verdict == "FAIL" for r in bad)
    tf32(True)
    try:
        one = dict(op="gemm", dtype="f32", sizes="512x515x260", dists="uniform01,uniform11",
                   framework="torch")
        as_tf32 = gpuval.check(matmul, modes="tf32", **one)
        as_native = gpuval.check(matmul, **one)
    finally:
        tf32(False)
    print("== torch.matmul with allow_tf32, judged as mode tf32 (PASS) and as native (FAIL)")
    print("\n".join(r.row for r in as_tf32 + as_native))
    ok = ok and all(as_tf32) and all(r.verdict == "FAIL" for r in as_native)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
