#!/usr/bin/env python3
"""cuda_arch.py: the CUDA architectures a build of gpuval carries (meson.build's gpu_arch).

Usage: cuda_arch.py VALUE [--nvidia-smi PATH]

VALUE is the gpu_arch option:
  auto      SASS for each GPU of this machine (nvidia-smi's compute_cap) and PTX of the oldest
            supported architecture (compute_75), which the driver JIT-compiles on any GPU from
            sm_75 up. Without a GPU (CI, a packaging host): the portable default below.
  all       SASS for sm_75, sm_80, sm_86, sm_89, sm_90, sm_100 and sm_120, PTX compute_75 and
            PTX of the newest (compute_120) for GPUs newer than the build.
  a list    "80,90": SASS for each, and PTX of the newest (for GPUs newer than the build)
            unless the list names PTX itself; "compute_75": PTX only (the driver JIT-compiles every
            kernel: how the generic paths are run on a newer GPU); items may be mixed.

The portable default without a GPU is SASS sm_80 and sm_90 with PTX compute_75 and compute_90:
sm_80's SASS runs natively on every 8.x GPU (A100, A40, A10, L4, L40, RTX 30xx/40xx), sm_90's
on H100/H200, compute_75's PTX on a T4 (the generic paths) and compute_90's PTX on Blackwell and
later (JIT with the fast paths). Each virtual architecture is one more compile of every kernel
(about +15 % of the kernels' build time each on 2 cores; `all` costs about 2.9x), so the
everyday default stops there; `all` is for packaging.

Prints three lines: the nvcc -gencode flags (space-separated), the architectures as a
comma-separated list ("sm_80,sm_90,compute_75,compute_90"), and how they were chosen.
Exits 2 with a message on a malformed VALUE.
"""
import re
import shutil
import subprocess
import sys

# The architectures nvcc 13 builds for (its --list-gpu-arch), oldest first; sm_75 is the oldest
# CUDA 13 supports.
SUPPORTED = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]
ALL = [75, 80, 86, 89, 90, 100, 120]
OLDEST = 75
PORTABLE_SASS = [80, 90]
PORTABLE_PTX = [75, 90]


def fail(msg):
    print("gpu_arch: " + msg, file=sys.stderr)
    sys.exit(2)


def detect(smi):
    """The compute capabilities of this machine's GPUs (e.g. [90]), [] without any."""
    exe = smi or shutil.which("nvidia-smi")
    if not exe:
        return [], "no nvidia-smi"
    try:
        out = subprocess.run([exe, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [], "nvidia-smi failed (%s)" % e
    if out.returncode != 0:
        return [], "nvidia-smi found no GPU"
    caps = []
    for line in out.stdout.split("\n"):
        m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", line)
        if m:
            cc = int(m.group(1)) * 10 + int(m.group(2))
            if cc not in caps:
                caps.append(cc)
    return sorted(caps), "nvidia-smi"


def parse_list(value):
    sass, ptx = [], []
    for item in value.split(","):
        item = item.strip()
        m = re.fullmatch(r"(?:sm_)?(\d+)", item)
        p = re.fullmatch(r"compute_(\d+)", item)
        if m:
            cc = int(m.group(1))
            if cc not in SUPPORTED:
                fail("%s is not an architecture nvcc 13 builds for (%s)" %
                     (item, ", ".join(str(s) for s in SUPPORTED)))
            if cc not in sass:
                sass.append(cc)
        elif p:
            cc = int(p.group(1))
            if cc not in SUPPORTED:
                fail("%s is not an architecture nvcc 13 builds for" % item)
            if cc not in ptx:
                ptx.append(cc)
        else:
            fail("'%s': expected auto, all, or a list of compute capabilities like 80,90 "
                 "(digits, sm_NN) and compute_NN for PTX only" % item)
    if not sass and not ptx:
        fail("an empty list")
    return sorted(sass), sorted(ptx)


def main():
    args = sys.argv[1:]
    smi = None
    if "--nvidia-smi" in args:
        i = args.index("--nvidia-smi")
        if i + 1 >= len(args):
            fail("--nvidia-smi needs a path")
        smi = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        fail("usage: cuda_arch.py VALUE [--nvidia-smi PATH]")
    value = args[0].strip()
    if value == "auto":
        caps, how = detect(smi)
        caps = [c for c in caps if c >= OLDEST]  # older GPUs: CUDA 13 runs nothing there
        if caps:
            sass = [c for c in caps if c in SUPPORTED]
            ptx = [OLDEST]
            if any(c not in SUPPORTED for c in caps):  # newer than nvcc knows: newest PTX
                ptx.append(max(SUPPORTED))
            why = "auto: this machine's GPUs (%s, %s) and PTX compute_%d" % (
                ", ".join("%d.%d" % (c // 10, c % 10) for c in caps), how, OLDEST)
        else:
            sass, ptx = list(PORTABLE_SASS), list(PORTABLE_PTX)
            why = "auto: no GPU here (%s): the portable default" % how
    elif value == "all":
        sass, ptx = list(ALL), [OLDEST, max(ALL)]
        why = "all"
    else:
        sass, ptx = parse_list(value)
        why = "list"
        if sass and not ptx:  # the newest one's PTX too (same front-end pass): newer GPUs JIT it
            ptx = [max(sass)]
            why = "list, with PTX of the newest"
    flags = []
    for cc in sass:
        code = "sm_%d" % cc
        if cc in ptx:  # SASS and PTX from one front-end pass
            code = "[sm_%d,compute_%d]" % (cc, cc)
        flags.append("-gencode=arch=compute_%d,code=%s" % (cc, code))
    for cc in ptx:
        if cc not in sass:
            flags.append("-gencode=arch=compute_%d,code=compute_%d" % (cc, cc))
    names = ["sm_%d" % c for c in sass] + ["compute_%d" % c for c in ptx]
    print(" ".join(flags))
    print(",".join(names))
    print(why)


if __name__ == "__main__":
    main()
