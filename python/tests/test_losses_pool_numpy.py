"""The losses, the mean and 1-D/3-D pooling (loss.mse, loss.l1, loss.smooth_l1, loss.kl,
reduce.mean, pool.{max,avg}{1d,3d}, the strided, padded and dilated pooling ops of
KernelBench's 41-44 and 46, and its batch losses loss.xent.mean, loss.hinge, loss.triplet)
judged over NumPy kernels on the CPU: NumPy's own
arithmetic (pairwise sums, another order than gpuval's kernels) must PASS on every dist each op
takes, f32 and f64, at the test sizes; the mistakes kernel authors make (kl_div's 'mean' for
'batchmean', a row's mean summed, n - 1, a window one too wide, the f32 answer under an f64
label) must FAIL. No GPU needed."""

import numpy as np
import pytest

import gpuval


def _sizes(op):
    """The op's test sizes whose dims multiply to at most 3e5 (the larger: the GPU suite's)."""
    s = gpuval.op_info(op)["test_shapes"]
    sizes = [v.strip() for v in s.split(",")] if isinstance(s, str) else list(s)
    return [v for v in sizes if np.prod([float(d) for d in v.split("x")]) <= 3e5]


def _smooth_l1(x, y):
    z = np.abs(x - y)
    return np.where(z < 1, 0.5 * z * z, z - 0.5).mean()


def _kl_terms(x, y):
    with np.errstate(all="ignore"):
        return np.where(y == 0, np.zeros_like(y), y * np.log(y)) - y * x


def _pool(kind, rank):
    def make(size):
        d = [int(v) for v in size.split("x")]
        k = d[2] if rank == 1 else d[3]

        def run(x):
            f = np.max if kind == "max" else np.mean
            nc = x.shape[0]
            if rank == 1:
                o = x.shape[1] // k
                return f(x[:, :o * k].reshape(nc, o, k), axis=-1)
            od, os_ = x.shape[1] // k, x.shape[2] // k
            v = x[:, :od * k, :os_ * k, :os_ * k].reshape(nc, od, k, os_, k, os_, k)
            return f(v, axis=(2, 4, 6))
        return run
    return make


def _strided(kind, rank, k, stride, pad, dil, include_pad=True, window_pad=None,
             window_dil=None):
    """Pooling with a stride, zero padding and dilation in NumPy: the input padded (-inf for
    the max, 0 for the average), every window gathered by index, then np.max or the sum over
    k^rank (include_pad) or over the count inside the input. window_pad and window_dil: the
    padding the windows start from and their dilation, where a mistake's differ from those
    that size the output."""
    def run(x):
        sides = x.shape[1:]
        fill = -np.inf if kind == "max" else 0.0
        xp = np.pad(x, [(0, 0)] + [(pad, pad)] * rank, constant_values=fill)
        ones = np.pad(np.ones_like(x), [(0, 0)] + [(pad, pad)] * rank)
        shift = pad - (pad if window_pad is None else window_pad)
        idx = []
        for a, n in enumerate(sides):
            o = (n + 2 * pad - dil * (k - 1) - 1) // stride + 1
            step = dil if window_dil is None else window_dil
            i = shift + np.arange(o)[:, None] * stride + np.arange(k)[None, :] * step
            shape = [1] * (2 * rank)
            shape[2 * a], shape[2 * a + 1] = o, k
            idx.append(np.minimum(i, n + 2 * pad - 1).reshape(shape))
        win = xp[(slice(None),) + tuple(idx)]
        axes = tuple(range(2, 2 * rank + 1, 2))
        if kind == "max":
            return np.max(win, axis=axes)
        total = np.sum(win, axis=axes)
        count = np.sum(ones[(slice(None),) + tuple(idx)], axis=axes) if not include_pad \
            else k ** rank
        return (total / count).astype(x.dtype)
    return lambda size: run


def _xent_mean(x, t, total=False):
    m = x.max(axis=1)
    with np.errstate(all="ignore"):
        rows = (m - x[np.arange(x.shape[0]), t.astype(np.int64)]) + \
            np.log(np.exp(x - m[:, None]).sum(axis=1))
    return (rows.sum() if total else rows.mean()).astype(x.dtype)


def _hinge(p, t, by_row=False):
    tt = t[np.arange(p.shape[0]) % t.shape[0]][:, None] if by_row else t
    return np.mean(np.clip(1 - p * tt, 0, None)).astype(p.dtype)


def _triplet_loss(a, p, n, root=True):
    eps = a.dtype.type(1e-6)
    dp, dn = ((((a - v) + eps) ** 2).sum(axis=1) for v in (p, n))
    if root:
        dp, dn = np.sqrt(dp), np.sqrt(dn)
    return np.mean(np.maximum(dp - dn + 1, 0)).astype(a.dtype)


same = lambda fn: lambda size: fn  # noqa: E731
CALLS = {
    "loss.xent.mean": same(_xent_mean),
    "loss.hinge": same(_hinge),
    "loss.triplet": same(_triplet_loss),
    "pool.max1d.k8s1p4d3": _strided("max", 1, 8, 1, 4, 3),
    "pool.max2d.k4s1p1": _strided("max", 2, 4, 1, 1, 1),
    "pool.max3d.k3s2p1d3": _strided("max", 3, 3, 2, 1, 3),
    "pool.avg1d.k8s1p4": _strided("avg", 1, 8, 1, 4, 1),
    "pool.avg3d.k3s2p1": _strided("avg", 3, 3, 2, 1, 1),
    "loss.mse": same(lambda x, y: np.mean((x - y) ** 2)),
    "loss.l1": same(lambda x, y: np.mean(np.abs(x - y))),
    "loss.smooth_l1": same(_smooth_l1),
    "loss.kl": same(lambda x, y: (_kl_terms(x, y).sum() / x.shape[0]).astype(x.dtype)),
    "reduce.mean": same(lambda x: np.mean(x, axis=-1)),
    "pool.max1d": _pool("max", 1),
    "pool.avg1d": _pool("avg", 1),
    "pool.max3d": _pool("max", 3),
    "pool.avg3d": _pool("avg", 3),
}


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("op", list(CALLS))
def test_numpy_passes_on_every_dist(op, dtype):
    failed, judged = [], 0
    with np.errstate(all="ignore"):
        for size in _sizes(op):
            for j in gpuval.check(CALLS[op](size), op=op, dtype=dtype, sizes=size):
                judged += 1
                if j.verdict != "PASS":
                    failed.append(j.row)
    assert judged > 0
    assert not failed, "\n".join(failed[:10])


def _wide_avg1d(size):
    k = int(size.split("x")[2])

    def run(x):
        o = x.shape[1] // k
        out = np.empty((x.shape[0], o), x.dtype)
        for i in range(o):
            hi = min(i * k + k + 1, x.shape[1])
            out[:, i] = x[:, i * k:hi].sum(-1) / k
        return out
    return run


MISTAKES = {
    "kl_div 'mean'": ("loss.kl", lambda s: lambda x, y: _kl_terms(x, y).mean()),
    "a row's mean summed": ("loss.mse", lambda s: lambda x, y: ((x - y) ** 2).mean(-1).sum()),
    "n - 1": ("reduce.mean", lambda s: lambda x: x.sum(-1) / (x.shape[-1] - 1)),
    "smooth L1 without its offset": (
        "loss.smooth_l1",
        lambda s: lambda x, y: np.where(np.abs(x - y) < 1, 0.5 * (x - y) ** 2,
                                        np.abs(x - y)).mean()),
    "a window one too wide": ("pool.avg1d", _wide_avg1d),
}


@pytest.mark.parametrize("name", list(MISTAKES))
def test_mistakes_fail(name):
    op, make = MISTAKES[name]
    size = "16x1000" if op != "pool.avg1d" else "16x1001x3"
    js = gpuval.check(make(size), op=op, dtype="f32", sizes=size,
                      dists="uniform01" if op in ("loss.kl", "reduce.mean") else "uniform11")
    assert js and all(j.verdict == "FAIL" for j in js), [j.row for j in js]


@pytest.mark.parametrize("op", ["loss.mse", "loss.kl", "reduce.mean", "pool.avg3d"])
def test_f32_under_an_f64_label_fails(op):
    size = {"pool.avg3d": "16x9x13x3"}.get(op, "16x1000")
    f = CALLS[op](size)
    js = gpuval.check(lambda *a: np.asarray(f(*(v.astype(np.float32) for v in a)), np.float64),
                      op=op, dtype="f64", sizes=size, dists="uniform01")
    assert js and all(j.verdict == "FAIL" for j in js), [j.row for j in js]


STRIDED_MISTAKES = {
    "dilation ignored": ("pool.max1d.k8s1p4d3", "16x1001",
                         _strided("max", 1, 8, 1, 4, 3, window_dil=1)),
    "padding ignored": ("pool.max2d.k4s1p1", "16x33x31",
                        _strided("max", 2, 4, 1, 1, 1, window_pad=0)),
    "count_include_pad=False": ("pool.avg1d.k8s1p4", "16x1001",
                                _strided("avg", 1, 8, 1, 4, 1, include_pad=False)),
    "count_include_pad=False in 3-D": ("pool.avg3d.k3s2p1", "16x9x13x11",
                                       _strided("avg", 3, 3, 2, 1, 1, include_pad=False)),
}


@pytest.mark.parametrize("name", list(STRIDED_MISTAKES))
def test_strided_pooling_mistakes_fail(name):
    """The mistakes the planted bugs plant (poolpad's .nodil, .nopad, .divisor), in NumPy."""
    op, size, make = STRIDED_MISTAKES[name]
    js = gpuval.check(make(size), op=op, dtype="f32", sizes=size, dists="uniform01")
    assert js and all(j.verdict == "FAIL" for j in js), [j.row for j in js]


BATCH_MISTAKES = {
    "reduction 'sum'": ("loss.xent.mean", lambda x, t: _xent_mean(x, t, total=True)),
    "targets by the row": ("loss.hinge", lambda p, t: _hinge(p, t, by_row=True)),
    "squared distances": ("loss.triplet", lambda a, p, n: _triplet_loss(a, p, n, root=False)),
}


@pytest.mark.parametrize("name", list(BATCH_MISTAKES))
def test_batch_loss_mistakes_fail(name):
    """The mistakes lossred's planted bugs plant (.sum, .rowtarget, .nosqrt), in NumPy."""
    op, fn = BATCH_MISTAKES[name]
    js = gpuval.check(fn, op=op, dtype="f32", sizes="16x1000,64x512", dists="uniform01")
    assert js and all(j.verdict == "FAIL" for j in js), [j.row for j in js]
