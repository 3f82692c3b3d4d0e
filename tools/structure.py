#!/usr/bin/env python3
"""structure.py: the tree's shape in four numbers, read from the sources' includes and imports.

    tools/structure.py [--root DIR] [--design FILE] [--check] [--list]

Rooms are the wings: the top-level folders of src/ (core, ops, io, ...) and the folders beside
src/ that hold sources (abi, kernels, oracle, include, tests, tools, python, ci). Floors are
the levels of docs/DESIGN.md's "Floors" table, bottom up. Between files the edges are the C
`#include "..."` lines (resolved as the compiler resolves them: beside the file, then src/ for
src/, then include/, abi/, src/, oracle/, kernels/ for the folders outside src/ that
tests/meson.build gives them) and Python's imports of the tree's own modules (beside the file,
then python/src). An *arrow up* is an edge from a wing to a wing on a higher floor; *sideways*
is an edge between two wings of one floor (in src/ each is also a layer-rule violation, which
tests/cpu/test_layers.c names); a *circle* is a strongly connected set of two or more modules
(a .c and its .h are one module, as the layer test counts them).

The layer test holds the C includes of src/ to the rule wing by wing; this script adds the
Python side and the floors, and counts what the rule is about, for a before and after. With
--check it exits 1 on any arrow up or circle (the CPU suite runs it so: tests/meson.build's
`structure`). Exit 2 on a bad tree or a DESIGN.md without the table.
"""
import argparse
import os
import re
import sys

# The folders beside src/ whose sources are read; src/'s own folders are wings of their own.
TOPS = ("abi", "kernels", "oracle", "include", "src", "tests", "tools", "python", "ci")
# Where the C sources outside src/ find their includes (tests/meson.build's test_inc).
OUTSIDE_INC = ("include", "abi", "src", "oracle", "kernels")
C_SUFFIXES = (".c", ".h", ".cu", ".cuh")


def read_floors(design):
    """{wing: floor} from the fenced block that follows the '**Floors**' line of DESIGN.md:
    one line a floor, 'N  wing wing ...', N counting up from 0 at the bottom."""
    try:
        with open(design, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        sys.exit(f"structure: {design}: {e.strerror}")
    m = re.search(r"\*\*Floors\*\*.*?```\n(.*?)```", text, re.S)
    if not m:
        sys.stderr.write(f"structure: {design} has no **Floors** table\n")
        sys.exit(2)
    floors = {}
    for line in m.group(1).splitlines():
        words = line.split("#")[0].split()
        if not words:
            continue
        if not words[0].isdigit():
            sys.stderr.write(f"structure: {design}: a floor line starts with its number: {line}\n")
            sys.exit(2)
        for w in words[1:]:
            if w in floors:
                sys.stderr.write(f"structure: {design}: {w} stands on two floors\n")
                sys.exit(2)
            floors[w] = int(words[0])
    return floors


def wing_of(rel):
    parts = rel.split("/")
    if parts[0] == "src":
        return parts[1] if len(parts) > 2 else "src"
    return parts[0]


def module_of(rel):
    """A .c and its .h are one module; a Python file is its own."""
    stem, ext = os.path.splitext(rel)
    return stem if ext in C_SUFFIXES else rel


def sources(root):
    for top in TOPS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith(C_SUFFIXES) or name.endswith(".py"):
                    yield os.path.relpath(os.path.join(dirpath, name), root)


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def c_edges(root, rel, text):
    here = os.path.dirname(rel)
    top = rel.split("/")[0]
    dirs = [here] + (["src"] if top == "src" else []) + (list(OUTSIDE_INC) if top in
                                                        ("tests", "tools", "python", "ci") else [])
    for name in INCLUDE.findall(text):
        for d in dirs:
            p = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(os.path.join(root, p)):
                yield p
                break


IMPORT = re.compile(r"^\s*(?:from\s+(\.*)([\w.]*)\s+import\s+([\w, ()]+)|import\s+([\w., ]+))", re.M)


def py_edges(root, rel, text):
    here = os.path.dirname(rel)

    def find(dotted, base_dirs):
        path = dotted.replace(".", "/")
        for d in base_dirs:
            for cand in (os.path.join(d, path + ".py"), os.path.join(d, path, "__init__.py")):
                cand = os.path.normpath(cand)
                if os.path.isfile(os.path.join(root, cand)):
                    return cand
        return None

    for m in IMPORT.finditer(text):
        dots, frm, names, plain = m.groups()
        if plain is not None:
            targets = [(n.split(" as ")[0].strip(), [here, "python/src"]) for n in plain.split(",")]
        elif dots:
            base = here
            for _ in range(len(dots) - 1):
                base = os.path.dirname(base)
            subs = [n.split(" as ")[0].strip(" ()") for n in names.split(",")]
            targets = [(frm, [base])] if frm else []
            targets += [((frm + "." if frm else "") + s, [base]) for s in subs if s]
        else:
            subs = [n.split(" as ")[0].strip(" ()") for n in names.split(",")]
            targets = [(frm, [here, "python/src"])]
            targets += [(frm + "." + s, [here, "python/src"]) for s in subs if s]
        for dotted, bases in targets:
            if not dotted:
                continue
            hit = find(dotted, bases)
            if hit and hit != rel:
                yield hit


def graph(root):
    edges = set()
    files = 0
    for rel in sources(root):
        files += 1
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        found = py_edges(root, rel, text) if rel.endswith(".py") else c_edges(root, rel, text)
        for to in found:
            edges.add((rel, to))
    return files, edges


def circles(edges):
    """The strongly connected sets of two or more modules (Tarjan's, iterative)."""
    succ = {}
    for a, b in edges:
        ma, mb = module_of(a), module_of(b)
        if ma != mb:
            succ.setdefault(ma, set()).add(mb)
            succ.setdefault(mb, set())
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(succ):
        if start in index:
            continue
        work = [(start, iter(sorted(succ[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = counter[0]
                counter[0] += 1
                stack.append(w)
                on.add(w)
                work.append((w, iter(sorted(succ[w]))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return sorted(out)


def measure(root, floors):
    files, edges = graph(root)
    wings = {}
    for rel in sources(root):
        wings.setdefault(wing_of(rel), 0)
        wings[wing_of(rel)] += 1
    unknown = sorted(w for w in wings if w not in floors)
    up, side = [], []
    for a, b in sorted(edges):
        wa, wb = wing_of(a), wing_of(b)
        if wa == wb or wa in unknown or wb in unknown:
            continue
        if floors[wa] < floors[wb]:
            up.append((a, b))
        elif floors[wa] == floors[wb]:
            side.append((a, b))
    return {
        "files": files,
        "edges": len(edges),
        "rooms": len(wings),
        "floors": len({floors[w] for w in wings if w in floors}),
        "wings": wings,
        "unknown": unknown,
        "up": up,
        "side": side,
        "circles": circles(edges),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--root", default=here, help="the tree (default: this script's)")
    ap.add_argument("--design", help="the DESIGN.md whose Floors table is used "
                    "(default: ROOT/docs/DESIGN.md)")
    ap.add_argument("--check", action="store_true", help="exit 1 on an arrow up or a circle")
    ap.add_argument("--list", action="store_true", help="list every wing, arrow and circle")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    floors = read_floors(a.design or os.path.join(root, "docs", "DESIGN.md"))
    r = measure(root, floors)
    print(f"rooms {r['rooms']}  floors {r['floors']}  arrows up {len(r['up'])}  "
          f"sideways {len(r['side'])}  circles {len(r['circles'])}  "
          f"({r['files']} files, {r['edges']} edges)")
    if a.list:
        for w in sorted(r["wings"], key=lambda w: (floors.get(w, -1), w)):
            print(f"  floor {floors.get(w, '?'):>2}  {w:<8} {r['wings'][w]:4d} files")
    for a_, b_ in r["up"]:
        print(f"  arrow up: {a_} -> {b_}")
    if a.list:
        for a_, b_ in r["side"]:
            print(f"  sideways: {a_} -> {b_}")
    for c in r["circles"]:
        print("  circle: " + " <-> ".join(c))
    if r["unknown"]:
        print("  wings without a floor (not counted): " + ", ".join(r["unknown"]))
    if a.check and (r["up"] or r["circles"] or r["unknown"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
