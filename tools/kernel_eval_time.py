"""The generated-kernel gate's wall time per problem against a plain torch.allclose check of
the same problem (issue 40: "the gate's wall time per problem against a plain allclose").

    GPUVAL_LIB=build/include/libgpuval.so PYTHONPATH=python/src \
        python3 tools/kernel_eval_time.py --op softmax.rows,scan.cumsum --seeds 3 --json t.json

For each op, both sides run the same candidate (a correct torch implementation of the op,
defined below: cand_<op>) on the same inputs (gpuval's, for the same seeds, sizes and dists),
each in a fresh python3 process, as a harness runs a problem:
  - gate:     gpuval.kernel_eval.evaluate (the candidate in its child process, the judge here);
  - allclose: the inputs made the same way, the candidate and the torch reference called in
    one process, torch.allclose(out, ref, atol=rtol=TOL) (KernelBench's check; TOL 1e-4 for
    f32, as its fp32 default; --tol to change).
Reported per op: each side's process wall time (python and torch start-up included) and its
time inside the process for the cases alone, the cases' count, and both sides' verdicts (the
gate's PASS count; allclose's pass count). Needs torch and a CUDA device. Exit 0, or 2 on a
usage error.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The torch reference of each op, on the op's input tensors (gpuval's in_dims order); also the
# correct candidate both sides run. An index output as the input's dtype (gpuval judges it so).
def _ref(op):
    import torch
    import torch.nn.functional as F
    table = {
        "softmax.rows": lambda x: torch.softmax(x, dim=-1),
        "softmax.log": lambda x: torch.log_softmax(x, dim=-1),
        "scan.cumsum": lambda x: torch.cumsum(x, dim=-1),
        "scan.cumprod": lambda x: torch.cumprod(x, dim=-1),
        "reduce.argmax": lambda x: torch.argmax(x, dim=-1).to(x.dtype),
        "norm.layer": lambda x: F.layer_norm(x, (x.shape[-1],), eps=1e-5),
        "norm.rms": lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6),
        "norm.batch": lambda x: F.batch_norm(x, None, None, training=True, eps=1e-5),
        "act.gelu": lambda x: F.gelu(x),
        "act.silu": lambda x: F.silu(x),
        "gemm.cublas": lambda a, b: a @ b,
    }
    if op not in table:
        raise KeyError(op)
    return table[op]


def _candidate(op):
    """The candidate of op as kernel_eval loads it: this file and a function name."""
    return f"{os.path.abspath(__file__)}:cand_{op.replace('.', '_')}"


for _op in ("softmax.rows", "softmax.log", "scan.cumsum", "scan.cumprod", "reduce.argmax",
            "norm.layer", "norm.rms", "norm.batch", "act.gelu", "act.silu", "gemm.cublas"):
    globals()[f"cand_{_op.replace('.', '_')}"] = (lambda o: lambda *a: _ref(o)(*a))(_op)


def child_gate(op, dtype, seeds, sizes, dists):
    from gpuval import kernel_eval
    it = iter(seeds)
    t0 = time.perf_counter()
    doc = kernel_eval.evaluate(op, _candidate(op), dtype=dtype, seeds=len(seeds), sizes=sizes,
                               dists=dists, framework="torch", seed_source=lambda: next(it))
    inside = time.perf_counter() - t0
    return {"inside_s": inside, "cases": len(doc["cases"]), "passed": doc["passed"],
            "failed": doc["failed"], "error": doc.get("error"),
            "reasons": sorted({c["reason"] for c in doc["cases"] if c["verdict"] != "PASS"})[:5]}


def child_allclose(op, dtype, seeds, sizes, dists, tol):
    import numpy as np
    import torch
    from gpuval import _core
    fn = _ref(op)
    t0 = time.perf_counter()
    n = passed = 0
    for seed in seeds:
        for case in _core.cases(op, dtype, sizes, dists, None, seed):
            ci = _core.inputs(case.op, case.dtype, case.size, case.dist, case.seed, case.mode)
            args = [torch.from_numpy(np.array(a, copy=True)).cuda() for a in ci.arrays]
            out = fn(*args)  # the candidate (the same function as the gate's)
            ref = fn(*args)  # the reference module on the same GPU, as KernelBench runs it
            ok = torch.allclose(out, ref, atol=tol, rtol=tol)
            n += 1
            passed += bool(ok)
    torch.cuda.synchronize()
    return {"inside_s": time.perf_counter() - t0, "cases": n, "passed": passed}


def run_child(kind, op, a):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--op", op,
           "--dtype", a.dtype, "--seed-list", ",".join(str(s) for s in a.seed_list),
           "--tol", str(a.tol)]
    if a.sizes:
        cmd += ["--sizes", a.sizes]
    if a.dists:
        cmd += ["--dists", a.dists]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"wall_s": wall, "error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["wall_s"] = wall
    return r


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--op", required=True, help="ops, comma separated (see _ref's table)")
    ap.add_argument("--dtype", default="f32", choices=["f32", "f64"])
    ap.add_argument("--seeds", type=int, default=3, help="seeds (>= 2), the same for both sides")
    ap.add_argument("--sizes", help="sizes (default: every test shape of the op)")
    ap.add_argument("--dists", help="dists (default: every dist the op takes)")
    ap.add_argument("--tol", type=float, default=1e-4, help="allclose's atol = rtol")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json", help="write the rows as JSON here")
    ap.add_argument("--child", choices=["gate", "allclose"], help=argparse.SUPPRESS)
    ap.add_argument("--seed-list", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        seeds = [int(s) for s in a.seed_list.split(",")]
        r = (child_gate(a.op, a.dtype, seeds, a.sizes, a.dists) if a.child == "gate"
             else child_allclose(a.op, a.dtype, seeds, a.sizes, a.dists, a.tol))
        print(json.dumps(r))
        return 0
    if a.seeds < 2:
        print("kernel_eval_time: --seeds: at least 2", file=sys.stderr)
        return 2
    ops = [o for o in a.op.split(",") if o]
    for o in ops:
        try:
            _ref(o)
        except KeyError:
            print(f"kernel_eval_time: no torch reference for {o}", file=sys.stderr)
            return 2
        except ImportError as e:
            print(f"kernel_eval_time: {e}", file=sys.stderr)
            return 2
    import secrets
    a.seed_list = [secrets.randbits(62) for _ in range(a.seeds)]
    rows = []
    print(f"{'op':<16} {'cases':>5} {'gate s':>8} {'(inside)':>9} {'allclose s':>10} "
          f"{'(inside)':>9} {'ratio':>6}  gate PASS  allclose pass")
    for o in ops:
        g = run_child("gate", o, a)
        c = run_child("allclose", o, a)
        row = {"op": o, "dtype": a.dtype, "seeds": a.seed_list, "gate": g, "allclose": c}
        rows.append(row)
        if g.get("error") or c.get("error"):
            print(f"{o:<16} error: gate {g.get('error')} allclose {c.get('error')}")
            continue
        print(f"{o:<16} {g['cases']:>5} {g['wall_s']:>8.2f} {g['inside_s']:>9.2f} "
              f"{c['wall_s']:>10.2f} {c['inside_s']:>9.2f} {g['wall_s'] / c['wall_s']:>6.1f}  "
              f"{g['passed']:>4}/{g['cases']:<4}  {c['passed']:>4}/{c['cases']}")
        for r in g.get("reasons") or []:
            print(f"    gate: {r}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
