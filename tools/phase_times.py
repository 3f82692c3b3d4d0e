#!/usr/bin/env python3
"""phase_times.py: where a check run's time went, from its run document (gpuval-run/1).

    tools/phase_times.py RUN.json [RUN2.json ...] [--top N] [--by op|dist|family]

Each case records the time of its phases (inputs_ms: generating the inputs; oracle_ms: the
CPU reference, or reading it back from the oracle cache; device_ms: the launch and copies;
judge_ms: comparing and the models) and whether the oracle cache hit. This prints, per file,
the sum of each phase, the cache's hits, stores and misses (and the oracle time the misses
cost), the cases that cost most, and the sums grouped by op, dist or family. The phases
overlap (the device runs while the oracle computes), so their sum exceeds the wall time;
the wall time of the run is not in the document and is measured outside.

Numbers in the document may be the strings "inf", "-inf" or "nan" (docs/schemas.md): read as
floats here.
"""
import argparse
import json
import sys
from collections import defaultdict

PHASES = ("inputs_ms", "oracle_ms", "device_ms", "judge_ms")


def num(v):
    if v is None:
        return 0.0
    if isinstance(v, str):
        return float(v)
    return float(v)


def case_total(c):
    return sum(num(c.get(p)) for p in PHASES)


def group_key(c, by):
    if by == "op":
        return c["op"]
    if by == "dist":
        return c["dist"]
    return c["op"].split(".")[0]


def summarize(path, top, by, out):
    with open(path) as f:
        doc = json.load(f)
    cases = doc.get("cases", [])
    sums = {p: 0.0 for p in PHASES}
    cache = defaultdict(int)
    miss_ms = 0.0
    for c in cases:
        for p in PHASES:
            sums[p] += num(c.get(p))
        state = c.get("oracle_cache", "off")
        cache[state] += 1
        if state in ("miss", "stored", "cheap"):
            miss_ms += num(c.get("oracle_ms"))
    print(f"{path}: {len(cases)} cases", file=out)
    print("  phase sums (s): " + ", ".join(f"{p[:-3]} {sums[p] / 1e3:.2f}" for p in PHASES),
          file=out)
    print("  oracle cache: " + ", ".join(f"{k} {cache[k]}" for k in sorted(cache)) +
          f"; oracle time of the cases that computed it: {miss_ms / 1e3:.2f} s", file=out)
    groups = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for c in cases:
        g = groups[group_key(c, by)]
        g[0] += 1
        g[1] += num(c.get("oracle_ms"))
        g[2] += num(c.get("inputs_ms")) + num(c.get("judge_ms"))
        g[3] += num(c.get("device_ms"))
    print(f"  by {by} (cases, oracle s, inputs+judge s, device s), largest first:", file=out)
    for k, (n, o, ij, d) in sorted(groups.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))[:top]:
        print(f"    {k:28s} {n:4d} {o / 1e3:8.2f} {ij / 1e3:8.2f} {d / 1e3:8.2f}", file=out)
    print(f"  the {top} costliest cases (ms: inputs oracle device judge, cache):", file=out)
    for c in sorted(cases, key=lambda c: -case_total(c))[:top]:
        shape = "x".join(str(s) for s in c["shape"])
        print(f"    {c['op']:22s} {c['dtype']} {c['mode']:8s} {c['dist']:14s} {shape:18s} " +
              " ".join(f"{num(c.get(p)):8.1f}" for p in PHASES) + f"  {c.get('oracle_cache')}",
              file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--by", choices=("op", "dist", "family"), default="family")
    a = ap.parse_args()
    for p in a.runs:
        summarize(p, a.top, a.by, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
