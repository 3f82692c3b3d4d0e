"""The PyTorch example as tests: torch.matmul PASSes every gpuval case, the float16 matmul
FAILs; TF32 is told apart from float32. Skipped without torch or a CUDA device."""

import pytest

from gpu_skip import need_torch

torch = need_torch()

import gpuval  # noqa: E402
from torch_matmul import matmul, matmul_half, tf32  # noqa: E402


@pytest.fixture(autouse=True)
def no_tf32():
    before = tf32(False)
    yield
    tf32(before)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_torch_matmul_passes_every_case(dtype):
    results = gpuval.check(matmul, op="gemm", dtype=dtype, framework="torch")
    failed = [r.row for r in results if not r]
    assert results and not failed, "\n".join(failed)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_half_precision_matmul_fails(dtype):
    results = gpuval.check(matmul_half, op="gemm", dtype=dtype, framework="torch",
                           dists="uniform01,uniform11")
    passed = [r.row for r in results if r.verdict != "FAIL"]
    assert results and not passed, "\n".join(passed)


def test_tf32_is_judged_as_tf32_not_as_float32():
    tf32(True)
    one = dict(op="gemm", dtype="f32", sizes="512x515x260", dists="uniform01,uniform11",
               framework="torch")
    as_tf32 = gpuval.check(matmul, modes="tf32", **one)
    as_native = gpuval.check(matmul, **one)
    assert all(as_tf32), "\n".join(r.row for r in as_tf32)
    assert all(r.verdict == "FAIL" for r in as_native), "\n".join(r.row for r in as_native)


@pytest.mark.gpuval(op="gemm", dtype="f32", dists="uniform11")
def test_torch_matmul_case(gpuval_case):
    A, B = gpuval_case.inputs.to("torch")
    gpuval_case.judge(matmul(A, B))
