#!/usr/bin/env python3
"""fence_audit.py NVCC SRCDIR: every kernel that hands data between blocks through a counter
orders it with fences, read from the kernel's PTX.

The last-block pattern (a block stores its result, takes a ticket from an atomic counter, and
the block with the last ticket loads every other block's result) is message passing between
blocks: it needs a release between a block's stores and its ticket and an acquire between the
ticket and the loads (CUDA C++ Programming Guide, "Memory Fence Functions"; PTX ISA, "Memory
Consistency Model"). Without them the hardware may show the last block a result that is not
there yet. On an H200 that reordering was never seen in 96,000 launches without the fences
(docs/error-models.md, "Repeat canaries"), so no run can be counted on to catch the missing
fence; the code can. This audit compiles each kernel source that uses atomics to PTX and, in
every entry function, for every integer atomic on global memory that is followed in program
order by a load from global memory that is not read-only (ld.global or ld.volatile.global,
not ld.global.nc), requires:
  - release: a fence of GPU or system scope (membar.gl, membar.sys, fence.sc/acq_rel.gpu/sys)
    between the last global store before the atomic and the atomic, or the atomic itself
    .release / .acq_rel;
  - acquire: such a fence between the atomic and the first of those loads, or the atomic
    .acquire / .acq_rel, or the load ld.acquire.
Program order is the PTX text's order inside the function: a fence on one branch of an if
counts for both (an audit of text, not of paths; it reads what nvcc emits for these kernels).

The planted race reduce.sum.nofence (onepass_kernel<T, false>, kernels/reduce_onepass.cuh) must
be reported, and nothing else: exit 0 when exactly the planted kernels are reported, 1
otherwise (an unexpected kernel without its fences, or the planted one not seen: the audit
went blind), 77 without nvcc.
"""
import os
import re
import subprocess
import sys
import tempfile

# onepass_kernel<float, false> and <double, false>: the planted race (src/ops/reduce.c)
PLANTED = re.compile(r"onepass14onepass_kernelI[fd]Lb0E")

FENCE = re.compile(r"^\s*(membar\.(gl|sys)|fence\.(sc|acq_rel)\.(gpu|sys))\b")
ATOM = re.compile(r"^\s*atom\.([a-z_.]*\.)?global\.([a-z_.]*\.)?(inc|dec|add|cas|exch|or|and|xor|min|max)\.(u32|s32|u64|b32|b64)\b")
STORE = re.compile(r"^\s*(st|red)\.([a-z_.]*\.)?global\b|^\s*st\.global\b")
LOAD = re.compile(r"^\s*ld\.(volatile\.|relaxed\.[a-z]+\.|acquire\.[a-z]+\.)?global\.(?!nc)")
ENTRY = re.compile(r"^\.(visible\s+)?\.entry\s+(\S+)\(")


def functions(ptx):
    """(name, [lines]) of every entry function in a PTX text."""
    name, body = None, []
    for line in ptx.splitlines():
        m = ENTRY.match(line)
        if m:
            if name:
                yield name, body
            name, body = m.group(2), []
        elif name:
            body.append(line)
    if name:
        yield name, body


def audit(name, body):
    """The problems of one function: a list of strings, empty when its tickets are fenced."""
    problems = []
    for i, line in enumerate(body):
        m = ATOM.match(line)
        if not m:
            continue
        sem = line.split()[0]
        loads = [j for j in range(i + 1, len(body)) if LOAD.match(body[j])]
        if not loads:
            continue  # an atomic nobody reads after: an accumulation, not a ticket
        stores = [j for j in range(0, i) if STORE.match(body[j])]
        released = ".release" in sem or ".acq_rel" in sem or (
            any(FENCE.match(body[j]) for j in range((stores[-1] if stores else 0), i)))
        first = loads[0]
        acquired = (".acquire" in sem or ".acq_rel" in sem or ".acquire." in body[first]
                    or any(FENCE.match(body[j]) for j in range(i + 1, first)))
        if stores and not released:
            problems.append("no release fence between the global stores and '%s'" % line.strip())
        if not acquired:
            problems.append("no acquire fence between '%s' and the load '%s'" %
                            (line.strip(), body[first].strip()))
    return problems


def main():
    if len(sys.argv) != 3:
        print("usage: fence_audit.py NVCC SRCDIR", file=sys.stderr)
        return 2
    nvcc, src = sys.argv[1], sys.argv[2]
    kdir = os.path.join(src, "kernels")
    if not os.access(nvcc, os.X_OK):
        print("fence_audit: no nvcc, skipped")
        return 77
    uses_atomics = {}
    for f in sorted(os.listdir(kdir)):
        if f.endswith((".cu", ".cuh")):
            with open(os.path.join(kdir, f)) as fh:
                uses_atomics[f] = "atomic" in fh.read()
    reported, planted_seen, checked = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in sorted(uses_atomics):
            if not f.endswith(".cu"):
                continue
            with open(os.path.join(kdir, f)) as fh:
                text = fh.read()
            includes = re.findall(r'#include\s+"([^"/]+\.cuh)"', text)
            if not (uses_atomics[f] or any(uses_atomics.get(h) for h in includes)):
                continue
            ptx = os.path.join(tmp, f + ".ptx")
            cmd = [nvcc, "-ptx", "-arch=compute_90", "-O3", "-DGV_HAVE_CUDA",
                   "--expt-relaxed-constexpr", "-I" + kdir, os.path.join(kdir, f), "-o", ptx]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print("fence_audit: %s did not compile to PTX:\n%s" % (f, r.stderr))
                return 1
            with open(ptx) as fh:
                for name, body in functions(fh.read()):
                    checked += 1
                    problems = audit(name, body)
                    if PLANTED.search(name):
                        planted_seen += 1
                        if not problems:
                            print("fence_audit: FAIL: the planted race %s (%s) was not reported"
                                  % (name, f))
                            reported.append(name)
                        else:
                            print("fence_audit: planted race %s (%s): %s (expected)"
                                  % (name, f, problems[0]))
                        continue
                    for p in problems:
                        print("fence_audit: FAIL: %s (%s): %s" % (name, f, p))
                    if problems:
                        reported.append(name)
    print("fence_audit: %d kernels read, %d planted races reported, %d unexpected"
          % (checked, planted_seen, len(reported)))
    if planted_seen != 2:
        print("fence_audit: FAIL: expected the 2 planted kernels (f32, f64), saw %d" % planted_seen)
        return 1
    return 1 if reported else 0


if __name__ == "__main__":
    sys.exit(main())
