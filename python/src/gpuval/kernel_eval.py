"""kernel_eval: a correctness gate for generated kernels that the kernel cannot game.

    python3 -m gpuval.kernel_eval --op softmax.rows --candidate my_kernels:softmax --seeds 5

The candidate (MODULE:CALLABLE, or a Python file PATH:CALLABLE) runs in a child process that
never sees the oracle, a reference output or the verdict: it gets gpuval's inputs for each
case, on seeds drawn here from the operating system's random source (it cannot predict them)
and on every test shape of the op (shapes it was not shown), calls the callable, and sends
back its outputs and its inputs as it left them. The parent judges each output with the op's
f64 oracle and error model (gpuval.judge on the generated case: every rule of a generated
case, canaries and exact probes included) and adds the rules a harness needs:

  - inputs unchanged: a kernel that writes into its inputs FAILs;
  - outputs fresh: two runs on different inputs must not return the same bits (an answer
    cached from an earlier call or seed, a stale output buffer), unless the judge passes
    them for both (an argmax of a 1 x 1 input, a norm of one value: right answers that
    coincide);
  - NaN never passes (the judge's own rule: a NaN where the result is finite FAILs);
  - nothing timed: correctness runs only, one call a case;
  - f32 asked of the frameworks: the child turns TF32 off in torch and CuPy before the
    candidate loads (_precision.py; the verdict's "framework_precision": "tf32 off"), and
    reads torch's flags back after each call: a case that FAILs after the candidate turned
    TF32 back on names it ("tf32_turned_on" in its row).

Exit 0 when every case of every problem PASSes, 1 when one fails, 2 for bad usage, 3 when
the candidate could not be run (an import error, a crash: the child's message is shown).
"""

import argparse
import hashlib
import importlib
import importlib.util
import json
import math
import multiprocessing as mp
import os
import secrets
import sys
import traceback

import numpy as np

from . import _core, _precision

_FRAMEWORKS = ("numpy", "torch", "cupy")


def _split(spec):
    """MODULE:CALLABLE or PATH.py:CALLABLE -> (module or path, name); ValueError if neither."""
    mod, sep, name = spec.rpartition(":")
    if not sep or not mod or not name:
        raise ValueError(f"--candidate {spec!r}: expected MODULE:CALLABLE or FILE.py:CALLABLE")
    return mod, name


def _load(spec):
    """MODULE:CALLABLE or PATH.py:CALLABLE -> the callable."""
    mod, name = _split(spec)
    if mod.endswith(".py") or os.sep in mod:
        s = importlib.util.spec_from_file_location("gpuval_candidate", mod)
        if s is None:
            raise ValueError(f"--candidate: cannot load {mod!r}")
        m = importlib.util.module_from_spec(s)
        s.loader.exec_module(m)
    else:
        m = importlib.import_module(mod)
    fn = getattr(m, name, None)
    if not callable(fn):
        raise ValueError(f"--candidate: {mod} has no callable {name!r}")
    return fn


def _child(conn, spec, framework, device):
    """The candidate's process: inputs in, outputs and inputs-as-left out. It holds no oracle
    and never learns a verdict."""
    notes = []  # the frameworks' f32 settings, in words, as they are made
    try:
        # an f32 label asks the frameworks for f32 (no TF32) before the candidate loads
        _precision.strict_f32(notes)
        if framework == "torch":
            import torch  # noqa: F401  (its flags set now, before the candidate's import)
        fn = _load(spec)
        from ._arrays import from_numpy, to_numpy
    except Exception as e:  # reported to the parent as the reason the candidate cannot run
        conn.send(("error", f"{type(e).__name__}: {e}"))
        return
    conn.send(("ready", list(notes)))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        arrays = msg
        try:
            args = [from_numpy(a, framework, device) for a in arrays]
            out = fn(*args)
            outs = list(out) if isinstance(out, (tuple, list)) else [out]
            host = [np.array(to_numpy(_int_as_int64(o), "output"), copy=True) for o in outs]
            seen = [np.array(to_numpy(a, "input"), copy=True) for a in args]
            # torch imported by the call itself has its flags set by now; what the
            # candidate switched back on is read after its call
            conn.send(("ok", (host, seen, list(notes), _precision.tf32_turned_on())))
        except Exception as e:
            conn.send(("raised", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}"))


def _int_as_int64(x):
    """An integer torch tensor (an index output: torch.argmax) as a host int64 array, which the
    parent takes as indices; anything else as it is."""
    if type(x).__module__.split(".", 1)[0] == "torch" and not x.is_floating_point() \
            and not x.is_complex():
        return x.detach().to(dtype=sys.modules["torch"].int64).cpu().numpy()
    return x


def _indices_as_dtype(outs, dtype):
    """Integer outputs (the indices of reduce.argmax) as values of the case's dtype, where each
    is exact there (|v| <= 2^24 in f32, 2^53 in f64); (outputs, "") or (None, why not)."""
    fdt = np.float32 if dtype == "f32" else np.float64
    limit = 2.0 ** (24 if dtype == "f32" else 53)
    conv = []
    for o in outs:
        if np.issubdtype(o.dtype, np.integer) or o.dtype == np.bool_:
            if o.size and np.abs(o.astype(np.float64)).max() > limit:
                return None, f"integer outputs past {limit:.0f}, not exact in {dtype}"
            o = o.astype(fdt)
        conv.append(o)
    return conv, ""


def _digest(arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def evaluate(op, candidate, *, dtype="f32", seeds=3, sizes=None, dists=None, framework="numpy",
             device=None, allow=None, seed_source=None, pool_seeds=64):
    """Run candidate (MODULE:CALLABLE) in a child process on op's cases, judge here. Returns a
    dict: op, candidate, cases (one per seed x size x dist, each with verdict, reason and row),
    passed, failed (of those cases; the hidden seeds' below in pool_passed and pool_failed),
    and error (the candidate could not run) where it is set.

    Cases of few outputs (a sum: one) give the per-case bias rule nothing to judge; the rule
    pooled across seeds does (_pool_bias). Where the op has such cases, the largest of them
    runs on further seeds drawn here until pool_seeds seeds have one (rows marked "pool",
    their seeds in pool_seeds), so that a tree rounding every addition toward zero, which no
    single sum shows, FAILs; bias_pool holds each group's z. pool_seeds=0: none drawn."""
    if framework not in _FRAMEWORKS:
        raise ValueError(f"framework {framework!r}: one of {', '.join(_FRAMEWORKS)}")
    if seeds < 2:
        raise ValueError("seeds: at least 2 (freshness compares runs on different inputs)")
    _split(candidate)  # a malformed spec is the caller's mistake, before any process starts
    draw = seed_source or (lambda: secrets.randbits(62))
    picked = [draw() for _ in range(seeds)]
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_child, args=(child, candidate, framework, device), daemon=True)
    proc.start()
    child.close()
    doc = {"schema": "gpuval-kernel-eval/1", "op": op, "candidate": candidate, "dtype": dtype,
           "framework": framework, "seeds": picked, "cases": [], "passed": 0, "failed": 0}
    try:
        kind, what = parent.recv()
        if kind != "ready":
            doc["error"] = what
            return doc
        doc["framework_precision"] = _precision.LINE
        doc["precision_settings"] = what
        seen_outputs = {}
        takes = []  # (row, case) of the cases the pooled bias rule takes
        for seed in picked:
            for case in _core.cases(op, dtype, sizes, dists, None, seed):
                row, j = _run_case(parent, case, seed, seen_outputs, allow, doc)
                doc["cases"].append(row)
                if j is not None and _pool_takes(j):
                    takes.append((row, case, j))
        # hidden seeds for the pooled bias rule: the largest case it takes, on more seeds
        have = {row["seed"] for row, _, _ in takes}
        if takes and pool_seeds > len(have):
            # the largest case up to 2^20 elements (an RZ tree's lean shows at 10^5 on 64
            # seeds; 64 sums of 4 x 10^6 would cost the gate more than the rest), else the
            # smallest
            sized = sorted(takes, key=lambda t: _elements(t[1].size))
            fit = [t for t in sized if _elements(t[1].size) <= 1 << 20]
            big = (fit[-1] if fit else sized[0])[1]
            extra = []
            for _ in range(4 * pool_seeds):  # a seed source that repeats cannot loop forever
                if len(have) + len(extra) >= pool_seeds:
                    break
                s_ = draw()
                if s_ not in have and s_ not in extra:
                    extra.append(s_)
            for seed in extra:
                case = next(iter(_core.cases(big.op, dtype, big.size, big.dist, None, seed)))
                row, j = _run_case(parent, case, seed, seen_outputs, allow, doc)
                row["pool"] = True  # drawn for the pooled rule, judged as any case
                doc["cases"].append(row)
                if j is not None and _pool_takes(j):
                    takes.append((row, case, j))
            doc["pool_seeds"] = extra
        doc["bias_pool"] = _pool_bias(takes)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        doc["error"] = f"the candidate's process ended (exit code {proc.exitcode})"
    finally:
        try:
            parent.send(None)
        except (BrokenPipeError, OSError):
            pass
        proc.join(timeout=10)
        if proc.is_alive():
            proc.kill()
    # passed and failed count the cases asked for; the hidden seeds' apart (a lean they
    # show FAILs the asked-for cases they were pooled with, so it is counted there too)
    doc["pool_passed"] = doc["pool_failed"] = 0
    for row in doc["cases"]:
        key = "passed" if row["verdict"] == "PASS" else "failed"
        doc[("pool_" + key) if row.get("pool") else key] += 1
    return doc


def _run_case(parent, case, seed, seen_outputs, allow, doc):
    """One case: the candidate's outputs for gpuval's inputs, judged; (row, Judgement or
    None where a harness rule or the candidate failed it first). doc's precision_settings
    follow the child's (torch imported by the call adds its own)."""
    ci = _core.inputs(case.op, case.dtype, case.size, case.dist, case.seed, case.mode)
    parent.send([np.array(a, copy=True) for a in ci.arrays])
    kind, what = parent.recv()
    row = {"seed": seed, "size": case.size, "dist": case.dist}
    if kind != "ok":
        row.update(verdict="FAIL", reason=f"the candidate raised: {what.splitlines()[0]}")
        return row, None
    outs, left, doc["precision_settings"], turned_on = what
    if turned_on:
        row["tf32_turned_on"] = turned_on
    outs, reason = _indices_as_dtype(outs, case.dtype)
    reason = reason or _harness_rules(ci, outs, left, case)
    if reason:
        row.update(verdict="FAIL", reason=reason)
        return row, None
    j = None
    try:
        j = _core.judge(case.op, ci, outs, allow=allow)
        row.update(verdict=j.verdict, reason=j.reason, row=j.row)
    except (TypeError, ValueError) as e:
        row.update(verdict="FAIL", reason=f"outputs: {e}")
    # the same bits as for other inputs: a stale answer, named as such, but only where the
    # judge did not pass them (an argmax of a 1 x 1 input, a norm of one value: right answers
    # that coincide)
    stale = _stale(ci, outs, seen_outputs, case)
    if stale and row["verdict"] != "PASS":
        row.update(verdict="FAIL", reason=stale)
    if turned_on and row["verdict"] != "PASS":
        # the cause, named: the gate asked for f32 and the candidate asked for less
        row["reason"] += f"; the candidate turned TF32 back on ({turned_on})"
    return row, j


def _elements(size):
    n = 1
    for d in str(size).split("x"):
        n *= int(d)
    return n


def _pool_takes(j):
    """Whether the pooled bias rule takes a judged case (the library says: core/bias_pool.h,
    the case JSON's bias_rule.pool.takes): a case of few outputs (one sum) on gpuval's own
    inputs whose per-case bias rule had too few elements to judge."""
    pool = ((j.case.get("bias_rule") or {}).get("pool")) or {}
    return bool(pool.get("takes"))


def _pool_bias(takes):
    """The bias rule pooled across seeds (docs/error-models.md, "Bias pooled across cases"):
    per (op, dtype, mode), one case a seed (cases of one seed share their inputs), the signed
    errors summed over their root sum of squares, z and z against sign(r); past the bound
    on at least min_n seeds, every pooled case that PASSed FAILs for bias. Returns the
    groups as dicts."""
    groups = {}
    for row, case, j in takes:
        c = j.case
        key = (c.get("op"), c.get("dtype"), c.get("mode"))
        g = groups.setdefault(key, {"op": key[0], "dtype": key[1], "mode": key[2], "rows": {},
                                    "pool": c["bias_rule"]["pool"]})
        g["rows"].setdefault(row["seed"], (row, c["bias_rule"]["pool"]))
    out = []
    for g in groups.values():
        pools = [p for _, p in g["rows"].values()]
        roots = [float(p["root"]) for p in pools]
        norm = math.hypot(*roots)
        z = sum(float(p["sum"]) for p in pools) / norm if norm > 0 else 0.0
        z_sr = sum(float(p["sum_sign_r"]) for p in pools) / norm if norm > 0 else 0.0
        bound, min_n = float(g["pool"]["z_bound"]), int(g["pool"]["min_n"])
        judged = len(pools) >= min_n
        over = judged and (abs(z) > bound or abs(z_sr) > bound)
        by_sr = not abs(z) > abs(z_sr)
        zz = z_sr if by_sr else z
        way = (("toward zero" if zz < 0 else "away from zero") if by_sr
               else ("downward" if zz < 0 else "upward"))
        line = (f"{g['op']} {g['dtype']} {g['mode']}: errors lean {way} over {len(pools)} seeds "
                f"(z = {zz:+.1f}, bound {bound:.1f})" if judged else
                f"{g['op']} {g['dtype']} {g['mode']}: {len(pools)} seeds, under the {min_n} "
                f"the pooled bias rule needs")
        if over:
            for row, _ in g["rows"].values():
                if row["verdict"] == "PASS":
                    row.update(verdict="FAIL", reason=f"bias across seeds: {line}")
                    row.pop("row", None)
        out.append({"op": g["op"], "dtype": g["dtype"], "mode": g["mode"], "seeds": len(pools),
                    "z": z, "z_sign_r": z_sr, "judged": judged, "over": over, "line": line})
    return out


def _harness_rules(ci, outs, left, case):
    """The rules besides the numbers: inputs as given, outputs of the op's count."""
    for a, orig, name in zip(left, ci.arrays, ci.names):
        if a.shape != orig.shape or not ((a == orig) | (np.isnan(a) & np.isnan(orig))).all():
            return f"the candidate wrote to its input {name}"
    if len(outs) != len(ci.out_names):
        return f"{len(outs)} outputs; the op has {len(ci.out_names)}"
    return ""


def _stale(ci, outs, seen_outputs, case):
    """Fresh outputs: the same bits as for other inputs of the same shape are an earlier
    answer (a cached result, a stale buffer); "" where they are not."""
    key = case.size
    d = _digest(outs)
    earlier = seen_outputs.setdefault(key, {})
    in_d = _digest(ci.arrays)
    for other_in, other_out in earlier.items():
        if other_out == d and other_in != in_d:
            return "stale output: the same bits as for other inputs (a cached answer or buffer)"
    earlier[in_d] = d
    return ""


def main(argv=None):
    ap = argparse.ArgumentParser(prog="gpuval kernel-eval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--op", required=True, help="the op the candidate computes (gpuval list)")
    ap.add_argument("--candidate", required=True, help="MODULE:CALLABLE or FILE.py:CALLABLE")
    ap.add_argument("--dtype", default="f32", choices=["f32", "f64"])
    ap.add_argument("--seeds", type=int, default=3, help="seeds drawn at random (>= 2)")
    ap.add_argument("--sizes", help="sizes (default: every test shape of the op)")
    ap.add_argument("--dists", help="dists (default: every dist the op takes)")
    ap.add_argument("--framework", default="numpy", choices=_FRAMEWORKS)
    ap.add_argument("--allow", choices=["ftz"], help="the candidate flushes subnormals")
    ap.add_argument("--json", help="write the verdicts as JSON to this file (- for stdout)")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only what failed")
    a = ap.parse_args(argv)
    try:
        doc = evaluate(a.op, a.candidate, dtype=a.dtype, seeds=a.seeds, sizes=a.sizes,
                       dists=a.dists, framework=a.framework, allow=a.allow)
    except (ValueError, _core._lib.GpuvalError) as e:
        print(f"gpuval kernel-eval: {e}", file=sys.stderr)
        return 2
    if a.json:
        text = json.dumps(doc, indent=1)
        if a.json == "-":
            print(text)
        else:
            with open(a.json, "w") as f:
                f.write(text + "\n")
    if "error" in doc:
        print(f"gpuval kernel-eval: the candidate could not run: {doc['error']}", file=sys.stderr)
        return 3
    print(f"framework precision: {doc['framework_precision']} "
          f"({'; '.join(doc['precision_settings'])})")
    for c in doc["cases"]:
        if c["verdict"] != "PASS" or not a.quiet:
            print(f"seed {c['seed']}: {c.get('row') or (c['verdict'] + ' (' + c['reason'] + ')')}")
    print(f"{a.op} {a.candidate}: {doc['passed']} passed, {doc['failed']} failed over "
          f"{len(doc['seeds'])} seeds")
    for g in doc.get("bias_pool", []):
        print(f"bias pooled across seeds ({len(doc.get('pool_seeds', []))} hidden): "
              f"{'FAIL' if g['over'] else 'PASS' if g['judged'] else 'not judged'}: {g['line']}")
    return 0 if doc["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
