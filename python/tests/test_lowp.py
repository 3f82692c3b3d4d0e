"""Low-precision outputs and inputs through gpuval.judge over NumPy: float16 arrays as they are,
bfloat16 and fp8 as raw bit patterns with dtype= naming the format (NumPy has neither type).
Computed with f32 accumulation and stored low, gemm, softmax and vadd PASS; the same values
labelled float32 FAIL; a dot product accumulated in bf16 FAILs; zeros and NaN FAIL; undeclared
raw bits and ops judged by a backward error are refused."""

import numpy as np
import pytest

import gpuval


def bf16_bits(x):
    """float32 values rounded to bfloat16 (nearest, ties to even), as uint16 bit patterns."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def bf16_values(bits):
    """bfloat16 bit patterns as the float32 values they hold (exact)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def gemm_data(m=16, k=4096, n=16, seed=3):
    rng = np.random.default_rng(seed)
    A = bf16_bits(rng.uniform(-1, 1, (m, k)).astype(np.float32))
    B = bf16_bits(rng.uniform(-1, 1, (k, n)).astype(np.float32))
    return A, B, bf16_values(A), bf16_values(B)


def bf16_accumulated(Af, Bf):
    """A @ B with every partial sum rounded to bf16: a kernel accumulating in bf16."""
    acc = np.zeros((Af.shape[0], Bf.shape[1]), np.float32)
    for p in range(Af.shape[1]):
        acc = bf16_values(bf16_bits(acc + np.outer(Af[:, p], Bf[p, :])))
    return acc


def test_gemm_bf16_stored_f32_accumulated_passes_as_bf16_and_fails_as_f32():
    A, B, Af, Bf = gemm_data()
    C32 = Af @ Bf  # NumPy's float32 matmul: f32 accumulation
    Cbf = bf16_bits(C32)
    j = gpuval.judge("gemm", [A, B], Cbf, dtype="bf16")
    assert j.verdict == "PASS", j.reason
    assert j.max_rel > 1e-3  # the stored values' own error: bf16's rounding
    # the same values cast to float32 and labelled f32: the rounding was not declared
    j32 = gpuval.judge("gemm", [Af, Bf], bf16_values(Cbf))
    assert j32.verdict == "FAIL", j32.reason
    # bf16 inputs with the f32 output itself: the f32 model, no output rounding
    jmix = gpuval.judge("gemm", [A, B], C32, dtype="bf16")
    assert jmix.verdict == "PASS", jmix.reason


def test_gemm_accumulated_in_bf16_fails():
    A, B, Af, Bf = gemm_data()
    bad = bf16_bits(bf16_accumulated(Af, Bf))
    j = gpuval.judge("gemm", [A, B], bad, dtype="bf16")
    assert j.verdict == "FAIL", j.reason
    assert "envelope" in j.reason


def test_gemm_f16_output_of_numpy_float16_passes_zeros_and_nan_fail():
    rng = np.random.default_rng(4)
    A = rng.uniform(-1, 1, (16, 2048)).astype(np.float16)
    B = rng.uniform(-1, 1, (2048, 16)).astype(np.float16)
    C = (A.astype(np.float32) @ B.astype(np.float32)).astype(np.float16)
    assert gpuval.judge("gemm", [A, B], C).verdict == "PASS"
    assert gpuval.judge("gemm", [A, B], np.zeros_like(C)).verdict == "FAIL"
    C[3, 4] = np.nan
    j = gpuval.judge("gemm", [A, B], C)
    assert j.verdict == "FAIL" and "NaN" in j.reason


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_softmax_bf16():
    rng = np.random.default_rng(5)
    X = bf16_bits(rng.uniform(-4, 4, (8, 4096)).astype(np.float32))
    Y = softmax(bf16_values(X).astype(np.float64)).astype(np.float32)
    j = gpuval.judge("softmax.rows", X, bf16_bits(Y), dtype="bf16", size="8x4096")
    assert j.verdict == "PASS", j.reason
    z = gpuval.judge("softmax.rows", X, np.zeros_like(X), dtype="bf16", size="8x4096")
    assert z.verdict == "FAIL"
    j32 = gpuval.judge("softmax.rows", bf16_values(X), bf16_values(bf16_bits(Y)), size="8x4096")
    assert j32.verdict == "FAIL", j32.reason


def test_vadd_f16_overflow_to_inf_passes_only_past_65520():
    rng = np.random.default_rng(6)
    a = rng.uniform(20000, 40000, 4096).astype(np.float32)
    b = rng.uniform(20000, 40000, 4096).astype(np.float32)
    with np.errstate(over="ignore"):
        c = (a + b).astype(np.float16)
    assert np.isinf(c).any() and np.isfinite(c).any()
    assert gpuval.judge("vadd", [a, b], c).verdict == "PASS"
    k = int(np.argmax((a + b < 65000)))
    c[k] = np.inf
    assert gpuval.judge("vadd", [a, b], c).verdict == "FAIL"


def test_raw_bits_need_their_format_and_backward_error_ops_refuse():
    A, B, Af, Bf = gemm_data(4, 64, 4)
    C = bf16_bits(Af @ Bf)
    with pytest.raises(TypeError, match="dtype="):
        gpuval.judge("gemm", [A, B], C)
    with pytest.raises(TypeError, match="bf16"):
        gpuval.judge("gemm", [A, B], C.astype(np.float16), dtype="bf16")
    with pytest.raises(ValueError, match="dtype="):
        gpuval.judge("gemm", [A, B], C, dtype="bf15")
    A16 = np.eye(8, dtype=np.float16)
    b16 = np.ones(8, np.float16)
    with pytest.raises(gpuval.GpuvalError, match="backward error"):
        gpuval.judge("solve.gesv", [A16, b16], [b16, np.zeros(1, np.float32)], size="8x1")


def test_bf16_npy_of_raw_bits_is_judged_by_the_cli(tmp_path):
    """gpuval judge reads uint16 bits with --dtype bf16 (how a torch bf16 tensor is saved)."""
    import os
    import subprocess

    exe = os.environ.get("GPUVAL")
    if not exe:
        pytest.skip("GPUVAL (the gpuval binary) is not set")
    a = np.random.default_rng(7).uniform(-1, 1, 1000).astype(np.float32)
    b = np.random.default_rng(8).uniform(-1, 1, 1000).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    np.save(tmp_path / "c.npy", bf16_bits(a + b))
    args = [exe, "judge", "--op", "vadd", "--inputs", f"{tmp_path}/a.npy,{tmp_path}/b.npy",
            "--outputs", f"{tmp_path}/c.npy"]
    assert subprocess.run(args + ["--dtype", "bf16"], capture_output=True).returncode == 0
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 2 and "--dtype" in r.stdout + r.stderr


def test_check_takes_float16_outputs_of_a_kernel():
    """gpuval.check on gpuval's generated f32 inputs: a float16 result of an f32 product PASSes
    (the probabilistic model judges generated inputs), one accumulated in float16 FAILs."""
    good = gpuval.check(lambda A, B: (A @ B).astype(np.float16), op="gemm", sizes="16x2048x16",
                        dists="uniform11")
    assert good and all(j.verdict == "PASS" for j in good), [j.row for j in good]

    def f16_accumulated(A, B):
        acc = np.zeros((A.shape[0], B.shape[1]), np.float16)
        for p in range(A.shape[1]):
            acc = (acc + np.outer(A[:, p], B[p, :])).astype(np.float16)
        return acc

    bad = gpuval.check(f16_accumulated, op="gemm", sizes="16x2048x16", dists="uniform11")
    assert bad and all(j.verdict == "FAIL" for j in bad), [j.row for j in bad]
