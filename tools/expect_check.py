#!/usr/bin/env python3
"""expect_check.py: judge a `gpuval probe --json` document (gpuval-probe/1) against an
expectation file (probe/sm_XY.expect) without a GPU, and check every value against its own
detail text.

The judge is a port of src/probe/expect.c (gv_fp_expect_find, gv_fp_judge): OPS, DTYPE and MODE
are fnmatch globs, FEATURE a name or *, the last matching line wins, '?' or no line is NEW; a
VALUE is alternatives joined by '|', each a literal, ">=N" or "N..M". The C reader stays the one
that refuses malformed files (tests/cpu/test_probe_expect.c); this script assumes a file it
reads.

    tools/expect_check.py probe/sm_90.expect doc.json
    tools/expect_check.py probe/sm_90.expect doc.json --set "gemm.cublas f32 tf32 acc_bits=24"

--set replaces one measured value before judging (a document whose value was edited). The
detail check re-derives every feature's value from its detail text (the formats of
src/probe/fprint.c) and names each value that disagrees with it. Exit 0: no FAIL and no value that contradicts its detail; 1 otherwise.
"""
import argparse
import fnmatch
import json
import math
import re
import sys


def read_expect(path):
    rules = []
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            body, _, source = line.partition("#")
            w = body.split()
            if not w or w[0] in ("version", "arch"):
                continue
            if len(w) != 5:
                sys.exit(f"{path}:{ln}: expected OPS DTYPE MODE FEATURE VALUE")
            rules.append(dict(zip(("ops", "dtype", "mode", "feature", "value"), w),
                              line=ln, source=source.strip()))
    return rules


def find(rules, op, dtype, mode, feature):
    hit = None
    for r in rules:
        if (fnmatch.fnmatchcase(op, r["ops"]) and fnmatch.fnmatchcase(dtype, r["dtype"])
                and fnmatch.fnmatchcase(mode, r["mode"])
                and r["feature"] in ("*", feature)):
            hit = r
    return hit


def num(text):
    try:
        return float(text)
    except ValueError:
        return math.nan


def alt_ok(want, text):
    """One alternative against the measured text (expect.c's alt_ok)."""
    v = num(text)
    if want.startswith(">="):
        lo = float(want[2:])
        if text.startswith(">="):
            return float(text[2:]) >= lo
        return math.isfinite(v) and v >= lo and text != "n/a"
    if ".." in want:
        lo, hi = (float(x) for x in want.split(".."))
        return math.isfinite(v) and lo <= v <= hi and not text.startswith(">=")
    # numbers compare as numbers ("0" and "0.0" are one value), words as text: as expect.c
    if re.fullmatch(r"[-+]?[0-9.]+(e[-+]?\d+)?", want) and math.isfinite(v):
        return float(want) == v
    return want == text


def judge(rule, text):
    if rule is None or rule["value"] == "?":
        return "NEW"
    return "PASS" if any(alt_ok(a, text) for a in rule["value"].split("|")) else "FAIL"


# ---- what the detail text says the value is (src/probe/fprint.c's formats) ----------------

def rounding(up, neg, tie, tie_odd):
    """gv_fp_classify_rounding"""
    if up == 1 and neg == 1:
        return {(0, 2): "RNE", (1, 2): "RNA"}.get((tie, tie_odd), "other")
    table = {(0, 0, 0, 1): "RZ", (1, 0, 1, 2): "RU", (0, 1, 0, 1): "RD"}
    return table.get((up, neg, tie, tie_odd), "other")


def from_detail(feature, d):
    """The value the detail implies, or None where this script cannot tell."""
    m = re.search(r"kept up to t = (\d+)", d)
    if feature.startswith("in_bits") and m:
        return str(int(m.group(1)) + 1)
    if feature == "acc_bits":
        m = re.search(r"all kept up to t = (\d+)(?:, \d+ kept at t = (\d+))?", d)
        if m:
            return m.group(2) if m.group(2) else f">={int(m.group(1)) + 1}"
    if feature == "promotion":
        m = re.search(r"the first at position (\d+)", d)
        if m:
            return m.group(1)
        m = re.search(r"(\d+) of (\d+) terms 2\^-t M kept", d)
        if m:
            kept, k = int(m.group(1)), int(m.group(2)) + 1
            return "none" if kept == 0 else str(k - kept)
        if "as wide as the output" in d:
            return "n/a"
    if feature == "extra_bits":
        m = re.search(r"count for t = 1\.\.(\d+) of 1\.\.(\d+)", d)
        if m:
            n, top = int(m.group(1)), int(m.group(2))
            return f">={n}" if n == top else str(n)
    if feature == "block":
        m = re.search(r"survives at (\d+) of (\d+) positions, first (\d+)", d)
        if m:
            seen, first = int(m.group(1)), int(m.group(3))
            return "none" if seen == 0 else "1" if seen == int(m.group(2)) else str(first)
    if feature in ("row_bits", "fixed_point"):
        m = re.search(r"survives for t = 1\.\.(\d+) of (\d+)", d)
        if m:
            full = m.group(1) == m.group(2)
            if feature == "fixed_point":
                return "no" if full else "yes"
            return "all" if full else m.group(1)
    if feature in ("block_round", "carry_round", "in_round_A", "in_round_B"):
        x = [float(v) for v in re.findall(r"-> [-(]*[+]?1?\+?([0-9.]+)u", d)]
        if len(x) == 4:
            return rounding(*x)
    if "no block of two or more products" in d or "the format's range cannot keep" in d \
            or "no regular block size" in d or "no two normal operands multiply" in d:
        return "n/a"
    if feature.startswith("in_round") and "at the storage precision" in d:
        return "none"
    if feature == "order":
        return "sequential" if "in k order" in d else "other" if "differ from k order" in d else None
    if feature == "products":
        m = re.search(r"survives in (\d+) of", d)
        if m:
            return "exact" if m.group(1) != "0" else "rounded"
        m = re.search(r"x x = ([0-9.e+-]+), the exact product ([0-9.e+-]+)", d)
        if m:
            return "exact" if m.group(1) == m.group(2) else "rounded"
    if feature == "subnormal_in":
        m = re.search(r"\(A, then B\): ([0-9.e+-]+), ([0-9.e+-]+) \(exact ([0-9.e+-]+)\)", d)
        if m:
            a, b, x = (float(g) for g in m.groups())
            return "kept" if a == b == x else "flushed" if a == b == 0 else "other"
    if feature == "subnormal_out":
        m = re.search(r"as products: ([0-9.e+-]+), ([0-9.e+-]+)$", d)
        if m:
            a, b = (float(g) for g in m.groups())
            return "kept" if a and b else "flushed" if a == b == 0 else "other"
    if feature == "monotonic":
        m = re.search(r": (\d+) of (\d+) results smaller", d)
        if m:
            return "yes" if m.group(1) == "0" else "no"
    if feature == "cr_share":
        m = re.search(r": (\d+) of (\d+) outputs correctly rounded", d)
        if m:
            return f"{100.0 * int(m.group(1)) / int(m.group(2)):.1f}"
    if feature in ("scale_A", "scale_B"):
        if "unscaled" in d and "->" not in d:
            return "n/a"
        m = re.search(r"-> (scaled|saturated \(unscaled\)|\?), \[14, x\] -> x (kept|lost), "
                      r".* next block -> (kept|0|\?)$", d)
        if m:
            big, k1, k2 = m.groups()
            if big.startswith("saturated"):
                return "none"
            if big != "scaled":
                return "other"
            if k1 == "lost":
                return "tensor" if k2 == "0" else "other"
            if k2 == "0":
                return "row" if feature == "scale_A" else "column"
            return "block" if k2 == "kept" else "other"
    if feature == "deterministic":
        m = re.search(r": (\d+) differ from the first", d)
        if m:
            return "yes" if m.group(1) == "0" else "no"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("expect")
    ap.add_argument("doc")
    ap.add_argument("--set", action="append", default=[], metavar="'OP DTYPE MODE FEATURE=VALUE'")
    ap.add_argument("-v", "--verbose", action="store_true", help="every feature, not only FAIL and NEW")
    a = ap.parse_args()
    rules = read_expect(a.expect)
    doc = json.load(open(a.doc))
    override = {}
    for s in a.set:
        key, _, val = s.partition("=")
        override[tuple(key.split())] = val
    counts = {"PASS": 0, "FAIL": 0, "NEW": 0}
    contradicted = 0
    for row in doc["rows"]:
        if "features" not in row:
            continue
        for feat, f in sorted(row["features"].items()):
            key = (row["op"], row["dtype"], row["mode"], feat)
            text = override.get(key, f["value"])
            derived = from_detail(feat, f["detail"])
            if derived is not None and derived != text:
                contradicted += 1
                print(f"DETAIL {' '.join(key)}: value {text}, its detail says {derived}: {f['detail']}")
            r = find(rules, *key)
            v = judge(r, text)
            counts[v] += 1
            if v != "PASS" or a.verbose:
                want = r["value"] if r else "(no rule)"
                where = f"line {r['line']}" if r else ""
                print(f"{v:4} {' '.join(key):40} {text:>10}  expected {want:8} {where}")
    print(f"{a.expect} on {a.doc}: {counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['NEW']} NEW;"
          f" {contradicted} value(s) contradict their detail")
    return 1 if counts["FAIL"] or contradicted else 0


if __name__ == "__main__":
    sys.exit(main())
