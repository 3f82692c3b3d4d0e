"""Frameworks' arithmetic emulated in NumPy on the CPU, judged as the conformance suite judges
the real calls on a GPU (test_conformance.py; issue 38's open groups):

- CuPy's f32 kernels are built with CUDA's -ftz=true, which flushes subnormal operands and
  results alike. Its column sum and cumsum on the `tiny` dist FAILed undeclared under causes
  other than flushed subnormals ("precision", "lost range"): a FAIL that the same outputs do
  not have with ftz and daz declared is now named "flushed subnormals", and allow="ftz" alone
  (CUDA's ftz: inputs and results) PASSes them.
"""

import numpy as np
import pytest

import gpuval

F32_TINY = np.float32(2.0 ** -126)


def flush(a):
    """CUDA's -ftz on f32 values: a subnormal becomes a zero of its sign."""
    a = np.array(a, dtype=np.float32)
    sub = (a != 0) & (np.abs(a) < F32_TINY)
    a[sub] = np.copysign(np.float32(0), a[sub])
    return a


def colsum_ftz(x):
    """X.sum(0) with every operand and every partial sum flushed, row by row."""
    x = flush(x)
    acc = np.zeros(x.shape[1], np.float32)
    for row in x:
        acc = flush(acc + row)
    return acc


def cumsum_ftz(x):
    """cumsum along rows with operands and results flushed."""
    x = flush(x)
    out = np.empty_like(x)
    acc = np.zeros(x.shape[0], np.float32)
    for j in range(x.shape[1]):
        acc = flush(acc + x[:, j])
        out[:, j] = acc
    return out


def cumsum_daz(x):
    """cumsum of the inputs read as zero where subnormal, the sums IEEE (subnormal results
    kept): zeros beside subnormals, which the lost-range rule alone would name."""
    return np.cumsum(flush(x), axis=1, dtype=np.float32)


# (op, size, emulation, IEEE's own, how the undeclared reason starts: the FTZ rule where every
# subnormal result is zero, else the retry's naming of a rule that caught it first)
RETRIED = "flushed subnormals: PASS with ftz and daz allowed"
CASES = [("reduce.colsum", "1000x3", colsum_ftz, lambda x: x.sum(0), RETRIED),
         ("scan.cumsum", "7x1025", cumsum_ftz, lambda x: np.cumsum(x, axis=1), "FTZ: "),
         ("scan.cumsum", "7x1025", cumsum_daz, lambda x: np.cumsum(x, axis=1), RETRIED)]


@pytest.mark.parametrize("op,size,flushed,ieee,reason", CASES,
                         ids=["colsum-ftz", "cumsum-ftz", "cumsum-daz"])
def test_flushed_arithmetic_is_named_for_its_cause_and_passes_declared(op, size, flushed, ieee,
                                                                        reason):
    ci = gpuval.inputs(op, "f32", size, "tiny", 0, "native")
    x = ci.arrays[0]
    out = flushed(x)
    assert not np.array_equal(out, ieee(x)), "the emulation flushed nothing: no test"
    bare = gpuval.judge(op, ci, [out])
    assert bare.verdict == "FAIL" and bare.cause == "flushed subnormals", bare.row
    assert bare.reason.startswith(reason), bare.row
    declared = gpuval.judge(op, ci, [out], allow="ftz")
    assert declared.verdict == "PASS", declared.row
    assert gpuval.judge(op, ci, [ieee(x)]).verdict == "PASS"  # IEEE's own: no FAIL to name


def test_an_error_flushing_does_not_explain_keeps_its_cause():
    """1 % off in one column sum of ordinary data: FAIL for precision, never renamed."""
    ci = gpuval.inputs("reduce.colsum", "f32", "1000x3", "uniform11", 0, "native")
    out = ci.arrays[0].sum(0, dtype=np.float32)
    out[1] *= np.float32(1.01)
    j = gpuval.judge("reduce.colsum", ci, [out])
    assert j.verdict == "FAIL" and j.cause != "flushed subnormals", j.row
