"""Conformance of real framework calls: torch and CuPy library calls (correct ones) judged by
gpuval on every dist each op takes, through the Python package's check() (gpuval's generated
inputs, every rule of a generated case). A correct library call must PASS; every other verdict
is printed, and CuPy's flush-to-zero FAILs are judged again with allow="ftz" (declared).

    GPUVAL_LIB=build/include/libgpuval.so python3 tools/conformance.py

Needs a CUDA device, torch and CuPy (the GPU machine's). Exit 0 when every call PASSes or is a
declared flush-to-zero that PASSes so, 1 otherwise. Results and the versions: docs/testing.md."""
import os
import sys
import time

import cupy as cp
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "src"))
import gpuval  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
CALLS = {
    "vadd": ("100003", [("torch", lambda a, b: a + b), ("cupy", lambda a, b: a + b)]),
    "gemm.cublas": ("257x300x129", [("torch", lambda a, b: a @ b), ("cupy", lambda a, b: a @ b)]),
    "reduce.sum": ("1000003", [("torch", lambda x: x.sum()), ("cupy", lambda x: x.sum())]),
    "reduce.colsum": ("1000x700", [("torch", lambda x: x.sum(0)), ("cupy", lambda x: x.sum(0))]),
    "dense.sigmoid": ("512x784x256",
                      [("torch", lambda w, x, b: torch.sigmoid(w @ x + b[:, None]))]),
    "math.sin": ("100000", [("torch", torch.sin), ("cupy", cp.sin)]),
    "math.exp": ("100000", [("torch", torch.exp), ("cupy", cp.exp)]),
    "math.sigmoid": ("100000", [("torch", torch.sigmoid)]),
    "softmax.rows": ("1000x77", [("torch", lambda x: torch.softmax(x, -1))]),
    "softmax.log": ("1000x77", [("torch", lambda x: torch.log_softmax(x, -1))]),
    "norm.layer": ("1000x77", [("torch", lambda x: F.layer_norm(x, (x.shape[-1],), eps=1e-5))]),
    "norm.rms": ("1000x77", [("torch", lambda x: F.rms_norm(x, (x.shape[-1],), eps=1e-6))]),
}


def main():
    total = bad = declared = 0
    t0 = time.time()
    for op, (size, fns) in CALLS.items():
        for fw, fn in fns:
            for dt in ("f32", "f64"):
                for d in gpuval.op_info(op)["dists"]:
                    for j in gpuval.check(fn, op=op, dtype=dt, sizes=size, dists=d, framework=fw):
                        total += 1
                        if j.verdict == "PASS":
                            continue
                        print(f"{j.verdict} {fw}: {j.row}")
                        if fw == "cupy" and j.reason.startswith("FTZ"):
                            k = gpuval.check(fn, op=op, dtype=dt, sizes=size, dists=d,
                                             framework=fw, allow="ftz")[0]
                            print(f"   declared allow='ftz': {k.verdict}")
                            if k.verdict == "PASS":
                                declared += 1
                                continue
                        bad += 1
    print(f"conformance: {total} calls, {total - bad - declared} PASS, {declared} PASS as "
          f"declared flush-to-zero, {bad} not PASS, {time.time() - t0:.0f} s; torch "
          f"{torch.__version__}, CuPy {cp.__version__}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
