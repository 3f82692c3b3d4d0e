#!/usr/bin/env python3
"""tests/build/test_durations_test.py SRCDIR: tools/test_durations.py on two small Criterion
JUnit files: the longest tests first, tests marked SKIPPED (left out by a --filter) counted and
not listed, totals per suite and per file, a failure marked, an unreadable file an error."""
import os
import subprocess
import sys
import tempfile

XML_A = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="Criterion Tests" tests="4" failures="1" errors="0" disabled="1">
  <testsuite name="gpu_registry" tests="3" failures="1" errors="0" disabled="0" skipped="0" time="9.0">
    <testcase name="gemm" assertions="3" status="PASSED" time="5.500"></testcase>
    <testcase name="gemm" assertions="3" status="FAILED" time="2.250"><failure type="assert" message="x">x</failure></testcase>
    <testcase name="fft" assertions="3" status="PASSED" time="1.250"></testcase>
  </testsuite>
  <testsuite name="gpu_faults" tests="1" failures="0" errors="0" disabled="1" skipped="1" time="0.000">
    <testcase name="hang" assertions="0" status="SKIPPED" time="0.000"><skipped/></testcase>
  </testsuite>
</testsuites>
"""
XML_B = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="Criterion Tests" tests="1" failures="0" errors="0" disabled="0">
  <testsuite name="gpu_faults" tests="1" failures="0" errors="0" disabled="0" skipped="0" time="7.0">
    <testcase name="hang" assertions="9" status="PASSED" time="7.000"></testcase>
  </testsuite>
</testsuites>
"""


def main():
    tool = os.path.join(sys.argv[1], "tools", "test_durations.py")
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "gpu-a.xml"), os.path.join(tmp, "gpu-b.xml")
        open(a, "w").write(XML_A)
        open(b, "w").write(XML_B)
        p = subprocess.run([sys.executable, tool, "-n", "3", a, b], capture_output=True, text=True)
        out = p.stdout.splitlines()
        print(p.stdout, p.stderr)
        want = ["4 tests ran, 16.0 s of test time, 2 files (1 skipped or filtered out)",
                "    5.50 s  gpu_registry::gemm  (gpu-a)",
                "    7.00 s  gpu_faults::hang  (gpu-b)"]
        if p.returncode != 0 or out[:1] != want[:1]:
            bad.append("header: %r" % out[:1])
        if out[1:3] != [want[2], want[1]]:
            bad.append("longest first: %r" % out[1:3])
        if out[3:4] != ["    2.25 s  gpu_registry::gemm  FAILED  (gpu-a)"]:
            bad.append("third longest, marked FAILED: %r" % out[3:4])
        row = "%8.1f s  %4d tests  %s"
        if out[out.index("per suite:") + 1:][:2] != [row % (9.0, 3, "gpu_registry"),
                                                     row % (7.0, 1, "gpu_faults")]:
            bad.append("per suite totals")
        if out[out.index("per file:") + 1:] != [row % (9.0, 3, "gpu-a"), row % (7.0, 1, "gpu-b")]:
            bad.append("per file totals")
        p = subprocess.run([sys.executable, tool, os.path.join(tmp, "missing.xml")],
                           capture_output=True, text=True)
        if p.returncode != 1 or "missing.xml" not in p.stderr:
            bad.append("a missing file: exit %d, %r" % (p.returncode, p.stderr))
    for x in bad:
        print("FAIL " + x)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
