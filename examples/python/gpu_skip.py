"""Skip a module's tests where its framework or a CUDA device is missing."""

import pytest


def need_cupy():
    cp = pytest.importorskip("cupy")
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except cp.cuda.runtime.CUDARuntimeError:
        count = 0
    if count == 0:
        pytest.skip("no CUDA device", allow_module_level=True)
    return cp


def need_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for torch", allow_module_level=True)
    return torch
