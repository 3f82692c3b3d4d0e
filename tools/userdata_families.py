"""userdata_families.py: structured test data for judging products on the user's own data
(issue 37; docs/error-models.md, "The envelope of the claimed arithmetic"), and the CPU
emulations of the impostors that the envelope must tell apart from the claimed arithmetic.

The families are the kinds tests/cpu/model_envelope.c builds in C (its generators use their
own counter-based stream, so the random families' values differ; the kinds are the same):

  dct       an orthonormal DCT-II basis Q (m rows) against its transpose: Q Q^T
  dct_t     the same basis summed over frequencies: rows are samples, Q^T Q
  spread    DCT rows K/32 apart in frequency (their products alias to near-constant at the
            strides of a split-K that deals tiles round-robin)
  band      banded Gaussian filters (sigma K/64, cut at 3 sigma) over smooth signals
  prefix    prefix sums of ordered data (0/1 masks against increasing values)
  cancel    heavy cancellation: x and -x + small
  uniform   uniform [-1, 1)
  smallint  small integers in [-8, 8]: exact in TF32, bf16 and every order (every arithmetic
            gives the same bits: the envelope must say so rather than PASS silently)

All in f64; the caller rounds to the case's dtype. Impostors (each a function of A, B in
the case's dtype, returning C in that dtype):

  rz_chain       every product and every addition rounded toward zero, in k order
                 (exact: TwoProduct / TwoSum error terms decide the direction)
  round_bits     operands to p significant bits, to nearest even (tf32: 11, bf16: 8, the
                 f64-from-40-bit impostor: 40), for a product computed on them elsewhere

Usage as a library (tools/issue37_done.py); `python3 tools/userdata_families.py` prints each
family's shape and value range as a smoke test."""
import math

import numpy as np

FAMILIES = ("dct", "dct_t", "spread", "band", "prefix", "cancel", "uniform", "smallint")


def _dct(f, l, k):
    f = np.asarray(f, dtype=np.float64)
    s = np.sqrt(np.where(f == 0, 1.0, 2.0) / k)
    return s * np.cos(np.pi * (np.asarray(l, dtype=np.float64) + 0.5) * f / k)


def family(name, m, k, n, seed=7):
    """A (m x k) and B (k x n), float64, row-major."""
    rng = np.random.default_rng([seed, FAMILIES.index(name)])
    l = np.arange(k)
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    if name == "dct":
        a = _dct(i, l[None, :], k)
        b = _dct(j, l[:, None], k)
    elif name == "dct_t":
        a = _dct(l[None, :], i, k)
        b = _dct(l[:, None], j, k)
    elif name == "spread":
        fa = (i * (k // 32) + i % 3) % k
        fb = (j * (k // 32) + j % 5) % k
        a = _dct(fa, l[None, :], k)
        b = _dct(fb, l[:, None], k)
    elif name == "band":
        c = (i + 0.5) * k / m
        sg = k / 64.0
        t = (l[None, :] - c) / sg
        a = np.where(np.abs(t) <= 3, np.exp(-0.5 * t * t) / (sg * math.sqrt(2 * math.pi)), 0.0)
        x = l[:, None] / k
        b = 1.0 + 0.5 * np.sin(2 * np.pi * (1.0 + 0.3 * j) * x + 0.1 * j) + 0.25 * x
    elif name == "prefix":
        a = (l[None, :] < (i + 1) * k // m).astype(np.float64)
        b = (l[:, None] + rng.random((k, n))) / k * (j + 1)
    elif name == "cancel":
        h = k // 2
        u = rng.uniform(0.5, 1.0, (m, h))
        a = np.concatenate([u, -u], axis=1)
        v = rng.uniform(0.5, 1.0, (h, n))
        b = np.concatenate([v, v + 1e-3 * rng.uniform(-1, 1, (h, n))], axis=0)
        if k % 2:
            a = np.concatenate([a, np.zeros((m, 1))], axis=1)
            b = np.concatenate([b, np.zeros((1, n))], axis=0)
    elif name == "uniform":
        a = rng.uniform(-1, 1, (m, k))
        b = rng.uniform(-1, 1, (k, n))
    elif name == "smallint":
        a = rng.integers(-8, 9, (m, k)).astype(np.float64)
        b = rng.integers(-8, 9, (k, n)).astype(np.float64)
    else:
        raise ValueError(f"no family {name!r}: one of {', '.join(FAMILIES)}")
    return np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64)


def round_bits(x, p):
    """x (float32 or float64) to p significant bits, to nearest even, in x's dtype (the
    values stay normal: every family's are)."""
    x = np.asarray(x)
    m, e = np.frexp(x.astype(np.float64))
    r = np.ldexp(np.rint(np.ldexp(m, p)), e - p)  # np.rint: half to even
    return r.astype(x.dtype)


def _split(a, dt):
    # Dekker's split: hi has the upper half of the significand, a = hi + lo exactly
    c = dt.type(4097.0 if dt == np.float32 else 134217729.0)
    t = c * a
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a, b):
    """p = fl(a b) and e with a b = p + e exactly (Dekker; no overflow in the families)."""
    dt = a.dtype
    p = a * b
    ah, al = _split(a, dt)
    bh, bl = _split(b, dt)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _toward_zero(s, e):
    """RZ of the exact value s + e (s its RN rounding): s where e is 0 or of s's sign, else
    the neighbour of s toward zero."""
    back = (e != 0) & (np.signbit(e) != np.signbit(s)) & (s != 0)
    return np.where(back, np.nextafter(s, np.zeros_like(s)), s)


def rz_chain(a, b):
    """C = A B with every product and every addition rounded toward zero, in k order, in
    A's dtype (float32 or float64): an accumulation that truncates."""
    a = np.asarray(a)
    b = np.asarray(b)
    assert a.dtype == b.dtype and a.dtype in (np.float32, np.float64)
    m, k = a.shape
    n = b.shape[1]
    acc = np.zeros((m, n), dtype=a.dtype)
    for l in range(k):
        p, e = _two_prod(a[:, l:l + 1], b[l:l + 1, :])
        p = _toward_zero(p, e)
        s, t = _two_sum(acc, p)
        acc = _toward_zero(s, t)
    return acc


if __name__ == "__main__":
    for f in FAMILIES:
        a, b = family(f, 16, 256, 16)
        print(f"{f:<9} A {a.shape} [{a.min():+.3g}, {a.max():+.3g}]  B {b.shape} "
              f"[{b.min():+.3g}, {b.max():+.3g}]")
    # the RZ chain against a scalar emulation on a few elements: each step rounds toward zero
    a, b = family("uniform", 3, 64, 2)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    c = rz_chain(a32, b32)
    for i in range(3):
        for j in range(2):
            acc = 0.0
            for l in range(64):
                p = float(a32[i, l]) * float(b32[l, j])  # exact in f64
                q = np.float32(p)
                if abs(float(q)) > abs(p):
                    q = np.nextafter(q, np.float32(0))
                s = float(acc) + float(q)  # exact in f64 here (close exponents)
                r = np.float32(s)
                if abs(float(r)) > abs(s):
                    r = np.nextafter(r, np.float32(0))
                acc = r
            assert c[i, j] == acc, (i, j, c[i, j], acc)
    print("rz_chain agrees with the scalar emulation")
