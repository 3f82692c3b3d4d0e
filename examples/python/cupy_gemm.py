"""A CuPy RawKernel gemm judged by gpuval: a naive correct kernel, and the same kernel with a
planted bug (it drops the last term of every dot product) that gpuval must FAIL.

    python examples/python/cupy_gemm.py         # every case's row; exit 0 when the naive
                                                # kernel PASSes all (f32: but the subnormal
                                                # ones, which it flushes) and the buggy FAILs
    pytest examples/python/test_cupy_gemm.py    # the same as tests (skipped without CuPy/GPU)

gpuval's gemm is row-major: A is m x k, B is k x n, C is m x n (size "MxKxN").
"""

import sys

import cupy as cp

import gpuval

SOURCE = r"""
#define GEMM(NAME, T, LAST)                                                                      \
extern "C" __global__ void NAME(const T *A, const T *B, T *C, int m, int k, int n)            \
{                                                                                             \
    int i = blockIdx.y * blockDim.y + threadIdx.y;                                            \
    int j = blockIdx.x * blockDim.x + threadIdx.x;                                            \
    if (i >= m || j >= n) return;                                                             \
    T acc = 0;                                                                                \
    for (int p = 0; p < (LAST); p++) acc += A[(long long)i * k + p] * B[(long long)p * n + j]; \
    C[(long long)i * n + j] = acc;                                                            \
}
GEMM(gemm_naive_f32, float, k)
GEMM(gemm_naive_f64, double, k)
/* the planted bug: an off-by-one bound that leaves out the p = k - 1 term */
GEMM(gemm_droptail_f32, float, k - 1)
GEMM(gemm_droptail_f64, double, k - 1)
"""

_module = None


def _kernel(name, dtype):
    global _module
    if _module is None:
        _module = cp.RawModule(code=SOURCE)
    suffix = {cp.dtype(cp.float32): "f32", cp.dtype(cp.float64): "f64"}[cp.dtype(dtype)]
    return _module.get_function(f"{name}_{suffix}")


def _launch(name, A, B):
    m, k = A.shape
    n = B.shape[1]
    A, B = cp.ascontiguousarray(A), cp.ascontiguousarray(B)
    C = cp.empty((m, n), dtype=A.dtype)
    block = (16, 16, 1)
    grid = ((n + 15) // 16, (m + 15) // 16, 1)
    _kernel(name, A.dtype)(grid, block, (A, B, C, cp.int32(m), cp.int32(k), cp.int32(n)))
    return C


def gemm_naive(A, B):
    """C = A @ B, one thread per element, the k terms summed in order."""
    return _launch("gemm_naive", A, B)


def gemm_droptail(A, B):
    """The planted bug: C = A[:, :k-1] @ B[:k-1, :]."""
    return _launch("gemm_droptail", A, B)


# Distributions whose f32 results are subnormal ('tiny') or reach them ('special'): the f32
# kernel as CuPy compiles it flushes subnormal results to zero (measured on an H200, CuPy 13;
# the same with -ftz=false among the RawModule's options), which gpuval's FTZ rule FAILs.
F32_FLUSHED = ("tiny", "special")


def dists_of(dtype):
    """The op's distributions this kernel is expected to PASS in dtype."""
    dists = gpuval.op_info("gemm")["dists"]
    if isinstance(dists, str):
        dists = dists.split(",")
    return ",".join(d for d in dists if dtype != "f32" or d not in F32_FLUSHED)


def main():
    ok = True
    for dtype in ("f32", "f64"):
        good = gpuval.check(gemm_naive, op="gemm", dtype=dtype, framework="cupy",
                            dists=dists_of(dtype))
        bad = gpuval.check(gemm_droptail, op="gemm", dtype=dtype, framework="cupy")
        print(f"== gemm_naive {dtype}: {sum(map(bool, good))} of {len(good)} PASS")
        for r in good:
            print(r.row)
        print(f"== gemm_droptail {dtype} (planted bug): "
              f"{sum(r.verdict == 'FAIL' for r in bad)} of {len(bad)} FAIL")
        for r in bad:
            print(r.row)
        ok = ok and all(good) and any(r.verdict == "FAIL" for r in bad)
        if dtype == "f32":
            ftz = gpuval.check(gemm_naive, op="gemm", dtype="f32", framework="cupy", dists="tiny")
            print(f"== gemm_naive f32 on 'tiny' (subnormal results, flushed by this build): "
                  f"{sum('FTZ' in r.reason for r in ftz)} of {len(ftz)} FAIL for FTZ")
            ok = ok and bool(ftz) and all(r.verdict == "FAIL" and "FTZ" in r.reason for r in ftz)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
