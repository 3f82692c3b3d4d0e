"""Moving arrays between NumPy (what libgpuval reads) and the frameworks a kernel runs in.

CuPy and PyTorch are never imported to read an array: an array of theirs means the user's
program has imported them already, so they are taken from sys.modules. They are imported only
to make arrays of theirs, when check() is asked for framework="cupy" or "torch".
"""

import sys

import numpy as np

FRAMEWORKS = ("numpy", "cupy", "torch")


def _module_of(x):
    return type(x).__module__.split(".", 1)[0]


def to_numpy(x, what="array"):
    """x as a NumPy array on the host: NumPy's own, CuPy's (cupy.asnumpy), a torch tensor
    (tensor.cpu()), or any other object that exports DLPack; a copy where x lives on a device."""
    if isinstance(x, np.ndarray):
        return x
    mod = _module_of(x)
    if mod == "cupy" and "cupy" in sys.modules:
        return sys.modules["cupy"].asnumpy(x)
    if mod == "torch" and "torch" in sys.modules:
        t = x.detach()
        torch = sys.modules["torch"]
        # int64 and int32: indices (torch.argmax's), taken as NumPy's are
        if t.dtype not in (torch.float32, torch.float64, torch.complex64, torch.complex128,
                           torch.int64, torch.int32):
            raise TypeError(f"{what}: a torch tensor of {t.dtype}; gpuval judges float32 or "
                            "float64 arrays (complex64 or complex128 for complex tensors, "
                            "int64 or int32 for indices)")
        if t.is_conj():  # a lazily conjugated view: its bits are not yet the conjugate's
            t = t.resolve_conj()
        return t.cpu().numpy()
    if hasattr(x, "__dlpack__"):
        try:
            # DLPack 1.0: the producer copies to the host where it lives on a device
            return np.from_dlpack(x, device="cpu", copy=None)
        except TypeError:  # NumPy before 2.1 takes no device: host arrays only
            return np.from_dlpack(x)
        except (BufferError, ValueError) as e:
            raise TypeError(f"{what}: its DLPack export cannot reach the host ({e}); copy it "
                            "to a NumPy array first") from None
    if hasattr(x, "__cuda_array_interface__"):
        raise TypeError(f"{what}: a device array with __cuda_array_interface__ but no DLPack "
                        "export; copy it to the host (or wrap it with cupy.asarray) first")
    if isinstance(x, (list, tuple)) or np.isscalar(x):
        return np.asarray(x)
    raise TypeError(f"{what}: {type(x).__name__} is not an array gpuval can read (NumPy, CuPy, "
                    "torch, or anything with __dlpack__)")


# Low-precision formats, by name: what libgpuval calls them (include/gpuval.h GV_DTYPE_BF16 ...)
# and the width of their bit patterns. NumPy has float16 only; bf16 and fp8 travel as raw bits.
LOWP_FORMATS = {"bf16": np.dtype("<u2"), "f16": np.dtype("<u2"), "e4m3": np.dtype("u1"),
                "e5m2": np.dtype("u1")}
# torch's and ml_dtypes' names of those formats
_LOWP_OF_NAME = {"bfloat16": "bf16", "float16": "f16", "float8_e4m3fn": "e4m3",
                 "float8_e5m2": "e5m2"}


def to_numpy_lowp(x, what="array", declared=None):
    """(host array, format) for judge(): format is None for float32/float64 (and complex)
    arrays, else "bf16", "f16", "e4m3" or "e5m2" with the array holding the raw bit patterns
    (uint16 or uint8; a NumPy float16 array stays float16). torch tensors of bfloat16, float16,
    float8_e4m3fn and float8_e5m2 are taken directly (viewed as integers of their width on the
    device, then copied); ml_dtypes arrays likewise. Unsigned 16- and 8-bit arrays are raw bits
    of the format declared (judge's dtype=), which they need."""
    mod = _module_of(x)
    if mod == "torch" and "torch" in sys.modules:
        torch = sys.modules["torch"]
        name = str(x.dtype).split(".")[-1]
        fmt = _LOWP_OF_NAME.get(name)
        if fmt is not None:
            t = x.detach().contiguous()
            wide = torch.int16 if t.element_size() == 2 else torch.uint8
            a = t.view(wide).cpu().numpy().view(LOWP_FORMATS[fmt])
            return _declared_agrees(a, fmt, declared, what)
    elif isinstance(x, np.ndarray) and x.dtype.name in _LOWP_OF_NAME and x.dtype.kind == "V":
        fmt = _LOWP_OF_NAME[x.dtype.name]  # ml_dtypes' bfloat16, float8_*: opaque to NumPy
        a = np.ascontiguousarray(x).view(LOWP_FORMATS[fmt])
        return _declared_agrees(a, fmt, declared, what)
    a = to_numpy(x, what)
    if a.dtype == np.float16:
        return _declared_agrees(a, "f16", declared, what)
    if a.dtype.kind == "u" and a.dtype.itemsize in (1, 2):
        if declared is None or LOWP_FORMATS[declared].itemsize != a.dtype.itemsize:
            raise TypeError(f"{what}: {a.dtype} raw bits: name their format with dtype= "
                            f"({'e4m3 or e5m2' if a.dtype.itemsize == 1 else 'bf16 or f16'})")
        return a.view(LOWP_FORMATS[declared]), declared
    return a, None


def _declared_agrees(a, fmt, declared, what):
    if declared is not None and declared != fmt:
        raise TypeError(f"{what}: an array of {fmt}, but dtype={declared!r}")
    return a, fmt


def from_numpy(a, framework, device=None):
    """A framework's own copy of the host array a: on the GPU for cupy and torch (device, for
    torch, defaults to "cuda")."""
    if framework == "numpy":
        return a.copy()
    if framework == "cupy":
        import cupy  # noqa: the caller asked for CuPy arrays

        return cupy.asarray(a)
    if framework == "torch":
        import torch  # noqa: the caller asked for torch tensors

        t = torch.from_numpy(a)  # shares a's memory: .to() below makes the one copy
        moved = t.to(device or "cuda")
        return moved.clone() if moved.data_ptr() == t.data_ptr() else moved
    raise ValueError(f"framework {framework!r}: one of {', '.join(FRAMEWORKS)}")


_INT_OF_SIZE = {4: "int32", 8: "int64", 16: "int64"}


def same_bits(framework, now, before):
    """Whether the framework arrays now and before hold the same bits, compared where they
    live (on the device for cupy and torch: no copy to the host). None where the framework
    cannot tell (the caller then compares on the host)."""
    if framework == "cupy":
        import cupy  # noqa: the arrays are CuPy's

        if now.dtype.kind == "c":
            now, before = now.view(now.real.dtype), before.view(before.real.dtype)
        n = _INT_OF_SIZE[now.dtype.itemsize]
        return bool(cupy.array_equal(now.view(n), before.view(n)))
    if framework == "torch":
        import torch  # noqa: the arrays are torch's

        if now.is_complex():
            now, before = torch.view_as_real(now), torch.view_as_real(before)
        n = getattr(torch, _INT_OF_SIZE[now.element_size()])
        return bool(torch.equal(now.view(n), before.view(n)))
    return None


def device_copy(framework, x):
    """A copy of the framework array x on its own device (for same_bits), or None."""
    if framework == "cupy":
        return x.copy()
    if framework == "torch":
        return x.clone()
    return None
