"""The precision context of a candidate's process: what an f32 label asks of the frameworks.

torch lets cuDNN compute an f32 convolution in TF32 by default (cudnn.allow_tf32 is True;
the matmul flag has been off since torch 1.12), and TF32 keeps 10 bits of the significand: an
f32 convolution computed so misses the f32 model's tier by orders of magnitude, and a
reference computed the same way cannot see it. A gate that judges an f32 label asks for f32,
so kernel_eval's child process sets, before it loads the candidate:

  - torch (when it is imported, by the harness or by the candidate): the fp32_precision of
    cuda.matmul, cudnn.conv and cudnn.rnn to "ieee" (torch 2.9 on); before 2.9,
    cuda.matmul.allow_tf32 = cudnn.allow_tf32 = False and set_float32_matmul_precision
    ("highest");
  - CuPy: CUPY_TF32=0 in the environment (CuPy reads it; 0 is its default).

The driver's NVIDIA_TF32_OVERRIDE=0 would force f32 in cuBLAS and cuDNN whatever the candidate
asks; it is not set, on purpose: a candidate that turns TF32 back on is then judged as it
computes (an f32 label computed in TF32 FAILs by the model), and after each call the child
reads torch's flags back, so that the verdict can name the switch (tf32_turned_on).
"""

import importlib.abc
import importlib.util
import os
import sys

LINE = "tf32 off"


def _torch_api(torch):
    """(matmul, cudnn, new API?) of this torch."""
    m, c = torch.backends.cuda.matmul, torch.backends.cudnn
    new = hasattr(m, "fp32_precision") and hasattr(getattr(c, "conv", None), "fp32_precision")
    return m, c, new


def torch_ieee(torch):
    """torch's f32 matmuls and cuDNN calls in IEEE f32 (no TF32); the settings, in words."""
    m, c, new = _torch_api(torch)
    if new:
        m.fp32_precision = c.conv.fp32_precision = "ieee"
        if hasattr(getattr(c, "rnn", None), "fp32_precision"):
            c.rnn.fp32_precision = "ieee"  # conv and rnn alike: torch checks them together
        return ("torch: cuda.matmul, cudnn.conv and cudnn.rnn fp32_precision 'ieee'")
    m.allow_tf32 = False
    c.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    return ("torch: cuda.matmul.allow_tf32 and cudnn.allow_tf32 False, "
            "float32_matmul_precision 'highest'")


def tf32_turned_on():
    """The torch flags that allow less than f32 now ("" where none, or torch is not
    imported): what a candidate switched back on, read after its call."""
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "backends"):
        return ""
    try:
        m, c, new = _torch_api(torch)
        if new:
            flags = {"torch.backends.cuda.matmul.fp32_precision": m.fp32_precision,
                     "torch.backends.cudnn.conv.fp32_precision": c.conv.fp32_precision}
            # "none" defers to the backend's default; "ieee" is f32; anything else is less
            return ", ".join(f"{k} = {v!r}" for k, v in flags.items()
                             if v not in ("ieee", "none"))
        flags = {"torch.backends.cuda.matmul.allow_tf32": m.allow_tf32,
                 "torch.backends.cudnn.allow_tf32": c.allow_tf32}
        on = [f"{k} = True" for k, v in flags.items() if v]
        p = torch.get_float32_matmul_precision()
        if p != "highest":
            on.append(f"float32_matmul_precision {p!r}")
        return ", ".join(on)
    except Exception as e:  # torch refuses to read flags set through both of its APIs
        return f"TF32 flags unreadable ({type(e).__name__}: {e})"


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs then(module) once the top-level module name has been imported, by whomever."""

    def __init__(self, name, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # once; and the search below must not find this finder
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run, then = spec.loader.exec_module, self.then

        def exec_module(module):
            run(module)
            then(module)
        spec.loader.exec_module = exec_module
        return spec


def strict_f32(notes):
    """In the candidate's process, before the candidate loads: ask every framework for f32.
    torch's flags are set when torch is imported (now, if it is already); notes (a list)
    gets each framework's settings in words as they are made."""
    os.environ["CUPY_TF32"] = "0"
    notes.append("cupy: CUPY_TF32=0")

    def on_torch(torch):
        notes.append(torch_ieee(torch))
    if "torch" in sys.modules:
        on_torch(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _AfterImport("torch", on_torch))
