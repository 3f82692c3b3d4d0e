"""Frameworks' arithmetic emulated in NumPy on the CPU, judged as the conformance suite judges
the real calls on a GPU (test_conformance.py; issue 38's open groups):

- CuPy's f32 kernels are built with CUDA's -ftz=true, which flushes subnormal operands and
  results alike. Its column sum and cumsum on the `tiny` dist FAILed undeclared under causes
  other than flushed subnormals ("precision", "lost range"): a FAIL that the same outputs do
  not have with ftz and daz declared is now named "flushed subnormals", and allow="ftz" alone
  (CUDA's ftz: inputs and results) PASSes them.
- cupyx.scipy.special's softmax and log_softmax: the shape check allows a declared flush,
  and log-softmax of a row holding +Inf may be SciPy's limit -Inf as well as the stable
  form's NaN.
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


# cupyx.scipy.special's softmax and log_softmax, as SciPy writes them, in NumPy; f32 with
# CUDA's -ftz where CuPy's kernels flush (every operand and result below 2^-126).
def _ftz(a, on):
    return flush(a) if on else a


def cupy_softmax(x, ftz):
    x = _ftz(x, ftz)
    with np.errstate(all="ignore"):
        e = _ftz(np.exp(_ftz(x - np.amax(x, axis=-1, keepdims=True), ftz)), ftz)
        return _ftz(e / _ftz(np.sum(e, axis=-1, keepdims=True, dtype=x.dtype), ftz), ftz)


def cupy_log_softmax(x, ftz):
    x = _ftz(x, ftz)
    m = np.amax(x, axis=-1, keepdims=True)
    m[~np.isfinite(m)] = 0  # SciPy's form: an infinite or NaN max is reset to 0
    with np.errstate(all="ignore"):
        tmp = _ftz(x - m, ftz)
        s = _ftz(np.sum(_ftz(np.exp(tmp), ftz), axis=-1, keepdims=True, dtype=x.dtype), ftz)
        return _ftz(tmp - np.log(s), ftz)


def stable_log_softmax(x):
    """The max-shifted form of PyTorch and gpuval's kernel: a +Inf makes the row NaN."""
    with np.errstate(all="ignore"):
        t = x - np.amax(x, axis=-1, keepdims=True)
        return t - np.log(np.sum(np.exp(t), axis=-1, keepdims=True))


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("op,fn", [("softmax.rows", cupy_softmax),
                                   ("softmax.log", cupy_log_softmax)])
@pytest.mark.parametrize("dist", ["offgrid", "special", "uniform11", "wide"])
def test_cupy_softmax_emulated_passes(op, fn, dtype, dist):
    """CuPy's softmax and log_softmax FAILed under native on an H100: offgrid f32 (the shape
    check took exp's flushed results for wrong ones, 1.95e5 times its bound, with FTZ
    declared) and special f32/f64 (487 NaN/Inf not where the oracle has them: rows holding
    +Inf, where SciPy's form returns log-softmax's limit -Inf and the stable form NaN)."""
    ftz = dtype == "f32"
    ci = gpuval.inputs(op, dtype, "33x100", dist, 0, "native")
    out = fn(ci.arrays[0], ftz).astype(ci.arrays[0].dtype)
    j = gpuval.judge(op, ci, [out], allow="ftz" if ftz else None)
    assert j.verdict == "PASS", j.row


def test_log_softmax_of_a_row_with_inf_takes_the_limit_or_nan_and_nothing_else():
    ci = gpuval.inputs("softmax.log", "f64", "33x100", "special", 0, "native")
    x = ci.arrays[0]
    rows = np.isposinf(x).any(1) & ~np.isnan(x).any(1)
    assert rows.any(), "the special dist holds no row with +Inf and no NaN: no test"
    scipy_form, stable = cupy_log_softmax(x, False), stable_log_softmax(x)
    assert np.isnan(stable[rows]).all() and np.isneginf(scipy_form[rows][~np.isposinf(x[rows])]).all()
    for out in (scipy_form, stable):
        assert gpuval.judge("softmax.log", ci, [out]).verdict == "PASS"
    # a finite value where the limit is -Inf: lost
    wrong = scipy_form.copy()
    r = np.flatnonzero(rows)[0]
    j = np.flatnonzero(np.isfinite(x[r]))[0]
    wrong[r, j] = -1e300
    bad = gpuval.judge("softmax.log", ci, [wrong])
    assert bad.verdict == "FAIL" and bad.cause == "lost NaN/Inf", bad.row
    # -Inf in a NaN row (its value is NaN however the formula goes): still a FAIL
    wrong = stable.copy()
    r = np.flatnonzero(np.isnan(x).any(1) & np.isfinite(x).any(1))[0]
    wrong[r, np.flatnonzero(np.isfinite(x[r]))[0]] = -np.inf
    assert gpuval.judge("softmax.log", ci, [wrong]).verdict == "FAIL"
    # -Inf at the +Inf entry itself (its limit depends on how the infinities compare): FAIL
    wrong = scipy_form.copy()
    r = np.flatnonzero(rows)[0]
    wrong[r, np.flatnonzero(np.isposinf(x[r]))[0]] = -np.inf
    assert gpuval.judge("softmax.log", ci, [wrong]).verdict == "FAIL"
