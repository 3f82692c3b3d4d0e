"""The subsample example as tests: torch.allclose with a benchmark's tolerances accepts the
half-work kernel; gpuval FAILs it. Skipped without torch or a CUDA device."""

from gpu_skip import need_torch

torch = need_torch()

import gpuval  # noqa: E402
from subsample import K, M, N, allclose_report, benchmark_inputs, subsample_matmul  # noqa: E402


def test_allclose_accepts_the_subsample_on_the_benchmarks_inputs():
    torch.backends.cuda.matmul.allow_tf32 = False
    A, B = benchmark_inputs()
    passed, used = allclose_report(subsample_matmul(A, B), torch.matmul(A, B))
    print(f"torch.allclose: {passed}, {used:.0%} of the tolerance used")
    assert passed


def test_gpuval_fails_the_subsample_at_the_benchmarks_size():
    case = gpuval.inputs("gemm", "f32", f"{M}x{K}x{N}", "uniform01")
    A, B = case.to("torch")
    j = case.judge(subsample_matmul(A, B))
    print(j.row)
    assert j.verdict == "FAIL", j.row


def test_gpuval_fails_the_subsample_on_its_test_cases():
    results = gpuval.check(subsample_matmul, op="gemm", dtype="f32", framework="torch",
                           dists="uniform01,uniform11")
    passed = [r.row for r in results if r.verdict != "FAIL"]
    assert results and not passed, "\n".join(passed)
