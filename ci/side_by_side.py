#!/usr/bin/env python3
"""ci/side_by_side.py: gpuval's kernels and CuPy on the same ops, shapes and device, in one run.

For each row of ROWS, `gpuval bench --hot --no-cpu` times the op (its kernel-only median, from
the bench JSON, schema gpuval-bench/1) and then, in this process, CuPy times what a CuPy user
would write for the same op and shape. The two timers alternate row by row, so that a drift of
clocks or temperature during the run touches both alike. One table comes out: gpuval's median,
CuPy's median, the ratio CuPy / gpuval (above 1: gpuval is faster) and gpuval's fraction of the
ceiling its own run measured (a device-to-device copy or a pedantic cuBLAS gemm). Where an op
counts its bytes by a model of its own (bench JSON's bytes_model: the fused diffusion's regions
and halos), its fraction is marked [n] and the model printed under the table, so the number is
never shown without what it counts. The same table goes to OUTDIR/side-by-side.md, the
figures to OUTDIR/side-by-side.json, each bench run's JSON and log to OUTDIR/bench/.

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
import time

sys.dont_write_bytecode = True  # nothing written beside the source, which may be read-only
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from side_by_side_cupy import (SMALL, Hold, NumpyAsCupy, cupy_uuid,  # noqa: E402
                               percentile, run_cupy_variant)

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
# + written; cuBLAS gemm at 8192^3, f32 in pedantic and f64 in default math), measured again by
# CuPy in the same math mode: a ceiling set too low would flatter every "% of ceiling" above.
CEILINGS = [
    Row("ceiling.copy", "f32", "2^28", (1 << 28,), "copy",
        [Variant("cupy.copyto(dst, src), 1 GiB", "copy")]),
    Row("ceiling.gemm", "f32", "8192x8192x8192", (8192, 8192, 8192), "gemm",
        [Variant("cupy.matmul(A, B, out=C), pedantic math", "gemm", "pedantic")]),
    Row("ceiling.gemm", "f64", "8192x8192x8192", (8192, 8192, 8192), "gemm",
        [Variant("cupy.matmul(A, B, out=C), default math", "gemm", "default")]),
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
           "frac_ceiling": None, "bytes_model": None, "device": None, "uuid": None,
           "problem": None}
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
    model = case.get("bytes_model")
    if isinstance(model, str) and model:
        out["bytes_model"] = model  # what the bytes behind the copy fraction count
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


def bytes_models(results):
    """The distinct byte models of the rows' bench cases, in row order, each with the ops that
    state it: [(model, [op, ...]), ...]."""
    models = []
    for r in results:
        m, op = r["gpuval"].get("bytes_model"), r["row"].op
        if not m:
            continue
        entry = next((e for e in models if e[0] == m), None)
        if entry is None:
            models.append((m, [op]))
        elif op not in entry[1]:
            entry[1].append(op)
    return models


def model_lines(results):
    """One line per distinct byte model, numbered as the table's marks: what the bytes behind
    those rows' GB/s and % of ceiling count."""
    return ["[%d] bytes of %s: %s" % (i + 1, ", ".join(ops), m)
            for i, (m, ops) in enumerate(bytes_models(results))]


def library_lines(results):
    """The hand-written gemms against the library in the same run: for each row of an op
    gemm.X other than gemm.cublas with a gemm.cublas row of the same dtype and size, X's rate
    as a fraction of cuBLAS's (pedantic math, as gpuval's native mode) from the two medians."""
    lines = []
    for r in results:
        row, g = r["row"], r["gpuval"]
        if not row.op.startswith("gemm.") or row.op == "gemm.cublas":
            continue
        lib = next((x for x in results if x["row"].op == "gemm.cublas" and
                    x["row"].dtype == row.dtype and x["row"].size == row.size), None)
        ms, lms = g.get("median_ms"), lib and lib["gpuval"].get("median_ms")
        if ms and lms:
            lines.append("%s %s %s: %.1f %% of gemm.cublas's rate in this run (%s ms against "
                         "%s ms, cuBLAS in pedantic math)" % (row.op, row.dtype, row.size,
                                                              100 * lms / ms, fmt_ms(ms),
                                                              fmt_ms(lms)))
    return lines


def table_rows(results):
    """One line per (row, CuPy variant); gpuval's figures repeat on each of a row's lines. A
    % of ceiling that rests on an op's own byte model carries that model's mark, [n]."""
    lines = []
    models = [m for m, _ in bytes_models(results)]
    for r in results:
        row, g = r["row"], r["gpuval"]
        gms = g.get("median_ms")
        frac = g.get("frac_ceiling")
        ceil = "%.0f %% %s" % (100 * frac, row.ceiling) if frac is not None else "-"
        if frac is not None and g.get("bytes_model"):
            ceil += " [%d]" % (models.index(g["bytes_model"]) + 1)
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
    if a.selftest:  # run as a program, not imported: the test imports this script
        test = os.path.join(os.path.dirname(os.path.abspath(__file__)), "side_by_side_test.py")
        return subprocess.call([sys.executable, test] + (["--gpuval", a.gpuval] if a.gpuval else []))
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
              "pedantic cuBLAS gemm ceiling measured in the same gpuval run (marked [n]: its "
              "bytes counted by the op's model [n], under the table); cupy wall: "
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
    mlines = model_lines(results)
    if mlines:  # what the marked fractions count, right under the table
        print("\n".join(mlines))
        md += "\n" + "".join("%s\n\n" % ln for ln in mlines)
    llines = library_lines(results)
    if llines:  # the hand-written gemms against the library, same run
        print("\n".join(llines))
        md += "\n" + "".join("%s\n\n" % ln for ln in llines)
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
