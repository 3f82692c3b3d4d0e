"""Finding libgpuval and declaring the part of its C API (include/gpuval.h, 1.2) that the
package calls, for ctypes.

ctypes rather than a compiled extension: installing the package needs no compiler and no
CUDA, and one wheel works with whichever libgpuval a meson build produced (with or without
CUDA), found at run time.

The library is looked up, in this order, at GPUVAL_LIB (a path to the .so), in the libdir
that `pkg-config --variable=libdir gpuval` names, and by ctypes.util.find_library("gpuval").
"""

import ctypes
import ctypes.util
import os
import subprocess

# include/gpuval.h
MAX_TENSORS = 6  # GV_API_MAX_TENSORS
MAX_DIMS = 4  # GV_API_MAX_DIMS
DTYPE_F32 = 0
DTYPE_F64 = 1
API_MAJOR = 1
API_MINOR_NEEDED = 2  # gv_judge, gv_make_inputs, gv_op_info
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


def _pkg_config_candidates():
    try:
        res = subprocess.run(["pkg-config", "--variable=libdir", "gpuval"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return [], "pkg-config: not runnable"
    libdir = res.stdout.strip()
    if res.returncode != 0 or not libdir:
        return [], "pkg-config: no gpuval.pc on PKG_CONFIG_PATH"
    # libgpuval.so is the development link; libgpuval.so.1 the runtime name (its SONAME)
    return ([os.path.join(libdir, "libgpuval.so"), os.path.join(libdir, "libgpuval.so.1")],
            f"pkg-config: libdir {libdir}")


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


def load_library():
    """Load libgpuval as the module docstring says; LibraryNotFound names every place tried."""
    env = os.environ.get("GPUVAL_LIB")
    if env:
        # a path the user named is used or refused, never silently replaced by another library
        try:
            lib = ctypes.CDLL(env)
        except OSError as e:
            raise LibraryNotFound(f"GPUVAL_LIB={env}: cannot load it: {e}") from None
        if not hasattr(lib, "gv_judge"):
            raise LibraryNotFound(f"GPUVAL_LIB={env}: not libgpuval 1.2 (no gv_judge)")
        _check_version(lib, env)
        return _declare(lib), env
    tried = ["GPUVAL_LIB: not set"]
    candidates, note = _pkg_config_candidates()
    tried.append(note)
    found = ctypes.util.find_library("gpuval")
    tried.append(f"find_library('gpuval'): {found or 'nothing'}")
    if found:
        candidates.append(found)
    errors = []
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        if not hasattr(lib, "gv_judge"):
            errors.append(f"{path}: not libgpuval 1.2 (no gv_judge)")
            continue
        _check_version(lib, path)
        return _declare(lib), path
    raise LibraryNotFound("libgpuval not found; set GPUVAL_LIB to its path (build/include/"
                          "libgpuval.so in a meson build). Tried: " + "; ".join(tried + errors))


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
