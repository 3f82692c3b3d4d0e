#!/usr/bin/env python3
"""tests/build/dead_exports_test.py SRCDIR BUILDDIR: no exported function or object of the
wings' static libraries (BUILDDIR/libgv*.a.p/*.o) is without a caller.

An external symbol of a wing's object is used when another object of the build (a wing, the
gpuval command, a test, a tool) references it (`nm -u`), when it is the public API
(include/gpuval.map), or when some source file names it beyond its one definition: the
sources of a CUDA build, compiled or not here, and Python's ctypes calls count. A symbol named
nowhere else is dead code (it fails the test, each one named). One that only its own file
calls could be static; those are listed, not failed (a header may offer them on purpose).

GPUVAL_DEAD_PLANT names a symbol to treat as unreferenced by every object (a planted dead
export) so that the test can be shown to fail. Exit 0 when every export has a caller.
"""
import os
import re
import subprocess
import sys

SOURCE_DIRS = ["src", "kernels", "oracle", "abi", "include", "tests", "tools", "python", "ci",
               "examples", "probe"]
SOURCE_ENDINGS = (".c", ".h", ".cu", ".cuh", ".py", ".in", ".map")


def nm(args, objects):
    out = subprocess.run(["nm"] + args + objects, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def wing_objects(build):
    objs = []
    for d in sorted(os.listdir(build)):
        if d.startswith("libgv") and d.endswith(".a.p"):
            for root, _, files in os.walk(os.path.join(build, d)):
                objs += [os.path.join(root, f) for f in files if f.endswith(".o")]
    return objs


def all_objects(build):
    objs = []
    for root, _, files in os.walk(build):
        if "meson-private" in root:
            continue
        objs += [os.path.join(root, f) for f in files if f.endswith(".o")]
    return objs


def source_texts(src):
    texts = {}
    for d in SOURCE_DIRS:
        for root, _, files in os.walk(os.path.join(src, d)):
            for f in files:
                if f.endswith(SOURCE_ENDINGS):
                    path = os.path.join(root, f)
                    with open(path, encoding="utf-8", errors="replace") as fh:
                        texts[os.path.relpath(path, src)] = fh.read()
    return texts


def main():
    src, build = sys.argv[1], sys.argv[2]
    wings = wing_objects(build)
    if not wings:
        sys.exit(f"{build}: no libgv*.a.p objects (not a gpuval build directory?)")
    defined = set()
    for line in nm(["--defined-only", "-g"], wings):
        parts = line.split()
        # names with a leading "__" are the toolchain's, not gpuval's: the sanitizer build
        # defines an __odr_asan.NAME guard beside every global
        if len(parts) == 3 and parts[1] in "TDRBG" and not parts[2].startswith("__"):
            defined.add(parts[2])
    referenced = {line.split()[-1] for line in nm(["-u"], all_objects(build)) if line.strip()
                  and not line.endswith(":")}
    plant = os.environ.get("GPUVAL_DEAD_PLANT")
    if plant:
        referenced.discard(plant)
    public = set(re.findall(r"^\s*(\w+);", open(os.path.join(src, "include", "gpuval.map"),
                                                   encoding="utf-8").read(), re.M))
    texts = source_texts(src)
    dead, local = [], []
    for sym in sorted(defined - referenced - public):
        word = re.compile(r"\b%s\b" % re.escape(sym))
        # every mention outside headers and the map (declarations, not uses), file by file
        uses = {p: len(word.findall(t)) for p, t in texts.items()
                if not p.endswith((".h", ".map"))}
        uses = {p: n for p, n in uses.items() if n}
        mentions = sum(uses.values())
        if plant and sym == plant:
            mentions = 1  # as though named only where it is defined
        if mentions <= 1:
            dead.append(f"{sym} ({', '.join(sorted(uses)) or 'no source names it'})")
        elif len(uses) == 1:
            local.append(f"{sym} ({next(iter(uses))})")
    for d in dead:
        print(f"dead export: {d}: nothing calls it")
    for s in local:
        print(f"note: {s}: called only in its own file (could be static)")
    print(f"{len(defined)} exported symbols of the wings: {len(dead)} without a caller, "
          f"{len(local)} called only in their own file")
    return 1 if dead else 0


if __name__ == "__main__":
    sys.exit(main())
