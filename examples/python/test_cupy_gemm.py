"""The CuPy gemm example as tests: the naive kernel PASSes every gpuval case (in f32, every
case but those whose results are subnormal, which this kernel flushes: pinned below), the
planted off-by-one FAILs them. Skipped without CuPy or a CUDA device."""

import pytest

from gpu_skip import need_cupy

cp = need_cupy()

import gpuval  # noqa: E402
from cupy_gemm import dists_of, gemm_droptail, gemm_naive  # noqa: E402


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_naive_kernel_passes_every_case(dtype):
    results = gpuval.check(gemm_naive, op="gemm", dtype=dtype, framework="cupy",
                           dists=dists_of(dtype))
    failed = [r.row for r in results if not r]
    assert results and not failed, "\n".join(failed)


def test_naive_f32_kernel_flushes_subnormals():
    """Measured on an NVIDIA H200 with CuPy 13: the f32 kernel as CuPy compiles it returns 0
    where the exact result is an f32 subnormal (the same with -ftz=false among its options),
    and gpuval's FTZ rule FAILs every 'tiny' case; torch.matmul and gpuval's own kernels PASS
    the same cases, so the verdict is the kernel's."""
    results = gpuval.check(gemm_naive, op="gemm", dtype="f32", framework="cupy", dists="tiny")
    assert results
    passed = [r.row for r in results if r.verdict != "FAIL" or "FTZ" not in r.reason]
    assert not passed, "\n".join(passed)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_dropped_term_fails(dtype):
    results = gpuval.check(gemm_droptail, op="gemm", dtype=dtype, framework="cupy",
                           dists="uniform01,uniform11")
    assert len(results) > 1
    passed = [r.row for r in results if r.verdict != "FAIL"]
    assert not passed, "\n".join(passed)


# The same through the pytest plugin: one test per case, check's row as a failure's message.
@pytest.mark.gpuval(op="gemm", dtype="f32", dists="uniform11,tie,perm2")
def test_naive_kernel_case(gpuval_case):
    A, B = gpuval_case.inputs.to("cupy")
    gpuval_case.judge(gemm_naive(A, B))


@pytest.mark.xfail(strict=True, raises=pytest.fail.Exception,
                   reason="planted bug: the last k term is dropped; gpuval must FAIL it")
@pytest.mark.gpuval(op="gemm", dtype="f32", dists="uniform01")
def test_droptail_case(gpuval_case):
    A, B = gpuval_case.inputs.to("cupy")
    gpuval_case.judge(gemm_droptail(A, B))
