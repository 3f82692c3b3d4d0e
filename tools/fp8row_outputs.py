"""fp8row_outputs.py: cuBLASLt's own rowwise-scaled fp8 GEMM outputs judged by the fp8row
envelope (src/core/envelope_tc.c, per-line scales; docs/error-models.md, "Tensor-core modes
on given inputs"). Run on a GPU with torch (torch._scaled_mm, e4m3 A and B, scale_a m x 1 and
scale_b 1 x n, no fast accumulation), with GPUVAL_LIB and PYTHONPATH set:

    python3 tools/fp8row_outputs.py

Each operand quantised as gpuval's fp8row recipe does (src/ops/gemm_fp8.c, GK_FP8_OUTER: per
row of A and column of B, s = 448 / amax in f32, x s saturated at +-448 and rounded to e4m3,
descale 1 / s). Families: uniform [-1, 1), a DCT-II basis against its transpose, and rows
and columns whose magnitudes fall by 2^-4 a row and 2^-3 a column (where per-row scales
matter); 64x1024x64 and 128x4096x128. Judged as fp8row: cuBLASLt's rowwise outputs must PASS;
the same product scaled per tensor (one scale each, as the planted fp8rowtensor) must FAIL
where its outputs differ, naming the per-tensor arithmetic. One line each; exit 1 if any is
not as wanted."""
import sys

import numpy as np
import torch

import gpuval


def fam(name, m, k, n, seed=11):
    rng = np.random.default_rng(seed)
    if name == "uniform":
        a, b = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
    elif name == "dct":
        l = np.arange(k)
        f = np.arange(m)[:, None]
        a = np.sqrt(np.where(f == 0, 1.0, 2.0) / k) * np.cos(np.pi * (l[None, :] + 0.5) * f / k)
        g = np.arange(n)[None, :]
        b = np.sqrt(np.where(g == 0, 1.0, 2.0) / k) * np.cos(np.pi * (l[:, None] + 0.5) * g / k)
    else:  # rows: magnitudes falling by row of A and column of B
        a = rng.uniform(-1, 1, (m, k)) * np.exp2(-4.0 * (np.arange(m)[:, None] % 8))
        b = rng.uniform(0, 1, (k, n)) * np.exp2(-3.0 * (np.arange(n)[None, :] % 8))
    return a.astype(np.float32), b.astype(np.float32)


def quant(x, axis):
    """x (f32) scaled per line (axis=1: rows; axis=0: columns; None: the tensor), rounded to
    e4m3; the descales in f32, shaped for _scaled_mm."""
    t = torch.from_numpy(x)
    amax = t.abs().amax(dim=axis, keepdim=True) if axis is not None else t.abs().max()
    ok = (amax > 0) & torch.isfinite(amax)
    s = torch.where(ok, torch.tensor(448.0) / torch.where(ok, amax, torch.ones_like(amax)),
                    torch.ones_like(amax)).float()
    q = (t * s).clamp(-448, 448).to(torch.float8_e4m3fn)
    return q, (torch.tensor(1.0) / s).float()


bad = 0
print("gpu", torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
for (m, k, n) in [(64, 1024, 64), (128, 4096, 128)]:
    for name in ["uniform", "dct", "rows"]:
        a, b = fam(name, m, k, n)
        outs = {}
        for how in ("row", "tensor"):
            qa, da = quant(a, 1 if how == "row" else None)
            qb, db = quant(b, 0 if how == "row" else None)
            A = qa.cuda()
            Bc = qb.cuda().t().contiguous().t()  # k x n, column-major
            sa = da.reshape(m, 1).cuda() if how == "row" else da.reshape(()).cuda()
            sb = db.reshape(1, n).cuda() if how == "row" else db.reshape(()).cuda()
            try:
                c = torch._scaled_mm(A, Bc, scale_a=sa, scale_b=sb, out_dtype=torch.float32,
                                     use_fast_accum=False)
                outs[how] = c.cpu().numpy()
            except RuntimeError as e:  # rowwise scaling with bf16 outputs only: said, judged so
                print(f"  f32 output refused ({str(e)[:80]}): bf16 output", flush=True)
                c = torch._scaled_mm(A, Bc, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                                     use_fast_accum=False)
                outs[how] = c.cpu()
        differs = not torch.equal(torch.as_tensor(outs["row"]), torch.as_tensor(outs["tensor"]))
        for how, want in (("row", "PASS"), ("tensor", "FAIL" if differs else "PASS")):
            j = gpuval.judge("gemm.cublas", [a, b], outs[how], mode="fp8row")
            note = (j.case.get("envelope") or {}).get("note") or ""
            ok = j.verdict == want and (want == "PASS" or "per-tensor" in note)
            bad += not ok
            print(f"{name:<8} {m}x{k}x{n:<5} scaled per {how:<7} want {want} got {j.verdict} "
                  f"{'ok ' if ok else 'BAD'} {j.reason[:110]} | {note[:150]}", flush=True)
sys.exit(1 if bad else 0)
