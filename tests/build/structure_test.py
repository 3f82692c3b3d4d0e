#!/usr/bin/env python3
"""tests/build/structure_test.py SRCDIR: tools/structure.py --check holds the tree to
docs/DESIGN.md's floors, and is shown to fail.

- on the tree: no arrow up, no circle, every wing on a floor (exit 0);
- on a planted tree (the tree's own DESIGN.md, a few files): C includes from core/ up to io/,
  from kernels/ up to src/ and from python/ up to tests/, a circle of two Python modules of
  ci/ and a wing the table does not know are each named, and --check exits 1; the same tree
  without them exits 0.

The C includes of src/ are held wing by wing by tests/cpu/test_layers.c; what this adds is the
Python side and the floors of the whole tree, which the layer test does not read.
Exit 0 when all hold, 1 with what failed.
"""
import os
import subprocess
import sys
import tempfile

SRC = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.getcwd()
TOOL = os.path.join(SRC, "tools", "structure.py")
failures = []


def run(root):
    p = subprocess.run([sys.executable, TOOL, "--root", root, "--check"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def expect(cond, what, out=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
        sys.stdout.write(out)


def plant(root, rel, text=""):
    p = os.path.join(root, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as f:
        f.write(text)


rc, out = run(SRC)
expect(rc == 0, "the tree: no arrow up, no circle, every wing on a floor", out)
print(out, end="")

with tempfile.TemporaryDirectory() as root:
    with open(os.path.join(SRC, "docs", "DESIGN.md"), encoding="utf-8") as f:
        plant(root, "docs/DESIGN.md", f.read())
    # a clean tree: down the floors only
    plant(root, "abi/gv_abi.h")
    plant(root, "src/core/gv.h", '#include "../../abi/gv_abi.h"\n')
    plant(root, "src/io/doc.h", '#include "core/gv.h"\n')
    plant(root, "src/io/doc.c", '#include "io/doc.h"\n')
    plant(root, "python/src/gpuval/__init__.py", "from ._core import judge\n")
    plant(root, "python/src/gpuval/_core.py", "import json\n\ndef judge():\n    pass\n")
    plant(root, "ci/run.py", "import sys\nimport gpuval\nfrom gpuval import _core\n")
    plant(root, "tests/cpu/test_x.c", '#include "io/doc.h"\n#include "gv_abi.h"\n')
    rc, out = run(root)
    expect(rc == 0 and "arrows up 0" in out and "circles 0" in out, "a clean planted tree", out)

    plant(root, "src/core/up.c", '#include "core/gv.h"\n#include "io/doc.h"\n')
    plant(root, "kernels/k.cu", '#include "../src/core/gv.h"\n')
    plant(root, "tests/kit.h", "")
    plant(root, "python/ext.c", '#include "../tests/kit.h"\n')
    plant(root, "ci/a.py", "from b import f\n")
    plant(root, "ci/b.py", "import a\n")
    plant(root, "src/attic/old.c", "")
    rc, out = run(root)
    expect(rc == 1, "--check exits 1 on the planted tree (%d)" % rc, out)
    expect("arrow up: src/core/up.c -> src/io/doc.h" in out, "core including io is named", out)
    expect("arrow up: kernels/k.cu -> src/core/gv.h" in out, "kernels including core", out)
    expect("arrow up: python/ext.c -> tests/kit.h" in out, "the package including tests", out)
    expect("circle: ci/a.py <-> ci/b.py" in out, "the Python circle is named", out)
    expect("wings without a floor (not counted): attic" in out, "a wing without a floor", out)
    expect("arrows up 3 " in out and "circles 1 " in out, "counted once each", out)
    for rel in ("src/core/up.c", "kernels/k.cu", "python/ext.c", "ci/b.py", "src/attic/old.c"):
        os.remove(os.path.join(root, rel))
    rc, out = run(root)
    expect(rc == 0, "the plants removed, it passes again (%d)" % rc, out)

print("structure: %d failed" % len(failures))
sys.exit(1 if failures else 0)
