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

--kb times the KernelBench Level-1 problem kinds gpuval judges (docs/kernel-eval.md), one op
for each kind that has a torch reference here (KB_OPS, with the problems' numbers), and
--one-process runs each side once for all the ops (one gate process, one allclose process):
the per-op time is then the problem's own, the interpreter's and torch's start-up paid once a
side, as a harness that judges many problems pays it. The gate's per-op time still includes
starting that problem's child process (isolation is per problem). --budget-s stops starting
ops once a side has spent that long (the rows measured are printed; the rest are named);
--kb-part K/N runs the K-th of N parts of those kinds (every N-th from the K-th), so that a
run over every kind can be split over device slots shorter than the whole (the gate pays 4 to
6 s a kind on an H100, mostly to start the problem's child process: docs/kernel-eval.md; 51
kinds in 3 parts of 17); --max-shapes N runs each op at the last N of its test shapes
only (its largest; say so where its numbers are quoted).

Precision: the gate's child asks torch for f32 before the candidate runs (TF32 off, as an f32
label needs: gpuval/_precision.py); the allclose side keeps torch's defaults, as KernelBench's
harness does (cuDNN may use TF32 there, in the candidate and the reference alike).
"""
import argparse
import json
import os
import secrets
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
        "norm.rms.eps5": lambda x: F.rms_norm(x, (x.shape[-1],), eps=1e-5),
        "norm.l2": lambda x: x / torch.norm(x, p=2, dim=-1, keepdim=True),
        "norm.l1mean": lambda x: x / torch.mean(torch.abs(x), dim=-1, keepdim=True),
        "norm.fro": lambda x: x / torch.norm(x, p="fro"),
        "reduce.mean": lambda x: torch.mean(x, dim=-1),
        "loss.mse": lambda p, t: F.mse_loss(p, t),
        "loss.smooth_l1": lambda p, t: F.smooth_l1_loss(p, t),
        "norm.batch": lambda x: F.batch_norm(x, None, None, training=True, eps=1e-5),
        "act.gelu": lambda x: F.gelu(x),
        "act.silu": lambda x: F.silu(x),
        "gemm.cublas": lambda a, b: a @ b,
        "gemm.batched": lambda a, b: torch.bmm(a, b),
        "act.relu": lambda x: F.relu(x),
        "act.leaky_relu": lambda x: F.leaky_relu(x),
        "act.tanh": lambda x: torch.tanh(x),
        "act.selu": lambda x: F.selu(x),
        "act.hardsigmoid": lambda x: F.hardsigmoid(x),
        "act.softplus": lambda x: F.softplus(x),
        "act.softsign": lambda x: F.softsign(x),
        "act.elu": lambda x: F.elu(x),
        "act.hardtanh": lambda x: F.hardtanh(x),
        "act.gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "math.sigmoid": lambda x: torch.sigmoid(x),
        "reduce.argmin": lambda x: torch.argmin(x, dim=-1).to(x.dtype),
        "reduce.max": lambda x: torch.amax(x, dim=-1),
        "reduce.min": lambda x: torch.amin(x, dim=-1),
        "conv.2d.valid": lambda x, w: F.conv2d(x, w),
        "conv.2d.pointwise": lambda x, w: F.conv2d(x, w),
        "conv.1d.valid": lambda x, w: F.conv1d(x, w),
        "conv.3d.valid": lambda x, w: F.conv3d(x, w),
        "conv.2d.transposed": lambda x, w: F.conv_transpose2d(x, w),
        "conv.1d.transposed": lambda x, w: F.conv_transpose1d(x, w),
        "conv.3d.transposed": lambda x, w: F.conv_transpose3d(x, w),
        "conv.2d.k11s4": lambda x, w, b: F.conv2d(x, w, b, stride=4, padding=2),
        "conv.2d.depthwise": lambda x, w: F.conv2d(x, w, groups=x.shape[1]),
        "conv.2d.depthwise.k3x1": lambda x, w: F.conv2d(x, w, groups=x.shape[1]),
        "conv.1d.dilated": lambda x, w: F.conv1d(x, w, stride=3, dilation=4),
        "conv.2d.strided": lambda x, w: F.conv2d(x, w, stride=2, padding=1),
        "conv.2d.dilated": lambda x, w: F.conv2d(x, w, padding=2, dilation=2),
        "conv.2d.grouped": lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=4),
        # pooling: gpuval's rows, planes or volumes, each as one channel of a batch
        "pool.max1d.k8s1p4d3": lambda x: F.max_pool1d(x[:, None], 8, 1, 4, 3)[:, 0],
        "pool.max2d.k4s1p1": lambda x: F.max_pool2d(x[:, None], 4, 1, 1)[:, 0],
        "pool.max3d.k3s2p1d3": lambda x: F.max_pool3d(x[:, None], 3, 2, 1, 3)[:, 0],
        "pool.avg1d.k8s1p4": lambda x: F.avg_pool1d(x[:, None], 8, 1, 4)[:, 0],
        "pool.avg3d.k3s2p1": lambda x: F.avg_pool3d(x[:, None], 3, 2, 1)[:, 0],
        # the batch losses; cross-entropy's targets travel as floats (integers, exact)
        "loss.xent.mean": lambda x, t: F.cross_entropy(x, t.long()),
        "loss.hinge": lambda p, t: torch.mean(torch.clamp(1 - p * t, min=0)),
        "loss.triplet": lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=1.0),
    }
    if op not in table:
        raise KeyError(op)
    return table[op]


def _candidate(op):
    """The candidate of op as kernel_eval loads it: this file and a function name."""
    return f"{os.path.abspath(__file__)}:cand_{op.replace('.', '_')}"


# KernelBench Level 1's problem kinds gpuval judges (docs/kernel-eval.md's table) with a torch
# reference here: op -> the problems it judges. The same function of the same tensors, so the
# candidate is the problem's torch call (an adapter's reshape or permute left out).
KB_OPS = {
    "gemm.cublas": "1-4, 6-11, 18", "gemm.batched": "3", "act.relu": "19",
    "act.leaky_relu": "20", "math.sigmoid": "21", "act.tanh": "22", "softmax.rows": "23",
    "softmax.log": "24", "act.silu": "25", "act.gelu": "26", "act.selu": "27",
    "act.hardsigmoid": "28", "act.softplus": "29", "act.softsign": "30", "act.elu": "31",
    "act.hardtanh": "32", "norm.batch": "33", "norm.layer": "34, 35, 40", "norm.rms.eps5": "36",
    "norm.fro": "37", "norm.l1mean": "38", "norm.l2": "39",
    "reduce.max": "49",
    "conv.2d.k11s4": "50", "reduce.argmax": "51", "reduce.argmin": "52", "reduce.min": "53",
    "conv.3d.valid": "54", "conv.2d.valid": "55, 63", "conv.2d.transposed": "57, 71",
    "conv.3d.transposed": "61, 70", "conv.1d.transposed": "64", "conv.1d.valid": "67",
    "conv.1d.dilated": "76", "conv.2d.depthwise": "82, 84",
    "conv.2d.depthwise.k3x1": "83", "conv.2d.pointwise": "87",
    "act.gelu_tanh": "88", "scan.cumsum": "89, 91, 92", "scan.cumprod": "90",
    "reduce.mean": "48", "loss.mse": "94", "loss.smooth_l1": "96",
    "pool.max1d.k8s1p4d3": "41", "pool.max2d.k4s1p1": "42", "pool.max3d.k3s2p1d3": "43",
    "pool.avg1d.k8s1p4": "44", "pool.avg3d.k3s2p1": "46",
    "loss.xent.mean": "95", "loss.triplet": "99", "loss.hinge": "100",
}
_REFS = ("softmax.rows", "softmax.log", "scan.cumsum", "scan.cumprod", "reduce.argmax",
         "norm.layer", "norm.rms", "norm.batch", "act.gelu", "act.silu", "gemm.cublas",
         "gemm.batched", "act.relu", "act.leaky_relu", "act.tanh", "act.selu", "act.hardsigmoid",
         "act.softplus", "act.softsign", "act.elu", "act.hardtanh", "act.gelu_tanh",
         "math.sigmoid", "reduce.argmin", "reduce.max", "reduce.min", "conv.2d.valid",
         "conv.2d.pointwise", "conv.1d.valid", "conv.3d.valid", "conv.2d.transposed",
         "conv.1d.transposed", "conv.3d.transposed", "conv.2d.k11s4", "conv.2d.depthwise",
         "conv.1d.dilated", "conv.2d.depthwise.k3x1", "conv.2d.strided", "conv.2d.dilated",
         "conv.2d.grouped", "norm.rms.eps5", "reduce.mean", "loss.mse", "loss.smooth_l1",
         "norm.l2", "norm.l1mean", "norm.fro", "pool.max1d.k8s1p4d3", "pool.max2d.k4s1p1",
         "pool.max3d.k3s2p1d3", "pool.avg1d.k8s1p4", "pool.avg3d.k3s2p1", "loss.xent.mean",
         "loss.hinge", "loss.triplet")
KB_OPS_LIST = list(KB_OPS)
for _op in _REFS:
    globals()[f"cand_{_op.replace('.', '_')}"] = (lambda o: lambda *a: _ref(o)(*a))(_op)


def seed_source(seeds):
    """The gate's seed source: the seeds both sides share, then fresh ones from the operating
    system. The gate asks for more than len(seeds) where an op has cases of one output (the
    pooled bias rule's hidden seeds, up to 64: a conv whose test shapes reach one output, a
    sum); a source that ran out there raised StopIteration out of the gate."""
    it = iter(seeds)

    def draw():
        for s in it:
            return s
        return secrets.randbits(62)
    return draw


def child_gate(op, dtype, seeds, sizes, dists, framework="torch", candidate=None):
    from gpuval import kernel_eval
    t0 = time.perf_counter()
    doc = kernel_eval.evaluate(op, candidate or _candidate(op), dtype=dtype, seeds=len(seeds),
                               sizes=sizes,
                               dists=dists, framework=framework, seed_source=seed_source(seeds))
    inside = time.perf_counter() - t0
    # cases: those both sides run; the pooled rule's hidden ones counted apart (the gate's
    # own work, which allclose's side has no counterpart of)
    return {"inside_s": inside, "cases": doc["passed"] + doc["failed"], "passed": doc["passed"],
            "failed": doc["failed"], "error": doc.get("error"),
            "pool_cases": doc.get("pool_passed", 0) + doc.get("pool_failed", 0),
            "pool_failed": doc.get("pool_failed", 0),
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


def child_all(kind, ops, a, seeds):
    """One process, every op in turn: (rows, ops not started for the budget)."""
    rows, left, t_start = [], [], time.perf_counter()
    for o in ops:
        if a.budget_s and time.perf_counter() - t_start > a.budget_s:
            left.append(o)
            continue
        try:
            sizes, dists = _sizes(o, a), _dists(o, a)
            r = (child_gate(o, a.dtype, seeds, sizes, dists) if kind == "gate"
                 else child_allclose(o, a.dtype, seeds, sizes, dists, a.tol))
            if dists != a.dists:
                r["dists"] = dists  # said in the row: not the asked dists
        except Exception as e:  # one op's failure is its row's, not the run's
            r = {"error": [f"{type(e).__name__}: {e}"]}
        r["op"] = o
        rows.append(r)
    return {"rows": rows, "left": left}


def _sizes(op, a):
    """The sizes an op runs at: --sizes, else its test shapes (the last --max-shapes of them,
    where that is given: an op lists its test shapes from the smallest up)."""
    if a.sizes or not a.max_shapes:
        return a.sizes
    from gpuval import _core
    return ",".join(_core._names(_core.op_info(op).get("test_shapes"))[-a.max_shapes:])


def _dists(op, a):
    """The dists an op runs with: those of --dists it takes, else its default (math.sigmoid
    takes wide only: --dists uniform11 made its row an error); None (every dist) without
    --dists."""
    if not a.dists:
        return None
    from gpuval import _core
    info = _core.op_info(op)
    takes = [d for d in a.dists.split(",") if d in info.get("dists", [])]
    return ",".join(takes) if takes else info.get("default_dist")


def _part(spec, n):
    """--kb-part K/N -> (K - 1, N): every N-th kind from the K-th (parts of near-equal size,
    each a mix of the table's families); (0, 1) without it; None when malformed."""
    if not spec:
        return (0, 1)
    try:
        k, parts = (int(v) for v in spec.split("/"))
    except ValueError:
        return None
    return (k - 1, parts) if 1 <= k <= parts else None


def run_child(kind, op, a):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", kind, "--op", op,
           "--dtype", a.dtype, "--seed-list", ",".join(str(s) for s in a.seed_list),
           "--tol", str(a.tol)]
    if a.budget_s:
        cmd += ["--budget-s", str(a.budget_s)]
    if a.max_shapes:
        cmd += ["--max-shapes", str(a.max_shapes)]
    if a.sizes:
        cmd += ["--sizes", a.sizes]
    if a.dists:
        cmd += ["--dists", a.dists]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        return {"wall_s": time.perf_counter() - t0, "error": [f"timed out after {a.timeout} s"]}
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return {"wall_s": wall, "error": (p.stderr or p.stdout).strip().splitlines()[-1:]}
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["wall_s"] = wall
    return r


def selftest():
    """The host side without a GPU or torch (the cpu suite's kernel_eval_time test): the seed
    source outlives the shared seeds (the pooled bias rule's hidden ones: the gate asked for
    more and got StopIteration, conv.3d.valid and conv.2d.pointwise under --max-shapes 2), the
    gate's side counts the hidden cases apart from those both sides run; --dists an op does not
    take fall back to its default (math.sigmoid: wide only); every KernelBench kind
    has a torch reference here and is in the catalogue, and --kb-part's three parts hold each
    kind once. Exit 0, 1 on a failed check, 77 without numpy or libgpuval."""
    try:
        import numpy  # noqa: F401
        from gpuval import _core
        _core.op_info("reduce.sum")
    except Exception as e:  # numpy or the library not here: skipped, as meson reads 77
        print(f"kernel_eval_time --selftest: skipped ({type(e).__name__}: {e})")
        return 77
    bad = []
    draw = seed_source([5, 7])
    got = [draw() for _ in range(64)]
    if got[:2] != [5, 7] or len(set(got)) != 64:
        bad.append(f"seed source: {got[:4]}...: the shared seeds first, then 62 fresh ones")
    sums = os.path.join(HERE, "..", "python", "tests", "exploits", "sums.py")
    r = child_gate("reduce.sum", "f32", [5, 7], "100000", "uniform11", framework="numpy",
                   candidate=f"{os.path.abspath(sums)}:pairwise")
    if r.get("error") or (r["cases"], r["passed"], r["pool_cases"]) != (2, 2, 62):
        bad.append(f"gate side on one-output cases: {r}")
    ns = argparse.Namespace(dists="uniform11,nosuch")
    if (_dists("math.sigmoid", ns), _dists("act.relu", ns)) != ("wide", "uniform11"):
        bad.append(f"--dists an op does not take: {_dists('math.sigmoid', ns)}, "
                   f"{_dists('act.relu', ns)} (wanted its default, wide; the taken uniform11)")
    for op in KB_OPS:
        if op not in _REFS:
            bad.append(f"{op}: a KernelBench kind without a torch reference here")
        try:
            _core.op_info(op)
        except Exception as e:
            bad.append(f"{op}: not in the catalogue ({e})")
    parts = [KB_OPS_LIST[k::3] for k in range(3)]
    if sorted(sum(parts, [])) != sorted(KB_OPS) or max(map(len, parts)) * 3 > len(KB_OPS) + 2:
        bad.append(f"--kb-part 1/3..3/3: {[len(p) for p in parts]} of {len(KB_OPS)}")
    for b in bad:
        print(f"kernel_eval_time --selftest: {b}", file=sys.stderr)
    print(f"kernel_eval_time --selftest: {'FAILED' if bad else 'ok'} ({len(KB_OPS)} kinds, "
          f"{r.get('pool_cases')} hidden-seed cases on reduce.sum)")
    return 1 if bad else 0


def main(argv=None):
    if argv is None and sys.argv[1:] == ["--selftest"]:
        return selftest()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--op", help="ops, comma separated (see _ref's table)")
    ap.add_argument("--kb", action="store_true",
                    help="the KernelBench Level-1 kinds gpuval judges (KB_OPS), after --op's")
    ap.add_argument("--kb-part", help="with --kb: K/N, the K-th of N parts of its kinds (each "
                    "part a run of its own, for a device slot shorter than the whole)")
    ap.add_argument("--one-process", action="store_true",
                    help="one process a side for all the ops (per-op times inside it)")
    ap.add_argument("--budget-s", type=float, default=0,
                    help="with --one-process: start no op once a side has run this long")
    ap.add_argument("--dtype", default="f32", choices=["f32", "f64"])
    ap.add_argument("--seeds", type=int, default=3, help="seeds (>= 2), the same for both sides")
    ap.add_argument("--sizes", help="sizes (default: every test shape of the op)")
    ap.add_argument("--max-shapes", type=int, default=0,
                    help="without --sizes: each op at the last (largest) N of its test shapes")
    ap.add_argument("--dists", help="dists (default: every dist the op takes)")
    ap.add_argument("--tol", type=float, default=1e-4, help="allclose's atol = rtol")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json", help="write the rows as JSON here")
    ap.add_argument("--child", choices=["gate", "allclose"], help=argparse.SUPPRESS)
    ap.add_argument("--seed-list", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        seeds = [int(s) for s in a.seed_list.split(",")]
        if "," in a.op:
            # start-up paid before the clock, as a harness pays it once: torch and a CUDA
            # context (the allclose side's), gpuval and its library (both)
            from gpuval import _core, kernel_eval  # noqa: F401
            if a.child == "allclose":
                import torch
                torch.zeros(1, device="cuda")
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            r = child_all(a.child, [o for o in a.op.split(",") if o], a, seeds)
            r["inside_s"] = time.perf_counter() - t0
            print(json.dumps(r))
            return 0
        sizes, dists = _sizes(a.op, a), _dists(a.op, a)
        r = (child_gate(a.op, a.dtype, seeds, sizes, dists) if a.child == "gate"
             else child_allclose(a.op, a.dtype, seeds, sizes, dists, a.tol))
        print(json.dumps(r))
        return 0
    if a.seeds < 2:
        print("kernel_eval_time: --seeds: at least 2", file=sys.stderr)
        return 2
    ops = [o for o in (a.op or "").split(",") if o]
    if a.kb:
        kb = [o for o in KB_OPS if o not in ops]
        part = _part(a.kb_part, len(kb))
        if part is None:
            print("kernel_eval_time: --kb-part K/N with 1 <= K <= N", file=sys.stderr)
            return 2
        ops += kb[part[0]::part[1]]
    if not ops:
        print("kernel_eval_time: --op or --kb", file=sys.stderr)
        return 2
    for o in ops:
        try:
            _ref(o)
        except KeyError:
            print(f"kernel_eval_time: no torch reference for {o}", file=sys.stderr)
            return 2
        except ImportError as e:
            print(f"kernel_eval_time: {e}", file=sys.stderr)
            return 2
    a.seed_list = [secrets.randbits(62) for _ in range(a.seeds)]
    rows = []
    if a.one_process:
        return one_process(ops, a)
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


def one_process(ops, a):
    """Each side in one process over every op; a row an op with both sides' times inside."""
    sides = {}
    for kind in ("gate", "allclose"):
        # allclose runs the ops the gate got to within its budget, and no others
        todo = ops if kind == "gate" else [row["op"] for row in sides["gate"]["rows"]]
        r = run_child(kind, ",".join(todo + [""]), a)  # the trailing comma: a list, even of one
        if r.get("error"):
            print(f"kernel_eval_time: {kind}: {r['error']}", file=sys.stderr)
            return 1
        sides[kind] = r
    by = {k: {row["op"]: row for row in v["rows"]} for k, v in sides.items()}
    print(f"{'op':<20} {'KB':<12} {'cases':>5} {'gate s':>7} {'allclose s':>10} {'extra s':>8}"
          "  gate PASS  allclose pass")
    out = []
    for o in ops:
        g, c = by["gate"].get(o), by["allclose"].get(o)
        if not g or not c:
            continue
        out.append({"op": o, "kb": KB_OPS.get(o, ""), "gate": g, "allclose": c})
        if g.get("error") or c.get("error"):
            print(f"{o:<20} error: gate {g.get('error')} allclose {c.get('error')}")
            continue
        hidden = (f"  (+{g['pool_cases']} hidden-seed cases, {g['pool_failed']} FAIL)"
                  if g.get("pool_cases") else "")
        hidden += f"  (dists {g['dists']})" if g.get("dists") else ""
        print(f"{o:<20} {KB_OPS.get(o, ''):<12} {g['cases']:>5} {g['inside_s']:>7.2f} "
              f"{c['inside_s']:>10.2f} {g['inside_s'] - c['inside_s']:>8.2f}  "
              f"{g['passed']:>4}/{g['cases']:<4}  {c['passed']:>4}/{c['cases']}{hidden}")
        for r in g.get("reasons") or []:
            print(f"    gate: {r}")
    for kind in ("gate", "allclose"):
        print(f"{kind} process: {sides[kind]['wall_s']:.2f} s wall; not started (budget): "
              f"{', '.join(sides[kind]['left']) or 'none'}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"seeds": a.seed_list, "dtype": a.dtype, "rows": out,
                       "walls": {k: v["wall_s"] for k, v in sides.items()},
                       "left": {k: v["left"] for k, v in sides.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
