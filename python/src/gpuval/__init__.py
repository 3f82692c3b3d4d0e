"""gpuval for Python: judge a kernel's outputs with gpuval's float64 oracles, accuracy tiers
and error models, from NumPy, CuPy or PyTorch.

    import gpuval
    results = gpuval.check(my_gemm, op="gemm", framework="cupy")
    assert all(results), "\\n".join(r.row for r in results if not r)

The verdicts come from libgpuval (include/gpuval.h, API 1.3 or later; 1.4 for whole 5-D
shapes), loaded with ctypes from GPUVAL_LIB, a CUDA build of gpuval found by pkg-config or the
system's library path, the CPU-only library a wheel carries, or a CPU-only build found as a CUDA one is (gpuval.lib_info()
says which).
"""

from ._core import (CAUSES, Case, CaseInputs, Judgement, cases, check, inputs, judge, op_info,
                    run_case)
from ._arrays import from_numpy, to_numpy
from ._lib import GpuvalError, LibraryNotFound, lib_info, lib_path

__all__ = ["CAUSES", "Case", "CaseInputs", "GpuvalError", "Judgement", "LibraryNotFound",
           "cases", "check", "from_numpy", "inputs", "judge", "lib_info", "lib_path", "op_info",
           "run_case", "to_numpy"]
# gpuval's version (meson.build's project version; tests/cpu/test_version.c holds them equal)
__version__ = "1.4.0"
