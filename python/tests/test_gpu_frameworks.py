"""Library calls of PyTorch and CuPy on a GPU, judged through the package: torch.fft and
cupy.fft spectra (complex tensors straight from the framework), torch.linalg.solve_ex and
cupy.linalg.solve solutions, and a 0-d x.sum(). Each must PASS under its op; a conjugated
spectrum and a transposed solve must FAIL. Skipped, not failed, without torch or CuPy or a
CUDA device (the CPU suite collects it and skips it)."""

import numpy as np
import pytest

import gpuval

SIZES = ["64x3", "17x2", "4097x3", "2^20x1"]


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy sees no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        pytest.skip(f"CuPy: {e}")
    return cupy


def _fft_calls(xp, n):
    """The four ops as xp's calls (torch.fft or cupy.fft), unnormalised inverses as cuFFT's."""
    f = xp.fft
    return {"fft.c2c.fwd": lambda x: f.fft(x, dim=-1) if xp.__name__ == "torch" else f.fft(x),
            "fft.c2c.inv": lambda x: (f.ifft(x, dim=-1) if xp.__name__ == "torch"
                                      else f.ifft(x)) * n,
            "fft.r2c.fwd": lambda x: f.rfft(x, dim=-1) if xp.__name__ == "torch" else f.rfft(x),
            "fft.c2r.inv": lambda x: (f.irfft(x, n=n, dim=-1) if xp.__name__ == "torch"
                                      else f.irfft(x, n=n)) * n}


@pytest.mark.parametrize("framework", ["torch", "cupy"])
@pytest.mark.parametrize("op", ["fft.c2c.fwd", "fft.c2c.inv", "fft.r2c.fwd", "fft.c2r.inv"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("size", SIZES)
def test_framework_fft_passes_and_its_conjugate_fails(framework, op, dtype, size):
    xp = _torch() if framework == "torch" else _cupy()
    n = int(size.split("x")[0].replace("2^20", str(2**20)))
    case = gpuval.inputs(op, dtype, size)
    (x,) = case.to(framework)
    y = _fft_calls(xp, n)[op](x)
    j = gpuval.judge(op, case, [y])
    assert j.verdict == "PASS", j.row
    if op != "fft.c2r.inv":
        bad = gpuval.judge(op, case, [y.conj()])
        assert bad.verdict == "FAIL", bad.row


@pytest.mark.parametrize("framework", ["torch", "cupy"])
@pytest.mark.parametrize("op", ["solve.gesv", "solve.posv"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("size", ["37x1", "257x6", "1000x6"])
def test_framework_solve_passes_and_a_transposed_solve_fails(framework, op, dtype, size):
    xp = _torch() if framework == "torch" else _cupy()
    case = gpuval.inputs(op, dtype, size)
    A, b = case.to(framework)
    if framework == "torch":
        x, info = xp.linalg.solve_ex(A, b)
        info = info.to(A.dtype).reshape(1)
        xt = xp.linalg.solve(A.T, b)
    else:
        x = xp.linalg.solve(A, b)  # raises where the factorisation fails: info 0 otherwise
        info = xp.zeros(1, dtype=A.dtype)
        xt = xp.linalg.solve(A.T, b)
    j = gpuval.judge(op, case, [x, info])
    assert j.verdict == "PASS", j.row
    if op == "solve.gesv":
        bad = gpuval.judge(op, case, [xt, info])
        assert bad.verdict == "FAIL", bad.row


@pytest.mark.parametrize("framework", ["torch", "cupy"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_framework_0d_sum_is_judged(framework, dtype):
    _torch() if framework == "torch" else _cupy()
    js = gpuval.check(lambda v: v.sum(), op="reduce.sum", dtype=dtype, framework=framework,
                      sizes="1000,4097,1000000", dists="uniform01,uniform11")
    assert js and all(j.verdict == "PASS" for j in js), [j.row for j in js]


def test_numpy_is_enough_to_collect_this_file():
    assert np.__version__
