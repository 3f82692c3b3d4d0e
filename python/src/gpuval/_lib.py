"""Loading libgpuval and declaring the part of its C API (include/gpuval.h, 1.3 and 1.4) that the
package calls, for ctypes.

ctypes rather than a compiled extension: the package holds no Python extension, so one
package works with whichever libgpuval it finds at run time, a meson build's (with or without
CUDA) or the CPU-only one a wheel carries (tools/build_wheel.py).

Where it looks, in order (_libfind.py): GPUVAL_LIB (a path); a libgpuval with CUDA from a meson
build (pkg-config's libdir for gpuval, then ctypes.util.find_library); the wheel's bundled CPU
library; a CPU-only libgpuval from a meson build.
"""

import ctypes
import os

# include/gpuval.h
MAX_TENSORS = 6  # GV_API_MAX_TENSORS
MAX_DIMS = 4  # GV_API_MAX_DIMS
MAX_TENSOR_DIMS = 8  # GV_API_MAX_TENSOR_DIMS (1.4: gv_case_inputs_nd)
DTYPE_F32 = 0
DTYPE_F64 = 1
# low-precision storage for judge's arrays (bit patterns; f32 compute unless an array is f64)
DTYPE_BF16 = 2
DTYPE_F16 = 3
DTYPE_E4M3 = 4
DTYPE_E5M2 = 5
API_MAJOR = 1
API_MINOR_NEEDED = 3  # 1.2: gv_judge, gv_make_inputs, gv_op_info; 1.3: DTYPE_BF16 .. E5M2
API_MINOR_ND = 4  # 1.4: gv_make_inputs_nd, whole shapes (used where the library has it)
VERDICTS = ("PASS", "FAIL", "SKIP", "ERROR")  # GV_VERDICT_* in order

_ERRNAMES = {0: "GV_API_OK", -1: "GV_API_EINVAL", -2: "GV_API_ENOMEM", -101: "GV_API_EABI",
             -102: "GV_API_EEXIST"}


class LibraryNotFound(OSError):
    """libgpuval could not be found or loaded; the message says where it was looked for."""


class GpuvalError(RuntimeError):
    """libgpuval refused a request (a negative return code), with its reason."""

    def __init__(self, code, message):
        self.code = code
        name = _ERRNAMES.get(code, str(code))
        super().__init__(f"{message} ({name})" if message else name)


class GvArray(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("data", ctypes.c_void_p), ("count", ctypes.c_int64),
                ("name", ctypes.c_char_p)]


class GvJudgeSpec(ctypes.Structure):
    _fields_ = [("op", ctypes.c_char_p), ("mode", ctypes.c_char_p), ("size", ctypes.c_char_p),
                ("dist", ctypes.c_char_p), ("seed", ctypes.c_uint64), ("n_in", ctypes.c_int),
                ("n_out", ctypes.c_int), ("inputs", ctypes.POINTER(GvArray)),
                ("outputs", ctypes.POINTER(GvArray))]


class GvJudgement(ctypes.Structure):
    _fields_ = [("verdict", ctypes.c_int), ("reason", ctypes.c_char * 1024),
                ("max_rel", ctypes.c_double), ("normwise", ctypes.c_double),
                ("bits", ctypes.c_double), ("ratio", ctypes.c_double), ("r_max", ctypes.c_double),
                ("r_rms", ctypes.c_double), ("meets_1e8", ctypes.c_int),
                ("meets_1e4", ctypes.c_int), ("json", ctypes.c_char_p)]


_I64xT = ctypes.c_int64 * MAX_TENSORS
_INTxT = ctypes.c_int * MAX_TENSORS
_SHAPES = (ctypes.c_int64 * MAX_DIMS) * MAX_TENSORS
_NAMES = ctypes.c_char_p * MAX_TENSORS


class GvCaseInputs(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("n_in", ctypes.c_int), ("n_out", ctypes.c_int),
                ("inputs", ctypes.c_void_p * MAX_TENSORS), ("in_count", _I64xT),
                ("out_count", _I64xT), ("in_ndim", _INTxT), ("out_ndim", _INTxT),
                ("in_shape", _SHAPES), ("out_shape", _SHAPES), ("in_names", _NAMES),
                ("out_names", _NAMES)]


_SHAPES_ND = (ctypes.c_int64 * MAX_TENSOR_DIMS) * MAX_TENSORS


class GvCaseInputsNd(ctypes.Structure):
    """gv_case_inputs_nd (1.4): gv_case_inputs with shapes of up to 8 dims."""
    _fields_ = [("dtype", ctypes.c_int), ("n_in", ctypes.c_int), ("n_out", ctypes.c_int),
                ("inputs", ctypes.c_void_p * MAX_TENSORS), ("in_count", _I64xT),
                ("out_count", _I64xT), ("in_ndim", _INTxT), ("out_ndim", _INTxT),
                ("in_shape", _SHAPES_ND), ("out_shape", _SHAPES_ND), ("in_names", _NAMES),
                ("out_names", _NAMES)]


def has_nd(lib):
    """Whether lib has gv_make_inputs_nd (API 1.4): whole shapes of up to 8 dims."""
    return lib.gv_api_version() % 1000 >= API_MINOR_ND


def _declare(lib):
    c = ctypes
    lib.gv_api_version.restype = c.c_int
    lib.gv_api_version.argtypes = []
    lib.gv_judge.restype = c.c_int
    lib.gv_judge.argtypes = [c.POINTER(GvJudgeSpec), c.POINTER(GvJudgement)]
    lib.gv_judgement_free.restype = None
    lib.gv_judgement_free.argtypes = [c.POINTER(GvJudgement)]
    lib.gv_make_inputs.restype = c.c_int
    lib.gv_make_inputs.argtypes = [c.c_char_p, c.c_int, c.c_char_p, c.c_char_p, c.c_char_p,
                                   c.c_uint64, c.POINTER(GvCaseInputs), c.c_char_p, c.c_size_t]
    lib.gv_case_inputs_free.restype = None
    lib.gv_case_inputs_free.argtypes = [c.POINTER(GvCaseInputs)]
    if has_nd(lib):
        lib.gv_make_inputs_nd.restype = c.c_int
        lib.gv_make_inputs_nd.argtypes = [c.c_char_p, c.c_int, c.c_char_p, c.c_char_p,
                                          c.c_char_p, c.c_uint64, c.POINTER(GvCaseInputsNd),
                                          c.c_char_p, c.c_size_t]
        lib.gv_case_inputs_nd_free.restype = None
        lib.gv_case_inputs_nd_free.argtypes = [c.POINTER(GvCaseInputsNd)]
    lib.gv_op_info.restype = c.c_int
    lib.gv_op_info.argtypes = [c.c_char_p, c.POINTER(c.c_void_p)]
    lib.gv_free.restype = None
    lib.gv_free.argtypes = [c.c_void_p]
    return lib


def _check_version(lib, path):
    version = lib.gv_api_version()
    major, minor = divmod(version, 1000)
    if major != API_MAJOR or minor < API_MINOR_NEEDED:
        raise LibraryNotFound(f"{path}: libgpuval API {major}.{minor}; this package needs "
                              f"{API_MAJOR}.{API_MINOR_NEEDED} or a later {API_MAJOR}.x")


_CORE_PROBE = ("import ctypes, sys\n"
               "f = ctypes.CDLL(sys.argv[1]).openblas_get_corename\n"
               "f.restype = ctypes.c_char_p\n"
               "print((f() or b'').decode())\n")


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _name_openblas_core(path):
    """As the gpuval command does (src/cmd/gpuval_main.c): where OpenBLAS would take this CPU
    for a "Prescott" (SSE3 kernels) and the CPU has AVX-512 or AVX2 with FMA, name the wider
    core in OPENBLAS_CORETYPE before OpenBLAS loads (it reads the variable only then). Besides
    the speed of the f64 oracles, the oracle cache's version names the core: a process that
    kept Prescott found every entry `gpuval check` had stored "stale" and replaced it, and the
    next check replaced it back. What OpenBLAS detects is asked of a child process, once, since
    loading it here would fix the choice for this one."""
    if "OPENBLAS_CORETYPE" in os.environ or "GPUVAL_OPENBLAS_CORE_FROM" in os.environ:
        return
    import subprocess
    import sys

    try:
        p = subprocess.run([sys.executable, "-c", _CORE_PROBE, path], capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return
    core = p.stdout.strip() if p.returncode == 0 else ""
    if core != "Prescott":
        return
    flags = _cpu_flags()
    want = ("SkylakeX" if {"avx512f", "avx512dq", "avx512bw", "avx512vl"} <= flags
            else "Haswell" if {"avx2", "fma"} <= flags else None)
    if want:
        os.environ["OPENBLAS_CORETYPE"] = want
        os.environ["GPUVAL_OPENBLAS_CORE_FROM"] = core


def _open(path):
    """The library at path with the API declared, or an error string saying why not."""
    _name_openblas_core(path)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        return None, f"{path}: cannot load it: {e}"
    if not hasattr(lib, "gv_judge"):
        return None, f"{path}: not libgpuval {API_MAJOR}.{API_MINOR_NEEDED} (no gv_judge)"
    try:
        _check_version(lib, path)
    except LibraryNotFound as e:
        return None, str(e)
    return _declare(lib), None


def load_library():
    """Load libgpuval as the module docstring says: (library, path, how it was found).
    LibraryNotFound names every place tried."""
    env = os.environ.get("GPUVAL_LIB")
    if env:
        # a path the user named is used or refused, never silently replaced by another library
        lib, err = _open(env)
        if lib is None:
            raise LibraryNotFound(f"GPUVAL_LIB={err}")
        return lib, env, "GPUVAL_LIB"
    # imported here: tests/build/ctypes_layout_test.py loads this file alone, outside the package
    from . import _libfind

    found, notes = _libfind.candidates()
    errors = []
    for path, how in found:
        lib, err = _open(path)
        if lib is not None:
            return lib, path, how
        errors.append(err)
    raise LibraryNotFound("libgpuval not found; install the wheel (tools/build_wheel.py) or set "
                          "GPUVAL_LIB to its path (build/include/libgpuval.so in a meson build). "
                          "Tried: " + "; ".join(["GPUVAL_LIB: not set"] + notes + errors))


_loaded = None


def lib():
    """The loaded library (loaded on first use, so that importing gpuval never fails)."""
    global _loaded
    if _loaded is None:
        _loaded = load_library()
    return _loaded[0]


def lib_path():
    lib()
    return _loaded[1]


def lib_info():
    """Which libgpuval this process uses: {"path", "found_by", "cuda", "api"}. cuda is False for
    the wheel's bundled library and for a meson build made without CUDA: judge, inputs, check
    and the pytest plugin judge on the CPU and need none, but gpuval's own GPU runs (gpuval
    check, bench, probe on a device) need a CUDA build of gpuval. None where it is unknown."""
    from . import _libfind

    lib()
    path, how = _loaded[1], _loaded[2]
    cuda = _libfind.has_cuda(_libfind.loaded_path(path))
    if cuda is None and path == _libfind.bundled():
        cuda = False
    return {"path": path, "found_by": how, "cuda": cuda,
            "api": "{}.{}".format(*divmod(_loaded[0].gv_api_version(), 1000))}
