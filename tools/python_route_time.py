"""The Python route's time against `gpuval check`'s on the same cases (issue 38, item 5).

    GPUVAL_LIB=build/include/libgpuval.so python3 tools/python_route_time.py \
        --gpuval build/gpuval --op vadd --dtype f32 --framework torch

Times `gpuval check --op OP --dtype D --size S --dist X` over the op's default sizes (its
shapes, as `gpuval check --op OP` runs them) and every dist it takes, then
gpuval.check(fn, ...) over the same cases with the framework's own call (a + b for vadd),
and prints both wall times, their ratio, and where the Python route's time went (each
phase summed over the cases: making the inputs, moving them to the device, the call and the
outputs back, the inputs-unmodified check, the judge). Each side runs twice and the second
run counts, so that both find the oracle cache warm (entries over GPUVAL_CACHE_MAX, as
vadd's 10^8-element references, are recomputed by both every time). Needs the
framework and a CUDA device. --quick warms up on the first size and dist only. Exit 0 when the Python route is within --limit (2x) of check's
time, 1 when not, 2 on a usage error.
"""
import argparse
import os
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "src"))
import gpuval  # noqa: E402
from gpuval._core import _names  # noqa: E402  (op_info's lists are strings: "1e3,1e5")

CALLS = {"vadd": lambda a, b: a + b, "reduce.sum": lambda x: x.sum(),
         "gemm.cublas": lambda a, b: a @ b}


def time_check(gpuval_cmd, op, dtype, sizes, dists):
    """check's wall time over the cases: one run per dist (check takes one --dist), so check
    pays a process start per dist that the Python route does not: the ratio errs against
    Python."""
    wall, tail = 0.0, []
    for d in dists:
        cmd = gpuval_cmd + ["check", "-q", "--op", op, "--dtype", dtype, "--size", ",".join(sizes),
               "--dist", d]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall += time.perf_counter() - t0
        if p.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-2000:]}")
        tail += p.stdout.strip().splitlines()[-1:] if p.stdout.strip() else []
    return wall, tail


def time_python(op, dtype, sizes, dists, framework):
    t0 = time.perf_counter()
    js = gpuval.check(CALLS[op], op=op, dtype=dtype, sizes=sizes, dists=dists,
                      framework=framework)
    wall = time.perf_counter() - t0
    phases = {}
    for j in js:
        for k, v in j.times.items():
            phases[k] = phases.get(k, 0.0) + v
    return wall, js, phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpuval", default="build/gpuval",
                    help="the command that runs gpuval (quoted words: 'build/gpu-bundle/run -- "
                         "build/gpuval')")
    ap.add_argument("--op", default="vadd", choices=sorted(CALLS))
    ap.add_argument("--dtype", default="f32")
    ap.add_argument("--framework", default="torch", choices=("torch", "cupy"))
    ap.add_argument("--sizes", help="comma list (default: the op's shapes, check's default)")
    ap.add_argument("--dists", help="comma list (default: every dist the op takes)")
    ap.add_argument("--limit", type=float, default=2.0)
    ap.add_argument("--quick", action="store_true",
                    help="warm up on the first size and dist only (half the time)")
    a = ap.parse_args()
    info = gpuval.op_info(a.op)
    sizes = _names(a.sizes or info["shapes"])
    dists = _names(a.dists or info["dists"])
    # the first run warms the caches (oracle, CUDA contexts, allocators); --quick warms them
    # on the first size and dist only (the oracle entries of the others are then computed in
    # the timed runs: check's first, so Python's finds them where they are cached, which errs
    # in Python's favour by at most their oracle time, the "oracle" share of its phases)
    for warm in (True, False):
        run_sizes = sizes[:1] if warm and a.quick else sizes
        run_dists = dists[:1] if warm and a.quick else dists
        tc, tail = time_check(shlex.split(a.gpuval), a.op, a.dtype, run_sizes, run_dists)
        tp, js, phases = time_python(a.op, a.dtype, run_sizes, run_dists, a.framework)
        print(f"{'warm-up' if warm else 'timed'}: {len(js)} cases, check {tc:.2f} s, "
              f"python {tp:.2f} s", flush=True)
    verdicts = {}
    for j in js:
        verdicts[j.verdict] = verdicts.get(j.verdict, 0) + 1
    print(f"{a.op} {a.dtype}, {len(js)} cases ({len(sizes)} sizes x {len(dists)} dists), "
          f"sizes {','.join(sizes)}")
    print(f"gpuval check:          {tc:8.2f} s   " + "; ".join(tail))
    print(f"gpuval.check({a.framework}): {tp:8.2f} s   verdicts "
          + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    print("  python phases (s):   " + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()))
    print(f"ratio python / check: {tp / tc:.2f} (limit {a.limit})")
    return 0 if tp <= a.limit * tc else 1


if __name__ == "__main__":
    sys.exit(main())
