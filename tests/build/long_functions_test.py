#!/usr/bin/env python3
"""tests/build/long_functions_test.py SRCDIR: tools/long_functions.py counts what a reader
scrolls through, and is shown to count right.

- on a planted tree: a one-line signature, a wrapped one, a static one returning a pointer, a
  struct initialiser and a prototype (neither is a function), each function's first line and
  length known by construction; --over lists exactly the ones above the limit;
- on the tree: every function of src/ is found (more than 1000) and its longest is named.

Exit 0 when all hold, 1 with what failed.
"""
import os
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.getcwd()
TOOL = os.path.join(SRC, "tools", "long_functions.py")
failures = []


def run(root, over):
    p = subprocess.run([sys.executable, TOOL, "--root", root, "--over", str(over), "src"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr


def body(n):
    """n lines of a body: the function is n + 3 lines with its signature and braces."""
    return "".join(f"    x += {i};\n" for i in range(n))


with tempfile.TemporaryDirectory() as root:
    os.makedirs(os.path.join(root, "src", "core"))
    text = ("/* a planted file */\n"                                    # 1
            "int proto(int x);\n"                                       # 2: a prototype
            "static const int table[] = {\n    1,\n};\n"                # 3-5: not a function
            "int one_line(int x)\n{\n" + body(5) + "    return x;\n}\n"  # 6-14: 9 lines
            "static double *wrapped(double *x,\n"                       # 15
            "                       int n)\n{\n" + body(20) + "    return x;\n}\n")  # 15-39: 25
    with open(os.path.join(root, "src", "core", "planted.c"), "w") as f:
        f.write(text)
    rc, out, err = run(root, 0)
    want = ["   25  src/core/planted.c:15  wrapped", "    9  src/core/planted.c:6  one_line"]
    if rc != 0 or out != want:
        failures.append(f"planted tree, --over 0: rc {rc}, {out!r}, wanted {want!r}")
    if "2 of 2 functions over 0 lines" not in err:
        failures.append(f"planted tree: the count line is {err.strip()!r}")
    rc, out, err = run(root, 9)  # over, not at: the 9-line one is not listed
    if out != want[:1]:
        failures.append(f"planted tree, --over 9: {out!r}, wanted {want[:1]!r}")

rc, out, err = run(SRC, 0)
total = int(err.split(" of ")[1].split()[0]) if " of " in err else 0
if rc != 0 or total < 1000 or not out:
    failures.append(f"the tree: rc {rc}, {total} functions found, {len(out)} listed")

for f in failures:
    print("FAIL:", f)
print(f"long_functions: {'ok' if not failures else str(len(failures)) + ' failed'}")
sys.exit(1 if failures else 0)
