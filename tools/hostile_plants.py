#!/usr/bin/env python3
"""hostile_plants.py BUILDDIR [PLANT ...]: show that each class of hostile-input bug is caught.

Each file in tests/hostile/plants/ is a small patch that puts back one bug of a class that
tests/hostile/hostile.py (or a CPU test) exists to catch: a damaged file, a hang, a crash, a
wrong exit, an injection, work before a usage error, a message that does not name the fault,
a host bug no invocation sees, the Python API passing on what the library would refuse. Its
header says the class, the meson test that must catch it, the hostile.py parts to run, and the
text that test's output must then hold:

    class: damaged files
    detector: hostile
    parts: judge_inputs
    expect: FAIL damaged files
    why: ...

For every plant, in the source tree BUILDDIR was configured from: apply the patch, rebuild only
what the detecting test runs, run that test and require that it fails with the expected text;
then take the patch back out, rebuild, and require that the same test passes. The tree is put
back even when a step fails or the run is interrupted. It refuses to start on a tree whose
planted files have changes of their own. Prints one line per plant and a summary; exit 0 when
every plant was caught and every clean run passed, 1 otherwise, 2 on a usage error.

It rebuilds and runs tests, so it takes minutes: it is a tool for showing the tests can fail
(after a change to hostile.py or to a planted file, rerun it), not part of the test suite.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
PLANTS = os.path.join(SRC, "tests", "hostile", "plants")


def usage(msg):
    print(f"hostile_plants.py: {msg}\nusage: tools/hostile_plants.py BUILDDIR [PLANT ...]",
          file=sys.stderr)
    sys.exit(2)


def header(path):
    """The plant's key: value lines before its diff."""
    h = {}
    for line in open(path, encoding="utf-8"):
        if line.startswith("diff --git"):
            break
        m = re.match(r"^(class|detector|parts|expect|why):\s*(.*)$", line.rstrip("\n"))
        if m:
            h[m.group(1)] = m.group(2)
    for key in ("class", "detector", "expect"):
        if key not in h:
            usage(f"{path}: no '{key}:' line in its header")
    return h


def planted_files(path):
    return [line.split(" b/", 1)[1].strip() for line in open(path, encoding="utf-8")
            if line.startswith("diff --git")]


def git(*args, check=True):
    return subprocess.run(["git", "-C", SRC] + list(args), capture_output=True, text=True,
                          check=check)


def test_targets(build, name):
    """The files ninja must bring up to date before the meson test NAME runs: its program and
    its declared dependencies (a rebuild of everything would relink every test program)."""
    tests = json.loads(subprocess.run(["meson", "introspect", build, "--tests"],
                                      capture_output=True, text=True, check=True).stdout)
    targets = json.loads(subprocess.run(["meson", "introspect", build, "--targets"],
                                        capture_output=True, text=True, check=True).stdout)
    by_id = {t["id"]: t for t in targets}
    test = next((t for t in tests if t["name"] == name), None)
    if test is None:
        usage(f"no meson test named {name} in {build}")
    files = []
    for dep in test.get("depends", []):
        for f in by_id.get(dep, {}).get("filename", []):
            files.append(os.path.relpath(f, os.path.abspath(build)))
    exe = test["cmd"][0]
    if exe.startswith(os.path.abspath(build)):
        files.append(os.path.relpath(exe, os.path.abspath(build)))
    return sorted(set(files))


def rebuild(build, files):
    p = subprocess.run(["ninja", "-C", build] + files, capture_output=True, text=True)
    if p.returncode != 0:
        return p.stdout[-2000:] + p.stderr[-2000:]
    return None


def run_test(build, name, parts):
    env = dict(os.environ)
    if parts:
        env["HOSTILE_PARTS"] = parts
    t0 = time.monotonic()
    p = subprocess.run(["meson", "test", "-C", build, "--no-rebuild", "-v", name],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def first_line_with(text, needle):
    for line in text.splitlines():
        if needle in line:
            return line.strip()[:160]
    return ""


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) >= 2 else 2
    build = sys.argv[1]
    if not os.path.exists(os.path.join(build, "build.ninja")):
        usage(f"{build}: not a configured meson build directory")
    names = sorted(f[:-5] for f in os.listdir(PLANTS) if f.endswith(".diff"))
    want = sys.argv[2:] or names
    for w in want:
        if w not in names:
            usage(f"no plant {w} (there are: {', '.join(names)})")
    plants = [(w, os.path.join(PLANTS, w + ".diff")) for w in want]
    touched = sorted({f for _, p in plants for f in planted_files(p)})
    dirty = git("status", "--porcelain", "--", *touched).stdout.strip()
    if dirty:
        usage(f"the planted files have changes of their own; commit or stash them first:\n{dirty}")

    applied = []

    def take_back(*_):
        for p in reversed(applied):
            git("apply", "-R", p, check=False)
        applied.clear()
        if _:
            sys.exit(1)

    signal.signal(signal.SIGINT, take_back)
    signal.signal(signal.SIGTERM, take_back)
    bad = 0
    rows = []
    try:
        for name, path in plants:
            h = header(path)
            det = h["detector"]
            targets = test_targets(build, det)
            r = git("apply", path, check=False)
            if r.returncode != 0:
                rows.append((name, h["class"], det, "DOES NOT APPLY", r.stderr.strip()[:160], ""))
                bad += 1
                continue
            applied.append(path)
            err = rebuild(build, targets)
            if err:
                caught, said = "BUILD FAILED", err.strip().splitlines()[-1][:160]
            else:
                rc, out, secs = run_test(build, det, h.get("parts", ""))
                hit = first_line_with(out, h["expect"])
                caught = "caught" if rc != 0 and hit else "NOT CAUGHT"
                said = f"{hit} ({secs:.0f} s)" if hit else f"exit {rc}, no '{h['expect']}'"
            take_back()
            err = rebuild(build, targets)
            if err:
                clean = "BUILD FAILED"
            else:
                rc, out, secs = run_test(build, det, h.get("parts", ""))
                clean = f"passes ({secs:.0f} s)" if rc == 0 else f"FAILS (exit {rc})"
            ok = caught == "caught" and clean.startswith("passes")
            bad += not ok
            rows.append((name, h["class"], det, caught, said, clean))
            print(f"{'ok ' if ok else 'BAD'} {name}: {h['class']}; {det}: planted {caught}: "
                  f"{said}; clean {clean}", flush=True)
    finally:
        take_back()
    print(f"hostile_plants: {len(rows)} plants, {len(rows) - bad} caught and clean again, "
          f"{bad} not")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
