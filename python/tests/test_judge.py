"""gpuval.judge, gpuval.inputs and gpuval.check over NumPy kernels: correct ones PASS, each
planted fault FAILs, outputs saved to .npy are judged like fresh ones, bad requests are refused."""

import numpy as np
import pytest

import gpuval

SIZE = "100x37x129"  # m x k x n of gemm: A 100x37, B 37x129, C 100x129


def drop_last_k(A, B):
    """gemm that forgets the last term of every dot product (an off-by-one in k)."""
    return A[:, :-1] @ B[:-1, :]


def f16_products(A, B):
    """gemm on inputs rounded to f16 first (a half-precision kernel passed off as f32)."""
    return (A.astype(np.float16).astype(np.float32) @ B.astype(np.float16).astype(np.float32))


def test_op_info_describes_gemm():
    info = gpuval.op_info("gemm")
    assert info["family"] == "gemm"
    assert info["test_shapes"] and info["dists"]
    with pytest.raises(gpuval.GpuvalError):
        gpuval.op_info("no.such.op")


def test_inputs_have_the_ops_shapes_and_are_reproducible():
    case = gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=3)
    assert case.names == ("A", "B") and case.out_names == ("C",)
    assert case["A"].shape == (100, 37) and case["B"].shape == (37, 129)
    assert case.out_shapes == {"C": (100, 129)}
    assert case["A"].dtype == np.float32
    again = gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=3)
    other = gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=4)
    assert all(np.array_equal(a, b) for a, b in zip(case, again))
    assert not np.array_equal(case["A"], other["A"])
    f64 = gpuval.inputs("gemm", "f64", SIZE, "uniform11", seed=3)
    assert f64["A"].dtype == np.float64


def test_conv3d_inputs_have_their_5d_shapes_and_a_numpy_conv3d_passes():
    """API 1.4's whole shapes: conv.3d's x, w and y are 5-D (the 1.3 struct gave them flat), and
    a NumPy conv3d written against those shapes PASSes; its window flipped FAILs."""
    case = gpuval.inputs("conv.3d.valid", "f64", "2x3x5x4", "uniform11", seed=1)
    assert case["x"].shape == (2, 3, 5, 5, 5) and case["w"].shape == (4, 3, 3, 3, 3)
    assert case.out_shapes == {"y": (2, 4, 3, 3, 3)}

    def conv3d(x, w, flip=False):
        if flip:
            w = w[:, :, ::-1, ::-1, ::-1]
        n, c, s = x.shape[0], x.shape[1], x.shape[2]
        o, k = w.shape[0], w.shape[2]
        m = s - k + 1
        win = np.lib.stride_tricks.sliding_window_view(x, (k, k, k), axis=(2, 3, 4))
        assert win.shape == (n, c, m, m, m, k, k, k)
        return np.einsum("ncdhwxyz,ocxyz->nodhw", win, w)

    ok = gpuval.check(conv3d, op="conv.3d.valid", dtype="f64", sizes="2x3x5x4",
                      dists="uniform11")
    assert ok and all(r.verdict == "PASS" for r in ok), [r.row for r in ok]
    bad = gpuval.check(lambda x, w: conv3d(x, w, flip=True), op="conv.3d.valid", dtype="f64",
                       sizes="2x3x5x4", dists="uniform11")
    assert bad and all(r.verdict == "FAIL" for r in bad), [r.row for r in bad]


# the special dists hold Inf and NaN inputs: NumPy warns where the products are invalid
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_numpy_gemm_passes_every_default_case(dtype):
    results = gpuval.check(np.matmul, op="gemm", dtype=dtype)
    assert len(results) == len(gpuval.cases("gemm", dtype)) > 1
    failed = [r.row for r in results if not r]
    assert not failed, "\n".join(failed)
    assert all(r.verdict == "PASS" for r in results)


@pytest.mark.parametrize("kernel", [drop_last_k, f16_products])
def test_planted_faults_fail(kernel):
    results = gpuval.check(kernel, op="gemm", dtype="f32", sizes=[SIZE, "64x64x64"],
                           dists="uniform01,uniform11")
    assert len(results) == 4
    for r in results:
        assert r.verdict == "FAIL", r.row
        assert not r
        assert "FAIL" in r.row and r.reason


def test_saved_outputs_are_judged_like_fresh_ones(tmp_path):
    case = gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=7)
    np.save(tmp_path / "a.npy", case["A"])
    np.save(tmp_path / "b.npy", case["B"])
    np.save(tmp_path / "c.npy", case["A"] @ case["B"])
    A, B, C = (np.load(tmp_path / f) for f in ("a.npy", "b.npy", "c.npy"))

    generated = gpuval.judge("gemm", [A, B], [C], dist="uniform11", seed=7)
    assert generated.verdict == "PASS", generated.row
    assert generated.case["inputs"] == "generated"
    given = gpuval.judge("gemm", {"a.npy": A, "b.npy": B}, {"c.npy": C})
    assert given.verdict == "PASS", given.row
    assert given.case["inputs"] == "given"
    assert given.size == SIZE  # inferred from the shapes
    assert list(given.case["shape"]) == [100, 37, 129]

    bad = C.copy()
    bad[3, 5] *= 1.001
    j = gpuval.judge("gemm", [A, B], [bad], dist="uniform11", seed=7)
    assert j.verdict == "FAIL", j.row
    nan = C.copy()
    nan[0, 0] = np.nan
    j = gpuval.judge("gemm", [A, B], [nan], dist="uniform11", seed=7)
    assert j.verdict == "FAIL" and not j, j.row


def test_case_inputs_judge_their_own_case():
    case = gpuval.inputs("gemm", "f64", SIZE, "uniform01", seed=2)
    j = case.judge(case["A"] @ case["B"])
    assert j.verdict == "PASS", j.row
    assert j.case["dist"] == "uniform01" and j.dtype == "f64"
    assert j.row.split()[:5] == [j.case["op"], "f64", "native", "uniform01", SIZE]
    wrong = case.judge(drop_last_k(case["A"], case["B"]))
    assert wrong.verdict == "FAIL" and wrong.reason in wrong.row


def test_requests_that_cannot_be_judged_are_refused():
    case = gpuval.inputs("gemm", "f32", SIZE, "uniform11")
    A, B = case
    C = A @ B
    with pytest.raises(gpuval.GpuvalError):
        gpuval.judge("no.such.op", [A, B], [C], size=SIZE)
    with pytest.raises(gpuval.GpuvalError):  # counts that do not match the size
        gpuval.judge("gemm", [A, B], [C], size="10x10x10")
    with pytest.raises(gpuval.GpuvalError):  # not the inputs that dist and seed make
        gpuval.judge("gemm", [A + 1, B], [(A + 1) @ B], dist="uniform11")
    with pytest.raises(TypeError):  # no gpuval dtype (float16 is judged: test_lowp.py)
        gpuval.judge("gemm", [A, B], [C.astype(np.int32)])
    with pytest.raises(TypeError):
        gpuval.judge("gemm", [A, B], [C.astype(np.float64)])
    with pytest.raises(ValueError):  # k differs between A and B: no size to infer
        gpuval.judge("gemm", [A, B[:-1]], [C])


def test_check_refuses_outputs_of_the_wrong_shape_or_dtype_and_written_inputs():
    one = dict(op="gemm", sizes=SIZE, dists="uniform11")
    with pytest.raises(ValueError, match="shape"):
        gpuval.check(lambda A, B: (A @ B).T.copy(), **one)
    with pytest.raises(TypeError, match="float64"):
        gpuval.check(lambda A, B: (A @ B).astype(np.float64), **one)

    def scribbles(A, B):
        A[0, 0] = 0.5
        return A @ B

    with pytest.raises(ValueError, match="wrote to its input A"):
        gpuval.check(scribbles, **one)


class DLPackOnly:
    """An array type gpuval knows nothing of, readable only through DLPack."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_arrays_are_read_through_dlpack():
    case = gpuval.inputs("gemm", "f32", SIZE, "uniform11")
    C = case["A"] @ case["B"]
    assert np.array_equal(gpuval.to_numpy(DLPackOnly(C)), C)
    j = gpuval.judge("gemm", [DLPackOnly(a) for a in case], DLPackOnly(C), dist="uniform11")
    assert j.verdict == "PASS", j.row


class _Refuse:
    """A meta path finder that records and refuses imports of CuPy and torch."""

    def __init__(self):
        self.asked = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("cupy", "torch"):
            self.asked.append(name)
            raise ImportError(f"{name} refused by the test")
        return None


def test_numpy_users_never_import_cupy_or_torch(monkeypatch):
    import sys

    for name in [m for m in sys.modules if m.split(".")[0] in ("cupy", "torch")]:
        monkeypatch.delitem(sys.modules, name)
    refuse = _Refuse()
    monkeypatch.setattr(sys, "meta_path", [refuse] + sys.meta_path)
    results = gpuval.check(np.matmul, op="gemm", sizes=SIZE, dists="uniform11")
    assert results[0].verdict == "PASS", results[0].row
    gpuval.judge("gemm", list(gpuval.inputs("gemm", size=SIZE)), np.zeros((100, 129), np.float32))
    assert refuse.asked == []
    with pytest.raises(ImportError):  # asked for: imported (and here refused)
        gpuval.check(np.matmul, op="gemm", sizes=SIZE, dists="uniform11", framework="cupy")
    assert refuse.asked == ["cupy"]


def test_row_is_the_row_gpuval_judge_prints(tmp_path):
    import os
    import subprocess

    exe = os.environ.get("GPUVAL")
    if not exe:
        pytest.skip("GPUVAL (the gpuval command) not set")
    case = gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=5)
    np.save(tmp_path / "a.npy", case["A"])
    np.save(tmp_path / "b.npy", case["B"])
    for name, C in (("good", case["A"] @ case["B"]), ("bad", drop_last_k(*case))):
        np.save(tmp_path / f"{name}.npy", C)
        for dist in (None, "uniform11"):
            argv = [exe, "judge", "--op", "gemm", "--inputs",
                    f"{tmp_path}/a.npy,{tmp_path}/b.npy", "--outputs", f"{tmp_path}/{name}.npy"]
            if dist:
                argv += ["--dist", dist, "--seed", "5"]
            res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            assert res.returncode == (0 if name == "good" else 1), res.stderr
            cli_row = [ln for ln in res.stdout.splitlines() if ln.startswith("gemm.")][0]
            j = gpuval.judge("gemm", [case["A"], case["B"]], [C], dist=dist, seed=5)
            assert j.row == cli_row


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_zero_d_results_are_taken_for_one_element_outputs(dtype):
    """x.sum() is 0-d (NumPy's, torch's, CuPy's): check() and judge() take it where the op's
    output has one element; the exact f64 sums of subnormal inputs (the tiny dist) PASS."""
    dists = "uniform01,tiny" if dtype == "f64" else "uniform01"
    for j in gpuval.check(lambda x: x.sum(), op="reduce.sum", dtype=dtype, sizes="1,2,1000",
                          dists=dists):
        assert j, j.row
    for j in gpuval.check(lambda X: X.sum(0)[0], op="reduce.colsum", dtype=dtype, sizes="1x1",
                          dists=dists):
        assert j, j.row
    x = gpuval.inputs("reduce.sum", dtype, "1000", "uniform01", seed=1)["x"]
    assert gpuval.judge("reduce.sum", x, x.sum())
    assert gpuval.judge("reduce.sum", x, x.sum().reshape(1))
    with pytest.raises(ValueError):
        gpuval.check(lambda x: x[:2], op="reduce.sum", dtype=dtype, sizes="1000")


def test_a_sequential_sum_is_judged_order_free():
    """np.cumsum(x)[-1] in float32 adds in order (depth n), not along gpuval's tree: it passes
    as reduce.sum at n = 10^6, as the generated case and as given data."""
    (j,) = gpuval.check(lambda x: np.cumsum(x, dtype=np.float32)[-1], op="reduce.sum",
                        dtype="f32", sizes="1000000", dists="uniform01")
    assert j, j.row
    x = gpuval.inputs("reduce.sum", "f32", "1000000", "uniform01", seed=2)["x"]
    assert gpuval.judge("reduce.sum", x, np.cumsum(x, dtype=np.float32)[-1])


def test_flush_to_zero_is_declared_with_allow():
    tiny = np.finfo(np.float32).tiny

    def ftz(x):
        return np.where(np.abs(x) < tiny, np.copysign(np.float32(0), x), x).astype(np.float32)

    def add(a, b):
        return ftz(ftz(a) + ftz(b))

    undeclared = gpuval.check(add, op="vadd", dtype="f32", sizes="100003", dists="tiny")[0]
    assert undeclared.verdict == "FAIL" and undeclared.reason.startswith("FTZ: "), undeclared.row
    assert undeclared.cause == "flushed subnormals", undeclared.case.get("cause")
    declared = gpuval.check(add, op="vadd", dtype="f32", sizes="100003", dists="tiny",
                            allow="ftz")[0]
    assert declared.verdict == "PASS", declared.row
    assert "[FTZ allowed: " in declared.row
    with pytest.raises(ValueError):  # a behaviour gpuval has no words for
        gpuval.check(add, op="vadd", dtype="f32", sizes="100003", dists="tiny", allow="fast")


def test_a_sigmoid_that_loses_range_is_not_called_ftz():
    """1 / (1 + exp(-x)) in float32 (as torch.sigmoid computes it) returns 0 where exp(-x)
    overflows and the true value is subnormal, beside subnormals returned as such just above:
    exp-based results below the normal range are not promised, so it passes, and whatever the
    verdict its cause is never "flushed subnormals"."""
    def sigmoid(x):
        with np.errstate(over="ignore"):
            return (np.float32(1) / (np.float32(1) + np.exp(-x))).astype(np.float32)

    (j,) = gpuval.check(sigmoid, op="math.sigmoid", dtype="f32", sizes="1000000", dists="wide")
    assert j.cause != "flushed subnormals", j.row
    assert j.cause in gpuval.CAUSES
    assert j, j.row



def test_generated_inputs_are_named_by_their_case_and_given_ones_hashed():
    """A generated case's inputs were checked bit for bit against the generator, so its record
    names them (generated) instead of hashing them; given inputs and every output are hashed.
    A different output has a different hash."""
    ci = gpuval.inputs("vadd", "f32", "1000", "uniform11", seed=4)
    out = ci[0] + ci[1]
    gen = gpuval.judge("vadd", ci, [out]).case["arrays"]
    assert all(a.get("generated") is True and "sha256" not in a for a in gen["inputs"]), gen
    given = gpuval.judge("vadd", list(ci), [out], size="1000").case["arrays"]
    assert all(len(a["sha256"]) == 64 and "generated" not in a for a in given["inputs"]), given
    assert gen["outputs"][0]["sha256"] == given["outputs"][0]["sha256"]
    out[3] = np.nextafter(out[3], np.float32(np.inf))
    other = gpuval.judge("vadd", ci, [out]).case["arrays"]
    assert other["outputs"][0]["sha256"] != gen["outputs"][0]["sha256"]


def _daz(x):
    """x with its subnormals read as zeros of their sign (denormals-are-zero)."""
    tiny = np.finfo(x.dtype).tiny
    return np.where(np.abs(x) < tiny, np.copysign(np.zeros_like(x), x), x)


@pytest.mark.parametrize("size", ["1000", "100003"])
def test_daz_declared_passes_an_ieee_sum_of_flushed_inputs_and_nothing_more(size):
    """a + b of the tiny dist's inputs with their subnormals read as zero, the sum IEEE: FAIL
    undeclared (subnormals lost), PASS with allow="daz" (the oracle reads them as zero too) and
    the row says how many were. Results flushed as well are flush-to-zero, not DAZ: FAIL
    under allow="daz" for flushed subnormals, PASS under allow="ftz". One result 1 % off
    FAILs whatever is declared."""
    ci = gpuval.inputs("vadd", "f32", size, "tiny")
    a, b = ci
    out = _daz(a) + _daz(b)
    assert gpuval.judge("vadd", ci, [out]).verdict == "FAIL"
    j = gpuval.judge("vadd", ci, [out], allow="daz")
    assert j.verdict == "PASS", j.row
    zeroed = int(np.sum((np.abs(a) < np.finfo(a.dtype).tiny) & (a != 0))
                 + np.sum((np.abs(b) < np.finfo(b.dtype).tiny) & (b != 0)))
    assert zeroed > 0 and f"[DAZ allowed: {zeroed} subnormal inputs read as zero]" in j.row
    assert j.case["daz_allowed"] is True and j.case["daz_inputs"] == zeroed
    both = gpuval.judge("vadd", ci, [out], allow=("ftz", "daz"))
    assert both.verdict == "PASS" and "DAZ allowed" in both.row and "FTZ allowed" in both.row
    # normal inputs whose sums are subnormal (1.5 - 1.25 = 0.25 of the smallest normal), the
    # sums flushed: flush-to-zero, which DAZ alone does not declare
    tiny = np.finfo(np.float32).tiny
    x = np.full(64, 1.5 * tiny, dtype=np.float32)
    y = np.full(64, -1.25 * tiny, dtype=np.float32)
    flushed = _daz(x + y)
    assert np.all(flushed == 0) and np.all(x + y != 0)
    jf = gpuval.judge("vadd", [x, y], [flushed], size="64", allow="daz")
    assert jf.verdict == "FAIL" and jf.cause == "flushed subnormals", jf.row
    assert gpuval.judge("vadd", [x, y], [flushed], size="64", allow="ftz").verdict == "PASS"
    u = gpuval.inputs("vadd", "f32", size, "uniform11")
    off = u[0] + u[1]
    off[7] *= np.float32(1.01)
    assert gpuval.judge("vadd", u, [off], allow="daz").verdict == "FAIL"
    with pytest.raises(ValueError, match="allows 'ftz', 'daz'"):
        gpuval.judge("vadd", ci, [out], allow="fast")


def _sum_by_blocks(x, block):
    """float32 chains over blocks of `block` terms, the blocks' partials added in order."""
    parts = [np.cumsum(x[i:i + block], dtype=np.float32)[-1] for i in range(0, x.size, block)]
    return np.cumsum(np.array(parts, dtype=np.float32), dtype=np.float32)[-1]


def test_a_declared_order_is_judged_bit_for_bit():
    """order= declares the summation order: a sequential sum PASSes declared "k" and a sum in
    blocks of 64 PASSes declared "blocked:64"; the sequential sum (hundreds of ulps from the
    exact result at 10^6 terms) declared "pairwise" FAILs naming that order (a declared order's
    legal values are its own results and the exact one, so only an output far from both can
    fail); an unknown order is refused."""
    x = gpuval.inputs("reduce.sum", "f32", "1000000", "uniform01", seed=3)["x"]
    seq = np.cumsum(x, dtype=np.float32)[-1]
    blocked = _sum_by_blocks(x, 64)
    assert seq != blocked  # the data must tell the two orders apart
    assert gpuval.judge("reduce.sum", x, seq, order="k")
    assert gpuval.judge("reduce.sum", x, blocked, order="blocked:64")
    assert gpuval.judge("reduce.sum", x, blocked)  # undeclared: every legal order
    wrong = gpuval.judge("reduce.sum", x, seq, order="pairwise")
    assert wrong.verdict == "FAIL", wrong.row
    assert "in pairwise order" in wrong.reason, wrong.reason
    with pytest.raises(gpuval.GpuvalError):
        gpuval.judge("reduce.sum", x, seq, order="spiral")
    with pytest.raises(ValueError):
        gpuval.judge("reduce.sum", x, seq, order="k+ftz")


def _round_bits(a, bits):
    """float32 values rounded to `bits` significant bits, to nearest even (TF32: 11, bf16: 8)."""
    m, e = np.frexp(a.astype(np.float64))
    return np.ldexp(np.rint(np.ldexp(m, bits)), e - bits).astype(np.float32)


def _chain(A, B):
    """C = A B as float32 FMA-free chains in k order (a product, then a sum, each rounded)."""
    C = np.zeros((A.shape[0], B.shape[1]), dtype=np.float32)
    for l in range(A.shape[1]):
        C = (C + np.outer(A[:, l], B[l, :]).astype(np.float32)).astype(np.float32)
    return C


def test_a_tensor_core_mode_is_judged_against_its_model():
    """mode="tf32": TF32 operands with an f32 chain PASS on sm_90's model and on sm_80's
    (arch=); bf16 operands behind the tf32 label FAIL, naming bf16 tensor cores; an
    architecture without a model is refused."""
    rng = np.random.default_rng(11)
    A = rng.uniform(-1, 1, (24, 512)).astype(np.float32)
    B = rng.uniform(-1, 1, (512, 24)).astype(np.float32)
    good = _chain(_round_bits(A, 11), _round_bits(B, 11))
    for arch in (None, "sm_80"):
        j = gpuval.judge("gemm.cublas", [A, B], [good], mode="tf32", arch=arch)
        assert j, j.row
        assert ("sm_80's model" if arch else "sm_90's model") in j.row, j.row
    bad = _chain(_round_bits(A, 8), _round_bits(B, 8))
    j = gpuval.judge("gemm.cublas", [A, B], [bad], mode="tf32")
    assert j.verdict == "FAIL" and "consistent with bf16 tensor cores" in j.reason, j.row
    with pytest.raises(gpuval.GpuvalError):
        gpuval.judge("gemm.cublas", [A, B], [good], mode="tf32", arch="sm_99")
    with pytest.raises(ValueError):
        gpuval.judge("gemm.cublas", [A, B], [good], mode="tf32", arch="90")


def test_inputs_are_views_that_outlive_their_case():
    # gpuval.inputs hands out views of the library's buffers (no copy); the buffers are freed
    # when the last view is gone, never while one is still readable
    import gc

    import numpy as np

    keep = gpuval.inputs("vadd", "f32", size="100003", dist="wide", seed=3)["b"]
    gc.collect()
    again = gpuval.inputs("vadd", "f32", size="100003", dist="wide", seed=3)["b"]
    assert keep.base is not None and keep.flags.writeable
    assert np.array_equal(keep.view(np.uint32), again.view(np.uint32))
    case = gpuval.inputs("gemm.cublas", "f64", size="33x17x9", seed=1)
    a = case["A"]
    del case
    gc.collect()
    assert a.shape == (33, 17) and np.isfinite(a).all()


def test_check_takes_integer_indices_as_torch_and_numpy_return_them():
    """np.argmax and torch.argmax return int64: check() takes them as values of the case's
    dtype (exact there), where it had refused them as "int64; the case is f32"; a wrong index
    still FAILs."""
    for dt in ("f32", "f64"):
        js = gpuval.check(lambda x: np.argmax(x, axis=-1), op="reduce.argmax", dtype=dt,
                          sizes="33x100", dists="uniform11,smallint")
        assert js and all(j.verdict == "PASS" for j in js), [j.row for j in js]
        js = gpuval.check(lambda x: np.argmin(x, axis=-1), op="reduce.argmin", dtype=dt,
                          sizes="33x100", dists="uniform11,smallint")
        assert js and all(j.verdict == "PASS" for j in js), [j.row for j in js]
    (j,) = gpuval.check(lambda x: np.argmin(x, axis=-1), op="reduce.argmax", dtype="f32",
                        sizes="33x100", dists="uniform11")
    assert j.verdict == "FAIL", j.row
