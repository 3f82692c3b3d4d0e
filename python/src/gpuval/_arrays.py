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
        if t.dtype not in (torch.float32, torch.float64, torch.complex64, torch.complex128):
            raise TypeError(f"{what}: a torch tensor of {t.dtype}; gpuval judges float32 or "
                            "float64 arrays (complex64 or complex128 for complex tensors)")
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
