"""Issue 38's "Done when" items, each shown on a small case by a command whose output says it:

    GPUVAL_LIB=build/include/libgpuval.so python3 tools/issue38_done.py --gpuval build/gpuval

One line per demonstration, "ok" or "NOT SHOWN" with the verdicts behind it:

  exact        torch's, CuPy's (and NumPy's) f64 x.sum() and X.sum(0) on the tiny dist at n = 1,
               2 and 1x1: PASS (a zero error over a zero bound never FAILs)
  sigmoid      exp(x) / (1 + exp(x)) FAILs math.sigmoid on wide with the cause "intermediate
               overflow" (exp overflows; nothing flushes); 1 / (1 + exp(-x)), whose zeros sit
               where the sigmoid is subnormal (unpromised), and torch.sigmoid PASS
  tf32         torch A @ B with TF32 on, judged as tf32 on the special and huge dists: PASS;
               gpuval's own dense.sigmoid in mode tf32 on huge, seeds 0 and 81 (`gpuval check`):
               PASS
  ftz          CuPy's f32 a + b on tiny: FAIL "flushed subnormals" undeclared, PASS with
               allow="ftz"
  takes_inputs every op of `gpuval list --json` (planted ones included) takes outputs
               computed elsewhere
  fft, solve   torch.fft.fft / cupy.fft.fft (cuFFT) on fft.c2c.fwd and torch.linalg.solve on
               solve.gesv, judged: PASS, f32 and f64
  autocast     torch.autocast to bf16 and f16 around A @ B: PASS as a bf16 / f16 output of the
               mode bf16 / f16, FAIL widened and claimed as native f32; the same around
               (A @ B).sum(0), einsum("ij,jk->k") and sigmoid(W @ X + b) (matmul_colsum,
               einsum.colsum, dense.sigmoid in their modes bf16 / f16; f32 or half-type outputs
               as torch returns them), and gpuval's own kernels for them in those modes
               (`gpuval check --mode bf16,f16`) PASS while their planted *.halfcount FAIL

The Python route's time against check's is tools/python_route_time.py (minutes at vadd's
default sizes). A part whose framework or device is missing says "skipped" and why. Exit 0
when every part that ran showed its item, 1 otherwise."""
import argparse
import json
import os
import shlex
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "src"))
import gpuval  # noqa: E402

RESULTS = []


def show(item, ok, detail):
    RESULTS.append(ok)
    print(f"{item:<12} {'ok' if ok else 'NOT SHOWN':<9} {detail}", flush=True)


def skipped(item, why):
    print(f"{item:<12} {'skipped':<9} {why}", flush=True)


def frameworks():
    """{"numpy": np, "torch": torch, "cupy": cupy} for those present with a CUDA device."""
    have = {"numpy": np}
    try:
        import torch
        if torch.cuda.is_available():
            have["torch"] = torch
    except ImportError:
        pass
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            have["cupy"] = cupy
    except Exception:  # noqa: BLE001 (no CuPy, no driver: both mean no CuPy here)
        pass
    return have


def verdicts(js):
    return ", ".join(f"{j.size} {j.verdict}" + (f" ({j.cause})" if j.verdict != "PASS" else "")
                     for j in js)


def exact(fws):
    for name in fws:
        for op, sizes in (("reduce.sum", "1,2"), ("reduce.colsum", "1x1")):
            js = gpuval.check(lambda x: x.sum() if op == "reduce.sum" else x.sum(0), op=op,
                              dtype="f64", sizes=sizes, dists="tiny", framework=name)
            show("exact", all(j.verdict == "PASS" for j in js),
                 f"{name} f64 {op} tiny: {verdicts(js)}")


def sigmoid(fws):
    """exp(x) / (1 + exp(x)) overflows exp to inf / inf = NaN where the sigmoid is 1: FAIL,
    "intermediate overflow". 1 / (1 + exp(-x)) returns 0 only where the sigmoid is subnormal,
    which no math library promises (math.sigmoid's subnormals are unpromised): never named
    "flushed subnormals" (issue 38's complaint), and PASS. torch.sigmoid PASSes."""
    forms = {"exp(x)/(1+exp(x))": lambda xp, x: xp.exp(x) / (1 + xp.exp(x)),
             "1/(1+exp(-x))": lambda xp, x: 1 / (1 + xp.exp(-x))}
    places = [("numpy", np)] + ([("torch", fws["torch"])] if "torch" in fws else [])
    for name, xp in places:
        for dt in ("f32", "f64"):
            got = {}
            for form, fn in forms.items():
                with np.errstate(over="ignore", invalid="ignore"):
                    j = gpuval.check(lambda x: fn(xp, x), op="math.sigmoid", dtype=dt,
                                     sizes="100003", dists="wide", framework=name)[0]
                got[form] = j
            over, under = got["exp(x)/(1+exp(x))"], got["1/(1+exp(-x))"]
            show("sigmoid", over.verdict == "FAIL" and over.cause == "intermediate overflow"
                 and under.verdict == "PASS",
                 f"{name} {dt} wide: exp(x)/(1+exp(x)) {over.verdict} ({over.cause}); "
                 f"1/(1+exp(-x)) {under.verdict} ({under.cause})")
        if name == "torch":
            for dt in ("f32", "f64"):
                j = gpuval.check(xp.sigmoid, op="math.sigmoid", dtype=dt, sizes="100003",
                                 dists="wide", framework="torch")[0]
                show("sigmoid", j.verdict == "PASS", f"torch.sigmoid {dt} wide: {j.verdict}")
    if "torch" not in fws:
        skipped("sigmoid", "torch with a CUDA device: not here (NumPy's shown above)")


def tf32(fws, gpuval_cmd):
    if "torch" in fws:
        torch = fws["torch"]
        m = torch.backends.cuda.matmul
        saved = m.allow_tf32
        m.allow_tf32 = True
        try:
            for dist in ("special", "huge"):
                js = gpuval.check(lambda a, b: a @ b, op="gemm.cublas", dtype="f32",
                                  sizes="64x64x64,100x37x129", dists=dist, modes="tf32",
                                  framework="torch")
                show("tf32", all(j.verdict == "PASS" for j in js),
                     f"torch A@B TF32 on, as tf32, {dist}: {verdicts(js)}")
        finally:
            m.allow_tf32 = saved
    else:
        skipped("tf32", "torch with a CUDA device: not here")
    if gpuval_cmd and ("torch" in fws or "cupy" in fws):  # a CUDA device is there
        for seed in (0, 81):
            cmd = gpuval_cmd + ["check", "-q", "--op", "dense.sigmoid", "--dtype", "f32", "--mode",
                                "tf32", "--dist", "huge", "--seed", str(seed), "--size",
                                "64x256x64,256x512x128"]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            last = (p.stdout.strip().splitlines() or [""])[-1]
            show("tf32", p.returncode == 0,
                 f"gpuval check dense.sigmoid tf32 huge seed {seed}: exit {p.returncode} {last}")
    else:
        skipped("tf32", "gpuval check of dense.sigmoid in tf32 needs a CUDA build and device")


def ftz(fws):
    if "cupy" not in fws:
        skipped("ftz", "CuPy with a CUDA device: not here")
        return
    bare = gpuval.check(lambda a, b: a + b, op="vadd", dtype="f32", sizes="4099", dists="tiny",
                        framework="cupy")[0]
    declared = gpuval.check(lambda a, b: a + b, op="vadd", dtype="f32", sizes="4099",
                            dists="tiny", framework="cupy", allow="ftz")[0]
    show("ftz", bare.verdict == "FAIL" and bare.cause == "flushed subnormals"
         and declared.verdict == "PASS",
         f"cupy a+b f32 tiny: undeclared {bare.verdict} ({bare.cause}), allow='ftz' "
         f"{declared.verdict}")


def takes_inputs(gpuval_cmd):
    if not gpuval_cmd:
        skipped("takes_inputs", "no --gpuval to list the registry")
        return
    p = subprocess.run(gpuval_cmd + ["list", "--all", "--json", "-"], capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        show("takes_inputs", False, f"gpuval list --json: exit {p.returncode} {p.stderr[-200:]}")
        return
    doc = json.loads(p.stdout)
    ops = [o["name"] for o in doc.get("ops", [])]
    refused = [op for op in ops if not gpuval.op_info(op).get("takes_inputs")]
    show("takes_inputs", bool(ops) and not refused,
         f"{len(ops)} ops, {len(ops) - len(refused)} take inputs"
         + (f"; not: {', '.join(refused)}" if refused else ""))


def fft_solve(fws):
    calls = []
    if "torch" in fws:
        torch = fws["torch"]

        def solve(a, b):
            x, info = torch.linalg.solve_ex(a, b)
            return x, info.to(a.dtype).reshape(1)
        calls += [("torch", "fft.c2c.fwd", lambda x: torch.fft.fft(x, dim=-1)),
                  ("torch", "solve.gesv", solve)]
    if "cupy" in fws:
        cupy = fws["cupy"]
        calls += [("cupy", "fft.c2c.fwd", cupy.fft.fft),
                  ("cupy", "solve.gesv",
                   lambda a, b: (cupy.linalg.solve(a, b), cupy.zeros(1, dtype=a.dtype)))]
    if not calls:
        skipped("fft, solve", "torch or CuPy with a CUDA device: not here")
        return
    for name, op, fn in calls:
        for dt in ("f32", "f64"):
            sizes = {"fft.c2c.fwd": "64x3,17x2", "solve.gesv": "37x1,100x1"}[op]
            js = gpuval.check(fn, op=op, dtype=dt, sizes=sizes, framework=name)
            show("fft, solve", bool(js) and all(j.verdict == "PASS" for j in js),
                 f"{name} {op} {dt}: {len(js)} cases, "
                 f"{sum(j.verdict == 'PASS' for j in js)} PASS"
                 + "".join(f"; {j.row}" for j in js if j.verdict != "PASS"))


def autocast(fws):
    if "torch" not in fws:
        skipped("autocast", "torch with a CUDA device: not here")
        return
    torch = fws["torch"]
    m = torch.backends.cuda.matmul
    saved = (m.allow_tf32, m.allow_fp16_reduced_precision_reduction,
             m.allow_bf16_reduced_precision_reduction)
    m.allow_tf32 = False
    m.allow_fp16_reduced_precision_reduction = False
    m.allow_bf16_reduced_precision_reduction = False
    try:
        for half, tdt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            ok = True
            fails = 0
            n = 0
            for dist in gpuval.op_info("gemm.cublas")["dists"]:
                ci = gpuval.inputs("gemm.cublas", "f32", "100x37x129", dist, 0, half)
                a, b = ci.to("torch")
                with torch.autocast("cuda", dtype=tdt):
                    c = a @ b
                right = gpuval.judge("gemm.cublas", ci, [c])
                ok &= c.dtype == tdt and right.verdict == "PASS"
                native = gpuval.inputs("gemm.cublas", "f32", "100x37x129", dist, 0, "native")
                wrong = gpuval.judge("gemm.cublas", native, [c.float()])
                fails += wrong.verdict == "FAIL"
                n += 1
                if right.verdict != "PASS":
                    print(f"    {dist}: {right.row}")
            show("autocast", ok and fails > 0,
                 f"torch autocast {half} A@B, {n} dists: right label {half}>{half} "
                 f"{'all PASS' if ok else 'NOT all PASS'}; as native f32 {fails} FAIL")
        inside = {"matmul_colsum": ("64x48x32,300x257x129", lambda a, b: (a @ b).sum(0)),
                  "einsum.colsum": ("64x48x32,300x257x129",
                                    lambda a, b: torch.einsum("ij,jk->k", a, b)),
                  "dense.sigmoid": ("1x300x7,33x70x17",
                                    lambda w, x, b: torch.sigmoid(w @ x + b[:, None]))}
        for half, tdt in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            for op, (sizes, fn) in inside.items():
                n = passed = fails = 0
                outs = set()
                for size in sizes.split(","):
                    for dist in gpuval.op_info(op)["dists"]:
                        ci = gpuval.inputs(op, "f32", size, dist, 0, half)
                        with torch.autocast("cuda", dtype=tdt):
                            c = fn(*ci.to("torch"))
                        outs.add(str(c.dtype).split(".")[-1])
                        right = gpuval.judge(op, ci, [c])
                        n += 1
                        passed += right.verdict == "PASS"
                        if right.verdict != "PASS":
                            print(f"    {op} {half} {size} {dist}: {right.row}")
                        native = gpuval.inputs(op, "f32", size, dist, 0, "native")
                        if all(np.array_equal(x, y, equal_nan=True)
                               for x, y in zip(native.arrays, ci.arrays)):
                            wrong = gpuval.judge(op, native, [c.float()])
                            fails += wrong.verdict == "FAIL"
                show("autocast", passed == n and fails > 0,
                     f"torch autocast {half} {op} ({'/'.join(sorted(outs))} out), {n} cases: "
                     f"right label {half} {passed} PASS; as native f32 {fails} FAIL")
    finally:
        (m.allow_tf32, m.allow_fp16_reduced_precision_reduction,
         m.allow_bf16_reduced_precision_reduction) = saved


def own_half_modes(gpuval_cmd, fws):
    """gpuval's own kernels of the three ops in the modes bf16 and f16 (test sizes, every dist
    and canary): PASS; their planted *.halfcount variants: FAIL."""
    if not gpuval_cmd or not ("torch" in fws or "cupy" in fws):
        skipped("autocast", "gpuval check in the modes bf16, f16 needs a CUDA build and device")
        return
    ops = "matmul_colsum,einsum.colsum,dense.sigmoid"
    for what, extra, want in (("kernels", ["--op", ops], 0),
                              ("planted", ["--planted", "--op", "*.halfcount"], 1)):
        cmd = gpuval_cmd + ["check", "-q", "--dtype", "f32", "--mode", "bf16,f16",
                            "--test-sizes"] + extra
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        last = (p.stdout.strip().splitlines() or [""])[-1]
        show("autocast", p.returncode == want,
             f"gpuval check {what} bf16,f16: exit {p.returncode} (want {want}) {last}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpuval", default="build/gpuval",
                    help="the command that runs gpuval (quoted words; '' for none)")
    a = ap.parse_args()
    gpuval_cmd = shlex.split(a.gpuval) if a.gpuval else []
    fws = frameworks()
    print(f"frameworks: {', '.join(fws)}; libgpuval {gpuval.lib_path()}")
    exact(fws)
    sigmoid(fws)
    tf32(fws, gpuval_cmd)
    ftz(fws)
    takes_inputs(gpuval_cmd)
    fft_solve(fws)
    autocast(fws)
    own_half_modes(gpuval_cmd, fws)
    shown = sum(RESULTS)
    print(f"issue 38 done-when: {shown} of {len(RESULTS)} shown")
    return 0 if shown == len(RESULTS) else 1


if __name__ == "__main__":
    sys.exit(main())
