#!/usr/bin/env python3
"""long_functions.py: the C functions of a tree longer than a limit, longest first.

    tools/long_functions.py [--root DIR] [--over N] [DIR ...]

A function is counted from the line that names it (an unindented line ending in ')' or '{'
whose body opens at column 0 or on that line) to the unindented '}' that closes it; the house
style (clang-format, .clang-format) puts every function there, so no parser is needed. Lines
are physical lines, comments and blanks included: what a reader scrolls through. Always exits 0;
it measures, the STYLE.md guideline (a function does one thing) is the reader's call.
"""
import argparse
import os
import re
import sys

HEAD = re.compile(r"^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(")


def functions(path):
    """(name, first line, length) for each function definition in a C file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        if m and not lines[i].rstrip().endswith(";") and not lines[i].startswith(("typedef", "#")):
            # the signature may wrap: find the line that opens the body
            j = i
            while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and "{" in lines[j] and (j == i or lines[j].startswith("{")
                                                       or lines[j].startswith((" ", "\t"))):
                k = j
                while k < len(lines) and lines[k] != "}":
                    k += 1
                if k < len(lines) and "=" not in lines[i].split("(")[0]:
                    out.append((m.group(1), i + 1, k - i + 1))
                    i = k + 1
                    continue
        i += 1
    return out


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=here, help="the tree (default: this script's)")
    ap.add_argument("--over", type=int, default=100, help="list functions longer than this (100)")
    ap.add_argument("dirs", nargs="*", default=["src"], help="folders under the root (src)")
    a = ap.parse_args()
    rows = []
    for d in a.dirs:
        for base, _, files in os.walk(os.path.join(a.root, d)):
            for name in files:
                if name.endswith((".c", ".cu")):
                    path = os.path.join(base, name)
                    rel = os.path.relpath(path, a.root)
                    rows += [(n, rel, line, length) for n, line, length in functions(path)]
    long_rows = sorted((r for r in rows if r[3] > a.over), key=lambda r: (-r[3], r[1]))
    for name, rel, line, length in long_rows:
        print(f"{length:5d}  {rel}:{line}  {name}")
    print(f"{len(long_rows)} of {len(rows)} functions over {a.over} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
