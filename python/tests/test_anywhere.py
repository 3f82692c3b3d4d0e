"""Outputs of every op computed by NumPy, judged: np.fft's spectra (complex arrays in NumPy's
own layout), np.linalg.solve's solutions, an np.roll diffusion, np.sin applied k times, and a
0-d np.sum. Each PASSes; the same outputs corrupted (a conjugated spectrum, a transposed solve,
one element off) FAIL. NumPy only: no GPU."""

import numpy as np
import pytest

import gpuval

FFTS = [  # op, NumPy's function of one row-batched array (unnormalised inverses, as cuFFT)
    ("fft.c2c.fwd", lambda x, n: np.fft.fft(x, axis=-1)),
    ("fft.c2c.inv", lambda x, n: np.fft.ifft(x, axis=-1) * n),
    ("fft.r2c.fwd", lambda x, n: np.fft.rfft(x, axis=-1)),
    ("fft.c2r.inv", lambda x, n: np.fft.irfft(x, n=n, axis=-1) * n),
]


@pytest.mark.parametrize("op,fn", FFTS, ids=[f[0] for f in FFTS])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("size", ["64x3", "17x2", "4097x3"])
def test_numpy_fft_passes_and_its_conjugate_fails(op, fn, dtype, size):
    n = int(size.split("x")[0])
    case = gpuval.inputs(op, dtype, size)
    (x,) = case
    real = np.float32 if dtype == "f32" else np.float64
    cplx = np.complex64 if dtype == "f32" else np.complex128
    assert x.dtype == (real if op == "fft.r2c.fwd" else cplx)
    y = fn(x, n)
    y = y.astype(real if op == "fft.c2r.inv" else cplx)
    assert y.shape == case.out_shapes["y"]
    j = gpuval.judge(op, case, [y])
    assert j.verdict == "PASS", j.row
    # the same arrays as given data (no dist): the size must come from somewhere for c2r
    kw = {"size": size} if op == "fft.c2r.inv" else {}
    assert gpuval.judge(op, [x], [y], **kw).verdict == "PASS"
    bad = y.copy()
    if op == "fft.c2r.inv":
        bad.flat[np.argmax(np.abs(bad))] *= 1.001
    else:
        bad = np.conj(bad)
    j = gpuval.judge(op, case, [bad])
    assert j.verdict == "FAIL", j.row
    assert j.reason


@pytest.mark.parametrize("op", ["solve.gesv", "solve.posv"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("size", ["37x1", "100x6"])
def test_numpy_solve_passes_and_a_transposed_solve_fails(op, dtype, size):
    case = gpuval.inputs(op, dtype, size)
    A, b = case
    assert A.shape == (A.shape[0], A.shape[0]) and b.shape == (A.shape[0],)
    x = np.linalg.solve(A, b)
    info = np.zeros(1, dtype=A.dtype)  # LAPACK's info: 0, the factorisation went through
    j = gpuval.judge(op, case, [x, info])
    assert j.verdict == "PASS", j.row
    assert gpuval.judge(op, [A, b], [x, info], size=size).verdict == "PASS"
    if op == "solve.gesv":
        xt = np.linalg.solve(A.T, b)
        j = gpuval.judge(op, case, [xt, info])
        assert j.verdict == "FAIL", j.row
        assert "scaled residual" in j.reason


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_numpy_sin_iter_passes(dtype):
    case = gpuval.inputs("sin_iter", dtype, "4097x10")
    (x,) = case
    y = x
    for _ in range(10):
        y = np.sin(y)
    assert gpuval.judge("sin_iter", case, [y]).verdict == "PASS"
    y = y.copy()
    y[np.argmax(np.abs(y))] *= 1.001
    assert gpuval.judge("sin_iter", case, [y]).verdict == "FAIL"


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("op", ["diffusion.periodic", "diffusion.fixed"])
def test_numpy_diffusion_passes(op, dtype):
    size = "37x53x20"
    case = gpuval.inputs(op, dtype, size)
    (f,) = case
    for _ in range(20):
        if op == "diffusion.periodic":  # seed 003: torch.roll's form
            nb = (np.roll(f, 1, 0) + np.roll(f, -1, 0)) + (np.roll(f, 1, 1) + np.roll(f, -1, 1))
            f = f + f.dtype.type(0.1) * (nb - 4 * f)
        else:  # fixed edges: the missing neighbours are zero
            p = np.pad(f, 1)
            nb = (p[:-2, 1:-1] + p[2:, 1:-1]) + (p[1:-1, :-2] + p[1:-1, 2:])
            f = f - f.dtype.type(0.25) * (4 * f - nb)
    assert gpuval.judge(op, case, [f]).verdict == "PASS"
    # the size is not all in the grid: the steps come with size=
    assert gpuval.judge(op, list(case), [f], size=size).verdict == "PASS"
    g = f.copy()
    g.flat[np.argmax(np.abs(g))] *= 1.001
    assert gpuval.judge(op, case, [g]).verdict == "FAIL"


def test_ops_that_took_no_inputs_now_do():
    for op in ["fft.c2c.fwd", "fft.r2c.fwd", "fft.c2r.inv", "solve.gesv", "solve.posv",
               "solve.gesv.singular", "diffusion.fixed", "diffusion.periodic", "sin_iter",
               "lsmr.ridge"]:
        assert gpuval.op_info(op)["takes_inputs"], op
    assert gpuval.op_info("fft.c2c.fwd")["complex_inputs"] == [0]
    assert gpuval.op_info("fft.r2c.fwd")["complex_inputs"] == []
    assert gpuval.op_info("fft.r2c.fwd")["complex_outputs"] == [0]


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_a_0d_sum_is_judged_as_its_1_element_twin(dtype):
    case = gpuval.inputs("reduce.sum", dtype, "1000")
    (x,) = case
    s0 = np.sum(x.astype(np.float64)).astype(x.dtype)  # 0-d, as torch's and CuPy's x.sum()
    assert s0.ndim == 0
    assert gpuval.judge("reduce.sum", case, [s0]).verdict == "PASS"
    assert gpuval.judge("reduce.sum", case, [s0.reshape(1)]).verdict == "PASS"
    assert gpuval.judge("reduce.sum", [x], [s0]).verdict == "PASS"  # size read off x
    js = gpuval.check(lambda v: v.sum(), op="reduce.sum", dtype=dtype, sizes="1000,4097")
    assert js and all(j.verdict == "PASS" for j in js), [j.row for j in js]


def _ridge_dense(case):
    """lsmr.ridge's A (m x n) from the case's CSR arrays, and its lambda_k (src/ops/lsmr.c:
    geomspace(1e-1, 5e3, 10)[k - 1], seed 002's L-curve)."""
    m, n, k = (int(d) for d in case.size.split("x"))
    vals, b, row_ptr, col_idx = case
    rows = np.repeat(np.arange(m), np.diff(row_ptr.astype(np.int64)))
    A = np.zeros((m, n), dtype=np.float64)
    A[rows, col_idx.astype(np.int64)] = vals
    return A, b.astype(np.float64), float(np.geomspace(1e-1, 5e3, 10)[k - 1])


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("size", ["61x97x1", "97x61x4", "300x200x6"])
def test_a_ridge_solution_from_elsewhere_is_judged_without_lsmrs_tolerance(dtype, size):
    """lsmr.ridge on outputs computed elsewhere: NumPy's lstsq of the stacked system
    [A; lambda I] x = [b; 0] (no LSMR, no stopping tolerance, info left zero) PASSes by the
    normal-equations residual; the same x with its largest element 0.1 % off FAILs it."""
    case = gpuval.inputs("lsmr.ridge", dtype, size, "uniform11", seed=2)
    A, b, lam = _ridge_dense(case)
    assert case["A_row_ptr"][-1] == case["A_values"].size  # the CSR is whole
    n = A.shape[1]
    x = np.linalg.lstsq(np.vstack([A, lam * np.eye(n)]), np.concatenate([b, np.zeros(n)]),
                        rcond=None)[0].astype(case["b"].dtype)
    info = np.zeros(6, dtype=x.dtype)
    j = gpuval.judge("lsmr.ridge", case, [x, info])
    assert j.verdict == "PASS", j.row
    bad = x.copy()
    bad[np.argmax(np.abs(bad))] *= 1.001
    jb = gpuval.judge("lsmr.ridge", case, [bad, info])
    assert jb.verdict == "FAIL" and "normal-equations residual" in jb.reason, jb.row
    # a pattern that is not the seed's: refused by name, whatever x is
    other = list(case)
    other[3] = np.roll(other[3], 1)
    jp = gpuval.judge("lsmr.ridge", other, [x, info], size=size, seed=2)
    assert jp.verdict == "FAIL" and "pattern" in jp.reason, jp.row
