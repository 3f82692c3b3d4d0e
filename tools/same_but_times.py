#!/usr/bin/env python3
"""same_but_times.py: two check run documents (gpuval-run/1) hold the same results, timings
aside: the same cases in the same order, and in each case every member equal except the wall
times (*_ms, and the envelope's own ms), the free device memory seen (device_bytes.free, where present) and whether the
oracle cache hit (oracle_cache: a cold run stores what a warm one reads), and whether the judgement did
(judge_cache, core/judge_memo.h).

    tools/same_but_times.py A.json B.json

How a change that only moves work in time (GPUVAL_SERIAL_CASE, a judge or generator on more
cores) is shown to change no verdict, metric or output bit. Prints
the first differences (at most 20) and exits 1 when there is one, 0 when none, 2 on bad input.
"""
import json
import sys

IGNORED = {"oracle_cache", "judge_cache"}


def strip(v, path=""):
    """v without the members that may differ between two runs of the same cases."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k.endswith("_ms") or k == "ms" or k in IGNORED:
                continue
            if path.endswith("device_bytes") and k == "free":
                continue
            out[k] = strip(x, path + "/" + k)
        return out
    if isinstance(v, list):
        return [strip(x, path) for x in v]
    return v


def diffs(a, b, path, out):
    if len(out) >= 20:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'B' if k not in a else 'A'}")
            else:
                diffs(a[k], b[k], f"{path}/{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items in A, {len(b)} in B")
        for i, (x, y) in enumerate(zip(a, b)):
            diffs(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {a!r} in A, {b!r} in B")


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        docs = [json.load(open(p)) for p in argv[1:]]
    except (OSError, ValueError) as e:
        print(f"same_but_times: {e}", file=sys.stderr)
        return 2
    cases = [d.get("cases") for d in docs]
    if not all(isinstance(c, list) for c in cases):
        print("same_but_times: a document without its cases", file=sys.stderr)
        return 2
    out = []
    diffs(strip(cases[0]), strip(cases[1]), "cases", out)
    for line in out:
        print(line)
    print(f"{len(cases[0])} and {len(cases[1])} cases: "
          + ("the same, timings aside" if not out else "DIFFERENT"))
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
