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
