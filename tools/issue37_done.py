"""Issue 37's "Done when" items on a GPU, one summary table (docs/error-models.md, "The envelope
of the claimed arithmetic"):

    GPUVAL_LIB=build/include/libgpuval.so PYTHONPATH=python/src \
        python3 tools/issue37_done.py --gpuval "build/gpuval" --out OUT [--budget 100]

  products  the families of tools/userdata_families.py (eight kinds), f32 at K = 4096 and
            8192, f64 at K = 4096, 64 x K x 64:
              correct: torch A @ B with TF32 off (cuBLAS through torch), and gpuval's own
                gemm.regblock, gemm.tiled and gemm.cublas on the same arrays (`check --inputs`)
                must PASS on every family;
              impostors, judged by `gv_judge` as the label claims, must FAIL wherever their
                outputs differ from torch's correct ones, naming the arithmetic they match:
                torch with allow_tf32 as f32 ("tf32"), bf16-rounded operands through TF32
                tensor cores as tf32 ("bf16"), an accumulation rounding every product and
                addition toward zero (emulated on the CPU, tools/userdata_families.py:
                "round-toward-zero"), f64 from operands rounded to 40 bits ("40-bit");
              where the outputs are the correct ones bit for bit (small integers) the row must
                say the arithmetics agree.
  sums      `gpuval judge` of reduce.sum, n = 10^6 and 2 x 10^7, uniform [0, 1) f32: a
            sequential sum (one GPU thread, __fadd_rn) PASSes, the same rounding toward zero
            (__fadd_rz) FAILs; on gpuval's generated inputs (`gpuval inputs`, judged as the
            generated case) and on given ones (NumPy's, judged as the user's data).
  time      `gpuval judge` wall time and judge_ms with the envelope and without
            (GPUVAL_ENVELOPE=0): a 256 x 4096 x 256 f32 product (DCT, torch's output) and the
            given sum of 2 x 10^7.

Where torch, CUDA or CuPy is missing the part says "skipped" and why. --cpu stands NumPy's
f64-then-rounded product in for torch's (a smoke test on a machine without a GPU). Parts
past --budget seconds are skipped and counted. Exit 0 when every part that ran showed its
item."""
import argparse
import concurrent.futures as cf
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "python", "src"))
import gpuval  # noqa: E402
import userdata_families as uf  # noqa: E402

T0 = time.time()
ROWS = []  # (part, case, source, expect, verdict, detail, ok)
SKIPPED = []


def row(part, case, source, expect, verdict, detail, ok):
    ROWS.append((part, case, source, expect, verdict, detail, ok))
    print(f"{part:<8} {case:<24} {source:<22} want {expect:<5} got {verdict:<5} "
          f"{'ok ' if ok else 'BAD'} {detail}", flush=True)


def left(budget):
    return budget - (time.time() - T0)


def short(reason, n=150):
    return (reason or "").replace("\n", " ")[:n]


def judged(op, ins, out, **kw):
    try:
        return gpuval.judge(op, ins, out, **kw)
    except Exception as e:  # a usage error is a finding too
        class J:
            verdict = "ERROR"
            reason = f"{type(e).__name__}: {e}"
        return J()


def env_note(j):
    """the envelope's note on a judgement ("tf32 and f32 agree exactly on these inputs")"""
    try:
        return (j.case.get("envelope") or {}).get("note") or ""
    except Exception:
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuval", default="build/gpuval")
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=100.0)
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    G = shlex.split(args.gpuval)
    out = args.out
    os.makedirs(out, exist_ok=True)
    data = tempfile.mkdtemp(prefix="issue37_")  # the arrays (2 x 10^7 sums) stay out of OUT

    torch = cupy = None
    if not args.cpu:
        try:
            import torch as _t
            if _t.cuda.is_available():
                torch = _t
                torch.backends.cuda.matmul.allow_tf32 = False
                torch.backends.cudnn.allow_tf32 = False
                print("gpu", torch.cuda.get_device_name(0), "torch", torch.__version__, flush=True)
        except Exception as e:
            print("torch: skipped:", e)
        try:
            import cupy as _c
            _c.zeros(1)
            cupy = _c
        except Exception as e:
            print("cupy: skipped:", e)

    m = n = args.m
    configs = [("f32", 4096), ("f64", 4096), ("f32", 8192)]
    sum_ns = (1000000, 20000000)
    tm, tk = 256, 4096
    if args.quick:  # a smoke test of the script itself: small sizes
        configs, sum_ns, tm, tk = [("f32", 1024), ("f64", 1024)], (100000,), 64, 1024
    sets = {}
    for dt, k in configs:
        npdt = np.float32 if dt == "f32" else np.float64
        for f in uf.FAMILIES:
            a, b = uf.family(f, m, k, n)
            a, b = a.astype(npdt), b.astype(npdt)
            tag = f"{f}_{dt}_{k}"
            pa, pb = os.path.join(data, tag + "_A.npy"), os.path.join(data, tag + "_B.npy")
            np.save(pa, a)
            np.save(pb, b)
            sets[tag] = (f, dt, k, a, b, pa, pb)

    def product(a, b, dtype_out, tf32=False):
        if args.cpu or torch is None:
            x = a.astype(np.float64) @ b.astype(np.float64)
            return x.astype(dtype_out)
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        torch.backends.cuda.matmul.allow_tf32 = tf32
        c = (ta @ tb).cpu().numpy()
        torch.backends.cuda.matmul.allow_tf32 = False
        return c

    # sums: one GPU thread in order, rounding to nearest and toward zero
    def seqsums(x):
        if cupy is None:
            rn = np.add.accumulate(x)[-1:]  # NumPy's accumulate is sequential
            return rn.astype(np.float32), None
        src = r'''extern "C" __global__ void seq(const float *x, long long n, float *o) {
            float s = 0.0f, t = 0.0f;
            for (long long i = 0; i < n; i++) { s = __fadd_rn(s, x[i]); t = __fadd_rz(t, x[i]); }
            o[0] = s; o[1] = t; }'''
        k = cupy.RawKernel(src, "seq")
        dx = cupy.asarray(x)
        o = cupy.zeros(2, dtype=cupy.float32)
        k((1,), (1,), (dx, np.int64(x.size), o))
        h = cupy.asnumpy(o)
        return h[0:1].copy(), h[1:2].copy()

    sum_files = {}
    for nn in sum_ns:
        for kind in ("generated", "given"):
            if left(args.budget) < 12:
                SKIPPED.append(f"sum {nn} {kind}")
                continue
            d = os.path.join(data, f"sum_{kind}_{nn}")
            if kind == "generated":
                subprocess.run(G + ["inputs", "--op", "reduce.sum", "--dtype", "f32", "--size", str(nn),
                                    "--dist", "uniform01", "--seed", "37", "--out", d],
                               capture_output=True, text=True, timeout=30)
                xs = [p for p in os.listdir(d) if p.endswith(".npy")]
                xpath = os.path.join(d, xs[0])
                x = np.load(xpath)
                base = ["--case", os.path.join(d, "case.json")]
            else:
                os.makedirs(d, exist_ok=True)
                x = np.random.default_rng(37).random(nn, dtype=np.float32)
                xpath = os.path.join(d, "x.npy")
                np.save(xpath, x)
                base = ["--op", "reduce.sum", "--inputs", xpath]
            rn, rzs = seqsums(x.ravel())
            for name, s, want in (("sequential RN", rn, "PASS"), ("sequential RZ", rzs, "FAIL")):
                if s is None:
                    SKIPPED.append(f"sum {nn} {kind} {name}: no CuPy")
                    continue
                op_ = os.path.join(d, name[-2:] + ".npy")
                np.save(op_, s)
                js = os.path.join(d, name[-2:] + ".json")
                p = subprocess.run(G + ["judge"] + base + ["--outputs", op_, "--json", js],
                                   capture_output=True, text=True, timeout=60)
                try:
                    c = json.load(open(js))["cases"][0]
                    v, reason = c["verdict"], c.get("reason", "") or ""
                except Exception:
                    v, reason = f"rc{p.returncode}", short(p.stdout + p.stderr)
                row("sum", f"n={nn} {kind}", name, want, v, short(reason), v == want)
                if kind == "given" and name.endswith("RN"):
                    sum_files[nn] = (base, op_)

    # judge time with and without the envelope
    def timed(label, argv):
        for env_on in ("1", "0"):
            if left(args.budget) < 6:
                SKIPPED.append(f"time {label} envelope={env_on}")
                continue
            js = os.path.join(out, f"time_{label}_{env_on}.json")
            env = dict(os.environ, GPUVAL_ENVELOPE=env_on)
            t = time.time()
            p = subprocess.run(G + ["judge"] + argv + ["--json", js], capture_output=True, text=True,
                               timeout=60, env=env)
            wall = time.time() - t
            try:
                c = json.load(open(js))["cases"][0]
                v, jm = c["verdict"], c.get("judge_ms")
                em = (c.get("envelope") or {}).get("ms")
            except Exception:
                v, jm, em = f"rc{p.returncode}", None, None
            print(f"time     {label:<24} envelope {'on ' if env_on == '1' else 'off'} wall {wall:6.2f} s "
                  f"judge_ms {jm} envelope_ms {em} {v}", flush=True)
            ROWS.append(("time", label, f"envelope {'on' if env_on == '1' else 'off'}", "-", v,
                         f"wall {wall:.2f} s, judge_ms {jm}, envelope ms {em}", v == "PASS"))

    a, b = uf.family("dct", tm, tk, tm)
    a, b = a.astype(np.float32), b.astype(np.float32)
    c = product(a, b, np.float32)
    for nm, v in (("A", a), ("B", b), ("C", c)):
        np.save(os.path.join(data, f"t256_{nm}.npy"), v)
    pfx = os.path.join(data, "t256_")
    timed(f"{tm}x{tk}x{tm} f32 dct", ["--op", "gemm.cublas", "--inputs", f"{pfx}A.npy,{pfx}B.npy",
                                   "--outputs", f"{pfx}C.npy"])
    if 20000000 in sum_files:
        base, op_ = sum_files[20000000]
        timed("sum 2e7 given", base + ["--outputs", op_])

    # the CPU-emulated RZ products, on every core while the GPU parts run
    pool = cf.ProcessPoolExecutor(max_workers=min(12, os.cpu_count() or 2))
    rz = {tag: pool.submit(uf.rz_chain, s[3], s[4]) for tag, s in sets.items()}

    # gpuval's own kernels on the same arrays (check --inputs), a few processes at a time
    own_ops = ["gemm.regblock", "gemm.tiled", "gemm.cublas"]
    ex = cf.ThreadPoolExecutor(max_workers=3)

    def check(op, tag):
        f, dt, k, a, b, pa, pb = sets[tag]
        js = os.path.join(out, f"check_{op}_{tag}.json")
        env = dict(os.environ, OMP_NUM_THREADS="4")
        t = max(5, min(30, left(args.budget)))
        try:
            p = subprocess.run(G + ["check", "-q", "--op", op, "--inputs", f"{pa},{pb}", "--json", js],
                               capture_output=True, text=True, timeout=t, env=env)
        except subprocess.TimeoutExpired:
            return op, tag, "TIMEOUT", ""
        try:
            c = json.load(open(js))["cases"][0]
            return op, tag, c.get("verdict", "?"), c.get("reason", "") or ""
        except Exception:
            return op, tag, f"rc{p.returncode}", short(p.stdout + p.stderr)

    own = []
    if torch is not None or args.cpu:
        for tag in sets:
            for op in own_ops:
                if sets[tag][2] == 8192 and op == "gemm.tiled":
                    continue
                own.append(ex.submit(check, op, tag))

    # torch's correct products and the impostors, judged as their labels claim
    correct = {}
    for tag, (f, dt, k, a, b, pa, pb) in sets.items():
        if left(args.budget) < 10:
            SKIPPED.append(f"products {tag}")
            continue
        src = "numpy f64 rounded" if (args.cpu or torch is None) else "torch (TF32 off)"
        c = product(a, b, a.dtype)
        correct[tag] = c
        j = judged("gemm.cublas", [a, b], c)
        row("product", tag, src, "PASS", j.verdict, short(j.reason), j.verdict == "PASS")
        imps = []
        if dt == "f32" and torch is not None:
            ct = product(a, b, a.dtype, tf32=True)
            j = judged("gemm.cublas", [a, b], ct, mode="tf32")
            row("product", tag, "torch TF32 as tf32", "PASS", j.verdict, short(j.reason),
                j.verdict == "PASS")
            imps.append(("tf32 as f32", "native", ct, "tf32"))
            abf = torch.from_numpy(a).bfloat16().float().numpy()
            bbf = torch.from_numpy(b).bfloat16().float().numpy()
            imps.append(("bf16 ops as tf32", "tf32", product(abf, bbf, a.dtype, tf32=True), "bf16"))
        if dt == "f64":
            imps.append(("f64 from 40-bit", "native",
                         product(uf.round_bits(a, 40), uf.round_bits(b, 40), a.dtype), "40-bit"))
        for name, mode, c2, key in imps:
            differs = not np.array_equal(c2, c)
            j = judged("gemm.cublas", [a, b], c2, mode=mode)
            if differs:
                ok = j.verdict == "FAIL" and key in j.reason
                row("impostor", tag, name, "FAIL", j.verdict, short(j.reason), ok)
            else:
                note = env_note(j)
                ok = j.verdict == "PASS" and "agree exactly" in note
                row("impostor", tag, name + " (=)", "PASS", j.verdict, short(note), ok)

    for tag, fut in rz.items():
        if left(args.budget) < 5 or tag not in correct:
            SKIPPED.append(f"rz {tag}")
            continue
        f, dt, k, a, b, pa, pb = sets[tag]
        try:
            c2 = fut.result(timeout=max(1, left(args.budget) - 4))
        except Exception as e:
            SKIPPED.append(f"rz {tag} ({type(e).__name__})")
            continue
        differs = not np.array_equal(c2, correct[tag])
        j = judged("gemm.cublas", [a, b], c2)
        if differs:
            ok = j.verdict == "FAIL" and "round-toward-zero" in j.reason
            row("impostor", tag, "RZ accumulation", "FAIL", j.verdict, short(j.reason), ok)
        else:
            note = env_note(j)
            row("impostor", tag, "RZ accumulation (=)", "PASS", j.verdict, short(note),
                j.verdict == "PASS" and "agree exactly" in note)
    pool.shutdown(wait=False, cancel_futures=True)

    for fut in own:
        try:
            op, tag, v, reason = fut.result(timeout=max(1, left(args.budget) - 2))
        except Exception:
            SKIPPED.append("own kernel (past the budget)")
            continue
        if v == "SKIP":  # no device, or a mode the device lacks: said, not counted
            SKIPPED.append(f"{op} {tag}: SKIP {short(reason, 80)}")
            continue
        row("own", tag, op, "PASS", v, short(reason), v == "PASS")
    ex.shutdown(wait=False, cancel_futures=True)

    # the table
    print()
    print(f"{'part':<8} {'case':<24} {'source':<22} {'want':<5} {'got':<5} ok")
    for p, cs, s, e, v, d, ok in ROWS:
        print(f"{p:<8} {cs:<24} {s:<22} {e:<5} {v:<5} {'ok' if ok else 'BAD'}"
              + (f"  {d}" if p == "time" else ""))
    bad = sum(1 for r in ROWS if not r[6])
    print(f"\n{len(ROWS)} rows, {bad} not as wanted; {len(SKIPPED)} parts skipped; "
          f"{time.time() - T0:.1f} s")
    for s in SKIPPED:
        print("skipped:", s)
    json.dump({"rows": ROWS, "skipped": SKIPPED}, open(os.path.join(out, "issue37.json"), "w"), indent=1)
    os._exit(1 if bad else 0)


if __name__ == "__main__":
    main()
