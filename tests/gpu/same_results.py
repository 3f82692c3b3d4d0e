#!/usr/bin/env python3
"""tests/gpu/same_results.py: two runs of `gpuval check` on the same device agree: the same
cases, the same verdict for each, and the same output digest (output_hash) for every case of
a deterministic op. How a kernel's generic path (GPUVAL_GENERIC_KERNELS=1, or code JIT-compiled
from compute_75's PTX) is shown to give what its fast path gives.

  same_results.py [--a-env VAR=VAL]... [--b-env VAR=VAL]... [--a GPUVAL] [--b GPUVAL]
                  [--expect-mode-differs OP_GLOB:TEXT] [--keep DIR] -- CHECK_ARGS...

Run A is `$GPUVAL check CHECK_ARGS --json a.json` (or --a's binary) with the --a-env variables,
run B the same with --b's binary and --b-env. --expect-mode-differs OP:TEXT asks that run A's
math_mode of the matching cases contains TEXT and run B's does not (that the two runs did take
different paths). --keep DIR keeps the two documents as DIR/A.json and DIR/B.json. Exit 0 when they agree, 1 when not, 77 without a device (either run 77)."""
import fnmatch
import json
import os
import subprocess
import sys
import tempfile


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print(__doc__)
        return 2
    opts, check_args = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    env_a, env_b = {}, {}
    bin_a = bin_b = os.environ.get("GPUVAL", "gpuval")
    differs = []
    keep = None
    i = 0
    while i < len(opts):
        o, v = opts[i], opts[i + 1] if i + 1 < len(opts) else None
        if v is None:
            print("missing value after " + o)
            return 2
        if o in ("--a-env", "--b-env"):
            k, _, val = v.partition("=")
            (env_a if o == "--a-env" else env_b)[k] = val
        elif o == "--a":
            bin_a = v
        elif o == "--b":
            bin_b = v
        elif o == "--keep":
            keep = v
        elif o == "--expect-mode-differs":
            differs.append(v.split(":", 1))
        else:
            print("unknown option " + o)
            return 2
        i += 2
    with tempfile.TemporaryDirectory() as d:
        runs = []
        for name, exe, extra in (("A", bin_a, env_a), ("B", bin_b, env_b)):
            out = os.path.join(d, name + ".json")
            env = dict(os.environ)
            env.update(extra)
            p = subprocess.run([exe, "check", "-q"] + check_args + ["--json", out], env=env,
                               capture_output=True, text=True)
            print("run %s: %s %s -> exit %d" % (name, " ".join("%s=%s" % kv for kv in extra.items()),
                                               exe, p.returncode))
            if p.returncode == 77:
                print("no device: skipped")
                return 77
            if p.returncode not in (0, 1) or not os.path.exists(out):
                print(p.stdout[-3000:], p.stderr[-3000:])
                return 1
            runs.append(json.load(open(out)))
            if keep:
                os.makedirs(keep, exist_ok=True)
                with open(os.path.join(keep, name + ".json"), "w") as f:
                    json.dump(runs[-1], f)
    key = lambda c: (c["op"], c["dtype"], c["mode"], c["dist"], tuple(c["shape"]), c["seed"])
    a = {key(c): c for c in runs[0]["cases"]}
    b = {key(c): c for c in runs[1]["cases"]}
    bad = 0
    if set(a) != set(b):
        print("the runs have different cases: only A %s, only B %s" %
              (sorted(set(a) - set(b))[:5], sorted(set(b) - set(a))[:5]))
        bad += 1
    same_hash = compared = 0
    for k in sorted(set(a) & set(b)):
        ca, cb = a[k], b[k]
        if ca["verdict"] != cb["verdict"]:
            bad += 1
            print("verdict differs %s: A %s (%s), B %s (%s)" %
                  (k, ca["verdict"], ca["reason"], cb["verdict"], cb["reason"]))
        if ca.get("deterministic") and ca.get("output_hash") and cb.get("output_hash"):
            compared += 1
            if ca["output_hash"] == cb["output_hash"]:
                same_hash += 1
            else:
                bad += 1
                print("output digest differs %s: A %s, B %s" % (k, ca["output_hash"], cb["output_hash"]))
    code = runs[0].get("device", {}).get("kernel_code") or {}
    if differs and code.get("ptx_arch", 0) < 80:
        # run A's own code has no fast path to take (compute_75's PTX, a T4): nothing to tell
        print("run A's kernels are compute_%s code: no fast path to tell from the generic one"
              % code.get("ptx_arch"))
        differs = []
    for glob, text in differs:
        hits = [k for k in a if fnmatch.fnmatch(k[0], glob) and k in b]
        took = [k for k in hits if text in a[k]["math_mode"] and text not in b[k]["math_mode"]]
        print("%s: %d of %d cases took '%s' in A and not in B" % (glob, len(took), len(hits), text))
        if not hits or len(took) != len(hits):
            bad += 1
    verdicts = {}
    for c in runs[0]["cases"]:
        verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
    print("%d cases (%s); same verdicts: %s; output digests compared %d, identical %d" %
          (len(a), ", ".join("%s %d" % kv for kv in sorted(verdicts.items())),
           "yes" if bad == 0 else "no", compared, same_hash))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
