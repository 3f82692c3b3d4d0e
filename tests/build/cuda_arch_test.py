#!/usr/bin/env python3
"""tests/build/cuda_arch_test.py SRCDIR: tools/cuda_arch.py (meson's gpu_arch) gives the
architectures the option promises: auto on a machine with GPUs (a stand-in nvidia-smi), auto
without one, all, lists, PTX-only items, and refuses malformed values."""
import os
import stat
import subprocess
import sys
import tempfile

src = sys.argv[1]
tool = os.path.join(src, "tools", "cuda_arch.py")
failures = 0


def run(value, smi=None):
    args = [sys.executable, tool, value]
    if smi:
        args += ["--nvidia-smi", smi]
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout.split("\n"), p.stderr


def expect(what, got, want):
    global failures
    if got != want:
        failures += 1
        print("FAIL %s: got %r, want %r" % (what, got, want))
    else:
        print("ok   %s: %s" % (what, got))


def fake_smi(d, lines, rc=0):
    path = os.path.join(d, "smi%d" % len(os.listdir(d)))
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + "".join("echo '%s'\n" % l for l in lines) + "exit %d\n" % rc)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


with tempfile.TemporaryDirectory() as d:
    # a machine with an H100 and an A40: their SASS, and compute_75's PTX for every other GPU
    rc, out, _ = run("auto", fake_smi(d, ["9.0", "8.6", "9.0"]))
    expect("auto, GPUs 9.0 and 8.6", (rc, out[1]), (0, "sm_86,sm_90,compute_75"))
    expect("auto flags", out[0].split(), ["-gencode=arch=compute_86,code=sm_86",
                                          "-gencode=arch=compute_90,code=sm_90",
                                          "-gencode=arch=compute_75,code=compute_75"])
    # nvidia-smi present but no GPU (exit 9 as on a driver without devices): the portable set
    rc, out, _ = run("auto", fake_smi(d, ["No devices were found"], rc=9))
    expect("auto, no GPU", (rc, out[1]), (0, "sm_80,sm_90,compute_75,compute_90"))
    rc, out, _ = run("auto", os.path.join(d, "does-not-exist"))
    expect("auto, no nvidia-smi", (rc, out[1]), (0, "sm_80,sm_90,compute_75,compute_90"))
    # a GPU newer than this nvcc knows: no SASS can run there, the newest PTX is JIT-compiled
    rc, out, _ = run("auto", fake_smi(d, ["13.0"]))
    expect("auto, GPU newer than nvcc", (rc, out[1]), (0, "compute_75,compute_121"))

rc, out, _ = run("all")
expect("all", (rc, out[1]),
       (0, "sm_75,sm_80,sm_86,sm_89,sm_90,sm_100,sm_120,compute_75,compute_120"))
rc, out, _ = run("90")
expect("90 (SASS and its PTX)", (rc, out[0]), (0, "-gencode=arch=compute_90,code=[sm_90,compute_90]"))
rc, out, _ = run("80,90")
expect("80,90", (rc, out[1]), (0, "sm_80,sm_90,compute_90"))
rc, out, _ = run("compute_75")
expect("compute_75 (PTX only)", (rc, out[0]), (0, "-gencode=arch=compute_75,code=compute_75"))
rc, out, _ = run("sm_86, compute_75")
expect("sm_86, compute_75", (rc, out[1]), (0, "sm_86,compute_75"))
for bad in ["", "x", "91", "70", "compute_70", "80,,90"]:
    rc, out, err = run(bad)
    expect("refused %r" % bad, (rc, err.startswith("gpu_arch: ")), (2, True))

print("%d failures" % failures)
sys.exit(1 if failures else 0)
