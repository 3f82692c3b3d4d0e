"""ci/side_by_side_cupy.py: the CuPy side of ci/side-by-side: what a CuPy user would write for
each op of the table (a builder per op: inputs, one call, a loose check of the call's result
against gpuval's semantics), and the timer (warm-up, CUDA events, a holding kernel).

The builders and the timer use only the part of CuPy's API that NumpyAsCupy (below) also
offers, so that the selftest runs them on the CPU, at small shapes, where numpy is installed."""

import ctypes
import math
import time

# ---- statistics ----------------------------------------------------------------------------


def percentile(values, p):
    """The p-th percentile, linear between order statistics (numpy's default method)."""
    v = sorted(values)
    if not v:
        return None
    pos = (len(v) - 1) * p / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def summary(samples_ms):
    return {"n": len(samples_ms), "median_ms": percentile(samples_ms, 50),
            "p10_ms": percentile(samples_ms, 10), "p90_ms": percentile(samples_ms, 90)}


HOLD_SRC = r"""
extern "C" __global__ void side_by_side_hold(volatile int *flags, unsigned long long timeout_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    while (flags[0] == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > timeout_ns) {
            flags[1] = 1;
            __threadfence_system();
            return;
        }
    }
}
"""


class Hold:
    """gpuval's holding kernel (kernels/timing.cu, after nvbench's blocking_kernel) for CuPy:
    the stream waits on a flag in mapped host memory until the sample is queued; after the
    timeout it sets flags[1] and lets the stream go."""

    def __init__(self, cp, np):
        rt = cp.cuda.runtime
        self.np = np
        self.kernel = cp.RawKernel(HOLD_SRC, "side_by_side_hold")
        # Unified addressing: a mapped cudaHostAlloc pointer is also the device's pointer.
        self.ptr = rt.hostAlloc(8, rt.hostAllocMapped)
        self.flags = (ctypes.c_int * 2).from_address(self.ptr)
        self.rt = rt
        try:
            self.kernel.compile()
            # The stream must wait for a flag written after the launch, and go once it is.
            self.hold(2 * 10**9)
            after = cp.cuda.Event()
            after.record()
            time.sleep(0.01)
            waited = not after.done
            t0 = time.perf_counter()
            self.release()
            after.synchronize()
            if not waited or self.timed_out() or time.perf_counter() - t0 > 1.0:
                raise RuntimeError("the holding kernel did not hold the stream until the "
                                   "host's flag (held: %s, timed out: %s)" %
                                   (waited, self.timed_out()))
        except Exception:
            self.free()
            raise

    def hold(self, timeout_ns):
        self.flags[0] = 0
        self.flags[1] = 0
        self.kernel((1,), (1,), (self.np.uint64(self.ptr), self.np.uint64(timeout_ns)))

    def release(self):
        self.flags[0] = 1

    def timed_out(self):
        return self.flags[1] != 0

    def free(self):
        self.rt.freeHost(self.ptr)


def rel_err(cp, x, ref):
    """max |x - ref| / max |ref|, in f64 on the device; NaN stays NaN."""
    x64 = x.astype(cp.float64)
    ref64 = ref.astype(cp.float64)
    num_ = float(cp.max(cp.abs(x64 - ref64)))
    den = float(cp.max(cp.abs(ref64)))
    return num_ / den if den > 0 else num_


def within(err, tol, what):
    ok = err <= tol  # NaN compares False: never passes
    return ok, "%s %.2e %s %.0e" % (what, err, "<=" if ok else "NOT <=", tol)


def build_vadd(cp, np, dt, shape):
    (n,) = shape
    rs = cp.random.RandomState(1)
    a, b, c = rs.random_sample(n, dt), rs.random_sample(n, dt), cp.empty(n, dt)

    def call():
        cp.add(a, b, out=c)

    def check():
        # the first and last 4096: numpy's add of the same values rounds the same way
        parts = [slice(0, n)] if n <= 8192 else [slice(0, 4096), slice(n - 4096, n)]
        ha, hb, hc = (np.concatenate([cp.asnumpy(v[s]) for s in parts]) for v in (a, b, c))
        bad = int(np.count_nonzero(hc != ha + hb))
        return bad == 0, "%d of %d sampled elements differ from a + b" % (bad, len(hc))

    return call, check


def build_einsum(cp, np, dt, shape):
    m, k, n = shape
    rs = cp.random.RandomState(2)
    A, B = rs.random_sample((m, k), dt), rs.random_sample((k, n), dt)
    out = []

    def call():
        out[:] = [cp.einsum("ij,jk->k", A, B)]

    def check():
        ref = A.sum(axis=0, dtype=cp.float64) @ B.astype(cp.float64, copy=False)
        return within(rel_err(cp, out[0], ref), 1e-3 if dt == np.float32 else 1e-10,
                      "rel. err. against colsum(A) B in f64")

    return call, check


def build_colsum(cp, np, dt, shape):
    m, n = shape
    X = cp.random.RandomState(3).random_sample((m, n), dt)
    out = []

    def call():
        out[:] = [X.sum(axis=0)]

    def check():
        ref = X.sum(axis=0, dtype=cp.float64)
        return within(rel_err(cp, out[0], ref), 1e-4 if dt == np.float32 else 1e-12,
                      "rel. err. against the f64 column sums")

    return call, check


def diffusion_step(cp, f):
    """Seed 003's evolve(grid, 0.1): grid + dt D laplacian(grid), laplacian by four rolls."""
    lap = cp.roll(f, +1, 0) + cp.roll(f, -1, 0) + cp.roll(f, +1, 1) + cp.roll(f, -1, 1) - 4 * f
    return f + 0.1 * lap


def build_diffusion(cp, np, dt, shape):
    ny, nx, steps = shape
    f0 = cp.random.RandomState(4).random_sample((ny, nx), dt)
    out = []

    def call():
        g = f0
        for _ in range(steps):
            g = diffusion_step(cp, g)
        out[:] = [g]

    def check():
        # gpuval's semantics (src/ops/stencil.c): f <- 0.6 f + 0.1 (4 periodic neighbours).
        # One step of an impulse at (0, 0) on a 5 x 6 grid gives exactly that stencil, wrapped.
        imp = cp.zeros((5, 6), dt)
        imp[0, 0] = 1
        want = np.zeros((5, 6))
        want[0, 0] = 0.6
        for i, j in ((1, 0), (4, 0), (0, 1), (0, 5)):
            want[i, j] = 0.1
        step_err = float(np.max(np.abs(cp.asnumpy(diffusion_step(cp, imp)) - want)))
        ok1, msg1 = within(step_err, 1e-6, "impulse step err.")
        # and periodic diffusion keeps the sum over the grid
        s0 = float(f0.sum(dtype=cp.float64))
        drift = abs(float(out[0].sum(dtype=cp.float64)) - s0) / s0
        ok2, msg2 = within(drift, 1e-3, "sum drift")
        return ok1 and ok2, msg1 + "; " + msg2

    return call, check


def build_gemm(cp, np, dt, shape):
    m, k, n = shape
    rs = cp.random.RandomState(5)
    A, B, C = rs.random_sample((m, k), dt), rs.random_sample((k, n), dt), cp.empty((m, n), dt)

    def call():
        cp.matmul(A, B, out=C)

    def check():
        ref = A[:64].astype(cp.float64) @ B.astype(cp.float64, copy=False)
        return within(rel_err(cp, C[:64], ref), 1e-4 if dt == np.float32 else 1e-12,
                      "rel. err. of 64 rows against f64")

    return call, check


def build_matmul_colsum(cp, np, dt, shape):
    m, k, n = shape
    rs = cp.random.RandomState(6)
    A, B, T = rs.random_sample((m, k), dt), rs.random_sample((k, n), dt), cp.empty((m, n), dt)
    out = []

    def call():
        cp.matmul(A, B, out=T)
        out[:] = [cp.sum(T, axis=0)]

    def check():
        ref = A.sum(axis=0, dtype=cp.float64) @ B.astype(cp.float64, copy=False)
        return within(rel_err(cp, out[0], ref), 1e-3 if dt == np.float32 else 1e-10,
                      "rel. err. against colsum(A) B in f64")

    return call, check


def build_sin_iter(cp, np, dt, shape):
    n, k = shape
    x = cp.random.RandomState(7).random_sample(n, dt) * 2 - 1
    y = cp.empty_like(x)

    def call():
        cp.sin(x, out=y)
        for _ in range(k - 1):
            cp.sin(y, out=y)

    def check():
        xs, ys = cp.asnumpy(x[:256]), cp.asnumpy(y[:256])
        err = 0.0
        for xi, yi in zip(xs, ys):
            r = float(xi)
            for _ in range(k):
                r = math.sin(r)
            err = max(err, abs(float(yi) - r)) if not math.isnan(float(yi)) else float("nan")
        return within(err, 1e-3 if dt == np.float32 else 1e-9, "abs. err. of 256 against f64")

    return call, check


def build_copy(cp, np, dt, shape):
    """The copy ceiling's counterpart: a device-to-device copy of shape[0] elements."""
    (n,) = shape
    src, dst = cp.random.RandomState(8).random_sample(n, dt), cp.empty(n, dt)

    def call():
        cp.copyto(dst, src)

    def check():
        bad = int(cp.count_nonzero(dst != src))
        return bad == 0, "%d of %d elements differ from the source" % (bad, n)

    return call, check


BUILDERS = {"vadd": build_vadd, "einsum": build_einsum, "colsum": build_colsum,
            "diffusion": build_diffusion, "gemm": build_gemm,
            "matmul_colsum": build_matmul_colsum, "sin_iter": build_sin_iter, "copy": build_copy}


def cupy_math(cp, np, mode):
    """Put CuPy's matmul in cuBLAS math `mode` (default or pedantic) by both of its knobs:
    CuPy's compute type for f32 and f64 (cupy._core.set_compute_type: gemmEx's
    CUBLAS_COMPUTE_32F/64F or their _PEDANTIC forms; it also overrides CUPY_TF32) and the math
    mode of CuPy's cuBLAS handle (CUBLAS_DEFAULT_MATH = 0, CUBLAS_PEDANTIC_MATH = 2,
    cublas_api.h). Returns the function that puts both back."""
    from cupy._core import _routines_linalg as linalg
    from cupy_backends.cuda.libs import cublas

    ct = {"default": linalg.COMPUTE_TYPE_DEFAULT, "pedantic": linalg.COMPUTE_TYPE_PEDANTIC}[mode]
    handle = cp.cuda.device.get_cublas_handle()
    prev_types = [(dt, linalg.get_compute_type(dt)) for dt in (np.float32, np.float64)]
    prev_math = cublas.getMathMode(handle)
    for dt, _ in prev_types:
        linalg.set_compute_type(dt, ct)
    cublas.setMathMode(handle, {"default": 0, "pedantic": 2}[mode])

    def restore():
        cublas.setMathMode(handle, prev_math)
        for dt, t in prev_types:
            linalg.set_compute_type(dt, t)

    return restore


def time_cupy(cp, hold, call, long_row, target_s=1.0, min_sample_ms=0.5):
    """Median, p10 and p90 of CuPy's time per call (CUDA events; behind the hold where its
    launches fit), and the median wall time of a call as a Python user sees it."""
    stream = cp.cuda.get_current_stream()
    for _ in range(1 if long_row else 2):  # warm-up: kernels compiled, the memory pool filled
        call()
    stream.synchronize()
    walls, enq = [], []
    for _ in range(1 if long_row else 3):
        t0 = time.perf_counter()
        call()
        t1 = time.perf_counter()
        stream.synchronize()
        t2 = time.perf_counter()
        enq.append(t1 - t0)
        walls.append((t2 - t0) * 1e3)
    call_ms = max(percentile(walls, 50), 1e-6)
    reps = 1 if call_ms >= min_sample_ms else min(64, int(math.ceil(min_sample_ms / call_ms)))
    n = max(3 if long_row else 10, min(200, int(target_s * 1e3 / (call_ms * reps))))
    enq_s = reps * percentile(enq, 50)
    # Held only where queueing a sample takes well under a second: a longer enqueue is the
    # host's launch rate itself (the seed's Python loops), and thousands of launches would
    # fill CUDA's launch queue behind the hold and stall until its timeout.
    held = hold is not None and enq_s < 0.2
    timeout_ns = int(min(2.0, max(0.05, 20 * enq_s)) * 1e9)
    note = "" if held else ("no hold kernel" if hold is None else "a sample takes %.0f ms to "
                            "queue" % (enq_s * 1e3)) + ": unheld, launch gaps included"
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    samples = []
    while len(samples) < n:
        if held:
            hold.hold(timeout_ns)
        start.record()
        for _ in range(reps):
            call()
        stop.record()
        if held:
            hold.release()
        stop.synchronize()
        if held and hold.timed_out():
            held, samples = False, []
            note = "launches outran the hold: unheld, launch gaps included"
            continue
        samples.append(cp.cuda.get_elapsed_time(start, stop) / reps)
    for _ in range(max(0, min(n, int(target_s * 0.5e3 / call_ms)) - len(walls))):
        t0 = time.perf_counter()
        call()
        stream.synchronize()
        walls.append((time.perf_counter() - t0) * 1e3)
    res = summary(samples)
    res.update({"reps": reps, "held": held, "wall_median_ms": percentile(walls, 50),
                "wall_n": len(walls), "note": note})
    return res


def run_cupy_variant(cp, np, hold, row, var, math_mode=cupy_math, target_s=1.0):
    """Build the variant's inputs, time it under its math mode, check its last result, free
    its memory. A CuPy failure is the variant's result ("error"), never an exception."""
    dt = {"f32": np.float32, "f64": np.float64}[row.dtype]
    res = {"variant": var.label, "math_mode": var.math_mode, "shape": list(row.shape)}
    restore = None
    call = check = None
    try:
        call, check = BUILDERS[var.build](cp, np, dt, row.shape)
        if var.math_mode:
            restore = math_mode(cp, np, var.math_mode)
        res.update(time_cupy(cp, hold, call, row.long_cupy, target_s))
        ok, detail = check()
        res["check_ok"], res["check"] = bool(ok), detail
    except Exception as e:  # noqa: BLE001 (out of memory, a missing library, a CuPy bug)
        res["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    finally:
        if restore is not None:
            restore()
        call = check = None
        cp.cuda.get_current_stream().synchronize()
        cp.get_default_memory_pool().free_all_blocks()  # the next gpuval run gets it back
    return res


def cupy_uuid(cp):
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.runtime.getDevice())
    u = props.get("uuid")
    name = props.get("name", b"")
    name = name.decode(errors="replace") if isinstance(name, bytes) else str(name)
    if isinstance(u, (bytes, bytearray)) and len(u) == 16:
        h = u.hex()
        u = "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    else:
        u = None
    return name, u


class NumpyAsCupy:
    """The part of CuPy's API that the builders and time_cupy use, on numpy, for the selftest:
    the builders' arithmetic and checks run on the CPU at small shapes; the "events" read
    perf_counter."""

    class _Event:
        def record(self):
            self.t = time.perf_counter()

        def synchronize(self):
            pass

    class _Stream:
        def synchronize(self):
            pass

    class _Pool:
        def free_all_blocks(self):
            pass

    class _RandomState:
        def __init__(self, np, seed):
            self.np, self.rs = np, np.random.RandomState(seed)

        def random_sample(self, size, dtype):
            return self.rs.random_sample(size).astype(dtype)

    def __init__(self, np):
        self._np = np
        ns = NumpyAsCupy
        self.cuda = type("cuda", (), {})()
        self.cuda.Event = ns._Event
        self.cuda.get_current_stream = lambda: ns._Stream()
        self.cuda.get_elapsed_time = lambda a, b: (b.t - a.t) * 1e3
        self.random = type("random", (), {})()
        self.random.RandomState = lambda seed: ns._RandomState(np, seed)
        self.get_default_memory_pool = lambda: ns._Pool()
        self.asnumpy = np.asarray
        self.__version__ = "numpy-stand-in"
        self.cuda.runtime = type("runtime", (), {})()
        self.cuda.runtime.getDevice = lambda: 0
        self.cuda.runtime.getDeviceProperties = lambda dev: {"name": b"the CPU"}

    def __getattr__(self, name):
        return getattr(self._np, name)


# The stand-in's shapes: each builder at a size numpy runs in milliseconds.
SMALL = {"vadd": (1000,), "copy": (1000,), "einsum": (300, 20, 10), "colsum": (40, 30),
         "diffusion": (16, 16, 5), "gemm": (70, 50, 40), "matmul_colsum": (30, 20, 10),
         "sin_iter": (300, 5)}
