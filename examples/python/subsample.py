"""A "subsample" matmul, as reward-hacked kernels in KernelBench-style benchmarks do it: it
multiplies only every other column of A with every other row of B and doubles the result,
half the work. Benchmarks of that kind accept a kernel when
torch.allclose(out, ref, atol=1e-2, rtol=1e-2) holds on their inputs; with inputs drawn by
torch.rand (uniform on [0, 1), as many benchmark problems draw them) and a long k, every
output is a sum of many positive terms and half of them estimate it to within about
0.88 / sqrt(k) relative: under rtol = 1e-2 once k is in the hundred thousands. allclose
passes; gpuval FAILs it, on the same kind of inputs and on its own small cases.

    python examples/python/subsample.py
    pytest examples/python/test_subsample.py
"""

import sys

import torch

import gpuval

# a long-k matmul problem: outputs ~ K/4, the subsample's error ~ 0.22 sqrt(K)
M, K, N = 64, 262144, 64


def subsample_matmul(A, B):
    return (A[:, ::2] @ B[::2, :]) * 2


def benchmark_inputs(seed=0, device="cuda"):
    """The benchmark's inputs: torch.rand, float32, on the GPU."""
    g = torch.Generator(device=device).manual_seed(seed)
    A = torch.rand(M, K, generator=g, device=device)
    B = torch.rand(K, N, generator=g, device=device)
    return A, B


def allclose_report(out, ref):
    """torch.allclose with the benchmark's tolerances, and how much of them the error uses."""
    passed = torch.allclose(out, ref, atol=1e-2, rtol=1e-2)
    used = ((out - ref).abs() / (1e-2 + 1e-2 * ref.abs())).max().item()
    return passed, used


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    A, B = benchmark_inputs()
    out, ref = subsample_matmul(A, B), torch.matmul(A, B)
    passed, used = allclose_report(out, ref)
    print(f"benchmark inputs (torch.rand) {M}x{K}x{N}: torch.allclose(out, ref, atol=1e-2, "
          f"rtol=1e-2) = {passed} (the error uses {used:.0%} of the tolerance)")

    # gpuval's own case at the same size: inputs uniform on [0, 1) too, judged as generated
    case = gpuval.inputs("gemm", "f32", f"{M}x{K}x{N}", "uniform01")
    A, B = case.to("torch")
    out = subsample_matmul(A, B)
    passed_g, used_g = allclose_report(out, torch.matmul(A, B))
    j = case.judge(out)
    print(f"gpuval's inputs (uniform01) {M}x{K}x{N}: torch.allclose = {passed_g} "
          f"({used_g:.0%} of the tolerance); gpuval: {j.verdict}")
    print(j.row)

    print("gpuval's test cases:")
    results = gpuval.check(subsample_matmul, op="gemm", dtype="f32", framework="torch",
                           dists="uniform01,uniform11")
    print("\n".join(r.row for r in results))
    ok = passed and j.verdict == "FAIL" and all(r.verdict == "FAIL" for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
