"""ci/side_by_side_test.py: ci/side_by_side.py --selftest (which runs this file as a program),
without a GPU or CuPy: the statistics, the bench JSON parsing, the table, the whole run against
a stand-in gpuval (and with numpy in CuPy's place where numpy is installed), and, where there
is no CUDA device, every row's command line against the real gpuval. Prints one line per check
and exits 1 when one failed."""

import json
import os
import subprocess
import sys
import tempfile

import side_by_side_cupy as sbc
from side_by_side import (COLUMNS, GPUVAL_ONLY, ROWS, Row, Variant, bench_args, library_lines,
                          model_lines,
                          parse_bench, render_md, render_text, row_failed, table_rows)
from side_by_side_cupy import SMALL, NumpyAsCupy, percentile, run_cupy_variant, time_cupy, within

FAKE_GPUVAL = r'''#!/usr/bin/env python3
# A stand-in for gpuval: `info` succeeds, `bench` writes a gpuval-bench/1 document whose
# median is the product of the shape's dims / 1e9 ms; FAKE_FAIL names an op whose sanity fails;
# the diffusion ops state a byte model of their own, as gpuval's fused diffusion does.
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
        "achieved": {"kernel_hot": {"frac_copy_ceiling": 0.5, "frac_gemm_ceiling": 0.25}},
        "bytes_model": None}
if opt["--op"].startswith("diffusion."):
    case["bytes_model"] = "fake model: regions and halos of " + opt["--op"]
ceil = {"copy": {"gbps": 3000.0}, "gemm": {"f32": {"gflops": 50000.0}, "f64": {"ok": False}}}
doc = {"schema": "gpuval-bench/1", "device": {"name": "Fake", "uuid": "0-0"}, "cases": [case],
       "ceilings": ceil}
json.dump(doc, open(opt["--json"], "w"))
sys.exit(1 if fail else 0)
'''


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
           p["verdict"] == "PASS" and p["problem"] is None and p["bytes_model"] is None,
           "parse_bench reads a sane case")
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
    # an op's own byte model: its % of ceiling is marked and the model said under the table,
    # once a model however many rows state it
    drows = [r for r in ROWS if r.op == "diffusion.periodic"]
    dcase = dict(case, op=drows[0].op, dtype=drows[0].dtype, shape=list(drows[0].shape),
                 bytes_model="M: regions and halos")
    dp = dict(parse_bench(dict(doc, cases=[dcase]), drows[0]), rc=0)
    expect(dp["bytes_model"] == "M: regions and halos" and dp["problem"] is None,
           "parse_bench reads the case's bytes_model")
    res = [{"row": row, "gpuval": g, "cupy": []},
           {"row": drows[0], "gpuval": dp, "cupy": []},
           {"row": drows[1], "gpuval": dict(dp), "cupy": []}]
    lines = table_rows(res)
    expect([ln[6] for ln in lines] == ["80 % copy", "80 % copy [1]", "80 % copy [1]"],
           "table: a fraction from an op's own byte model is marked [1] (%s)" %
           [ln[6] for ln in lines])
    expect(model_lines(res) == ["[1] bytes of diffusion.periodic: M: regions and halos"],
           "one line per distinct model, under the table (%s)" % model_lines(res))
    res[2]["gpuval"]["bytes_model"] = "N"
    expect(table_rows(res)[2][6] == "80 % copy [2]" and len(model_lines(res)) == 2,
           "a second model: [2] and its own line")
    expect(model_lines([{"row": row, "gpuval": g, "cupy": []}]) == [],
           "no model line where no op states one")
    # the hand-written gemms against cuBLAS at the same dtype and size, from the two medians
    grows = {op: next(r for r in ROWS if r.op == op and r.dtype == "f32")
             for op in ("gemm.regblock", "gemm.cublas", "gemm.tiled")}
    gres = [{"row": grows["gemm.regblock"], "gpuval": dict(g, median_ms=3.0), "cupy": []},
            {"row": grows["gemm.cublas"], "gpuval": dict(g, median_ms=2.7), "cupy": []},
            {"row": grows["gemm.tiled"], "gpuval": dict(g, median_ms=None), "cupy": []}]
    ll = library_lines(gres)
    expect(len(ll) == 1 and ll[0].startswith("gemm.regblock f32 4096x4096x4096: 90.0 % of "
                                             "gemm.cublas's rate"),
           "regblock's rate as a fraction of cuBLAS's in the same run, a row without a median "
           "left out (%s)" % ll)
    expect(library_lines(gres[:1]) == [], "no line without a cuBLAS row of the same size")
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
        me = os.path.join(os.path.dirname(os.path.abspath(__file__)), "side_by_side.py")
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
        mline = "[1] bytes of diffusion.periodic: fake model: regions and halos of " \
                "diffusion.periodic"
        diff = [ln for ln in body if ln.startswith("| diffusion.periodic |")]
        expect(len(diff) == 2 and all("| 50 % copy [1] |" in ln for ln in diff) and
               md.count(mline) == 1 and pr.stdout.count(mline) == 1 and
               md.index(mline) > md.index(diff[-1]),
               "the diffusion rows' % of copy is marked [1] and its byte model printed once "
               "under the table, in the markdown and on stdout")
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
                    if r.op.startswith("diffusion."):  # the fused kernel's regions and halos
                        expect("halo" in (p.get("bytes_model") or ""),
                               "gpuval's %s states its byte model: %s" %
                               (r.key, p.get("bytes_model")))
                pr = subprocess.run([sys.executable, me, os.path.join(tmp, "out3"), "--gpuval",
                                     real_gpuval], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
                expect(pr.returncode == 77, "without a device the run exits 77 (%d)" %
                       pr.returncode)
    print("selftest: %d checks, %d failed" % (checks[0], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="ci/side_by_side.py's selftest")
    ap.add_argument("--gpuval", help="the real gpuval, for the rows' command lines")
    sys.exit(selftest(ap.parse_args().gpuval))
