"""torch.autocast's products emulated in NumPy on the CPU, judged as the conformance suite
judges the real calls on a GPU (test_conformance.py, knobs autocast-bf16, autocast-f16 and
cupy-f16):

Under torch.autocast("cuda", dtype=torch.bfloat16 or torch.float16), A @ B and torch.bmm cast
their f32 operands to the half type (round to nearest even), cuBLAS multiplies them with an
f32 compute type (CUBLAS_COMPUTE_32F; torch's reduced-precision split-K reductions off) and
stores the product in the half type. In gpuval's words that is the mode bf16 or f16 (half
operands, f32 accumulation) with a bf16 or f16 output: judge() of the half-type output on the
case made for that mode. The same output widened to f32 and claimed as native f32 must FAIL
(the operands' rounding and the output's are not native f32's). Here the operands are rounded
as the cast does, the product is OpenBLAS's f32 sgemm on them (f32 arithmetic in an order of
its own) and the result is rounded to the half type as cuBLAS's epilogue stores it.
"""

import numpy as np
import pytest

import gpuval

SIZES = ["64x64x64", "100x37x129"]


def bf16_bits(x):
    """float32 values rounded to bfloat16 (nearest, ties to even): the raw 16-bit patterns.
    Overflow carries into the exponent and gives infinity, as the CUDA conversion does; a NaN
    stays a (quiet) NaN."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    r[nan] = (b[nan] >> 16) | 0x40
    return r.astype(np.uint16)


def bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def half_round(x, half):
    """x (f32) rounded to the half type, as f32 values."""
    with np.errstate(over="ignore", invalid="ignore"):
        if half == "bf16":
            return bf16_value(bf16_bits(x))
        return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)


def half_store(x, half):
    """The f32 result stored in the half type, as judge() takes it: bf16 as uint16 bits
    (dtype="bf16"), f16 as NumPy float16."""
    with np.errstate(over="ignore", invalid="ignore"):
        return bf16_bits(x) if half == "bf16" else np.asarray(x, np.float32).astype(np.float16)


def widened(stored, half):
    return bf16_value(stored) if half == "bf16" else stored.astype(np.float32)


def autocast_mm(a, b, half):
    with np.errstate(all="ignore"):
        return half_store(np.matmul(half_round(a, half), half_round(b, half)), half)


def raw_dtype(half):
    return "bf16" if half == "bf16" else None


@pytest.mark.parametrize("half", ["bf16", "f16"])
@pytest.mark.parametrize("size", SIZES)
def test_autocast_product_passes_as_half_output_and_fails_as_native_f32(half, size):
    op = "gemm.cublas"
    wrong_fails = 0
    for dist in gpuval.op_info(op)["dists"]:
        ci = gpuval.inputs(op, "f32", size, dist, 0, half)
        out = autocast_mm(ci.arrays[0], ci.arrays[1], half)
        right = gpuval.judge(op, ci, [out], dtype=raw_dtype(half))
        assert right.verdict == "PASS", f"{dist}: {right.row}"
        assert right.dtype == half, right.row
        native = gpuval.inputs(op, "f32", size, dist, 0, "native")
        if all(np.array_equal(x, y, equal_nan=True) for x, y in zip(native.arrays, ci.arrays)):
            wrong = gpuval.judge(op, native, [widened(out, half)])
            wrong_fails += wrong.verdict == "FAIL"
    assert wrong_fails > 0, "no case FAILs the autocast product claimed as native f32"


@pytest.mark.parametrize("half", ["bf16", "f16"])
@pytest.mark.parametrize("op,ta,tb", [("gemm.batched", False, False),
                                      ("gemm.batched.tn", True, False),
                                      ("gemm.batched.nt", False, True)])
def test_autocast_batched_product_passes_batch_by_batch_as_gemm(half, op, ta, tb):
    """torch.bmm under autocast: gemm.batched has no bf16 or f16 mode, so each batch is judged
    as gemm on given data, as the conformance suite judges it: the operands as autocast hands
    them to cuBLAS (cast to the half type), the mode bf16 or f16, the half-type output."""
    size = {"gemm.batched": "3x64x64x64", "gemm.batched.tn": "5x100x37x129",
            "gemm.batched.nt": "2x129x65x33"}[op]
    # uniform01: every product positive, where sm_90's truncating tensor-core envelope sits
    # below the exact sum and the judged points (nearest the reference) above its middle
    ci = gpuval.inputs(op, "f32", size, "uniform01", 0, "native")
    A, B = ci.arrays[0], ci.arrays[1]
    As = np.swapaxes(A, 1, 2) if ta else A
    Bs = np.swapaxes(B, 1, 2) if tb else B
    out = autocast_mm(As, Bs, half)
    assert out.shape == tuple(ci.out_shapes[ci.out_names[0]])
    for q in range(A.shape[0]):
        a, b = half_store(As[q], half), half_store(Bs[q], half)
        j = gpuval.judge("gemm", [a, b], out[q], mode=half, dtype=raw_dtype(half))
        assert j.verdict == "PASS", f"batch {q}: {j.row}"
    wrong = gpuval.judge(op, ci, [widened(out, half)])
    assert wrong.verdict == "FAIL", wrong.row


@pytest.mark.parametrize("half", ["bf16", "f16"])
def test_a_product_accumulated_in_the_half_type_fails_the_half_label(half):
    """The half label is not a blank cheque: every partial sum rounded to the half type
    (half accumulation, not autocast's f32) FAILs it at k = 1024."""
    ci = gpuval.inputs("gemm.cublas", "f32", "16x1024x16", "uniform11", 0, half)
    a, b = half_round(ci.arrays[0], half), half_round(ci.arrays[1], half)
    acc = np.zeros((16, 16), np.float32)
    for p in range(a.shape[1]):
        acc = half_round(acc + np.outer(a[:, p], b[p, :]).astype(np.float32), half)
    assert np.isfinite(acc).all()
    j = gpuval.judge("gemm.cublas", ci, [half_store(acc, half)], dtype=raw_dtype(half))
    assert j.verdict == "FAIL", j.row


# ---------------------------------------------------------------------------------------
# The products inside other ops: (A @ B).sum(0), einsum("ij,jk->k") and the dense layer
# sigmoid(W @ X + b), each as torch runs it under autocast (matmul, einsum and linear are on
# autocast's lower-precision list; sum runs in f32, and a half-type tensor plus an f32 one is
# f32). gpuval's mode bf16 or f16 of these ops (half operands, f32 sums) judges them.


def sigmoid_f32(z):
    """torch.sigmoid's value in f32 for an f32 z: the stable form, no overflow."""
    z = np.asarray(z, np.float32)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        t = np.exp(-np.abs(z)).astype(np.float32)
        pos = (np.float32(1) / (np.float32(1) + t)).astype(np.float32)
        return np.where(z >= 0, pos, (t / (np.float32(1) + t)).astype(np.float32))


def autocast_matmul_colsum(a, b, half):
    """(A @ B).sum(0): the product stored in the half type, then summed in f32: f32 out."""
    with np.errstate(all="ignore"):
        z = half_round(np.matmul(half_round(a, half), half_round(b, half)), half)
        return z.sum(0, dtype=np.float32)


def autocast_einsum(a, b, half):
    """einsum("ij,jk->k"): torch sums i out of the half-type A first (stored in the half
    type), then contracts j with B: the half-type output."""
    with np.errstate(all="ignore"):
        s = half_round(half_round(a, half).sum(0, dtype=np.float32), half)
        return half_store(np.matmul(s, half_round(b, half)), half)


def autocast_dense(w, x, b, half):
    """torch.sigmoid(W @ X + b[:, None]): the product in the half type, b added in f32
    (type promotion), the sigmoid in f32: f32 out."""
    with np.errstate(all="ignore"):
        z = half_round(np.matmul(half_round(w, half), half_round(x, half)), half)
        return sigmoid_f32(z + b[:, None])


def autocast_linear(w, x, b, half):
    """torch.sigmoid(F.linear(X.T, W, b)).T: linear casts b too and returns W X + b in the
    half type; the sigmoid of a half-type tensor is computed in f32 and stored in it."""
    with np.errstate(all="ignore"):
        z = np.matmul(half_round(w, half), half_round(x, half)) + half_round(b, half)[:, None]
        return half_store(sigmoid_f32(half_round(z.astype(np.float32), half)), half)


AUTOCAST_CALLS = {
    "matmul_colsum": (autocast_matmul_colsum, "64x48x32,300x257x129"),
    "einsum.colsum": (autocast_einsum, "64x48x32,300x257x129"),
    "dense.sigmoid": (autocast_dense, "1x300x7,33x70x17"),
    "dense.sigmoid.linear": (autocast_linear, "1x300x7,33x70x17"),
}


def _widen_any(out, half):
    return widened(out, half) if out.dtype != np.float32 else out


@pytest.mark.parametrize("half", ["bf16", "f16"])
@pytest.mark.parametrize("call", sorted(AUTOCAST_CALLS))
def test_autocast_inside_ops_passes_as_half_mode_and_fails_as_native(call, half):
    """Every dist, both sizes: PASS as mode bf16/f16 (with the half-type output where the
    call returns one), and some case FAILs the same output widened and claimed as native."""
    op = "dense.sigmoid" if call == "dense.sigmoid.linear" else call
    fn, sizes = AUTOCAST_CALLS[call]
    assert half in gpuval.op_info(op)["modes"], gpuval.op_info(op)["modes"]
    wrong_fails = judged = 0
    for size in sizes.split(","):
        for dist in gpuval.op_info(op)["dists"]:
            ci = gpuval.inputs(op, "f32", size, dist, 0, half)
            out = fn(*ci.arrays, half)
            raw = raw_dtype(half) if out.dtype != np.float32 else None
            right = gpuval.judge(op, ci, [out], dtype=raw)
            assert right.verdict == "PASS", f"{call} {half} {size} {dist}: {right.row}"
            native = gpuval.inputs(op, "f32", size, dist, 0, "native")
            if all(np.array_equal(x, y, equal_nan=True) for x, y in zip(native.arrays, ci.arrays)):
                wrong = gpuval.judge(op, native, [_widen_any(out, half)])
                wrong_fails += wrong.verdict == "FAIL"
                judged += 1
    assert judged and wrong_fails > 0, f"{call} {half}: no case FAILs as native f32"


@pytest.mark.parametrize("half", ["bf16", "f16"])
@pytest.mark.parametrize("op", ["matmul_colsum", "einsum.colsum", "dense.sigmoid"])
def test_half_copy_of_b_over_a_count_fails(op, half):
    """The planted *.halfcount kernels' arithmetic on the CPU: B's half copy made over A's
    m k elements only, the rest of it zero (the workspace's stale bytes, here zeros), at a
    shape where B is the larger (n > m). The half label FAILs it."""
    ci = gpuval.inputs(op, "f32", "33x70x129", "uniform01", 0, half)
    arrays = [a.copy() for a in ci.arrays]
    m, k = 33, 70
    b = arrays[1].reshape(-1)
    b[m * k:] = 0.0
    fn = {"matmul_colsum": autocast_matmul_colsum, "einsum.colsum": autocast_einsum,
          "dense.sigmoid": autocast_dense}[op]
    out = fn(*arrays, half)
    j = gpuval.judge(op, ci, [out], dtype=raw_dtype(half) if out.dtype != np.float32 else None)
    assert j.verdict == "FAIL", j.row
