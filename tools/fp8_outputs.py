"""fp8_outputs.py OUT: cuBLASLt's own fp8 GEMM outputs on structured families, for the fp8
envelope (src/core/envelope_tc.c) to judge on the CPU (docs/error-models.md, "Tensor-core
modes on given inputs"). Run on a GPU with torch: torch._scaled_mm with e4m3 A and B, one
scale per tensor, quantised as gpuval's fp8 mode quantises them (s = 448/amax in f32,
q = e4m3(x s), descale 1/s), with and without fast accumulation; the families (uniform
[-1, 1), a DCT-II basis against its transpose, banded Gaussian filters over smooth signals,
cancellation x and -x + small) at 128x4096x128 and 64x1024x64. Writes TAG_A.npy, TAG_B.npy
(f32 inputs), TAG_fp8.npy, TAG_fp8fast.npy and info.json under OUT. Then, per TAG:
  gpuval judge --op gemm.cublas --mode fp8 --inputs OUT/TAG_A.npy,OUT/TAG_B.npy \
      --outputs OUT/TAG_fp8.npy        (PASS)  or  OUT/TAG_fp8fast.npy  (FAIL)
"""
import math, os, sys, json
import numpy as np
import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
dev = "cuda"


def fam(name, m, k, n, seed=7):
    rng = np.random.default_rng(seed)
    l = np.arange(k)
    if name == "uniform":
        a = rng.uniform(-1, 1, (m, k)); b = rng.uniform(-1, 1, (k, n))
    elif name == "dct":
        f = np.arange(m)[:, None]
        a = np.sqrt(np.where(f == 0, 1.0, 2.0) / k) * np.cos(np.pi * (l[None, :] + 0.5) * f / k)
        g = np.arange(n)[None, :]
        b = np.sqrt(np.where(g == 0, 1.0, 2.0) / k) * np.cos(np.pi * (l[:, None] + 0.5) * g / k)
    elif name == "band":
        c = (np.arange(m)[:, None] + 0.5) * k / m; sg = k / 64.0
        t = (l[None, :] - c) / sg
        a = np.where(np.abs(t) <= 3, np.exp(-0.5 * t * t) / (sg * math.sqrt(2 * math.pi)), 0.0)
        x = l[:, None] / k; j = np.arange(n)[None, :]
        b = 1.0 + 0.5 * np.sin(2 * np.pi * (1.0 + 0.3 * j) * x + 0.1 * j) + 0.25 * x
    else:  # cancel: x and -x + small
        h = k // 2
        u = rng.uniform(0.5, 1.0, (m, h)); a = np.concatenate([u, -u], axis=1)
        v = rng.uniform(0.5, 1.0, (h, n)); b = np.concatenate([v, v + 1e-3 * rng.uniform(-1, 1, (h, n))], axis=0)
    return a.astype(np.float32), b.astype(np.float32)


def quant(x):
    t = torch.from_numpy(x)  # on the CPU: IEEE f32 multiply and divide
    amax = t.abs().max()
    s = torch.tensor(448.0, dtype=torch.float32) / amax if 0 < amax.item() < float("inf") else torch.tensor(1.0)
    q = (t * s).to(torch.float8_e4m3fn)
    return q, (torch.tensor(1.0, dtype=torch.float32) / s).reshape(())


info = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda, "runs": []}
for (m, k, n) in [(128, 4096, 128), (64, 1024, 64)]:
    for name in ["uniform", "dct", "band", "cancel"]:
        a, b = fam(name, m, k, n)
        qa, da = quant(a)
        qb, db = quant(b)
        A = qa.to(dev)
        Bc = qb.to(dev).t().contiguous().t()  # k x n, column-major, as _scaled_mm takes it
        res = {}
        try:
            for fast in (False, True):
                c = torch._scaled_mm(A, Bc, scale_a=da.to(dev), scale_b=db.to(dev),
                                     out_dtype=torch.float32, use_fast_accum=fast)
                res[fast] = c.cpu().numpy()
        except Exception as e:  # say why, go on with the next
            print(name, m, k, n, "failed:", repr(e), flush=True)
            continue
        tag = f"{name}_{m}x{k}x{n}"
        np.save(f"{out}/{tag}_A.npy", a); np.save(f"{out}/{tag}_B.npy", b)
        np.save(f"{out}/{tag}_fp8.npy", res[False]); np.save(f"{out}/{tag}_fp8fast.npy", res[True])
        info["runs"].append({"tag": tag, "descale_a": float(da), "descale_b": float(db),
                             "fast_differs": int((res[False] != res[True]).sum())})
        print(tag, info["runs"][-1], flush=True)
json.dump(info, open(f"{out}/info.json", "w"), indent=1)
