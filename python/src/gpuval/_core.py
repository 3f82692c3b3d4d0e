"""judge, inputs and check: gpuval's verdict on outputs computed anywhere.

Each call goes through libgpuval (include/gpuval.h, API 1.3): gv_op_info describes an op,
gv_make_inputs makes a case's inputs exactly as `gpuval check` would (canaries and exact
probes included), gv_judge measures outputs against the f64 oracle and applies the tiers
and the error model. Nothing here judges by itself: every verdict is the library's.
"""

import ctypes
import json as _json
import math
from collections import namedtuple

import numpy as np

from . import _lib
import time

from ._arrays import (LOWP_FORMATS, device_copy, from_numpy, same_bits, to_numpy,
                      to_numpy_lowp)

_DTYPES = {"f32": (_lib.DTYPE_F32, np.dtype(np.float32)),
           "f64": (_lib.DTYPE_F64, np.dtype(np.float64))}
_CODE_OF_NP = {np.dtype(np.float32): _lib.DTYPE_F32, np.dtype(np.float64): _lib.DTYPE_F64}
_NAME_OF_CODE = {_lib.DTYPE_F32: "f32", _lib.DTYPE_F64: "f64"}
# judge()'s low-precision arrays (bit patterns; the library decodes them exactly)
_LOWP_CODE = {"bf16": _lib.DTYPE_BF16, "f16": _lib.DTYPE_F16, "e4m3": _lib.DTYPE_E4M3,
              "e5m2": _lib.DTYPE_E5M2}
# NumPy's complex types and the real type of their (re, im) parts: an op's complex tensors
# (its description's complex_inputs and complex_outputs: the FFTs') hold those pairs
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def _complex_sets(info):
    """The indices of the op's complex inputs and outputs, as sets."""
    return set(info.get("complex_inputs") or ()), set(info.get("complex_outputs") or ())


def _as_reals(a):
    """A complex array as the reals it holds, (re, im) a last dim of 2 (the same bytes, as
    libgpuval lays complex tensors out); a real array as it is."""
    if a.dtype in _REAL_OF:
        a = np.ascontiguousarray(a)
        return a.view(_REAL_OF[a.dtype]).reshape(a.shape + (2,))
    return a

# The tensors' dims of the ops whose size judge() infers when the op's description does not
# give them (src/ops/gemm.c: A is m x k, B is k x n, C is m x n; its size is MxKxN).
_KNOWN_OPERAND_DIMS = {"gemm": ("m,k;k,n", "m,n")}


def _b(s):
    return None if s is None else str(s).encode()


def _names(v):
    """A list of names from a description's member: "a,b" or ["a", "b"]."""
    if v is None:
        return []
    if isinstance(v, str):
        return [s for s in (p.strip() for p in v.split(",")) if s]
    return [str(s) for s in v]


def _dtype_name(dtype):
    if isinstance(dtype, str) and dtype in _DTYPES:
        return dtype
    try:
        return _NAME_OF_CODE[_CODE_OF_NP[np.dtype(dtype)]]
    except (TypeError, KeyError):
        raise ValueError(f"dtype {dtype!r}: gpuval's host API takes f32 or f64") from None


_SEED_MAX = 2**64 - 1
_EINVAL = -1  # GV_API_EINVAL: what the library answers a request it cannot take


def _seed(seed):
    """seed as the uint64 the library takes. ctypes would wrap -1 to 2^64 - 1 and 2^64 to 0 in
    silence, another case than the one asked for: anything but an integer in 0..2^64 - 1 is
    refused as the library refuses a bad --seed."""
    import numbers
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise _lib.GpuvalError(_EINVAL, f"seed {seed!r}: the generator's seed is an integer in "
                               f"0..{_SEED_MAX}")
    if not 0 <= int(seed) <= _SEED_MAX:
        raise _lib.GpuvalError(_EINVAL, f"seed {int(seed)} is outside 0..{_SEED_MAX} (the "
                               "generator's seed is 64 bits)")
    return int(seed)


def _size(size):
    """size as the SPEC text the library parses: a string, or one positive integer dim."""
    if size is None or isinstance(size, str):
        return size
    import numbers
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return str(int(size))  # the library refuses 0, negative and too-large dims by name
    raise _lib.GpuvalError(_EINVAL, f"size {size!r}: one shape as a size SPEC in the op's dims "
                           "(\"512x256x128\") or one integer dim")


def _known(op, info, what, key, names):
    """Each of names (modes or dists) among the op's own: GpuvalError naming the first that
    is not, before any case is made of it."""
    have = _names(info.get(key))
    for n in names:
        if have and n not in have:
            raise _lib.GpuvalError(_EINVAL, f"{op}: no {what} {n!r} (the op's: "
                                   f"{', '.join(have)})")


_info_cache = {}


def op_info(op):
    """The op's description as a dict (name, family, dims, dtypes, modes, shapes, test_shapes,
    dists, planted_bug, ...), as `gpuval list --json` gives it."""
    if op not in _info_cache:
        out = ctypes.c_void_p()
        lib = _lib.lib()
        rc = lib.gv_op_info(_b(op), ctypes.byref(out))
        if rc != 0:
            raise _lib.GpuvalError(rc, f"op {op!r}: unknown to libgpuval")
        try:
            _info_cache[op] = _json.loads(ctypes.string_at(out.value).decode())
        finally:
            lib.gv_free(out)
    return _info_cache[op]


class CaseInputs:
    """The inputs gpuval made for one case, as NumPy arrays in the op's order.

    Behaves as a sequence of the arrays (fn(*case) calls a kernel with them) and as a mapping
    by name (case["A"]). out_names and out_shapes say what the outputs must be."""

    def __init__(self, op, dtype, mode, size, dist, seed, names, arrays, out_names, out_shapes):
        self.op, self.dtype, self.mode, self.size = op, dtype, mode, size
        self.dist, self.seed = dist, seed
        self.names = tuple(names)
        self.arrays = tuple(arrays)
        self.out_names = tuple(out_names)
        self.out_shapes = dict(zip(out_names, out_shapes))

    def __len__(self):
        return len(self.arrays)

    def __iter__(self):
        return iter(self.arrays)

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                return self.arrays[self.names.index(key)]
            except ValueError:
                raise KeyError(key) from None
        return self.arrays[key]

    def to(self, framework, device=None):
        """The inputs as fresh arrays of framework ("numpy", "cupy", "torch"; on the GPU for
        the last two)."""
        return tuple(from_numpy(a, framework, device) for a in self.arrays)

    def judge(self, outputs):
        """gpuval.judge of outputs computed from these inputs."""
        return judge(self.op, self, outputs)

    def __repr__(self):
        shapes = ", ".join(f"{n}{tuple(a.shape)}" for n, a in zip(self.names, self.arrays))
        return (f"CaseInputs({self.op} {self.dtype} {self.mode} {self.dist} {self.size} "
                f"seed {self.seed}: {shapes})")


class _CaseBuffers:
    """The library's buffers of one gv_make_inputs, freed once (when no array views them)."""

    def __init__(self, lib, ci):
        self._lib, self._ci = lib, ci

    def free(self):
        if self._ci is not None:
            if isinstance(self._ci, _lib.GvCaseInputsNd):
                self._lib.gv_case_inputs_nd_free(ctypes.byref(self._ci))
            else:
                self._lib.gv_case_inputs_free(ctypes.byref(self._ci))
            self._ci = None

    def __del__(self):
        self.free()


def inputs(op, dtype="f32", size=None, dist=None, seed=0, mode="native"):
    """The inputs gpuval generates for one case of op (size: one shape as a size SPEC in the
    op's dims, "512x256x128"; None: the first of its test shapes; dist None: its default)."""
    info = op_info(op)
    dname = _dtype_name(dtype)
    seed = _seed(seed)
    size = _size(size)
    if size is None:
        size = (_names(info.get("test_shapes")) or _names(info.get("shapes")))[0]
    if dist is None:
        dist = info.get("default_dist") or _names(info.get("dists"))[0]
    err = ctypes.create_string_buffer(1024)
    lib = _lib.lib()
    # 1.4's whole shapes (conv.3d's 5-D tensors) where the library has them; a 1.3 library's
    # give a tensor of more than 4 dims flat
    nd = _lib.has_nd(lib)
    ci = _lib.GvCaseInputsNd() if nd else _lib.GvCaseInputs()
    make = lib.gv_make_inputs_nd if nd else lib.gv_make_inputs
    rc = make(_b(op), _DTYPES[dname][0], _b(mode), _b(size), _b(dist), seed, ctypes.byref(ci),
              err, len(err))
    if rc != 0:
        raise _lib.GpuvalError(rc, err.value.decode(errors="replace"))
    cin, cout = _complex_sets(info)
    # the arrays are views of the library's buffers, freed when the last of them is gone: a
    # copy of each into fresh pages cost about as much as generating it (vadd at 10^8: 800 MB)
    owner = _CaseBuffers(lib, ci)
    try:
        npdt = np.dtype(np.float32) if ci.dtype == _lib.DTYPE_F32 else np.dtype(np.float64)
        arrays, names = [], []
        for i in range(ci.n_in):
            shape = tuple(ci.in_shape[i][d] for d in range(ci.in_ndim[i]))
            count = ci.in_count[i]
            assert math.prod(shape) == count, "gv_make_inputs: shape and count disagree"
            buf = (ctypes.c_char * (count * npdt.itemsize)).from_address(ci.inputs[i])
            buf._owner = owner  # every view keeps the buffers alive through its base
            a = np.frombuffer(buf, dtype=npdt, count=count).reshape(shape)
            if i in cin:  # (re, im) pairs as NumPy's complex, the pair's dim dropped
                a = a.view(_COMPLEX_OF[npdt]).reshape(shape[:-1])
            arrays.append(a)
            names.append((ci.in_names[i] or f"in{i}".encode()).decode())
        out_names = [(ci.out_names[j] or f"out{j}".encode()).decode() for j in range(ci.n_out)]
        out_shapes = [tuple(ci.out_shape[j][d]
                            for d in range(ci.out_ndim[j] - (1 if j in cout else 0)))
                      for j in range(ci.n_out)]
    except BaseException:
        owner.free()
        raise
    return CaseInputs(op, dname, mode, size, dist, seed, names, arrays, out_names, out_shapes)


# Why a case FAILed, from the one vocabulary the C judge names (src/core/op.h, GV_CAUSES; the
# CPU test verdict::python_knows_the_same_causes checks the two agree). "none" for PASS, SKIP
# and ERROR.
CAUSES = (
    "none",
    "guard band",
    "unwritten",
    "intermediate overflow",
    "lost NaN/Inf",
    "NaN/Inf placement",
    "zero sign",
    "lost range",
    "flushed subnormals",
    "op residual",
    "order",
    "precision",
    "bias",
    "inexact",
    "tier",
)


class Judgement:
    """gpuval's verdict on one case. True (bool) only for a PASS.

    verdict: "PASS", "FAIL", "SKIP" or "ERROR"; reason: why, as check's row says it ("" for a
    plain PASS); max_rel, normwise, bits: the measured error (NaN where not measured); ratio,
    r_max, r_rms: the error model's ratios (NaN where none); meets_1e8, meets_1e4: the tiers
    met; json: the case as `gpuval check --json` writes one; row: check's table row."""

    def __init__(self, raw, op, dtype, mode, size, dist, seed):
        self.verdict = _lib.VERDICTS[raw.verdict] if 0 <= raw.verdict < 4 else str(raw.verdict)
        self.reason = raw.reason.decode(errors="replace")
        for k in ("max_rel", "normwise", "bits", "ratio", "r_max", "r_rms"):
            setattr(self, k, float(getattr(raw, k)))
        self.meets_1e8, self.meets_1e4 = bool(raw.meets_1e8), bool(raw.meets_1e4)
        self.json = raw.json.decode(errors="replace") if raw.json else ""
        self.op, self.dtype, self.mode, self.size = op, dtype, mode, size
        self.times = {}  # run_case: the seconds of each phase
        self.dist, self.seed = dist, seed

    @property
    def case(self):
        """The JSON case as a dict ({} where the library wrote none)."""
        return _json.loads(self.json) if self.json else {}

    @property
    def cause(self):
        """Why it FAILed, one of CAUSES ("flushed subnormals", "lost range", "precision",
        ...), from the case's JSON; "none" for PASS, SKIP and ERROR."""
        c = self.case.get("cause", "none")
        return c if c in CAUSES else "none"

    def __bool__(self):
        return self.verdict == "PASS"

    @property
    def row(self):
        """One line as `gpuval check` and `gpuval judge` print it (op, dtype, mode, dist, shape,
        the metrics, the tiers, the verdict, the reason and the notes check adds): libgpuval's
        own line, the JSON's "row", made by the one formatter the commands print with."""
        return self.case.get("row", "")

    def __str__(self):
        return self.row

    def __repr__(self):
        return f"<Judgement {self.verdict} {self.op} {self.dtype} {self.size}: {self.reason!r}>"


def _as_list(x, what):
    if isinstance(x, CaseInputs):
        return list(x.arrays), list(x.names)
    if isinstance(x, dict):
        return list(x.values()), [str(k) for k in x.keys()]
    if isinstance(x, (list, tuple)):
        return list(x), [f"{what}{i}" for i in range(len(x))]
    return [x], [f"{what}0"]


def _infer_size(op, ins, outs):
    """The size SPEC from the arrays' shapes, through the dims each tensor has."""
    info = op_info(op)
    dims = _names(info.get("dims"))
    in_dims, out_dims = info.get("in_dims"), info.get("out_dims")
    if not in_dims:
        in_dims, out_dims = _KNOWN_OPERAND_DIMS.get(info.get("family"), (None, None))
    if not in_dims or not dims:
        raise ValueError(f"op {op!r}: give size= (the shape's {','.join(dims)}); it is "
                         "inferred from the arrays for gemm only")
    per_tensor = [_names(s) for s in in_dims.split(";")] + [_names(s) for s in out_dims.split(";")]
    cin, cout = _complex_sets(info)
    # a complex tensor's (re, im) dim is none of the op's
    ins = [a[..., 0] if i in cin and a.ndim >= 1 and a.shape[-1] == 2 else a
           for i, a in enumerate(ins)]
    outs = [a[..., 0] if j in cout and a.ndim >= 1 and a.shape[-1] == 2 else a
            for j, a in enumerate(outs)]
    arrays = list(ins) + list(outs)
    if len(arrays) != len(per_tensor):
        raise ValueError(f"op {op!r} takes {len(in_dims.split(';'))} inputs and "
                         f"{len(out_dims.split(';'))} outputs; got {len(ins)} and {len(outs)}")
    value = {}
    for a, names in zip(arrays, per_tensor):
        if not names:
            continue  # a tensor that carries none of the dims (a half spectrum, info)
        if a.size == 1 and a.ndim == 0:
            # a one-element result, 0-d (x.sum()) or (1,): its dims, if any, are 1
            for n in names:
                if value.setdefault(n, 1) != 1:
                    raise ValueError(f"op {op!r}: dim {n} is {value[n]} in one array and 1 in "
                                     "another")
            continue
        if a.ndim != len(names):
            raise ValueError(f"op {op!r}: a tensor of dims ({','.join(names)}) has shape "
                             f"{a.shape}: give size= or arrays of that rank")
        for n, v in zip(names, a.shape):
            if value.setdefault(n, v) != v:
                raise ValueError(f"op {op!r}: dim {n} is {value[n]} in one array and {v} in "
                                 "another")
    missing = [d for d in dims if d not in value]
    if missing:
        raise ValueError(f"op {op!r}: no array carries its dim {','.join(missing)}: give size= "
                         f"(the shape's {','.join(dims)})")
    return "x".join(str(value[d]) for d in dims)


_BEHAVIOURS = ("ftz", "daz")


def _allowed(allow):
    """allow as a set of declared behaviours: None, "ftz", "daz", "ftz,daz" or a sequence of
    them; anything else is refused by name."""
    if allow is None:
        return set()
    items = _names(allow) if isinstance(allow, str) else list(allow)
    bad = [a for a in items if a not in _BEHAVIOURS]
    if bad or not items:
        raise ValueError(f"allow={allow!r}: gpuval allows 'ftz', 'daz' or both (or None)")
    return set(items)


def judge(op, inputs, outputs, *, mode="native", size=None, dist=None, seed=0, allow=None,
          order=None, dtype=None, arch=None):
    """gpuval's verdict on outputs computed from inputs, as a Judgement.

    op: a built-in op ("gemm.cublas") or family ("gemm"). inputs and outputs: arrays (NumPy,
    CuPy, torch, anything with __dlpack__), one or a sequence or a dict by name, in the op's
    order, all float32 or all float64; device arrays are copied to the host. inputs may be
    the CaseInputs of gpuval.inputs(): its mode, size, dist and seed are then the case's
    (unless given) and the case is judged as gpuval's generated case. Otherwise dist=None
    means the inputs are the caller's own data. size: one shape in the op's dims
    ("512x256x128"); None infers it (gemm) from the shapes. allow="ftz": the outputs come
    from flush-to-zero arithmetic as CUDA's -ftz=true makes it (subnormal inputs read as 0 and
    results returned as 0, one flag for both, as CuPy's f32 kernels run): an underflow may err
    by the smallest normal, flushes are noted. allow="daz": subnormal inputs were read as 0
    (denormals-are-zero), the arithmetic IEEE otherwise: the f64 oracle reads them as 0 too.
    Both: allow=("ftz", "daz"). Undeclared, a FAIL whose outputs would PASS with both declared
    has the cause "flushed subnormals", whichever rule caught it.
    order: the summation order the outputs were computed in, as `gpuval judge --order`
    takes it ("k", "pairwise", "blocked:B", "tree"); None: every legal order. A declared
    order is judged against that order's results bit for bit (and the exact result).
    arch: the architecture ("sm_80", "sm_90") whose tensor-core block-FMA model judges a
    tensor-core mode (tf32, bf16, f16, f16acc, fp8) on the inputs, as `gpuval judge --arch`;
    None: sm_90.

    Low-precision arrays: torch tensors of bfloat16, float16, float8_e4m3fn and float8_e5m2,
    NumPy float16 and ml_dtypes arrays are taken as they are; unsigned 16- or 8-bit arrays
    are raw bit patterns of the format dtype= names ("bf16", "f16", "e4m3", "e5m2"). They
    are computed in f32 (f64 where the other arrays are float64), as PyTorch computes bf16
    tensors with f32 accumulation; a low-precision output is judged by that model plus its
    own rounding (docs/error-models.md, "Low-precision outputs"). A float32 output is judged
    as f32 whatever its inputs were: label a bf16 result as bf16, not as its f32 cast.

    Raises GpuvalError where the library cannot judge the request (unknown op, mode or order,
    element counts that do not match the size, generated inputs that differ from dist's)."""
    if isinstance(inputs, CaseInputs):
        case = inputs
        if case.op != op:
            raise ValueError(f"inputs were made for {case.op!r}, judged as {op!r}")
        size = size or case.size
        dist = dist or case.dist
        seed = seed or case.seed
        mode = case.mode if mode == "native" else mode
    seed = _seed(seed)
    size = _size(size)
    allowed = _allowed(allow)
    if order is not None and (not isinstance(order, str) or not order or "+" in order):
        raise ValueError(f"order={order!r}: k, pairwise, blocked:B or tree (or None)")
    if arch is not None and (not isinstance(arch, str) or not arch.startswith("sm_")
                             or "+" in arch):
        raise ValueError(f"arch={arch!r}: an architecture as sm_XY ('sm_90'), or None")
    claimed = (mode + (f"+order={order}" if order else "") + (f"+arch={arch}" if arch else "")
               + ("+daz" if "daz" in allowed else "") + ("+ftz" if "ftz" in allowed else ""))
    in_list, in_names = _as_list(inputs, "in")
    out_list, out_names = _as_list(outputs, "out")
    if dtype is not None and dtype not in _LOWP_CODE:
        raise ValueError(f"dtype={dtype!r}: bf16, f16, e4m3 or e5m2 (the format of raw-bit "
                         "arrays), or None")
    tagged = [to_numpy_lowp(a, f"{side} {n}", dtype)
              for side, lst, names in (("input", in_list, in_names),
                                       ("output", out_list, out_names))
              for a, n in zip(lst, names)]
    hosts = [(_as_reals(np.ascontiguousarray(h)) if f is None else np.ascontiguousarray(h), f)
             for h, f in tagged]
    ins = [h for h, _ in hosts[:len(in_list)]]
    outs = [h for h, _ in hosts[len(in_list):]]
    fmts = [f for _, f in hosts]
    reals = [a for a, f in zip(ins + outs, fmts) if f is None]
    dtypes = {a.dtype for a in reals}
    bad = [d for d in dtypes if d not in _CODE_OF_NP]
    if bad:
        raise TypeError(f"arrays of {', '.join(map(str, bad))}: gpuval judges float32 or "
                        "float64 arrays, and bf16, f16, e4m3 or e5m2 ones")
    if len(dtypes) > 1:
        listing = ", ".join(f"{n} {a.dtype}" for n, a in zip(in_names + out_names, ins + outs))
        raise TypeError(f"mixed dtypes ({listing}): the float32 and float64 arrays are all of "
                        "one dtype, the compute dtype")
    if size is None:
        size = _infer_size(op, ins, outs)
    code = _CODE_OF_NP[reals[0].dtype] if reals else _lib.DTYPE_F32
    codes = [code if f is None else _LOWP_CODE[f] for f in fmts]
    out_fmt = next((f for f in fmts[len(in_list):] if f is not None), None)

    def arr(a, name, k):
        return _lib.GvArray(k, a.ctypes.data, a.size, _b(name))

    c_in = (_lib.GvArray * max(1, len(ins)))(
        *[arr(a, n, k) for a, n, k in zip(ins, in_names, codes)])
    c_out = (_lib.GvArray * max(1, len(outs)))(
        *[arr(a, n, k) for a, n, k in zip(outs, out_names, codes[len(ins):])])
    spec = _lib.GvJudgeSpec(_b(op), _b(claimed), _b(size), _b(dist), seed, len(ins), len(outs),
                            c_in, c_out)
    raw = _lib.GvJudgement()
    lib = _lib.lib()
    rc = lib.gv_judge(ctypes.byref(spec), ctypes.byref(raw))
    try:
        if rc != 0:
            raise _lib.GpuvalError(rc, raw.reason.decode(errors="replace"))
        return Judgement(raw, op, out_fmt or _NAME_OF_CODE[code], mode, size, dist, seed)
    finally:
        lib.gv_judgement_free(ctypes.byref(raw))


Case = namedtuple("Case", "op dtype mode size dist seed")
Case.__doc__ = "One case of check() and of the pytest marker."


def _listed(v, default):
    if v is None:
        return list(default)
    if isinstance(v, str):
        return _names(v)
    return [str(s) for s in v]


def cases(op="gemm", dtype="f32", sizes=None, dists=None, modes=None, seed=0):
    """The cases check() runs: every mode x size x dist (sizes and dists: a list or a comma
    list; None: the op's test_shapes and dists; modes None: native)."""
    info = op_info(op)
    seed = _seed(seed)
    sizes = _listed(sizes, _names(info.get("test_shapes")) or _names(info.get("shapes")))
    dists = _listed(dists, _names(info.get("dists")))
    modes = _listed(modes, ["native"])
    dtypes = _listed(dtype, []) if not isinstance(dtype, str) else [dtype]
    _known(op, info, "input distribution", "dists", dists)
    _known(op, info, "mode", "modes", modes)
    return [Case(op, _dtype_name(dt), m, s, d, seed)
            for dt in dtypes for m in modes for s in sizes for d in dists]


def run_case(fn, case, framework="numpy", device=None, allow=None):
    """Make the case's inputs, call fn(*inputs) with them as framework's arrays, bring the
    outputs back and judge them: a Judgement, its .times the seconds of each phase (inputs,
    to_device, fn, to_host, inputs_check, judge). An output of the wrong shape or dtype is a
    TypeError or ValueError (a harness fault, not a numerical verdict)."""
    times = {}
    t0 = time.perf_counter()

    def lap(name):
        nonlocal t0
        t = time.perf_counter()
        times[name] = t - t0
        t0 = t

    ci = inputs(case.op, case.dtype, case.size, case.dist, case.seed, case.mode)
    lap("inputs")
    args = ci.to(framework, device)
    # a device copy of each input, to see on the device whether fn wrote to it (a copy there
    # is far cheaper than bringing every input back to the host)
    before = [device_copy(framework, a) for a in args]
    lap("to_device")
    out = fn(*args)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(outs) != len(ci.out_names):
        raise ValueError(f"{case.op}: fn returned {len(outs)} outputs; the op has "
                         f"{len(ci.out_names)} ({', '.join(ci.out_names)})")
    host = []
    for o, name in zip(outs, ci.out_names):
        h, fmt = to_numpy_lowp(o, f"output {name}")  # waits for fn's work on the device
        if fmt is not None:  # a bf16/f16/fp8 result of the case's arithmetic: judge() tags it
            if tuple(h.shape) != tuple(ci.out_shapes[name]):
                raise ValueError(f"{case.op}: output {name} has shape {tuple(h.shape)}, "
                                 f"expected {tuple(ci.out_shapes[name])}")
            host.append(o)
            continue
        want = ci.out_shapes[name]
        if h.ndim == 0 and math.prod(want) == 1:
            # a one-element result as 0-d (torch's and CuPy's x.sum(), NumPy's np.sum(x))
            h = h.reshape(want)
        if tuple(h.shape) != tuple(want):
            raise ValueError(f"{case.op}: output {name} has shape {tuple(h.shape)}, expected "
                             f"{tuple(want)}")
        real = _DTYPES[case.dtype][1]
        if np.issubdtype(h.dtype, np.integer):
            # indices (torch.argmax's int64), as values of the case's dtype where each is exact
            limit = 2.0 ** (24 if case.dtype == "f32" else 53)
            if h.size and float(np.max(np.abs(h))) > limit:
                raise TypeError(f"{case.op}: output {name} holds integers past {limit:.0f}, "
                                f"not exact in {case.dtype}")
            h = h.astype(real)
        if h.dtype != real and h.dtype != _COMPLEX_OF[real]:
            raise TypeError(f"{case.op}: output {name} is {h.dtype}; the case is {case.dtype}")
        host.append(h)
    lap("fn_and_to_host")
    # the inputs as the kernel left them: gpuval judges a kernel that leaves its inputs alone
    for a, b, orig, name in zip(args, before, ci.arrays, ci.names):
        same = same_bits(framework, a, b) if b is not None else None
        if same is None:
            seen = to_numpy(a, f"input {name}")
            eq = (seen == orig) | (np.isnan(seen) & np.isnan(orig))
            same, changed = bool(eq.all()), int(eq.size - eq.sum())
        else:
            changed = "some"
        if not same:
            raise ValueError(f"{case.op}: fn wrote to its input {name} ({changed} elements "
                             "changed)")
    lap("inputs_check")
    j = judge(case.op, ci, host, allow=allow)
    lap("judge")
    j.times = times
    return j


def check(fn, op="gemm", dtype="f32", sizes=None, dists=None, modes=None, framework="numpy",
          seed=0, device=None, allow=None):
    """Judge fn, a kernel that computes op, over gpuval's cases: for each one, gpuval's inputs
    as framework's arrays ("numpy"; "cupy" or "torch": on the GPU), outputs = fn(*inputs) (one
    array or a tuple), judged. Returns the Judgements, one per case (see cases()). allow="ftz":
    fn computes with flush-to-zero (judge's allow)."""
    return [run_case(fn, c, framework, device, allow)
            for c in cases(op, dtype, sizes, dists, modes, seed)]
