#!/usr/bin/env python3
"""ci/side_by_side.py: gpuval's kernels and CuPy on the same ops, shapes and device, in one run.

For each row of ROWS, `gpuval bench --hot --no-cpu` times the op (its kernel-only median, from
the bench JSON, schema gpuval-bench/1) and then, in this process, CuPy times what a CuPy user
would write for the same op and shape. The two timers alternate row by row, so that a drift of
clocks or temperature during the run touches both alike. One table comes out: gpuval's median,
CuPy's median, the ratio CuPy / gpuval (above 1: gpuval is faster) and gpuval's fraction of the
ceiling its own run measured (a device-to-device copy or a pedantic cuBLAS gemm). The same table
goes to OUTDIR/side-by-side.md, the figures to OUTDIR/side-by-side.json, each bench run's JSON
and log to OUTDIR/bench/.

CuPy's timer follows gpuval's method: a warm-up, then CUDA events around each sample; each
sample is queued behind a holding kernel (as gpuval's and nvbench's: it spins on a flag in
mapped host memory until every launch of the sample is queued), so that the events time the
GPU's work and not the host's launch rate. A sample is `reps` calls back to back when one call
takes less than 0.5 ms. Where the launches of a sample do not fit behind the hold (thousands
of launches fill CUDA's launch queue, as the 10000-step roll loop does) the hold times out and
the row is timed without it; the note column says so. The wall column is a Python user's view:
perf_counter around one call and a synchronize.

Without CuPy the table has gpuval's figures only, and says so (exit 0); without a CUDA device
the script exits 77; a gpuval sanity failure, a CuPy error or a failed CuPy check exits 1.
`--selftest` checks the table, the parsing and the orchestration without a GPU (tests/meson.build
runs it in the cpu suite)."""

import argparse
import fnmatch
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # nothing written beside the source, which may be read-only
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import side_by_side_cupy as sbc  # noqa: E402
from side_by_side_cupy import (Hold, NumpyAsCupy, cupy_uuid, percentile,  # noqa: E402
                               run_cupy_variant, time_cupy, within)

# ---- the rows ------------------------------------------------------------------------------


class Variant:
    """One CuPy formulation of a row's op: what its user would write."""

    def __init__(self, label, build, math_mode=None):
        self.label = label  # what the table prints in its cupy column's note
        self.build = build  # name of the builder in BUILDERS
        self.math_mode = math_mode  # cuBLAS math mode on CuPy's handle: None, default, pedantic


class Row:
    """One op and shape, timed by gpuval bench and by each CuPy variant."""

    def __init__(self, op, dtype, size, shape, ceiling, variants, long_cupy=False):
        self.op = op
        self.dtype = dtype
        self.size = size  # gpuval's --size, and the table's shape label
        self.shape = shape  # the same, as integers in gpuval's dims order
        self.ceiling = ceiling  # 'copy', 'gemm' or None (compute-bound: no ceiling applies)
        self.variants = variants
        self.long_cupy = long_cupy  # CuPy's side takes seconds a call: only with --long

    @property
    def key(self):
        return "%s/%s/%s" % (self.op, self.dtype, self.size)


VADD = [Variant("cupy.add(a, b, out=c)", "vadd")]
EINSUM = [Variant("cupy.einsum('ij,jk->k', A, B)", "einsum")]
COLSUM = [Variant("X.sum(axis=0)", "colsum")]
ROLL = [Variant("seed 003: f + 0.1*(4 cupy.roll - 4f), a step", "diffusion")]
GEMM = [Variant("cupy.matmul(A, B, out=C), default math", "gemm", "default")]
GEMM_BOTH = GEMM + [Variant("cupy.matmul(A, B, out=C), pedantic math", "gemm", "pedantic")]
MMCS = [
    Variant("seed 002: matmul(A, B, out=T); T.sum(axis=0), default math", "matmul_colsum",
            "default"),
    Variant("seed 002: matmul(A, B, out=T); T.sum(axis=0), pedantic math", "matmul_colsum",
            "pedantic"),
]
SIN = [Variant("k launches of cupy.sin(y, out=y)", "sin_iter")]

# The table of issue 13, in gpuval's dims order (gpuval list: einsum.colsum and matmul_colsum
# m,k,n with A m x k and B k x n; reduce.colsum m,n; diffusion ny,nx,steps; sin_iter n,k).
ROWS = [
    Row("vadd", "f32", "2^28", (1 << 28,), "copy", VADD),
    Row("vadd", "f64", "2^27", (1 << 27,), "copy", VADD),
    Row("einsum.colsum", "f32", "10000x5000x7000", (10000, 5000, 7000), "copy", EINSUM),
    Row("einsum.colsum", "f64", "10000x5000x7000", (10000, 5000, 7000), "copy", EINSUM),
    Row("reduce.colsum", "f32", "10000x7000", (10000, 7000), "copy", COLSUM),
    Row("diffusion.periodic", "f32", "2000x2000x100", (2000, 2000, 100), "copy", ROLL),
    Row("diffusion.periodic", "f32", "2000x2000x10000", (2000, 2000, 10000), "copy", ROLL,
        long_cupy=True),
    Row("gemm.tiled", "f32", "4096x4096x4096", (4096, 4096, 4096), "gemm", GEMM),
    Row("gemm.regblock", "f32", "4096x4096x4096", (4096, 4096, 4096), "gemm", GEMM),
    Row("gemm.cublas", "f32", "4096x4096x4096", (4096, 4096, 4096), "gemm", GEMM_BOTH),
    Row("gemm.cublas", "f64", "4096x4096x4096", (4096, 4096, 4096), "gemm", GEMM_BOTH),
    Row("matmul_colsum", "f64", "10000x5000x7000", (10000, 5000, 7000), "gemm", MMCS),
    Row("sin_iter", "f32", "1e6x1000", (1000000, 1000), None, SIN),
]


# The ceilings that gpuval bench measures in each run (a 1 GiB device-to-device copy, bytes read
# + written; cuBLAS gemm at 8192^3, pedantic math), measured again by CuPy: a ceiling set too low
# would flatter every "% of ceiling" above.
CEILINGS = [
    Row("ceiling.copy", "f32", "2^28", (1 << 28,), "copy",
        [Variant("cupy.copyto(dst, src), 1 GiB", "copy")]),
    Row("ceiling.gemm", "f32", "8192x8192x8192", (8192, 8192, 8192), "gemm",
        [Variant("cupy.matmul(A, B, out=C), pedantic math", "gemm", "pedantic")]),
    Row("ceiling.gemm", "f64", "8192x8192x8192", (8192, 8192, 8192), "gemm",
        [Variant("cupy.matmul(A, B, out=C), pedantic math", "gemm", "pedantic")]),
]


def ceiling_rate(row, shape, ms):
    """GB/s of a copy (read + written) or GFLOP/s of a gemm, from a time per call."""
    if ms is None or ms <= 0:
        return None
    if row.ceiling == "copy":
        return 2.0 * shape[0] * (4 if row.dtype == "f32" else 8) / (ms * 1e6)
    m, k, n = shape
    return 2.0 * m * k * n / (ms * 1e6)


def bench_args(row, json_path):
    """gpuval's command line for a row: kernel-only hot scope, no CPU timing, native mode
    (for gemm.cublas: pedantic math)."""
    return ["bench", "--hot", "--no-cpu", "--op", row.op, "--dtype", row.dtype, "--mode",
            "native", "--size", row.size, "--json", json_path]


# ---- gpuval's side: the bench JSON ---------------------------------------------------------


def num(v):
    """A JSON number as float; gpuval's "nan"/"inf" strings and anything else as None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return None if math.isnan(v) or math.isinf(v) else float(v)


def parse_bench(doc, row):
    """What the table needs from a gpuval-bench/1 document of one row's run."""
    out = {"verdict": None, "reason": "", "median_ms": None, "ci_ms": None, "n": None,
           "frac_ceiling": None, "device": None, "uuid": None, "problem": None}
    if not isinstance(doc, dict) or doc.get("schema") != "gpuval-bench/1":
        out["problem"] = "not a gpuval-bench/1 document"
        return out
    dev = doc.get("device")
    if isinstance(dev, dict):
        out["device"], out["uuid"] = dev.get("name"), dev.get("uuid")
    cases = doc.get("cases") or []
    case = next((c for c in cases if c.get("op") == row.op and c.get("dtype") == row.dtype), None)
    if case is None:
        out["problem"] = "no %s %s case in the run" % (row.op, row.dtype)
        return out
    if list(case.get("shape") or []) != list(row.shape):
        out["problem"] = "gpuval ran shape %s, the row says %s" % (case.get("shape"),
                                                                   list(row.shape))
    out["verdict"], out["reason"] = case.get("verdict"), case.get("reason", "")
    hot = (case.get("timings") or {}).get("kernel_hot") or {}
    out["median_ms"] = num(hot.get("median_ms"))
    ci = hot.get("ci_ms")
    if isinstance(ci, list) and len(ci) == 2 and None not in map(num, ci):
        out["ci_ms"] = [num(ci[0]), num(ci[1])]
    out["n"] = hot.get("n")
    ach = (case.get("achieved") or {}).get("kernel_hot") or {}
    if row.ceiling:
        out["frac_ceiling"] = num(ach.get("frac_%s_ceiling" % row.ceiling))
    ceil = doc.get("ceilings") or {}
    out["ceilings"] = {"copy": num((ceil.get("copy") or {}).get("gbps"))}
    for dt in ("f32", "f64"):
        out["ceilings"]["gemm/" + dt] = num(((ceil.get("gemm") or {}).get(dt) or {}).get("gflops"))
    return out


def gpuval_cmd(gpuval, prefix):
    return list(prefix) + [gpuval]


def run_gpuval_row(row, gpuval, prefix, benchdir, env):
    slug = "%s-%s-%s" % (row.op, row.dtype, row.size.replace("^", "p"))
    jpath = os.path.join(benchdir, slug + ".json")
    lpath = os.path.join(benchdir, slug + ".log")
    if os.path.exists(jpath):
        os.remove(jpath)
    t0 = time.time()
    with open(lpath, "w") as log:
        try:
            rc = subprocess.call(gpuval_cmd(gpuval, prefix) + bench_args(row, jpath), stdout=log,
                                 stderr=subprocess.STDOUT, env=env, timeout=900)
        except subprocess.TimeoutExpired:
            rc = 124
    res = {"rc": rc, "seconds": time.time() - t0, "json": jpath, "log": lpath}
    try:
        with open(jpath) as f:
            res.update(parse_bench(json.load(f), row))
    except (OSError, ValueError) as e:
        res.update(parse_bench(None, row))
        res["problem"] = "no bench JSON (exit %d): %s; see %s" % (rc, e, lpath)
    return res


# ---- the table -----------------------------------------------------------------------------

COLUMNS = [("op", "<"), ("dtype", "<"), ("shape", "<"), ("gpuval ms", ">"), ("cupy ms", ">"),
           ("cupy/gpuval", ">"), ("gpuval % ceiling", ">"), ("cupy p10..p90 ms", ">"),
           ("cupy wall ms", ">"), ("cupy call", "<"), ("check", "<")]


def fmt_ms(x):
    if x is None:
        return "-"
    return "%.4f" % x if x < 0.1 else ("%.3f" % x if x < 100 else "%.1f" % x)


def table_rows(results):
    """One line per (row, CuPy variant); gpuval's figures repeat on each of a row's lines."""
    lines = []
    for r in results:
        row, g = r["row"], r["gpuval"]
        gms = g.get("median_ms")
        frac = g.get("frac_ceiling")
        ceil = "%.0f %% %s" % (100 * frac, row.ceiling) if frac is not None else "-"
        gcheck = "gpuval %s" % (g.get("verdict") or "no result")
        if g.get("verdict") not in (None, "PASS"):
            gcheck += ": " + (g.get("reason") or "")
        if g.get("problem"):
            gcheck += "; " + g["problem"]
        variants = r["cupy"] or [None]
        for c in variants:
            cms = c.get("median_ms") if c else None
            ratio = "%.2f" % (cms / gms) if cms is not None and gms else "-"
            spread = ("%s..%s" % (fmt_ms(c["p10_ms"]), fmt_ms(c["p90_ms"]))
                      if cms is not None else "-")
            if c is None:
                call, check = r.get("cupy_why", "-"), gcheck
            else:
                call = c["variant"]
                if c.get("error"):
                    check = gcheck + "; cupy ERROR " + c["error"]
                elif not c.get("check_ok"):
                    check = gcheck + "; cupy CHECK FAILED: " + c.get("check", "")
                else:
                    check = gcheck + "; cupy ok"
                if c.get("note"):
                    check += "; " + c["note"]
            lines.append([row.op, row.dtype, row.size, fmt_ms(gms), fmt_ms(cms), ratio, ceil,
                          spread, fmt_ms(c.get("wall_median_ms") if c else None), call, check])
    return lines


# Without CuPy: op, dtype, shape, gpuval ms, gpuval % ceiling, check.
GPUVAL_ONLY = [0, 1, 2, 3, 6, 10]


def pick(cells, cols):
    return [cells[i] for i in cols]


def render_text(lines, cols=None, columns=COLUMNS):
    """Columns that line up, units in the headers; the last two (free text) left ragged."""
    cols = cols or list(range(len(columns)))
    heads = pick(columns, cols)
    rows = [pick([h for h, _ in columns], cols)] + [pick(ln, cols) for ln in lines]
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    out = []
    for cells in rows:
        parts = [cell if i >= len(cols) - 2 else
                 (cell.ljust(widths[i]) if heads[i][1] == "<" else cell.rjust(widths[i]))
                 for i, cell in enumerate(cells)]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out)


def render_md(lines, header, cols=None, columns=COLUMNS):
    cols = cols or list(range(len(columns)))

    def esc(s):
        return s.replace("|", "\\|")

    heads = pick(columns, cols)
    out = list(header) + [""]
    out.append("| " + " | ".join(h for h, _ in heads) + " |")
    out.append("|" + "|".join("---:" if a == ">" else "---" for _, a in heads) + "|")
    for ln in lines:
        out.append("| " + " | ".join(esc(c) for c in pick(ln, cols)) + " |")
    return "\n".join(out) + "\n"


CEIL_COLUMNS = [("ceiling", "<"), ("gpuval", ">"), ("gpuval runs", ">"), ("cupy", ">"),
                ("cupy/gpuval", ">"), ("cupy call", "<"), ("check", "<")]


def fmt_rate(row, x):
    if x is None:
        return "-"
    return "%.0f GB/s" % x if row.ceiling == "copy" else "%.1f TFLOP/s" % (x / 1e3)


def ceiling_lines(results, ceil_results):
    """gpuval's ceilings (the median over this table's bench runs) against CuPy's own."""
    lines = []
    for r in ceil_results:
        row = r["row"]
        key = "copy" if row.ceiling == "copy" else "gemm/" + row.dtype
        vals = [v for v in ((x["gpuval"].get("ceilings") or {}).get(key) for x in results)
                if v is not None]
        g = percentile(vals, 50)
        c = r["cupy"][0] if r["cupy"] else {}
        rate = ceiling_rate(row, c.get("shape") or row.shape, c.get("median_ms"))
        ratio = "%.2f" % (rate / g) if rate is not None and g else "-"
        if c.get("error"):
            check = "cupy ERROR " + c["error"]
        else:
            check = "cupy ok" if c.get("check_ok") else "cupy CHECK FAILED: " + c.get("check", "")
        if c.get("note"):
            check += "; " + c["note"]
        what = "copy" if row.ceiling == "copy" else "gemm %s %s" % (row.dtype, row.size)
        lines.append([what, fmt_rate(row, g), str(len(vals)), fmt_rate(row, rate), ratio,
                      c.get("variant", "-"), check])
    return lines


def row_failed(r):
    """Why a row makes the run exit 1, or None."""
    g = r.get("gpuval")
    if g is None:
        pass
    elif g.get("problem"):
        return g["problem"]
    elif g.get("rc") != 0 or g.get("verdict") != "PASS":
        return "gpuval exit %s, verdict %s %s" % (g.get("rc"), g.get("verdict"), g.get("reason"))
    for c in r["cupy"]:
        if c.get("error"):
            return "cupy: " + c["error"]
        if not c.get("check_ok"):
            return "cupy check: " + c.get("check", "")
    return None


# ---- the run -------------------------------------------------------------------------------


def run_prefix(build):
    """As ci/gpu-run: $GV_RUN_PREFIX (words), else a build packed with its libraries."""
    if os.environ.get("GV_RUN_PREFIX"):
        return shlex.split(os.environ["GV_RUN_PREFIX"])
    bundle = os.path.join(build, "gpu-bundle", "run")
    return [bundle, "--"] if os.access(bundle, os.X_OK) else []


def load_cupy(no_cupy):
    if no_cupy:
        return None, None, "not used (--no-cupy)"
    try:
        import cupy as cp
        import numpy as np
        if cp.cuda.runtime.getDeviceCount() < 1:
            return None, None, "CuPy %s sees no CUDA device" % cp.__version__
        return cp, np, None
    except Exception as e:  # ImportError, or CuPy's CUDA libraries missing
        return None, None, "CuPy is not usable here (%s: %s)" % (type(e).__name__, e)


def main(argv):
    ap = argparse.ArgumentParser(prog="ci/side-by-side", description=__doc__.split("\n\n")[0],
                                 epilog="rows: " + " ".join(r.key for r in ROWS))
    ap.add_argument("outdir", nargs="?", default="side-by-side")
    ap.add_argument("--build", default=os.environ.get("GPUVAL_BUILD", "build"))
    ap.add_argument("--gpuval", help="the gpuval binary (default: BUILD/gpuval)")
    ap.add_argument("--rows", default="*",
                    help="comma-separated globs over op/dtype/size, e.g. 'gemm.*,vadd/f64/*'")
    ap.add_argument("--long", action="store_true",
                    help="time CuPy on the 10000-step diffusion too (about 2.5 s a call)")
    ap.add_argument("--no-cupy", action="store_true", help="gpuval's column only")
    ap.add_argument("--selftest", action="store_true", help="check this script without a GPU")
    ap.add_argument("--numpy-as-cupy", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.selftest:
        return selftest(a.gpuval)
    gpuval = a.gpuval or os.path.join(a.build, "gpuval")
    if not os.access(gpuval, os.X_OK):
        print("ci/side-by-side: no %s: build first (ci/build)" % gpuval, file=sys.stderr)
        return 2
    prefix = [] if a.gpuval else run_prefix(a.build)
    globs = [g for g in a.rows.split(",") if g]
    rows = [r for r in ROWS if any(fnmatch.fnmatchcase(r.key, g) for g in globs)]
    if not rows:
        print("ci/side-by-side: --rows %s selects no row of: %s" %
              (a.rows, " ".join(r.key for r in ROWS)), file=sys.stderr)
        return 2
    info = subprocess.run(gpuval_cmd(gpuval, prefix) + ["info"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    if info.returncode == 77:
        print("ci/side-by-side: no CUDA device (gpuval info exits 77): nothing to time")
        return 77
    if info.returncode != 0:
        print(info.stdout + "ci/side-by-side: gpuval info failed (exit %d)" % info.returncode,
              file=sys.stderr)
        return 3
    benchdir = os.path.join(a.outdir, "bench")
    os.makedirs(benchdir, exist_ok=True)
    cp, np, cupy_why = load_cupy(a.no_cupy)
    stand_in = False
    if a.numpy_as_cupy and cp is None and not a.no_cupy:  # the selftest's CuPy, on numpy
        import numpy as np
        cp, cupy_why, stand_in = NumpyAsCupy(np), None, True
    hold, hold_why = None, None
    cupy_dev = (None, None)
    if cp is not None:
        cupy_dev = cupy_uuid(cp)
        try:
            hold = Hold(cp, np)
        except Exception as e:  # NVRTC missing: timed unheld, and said
            hold_why = "no hold kernel (%s: %s)" % (type(e).__name__, e)
    env = dict(os.environ)
    # The CPU is not timed (--no-cpu): the untimed reference may use every core.
    env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    print("ci/side-by-side: %d rows, gpuval %s%s" % (len(rows), gpuval,
                                                     (" behind " + " ".join(prefix)) if prefix
                                                     else ""))
    print("CuPy: " + ("%s on %s" % (cp.__version__, cupy_dev[0]) if cp is not None
                      else cupy_why + ": gpuval's figures only"))
    sys.stdout.flush()
    results = []
    t_start = time.time()
    for row in rows:
        g = run_gpuval_row(row, gpuval, prefix, benchdir, env)
        r = {"row": row, "gpuval": g, "cupy": []}
        if cp is None:
            r["cupy_why"] = "(no CuPy)"
        elif row.long_cupy and not a.long:
            r["cupy_why"] = "(CuPy with --long only)"
        else:
            for var in row.variants:
                if stand_in:
                    small = Row(row.op, row.dtype, row.size, SMALL[var.build], row.ceiling, [])
                    res = run_cupy_variant(cp, np, hold, small, var,
                                           math_mode=lambda *_: None, target_s=0.02)
                else:
                    res = run_cupy_variant(cp, np, hold, row, var)
                r["cupy"].append(res)
        results.append(r)
        print("  %-44s gpuval %6.1f s (exit %d)%s" % (row.key, g["seconds"], g["rc"],
                                                      "" if not r["cupy"] else ", cupy done"))
        sys.stdout.flush()
    ceil_results = []
    for row in CEILINGS if cp is not None else []:
        var = row.variants[0]
        if stand_in:
            small = Row(row.op, row.dtype, row.size, SMALL[var.build], row.ceiling, [])
            res = run_cupy_variant(cp, np, hold, small, var, math_mode=lambda *_: None,
                                   target_s=0.02)
        else:
            res = run_cupy_variant(cp, np, hold, row, var)
        ceil_results.append({"row": row, "cupy": [res]})
    if hold is not None:
        hold.free()
    gdev = next((r["gpuval"] for r in results if r["gpuval"].get("uuid")), {})
    header = ["# gpuval and CuPy side by side",
              "",
              "- command: `ci/side-by-side %s`" % " ".join(shlex.quote(x) for x in argv),
              "- date: %s, %.0f s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                      time.time() - t_start),
              "- gpuval: %s on %s (uuid %s); kernel-only hot medians of `gpuval bench --hot "
              "--no-cpu --mode native`" % (gpuval, gdev.get("device"), gdev.get("uuid")),
              "- CuPy: %s" % ("%s on %s (uuid %s), CUPY_TF32=%s, CUPY_ACCELERATORS=%s; median of "
                              "CUDA-event samples behind a holding kernel%s" %
                              (cp.__version__, cupy_dev[0], cupy_dev[1],
                               os.environ.get("CUPY_TF32"),
                               os.environ.get("CUPY_ACCELERATORS"),
                               "" if hold_why is None else " (" + hold_why + ")")
                              if cp is not None else cupy_why + ": gpuval's figures only"),
              "- cupy/gpuval above 1: gpuval is faster; gpuval % ceiling: of the copy or "
              "pedantic cuBLAS gemm ceiling measured in the same gpuval run; cupy wall: "
              "perf_counter around one call and a synchronize; each CuPy check's figures are "
              "in side-by-side.json"]
    problems = []
    if cp is not None and gdev.get("uuid") and cupy_dev[1] and gdev["uuid"] != cupy_dev[1]:
        problems.append("gpuval ran on %s, CuPy on %s: not the same device" %
                        (gdev["uuid"], cupy_dev[1]))
    for r in results + ceil_results:
        why = row_failed(r)
        if why:
            problems.append("%s: %s" % (r["row"].key, why))
    lines = table_rows(results)
    print()
    cols = None if cp is not None else GPUVAL_ONLY
    print(render_text(lines, cols))
    md = render_md(lines, header + ["- problems: " + ("; ".join(problems) or "none")], cols)
    if ceil_results:
        clines = ceiling_lines(results, ceil_results)
        print("\nceilings: gpuval's (the median over this table's bench runs) and CuPy's "
              "(above 1: CuPy measured a higher one)")
        print(render_text(clines, columns=CEIL_COLUMNS))
        md += "\n" + render_md(clines, ["## Ceilings", "", "gpuval's: the median over this "
                                        "table's bench runs; cupy/gpuval above 1: CuPy "
                                        "measured a higher one, and gpuval's % of ceiling is "
                                        "flattered by as much"], columns=CEIL_COLUMNS)
    with open(os.path.join(a.outdir, "side-by-side.md"), "w") as f:
        f.write(md)
    with open(os.path.join(a.outdir, "side-by-side.json"), "w") as f:
        json.dump({"header": header, "problems": problems,
                   "rows": [{"op": r["row"].op, "dtype": r["row"].dtype,
                             "size": r["row"].size, "gpuval": r.get("gpuval"),
                             "cupy": r["cupy"]} for r in results + ceil_results]}, f, indent=1)
    if cp is None:
        print("\n%s: gpuval's figures only" % cupy_why)
    for p in problems:
        print("PROBLEM " + p)
    print("\n%d rows, %d with problems; table in %s" %
          (len(results), len(problems), os.path.join(a.outdir, "side-by-side.md")))
    return 1 if problems else 0


# ---- selftest (no GPU, no CuPy) ------------------------------------------------------------

FAKE_GPUVAL = r'''#!/usr/bin/env python3
# A stand-in for gpuval: `info` succeeds, `bench` writes a gpuval-bench/1 document whose
# median is the product of the shape's dims / 1e9 ms; FAKE_FAIL names an op whose sanity fails.
import json, os, sys
args = sys.argv[1:]
if args[:1] == ["info"]:
    print("fake device"); sys.exit(0)
opt = {args[i]: args[i + 1] for i in range(1, len(args) - 1) if args[i].startswith("--")}
size = opt["--size"].replace("2^", "p")
dims = [int(float(d)) if not d.startswith("p") else 2 ** int(d[1:]) for d in size.split("x")]
med = 1.0
for d in dims:
    med *= d
med /= 1e9
fail = os.environ.get("FAKE_FAIL") == opt["--op"]
case = {"op": opt["--op"], "dtype": opt["--dtype"], "shape": dims,
        "verdict": "FAIL" if fail else "PASS", "reason": "planted" if fail else "",
        "timings": {"kernel_hot": {"n": 10, "median_ms": med, "ci_ms": [med, med]}},
        "achieved": {"kernel_hot": {"frac_copy_ceiling": 0.5, "frac_gemm_ceiling": 0.25}}}
ceil = {"copy": {"gbps": 3000.0}, "gemm": {"f32": {"gflops": 50000.0}, "f64": {"ok": False}}}
doc = {"schema": "gpuval-bench/1", "device": {"name": "Fake", "uuid": "0-0"}, "cases": [case],
       "ceilings": ceil}
json.dump(doc, open(opt["--json"], "w"))
sys.exit(1 if fail else 0)
'''


SMALL = {"vadd": (1000,), "copy": (1000,), "einsum": (300, 20, 10), "colsum": (40, 30),
         "diffusion": (16, 16, 5), "gemm": (70, 50, 40), "matmul_colsum": (30, 20, 10),
         "sin_iter": (300, 5)}


class FakeHold:
    """A hold whose first `timeouts` samples time out."""

    def __init__(self, timeouts):
        self.left, self.n = timeouts, 0

    def hold(self, timeout_ns):
        self.n += 1

    def release(self):
        pass

    def timed_out(self):
        self.left -= 1
        return self.left >= 0


def builders_on_numpy(expect):
    try:
        import numpy as np
    except ImportError:
        print("skip the CuPy builders on numpy: numpy is not installed")
        return False
    cp = NumpyAsCupy(np)
    modes = []

    def fake_math(cp_, np_, mode):
        modes.append(mode)
        return lambda: modes.append("restored")

    seen = set()
    for r in ROWS:
        for var in r.variants:
            if (var.build, r.dtype, var.math_mode) in seen:
                continue
            seen.add((var.build, r.dtype, var.math_mode))
            small = Row(r.op, r.dtype, "small", SMALL[var.build], r.ceiling, [var])
            del modes[:]
            res = run_cupy_variant(cp, np, None, small, var, math_mode=fake_math, target_s=0.02)
            expect(not res.get("error") and res.get("check_ok") and res["median_ms"] > 0 and
                   res["n"] >= 10 and modes == ([var.math_mode, "restored"] if var.math_mode
                                                else []),
                   "on numpy: %s %s %s: %s" % (var.label, r.dtype, SMALL[var.build],
                                               res.get("error") or res.get("check")))
    # a planted fault in the formulation: -3 f for -4 f fails the diffusion check
    good = sbc.diffusion_step
    sbc.diffusion_step = lambda cp_, f: f + 0.1 * (cp_.roll(f, 1, 0) + cp_.roll(f, -1, 0) +
                                                   cp_.roll(f, 1, 1) + cp_.roll(f, -1, 1) - 3 * f)
    row = next(r for r in ROWS if r.op == "diffusion.periodic")
    small = Row(row.op, row.dtype, "small", SMALL["diffusion"], row.ceiling, row.variants)
    try:
        res = run_cupy_variant(cp, np, None, small, row.variants[0], target_s=0.02)
    finally:
        sbc.diffusion_step = good
    expect(res.get("check_ok") is False, "on numpy: a planted -3f diffusion fails its check (%s)"
           % res.get("check"))
    res = run_cupy_variant(cp, np, None, Row("vadd", "f32", "x", (10,), None, []),
                           sbc_variant("no_such_builder"), target_s=0.02)
    expect("KeyError" in res.get("error", ""), "a failing builder is the row's error, said")
    # the hold: one that holds, one whose first sample times out
    call = (lambda: sum(range(2000)))
    h = FakeHold(0)
    res = time_cupy(cp, h, call, False, target_s=0.02)
    expect(res["held"] and h.n == res["n"] and res["note"] == "", "held samples, one hold each")
    h = FakeHold(1)
    res = time_cupy(cp, h, call, False, target_s=0.02)
    expect(not res["held"] and h.n == 1 and "outran" in res["note"] and res["n"] >= 10,
           "a timed-out hold: the row retimed unheld, and said (%s)" % res["note"])
    return True


def sbc_variant(build):
    return Variant("planted", build)


def selftest(real_gpuval):
    failures, checks = [], [0]

    def expect(cond, what):
        checks[0] += 1
        print("%s %s" % ("ok  " if cond else "FAIL", what))
        if not cond:
            failures.append(what)

    # statistics: numpy's linear percentiles of 1..10 are 1.9, 5.5, 9.1
    v = list(range(10, 0, -1))
    expect(abs(percentile(v, 10) - 1.9) < 1e-12 and abs(percentile(v, 50) - 5.5) < 1e-12 and
           abs(percentile(v, 90) - 9.1) < 1e-12, "percentiles 10/50/90 of 1..10 = 1.9/5.5/9.1")
    expect(percentile([], 50) is None, "percentile of nothing is None")

    # parsing a bench document: the fields the table reads, NaN as missing
    row = ROWS[0]
    case = {"op": row.op, "dtype": row.dtype, "shape": list(row.shape), "verdict": "PASS",
            "reason": "", "timings": {"kernel_hot": {"n": 12, "median_ms": 2.0,
                                                     "ci_ms": [1.9, 2.1]}},
            "achieved": {"kernel_hot": {"frac_copy_ceiling": 0.8, "frac_gemm_ceiling": "nan"}}}
    doc = {"schema": "gpuval-bench/1", "device": {"name": "X", "uuid": "u"}, "cases": [case]}
    p = parse_bench(doc, row)
    expect(p["median_ms"] == 2.0 and p["ci_ms"] == [1.9, 2.1] and p["frac_ceiling"] == 0.8 and
           p["verdict"] == "PASS" and p["problem"] is None, "parse_bench reads a sane case")
    gemm_row = next(r for r in ROWS if r.op == "gemm.cublas")
    expect(parse_bench(doc, gemm_row)["problem"] is not None,
           "parse_bench: a run without the row's op is a problem")
    case2 = dict(case, shape=[5])
    expect(parse_bench(dict(doc, cases=[case2]), row)["problem"] is not None,
           "parse_bench: a shape other than the row's is a problem")
    case3 = dict(case, timings={"kernel_hot": {"median_ms": "nan"}})
    expect(parse_bench(dict(doc, cases=[case3]), row)["median_ms"] is None, "NaN median: missing")
    expect(parse_bench({"schema": "other"}, row)["problem"] is not None, "foreign schema")

    # the table: ratio, ceiling, missing CuPy
    g = dict(p, rc=0)
    cup = {"variant": "cupy.add", "median_ms": 3.0, "p10_ms": 2.9, "p90_ms": 3.2,
           "wall_median_ms": 3.5, "check_ok": True, "check": "fine", "note": ""}
    lines = table_rows([{"row": row, "gpuval": g, "cupy": [cup]}])
    expect(len(lines) == 1 and lines[0][10] == "gpuval PASS; cupy ok" and
           lines[0][3] == "2.000" and lines[0][4] == "3.000" and lines[0][5] == "1.50" and
           lines[0][6] == "80 % copy" and lines[0][7] == "2.900..3.200",
           "table: 2 ms against 3 ms is 1.50, 80 %% of copy: %s" % (lines[:1],))
    lines = table_rows([{"row": row, "gpuval": g, "cupy": [], "cupy_why": "(no CuPy)"}])
    expect(lines[0][4] == "-" and lines[0][5] == "-" and lines[0][9] == "(no CuPy)",
           "table without CuPy: gpuval only")
    txt = render_text(lines)
    expect(txt.splitlines()[0].startswith("op") and "gpuval ms" in txt and len(txt.splitlines())
           == 2, "text table: header and one line")
    txt = render_text(lines, GPUVAL_ONLY)
    expect("cupy" not in txt.splitlines()[0] and "gpuval % ceiling" in txt and
           "2.000" in txt.splitlines()[1], "gpuval-only table: no CuPy column")
    md = render_md(lines, ["# t"])
    mdl = [ln for ln in md.splitlines() if ln.startswith("|")]
    expect(len(mdl) == 3 and mdl[1].count("|") == len(COLUMNS) + 1,
           "markdown table: header, rule, one row, %d columns" % len(COLUMNS))
    r_ok = {"row": row, "gpuval": g, "cupy": [cup]}
    expect(row_failed(r_ok) is None, "a sane row passes")
    expect(row_failed(dict(r_ok, cupy=[dict(cup, check_ok=False)])) is not None,
           "a failed CuPy check fails the row")
    expect(row_failed(dict(r_ok, gpuval=dict(g, verdict="FAIL"))) is not None,
           "a gpuval sanity failure fails the row")
    expect(row_failed(dict(r_ok, cupy=[dict(cup, error="OutOfMemoryError")])) is not None,
           "a CuPy error fails the row")
    expect(not within(float("nan"), 1.0, "x")[0], "NaN never passes a check")

    # the run end to end, with a stand-in gpuval and without CuPy
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "gpuval")
        with open(fake, "w") as f:
            f.write(FAKE_GPUVAL.replace("/usr/bin/env python3", sys.executable, 1))
        os.chmod(fake, 0o755)
        out = os.path.join(tmp, "out")
        me = os.path.abspath(__file__)
        pr = subprocess.run([sys.executable, me, out, "--gpuval", fake, "--no-cupy"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)
        mdpath = os.path.join(out, "side-by-side.md")
        md = open(mdpath).read() if os.path.exists(mdpath) else ""
        body = [ln for ln in md.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
        expect(pr.returncode == 0, "stand-in run exits 0 (%d)" % pr.returncode)
        expect("gpuval's figures only" in pr.stdout, "the run says it has gpuval's figures only")
        expect(len(body) == len(ROWS), "markdown has one line per row (%d of %d)" %
               (len(body), len(ROWS)))
        # vadd f32 2^28: 268435456 / 1e9 ms
        expect(any(ln.startswith("| vadd | f32 | 2^28 | 0.268 | 50 % copy |") for ln in body),
               "gpuval's median and ceiling reach the gpuval-only table")
        env = dict(os.environ, FAKE_FAIL="gemm.tiled")
        pr = subprocess.run([sys.executable, me, os.path.join(tmp, "out2"), "--gpuval", fake,
                             "--no-cupy", "--rows", "gemm.tiled/*,vadd/*"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True)
        expect(pr.returncode == 1 and "PROBLEM gemm.tiled/f32" in pr.stdout and
               "3 rows, 1 with problems" in pr.stdout,
               "a failing gpuval row exits 1 and is named (exit %d)" % pr.returncode)
        pr = subprocess.run([sys.executable, me, out, "--gpuval", fake, "--rows", "nothing*"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        expect(pr.returncode == 2, "--rows selecting nothing is a usage error")

        # the CuPy side on numpy (where numpy is installed): every builder at a small shape,
        # then the whole run with numpy standing in for CuPy
        if builders_on_numpy(expect):
            pr = subprocess.run([sys.executable, me, os.path.join(tmp, "out4"), "--gpuval", fake,
                                 "--numpy-as-cupy"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, universal_newlines=True)
            md = open(os.path.join(tmp, "out4", "side-by-side.md")).read()
            body = [ln for ln in md.split("## Ceilings")[0].splitlines()
                    if ln.startswith("| ") and "---" not in ln][1:]
            nvar = sum(1 if r.long_cupy else len(r.variants) for r in ROWS)
            expect(pr.returncode == 0 and len(body) == nvar and
                   all(ln.split(" | ")[4] != "-" or "--long" in ln for ln in body) and
                   "no hold kernel" in md and "numpy-stand-in" in md and
                   "| copy | 3000 GB/s | %d | " % len(ROWS) in md and
                   "| gemm f32 8192x8192x8192 | 50.0 TFLOP/s | %d | " % len(ROWS) in md and
                   "| gemm f64 8192x8192x8192 | - | 0 | " in md,
                   "a run with numpy for CuPy: %d lines, CuPy's median on each (exit %d)%s" %
                   (nvar, pr.returncode, "" if pr.returncode == 0 else "\n" + pr.stdout))

        # the real gpuval: every row's command line parses, and names the row's op and shape
        if real_gpuval:
            rc = subprocess.call([real_gpuval, "info"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            if rc != 77:
                print("skip the real gpuval's rows: a device is present (exit %d); the run "
                      "itself covers them" % rc)
            else:
                for r in ROWS:
                    jp = os.path.join(tmp, "real.json")
                    rc = subprocess.call([real_gpuval] + bench_args(r, jp),
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    try:
                        p = parse_bench(json.load(open(jp)), r)
                    except (OSError, ValueError) as e:
                        p = {"problem": str(e)}
                    os.remove(jp) if os.path.exists(jp) else None
                    expect(rc == 77 and p.get("problem") is None and p.get("verdict") == "SKIP",
                           "gpuval %s: exit 77, the row's op, dtype and shape, SKIP (%s, %s)" %
                           (" ".join(bench_args(r, "J")), rc, p.get("problem")))
                pr = subprocess.run([sys.executable, me, os.path.join(tmp, "out3"), "--gpuval",
                                     real_gpuval], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
                expect(pr.returncode == 77, "without a device the run exits 77 (%d)" %
                       pr.returncode)
    print("selftest: %d checks, %d failed" % (checks[0], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
