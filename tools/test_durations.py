#!/usr/bin/env python3
"""tools/test_durations.py [-n N] FILE...: where Criterion runs' time went, from their JUnit XML
(`--xml=FILE`; each meson test of the GPU suite writes build/tests/NAME.xml, so
`tools/test_durations.py build/tests/gpu-*.xml`): the N longest tests (default 20), largest
first, each Criterion suite's total and each file's. Times are each test's own wall time;
tests that ran side by side overlap, so their sum exceeds the run's wall time.
A parameterized test appears once per parameter, under its one name. Tests marked SKIPPED
(skipped by the test itself, or left out by the run's --filter) are counted, not listed."""
import argparse
import os
import sys
import xml.etree.ElementTree as ET


def read(path):
    """(time, file, suite, test, failed) of every testcase of one file that ran, and the
    number that did not."""
    root = ET.parse(path).getroot()
    name = os.path.splitext(os.path.basename(path))[0]
    rows, skipped = [], 0
    for suite in root.iter("testsuite"):
        for case in suite.iter("testcase"):
            if case.get("status") == "SKIPPED" or case.find("skipped") is not None:
                skipped += 1
                continue
            rows.append((float(case.get("time") or 0), name, suite.get("name"), case.get("name"),
                         case.find("failure") is not None))
    return rows, skipped


def totals(rows, key):
    per = {}
    for r in rows:
        c, s = per.get(key(r), (0, 0.0))
        per[key(r)] = (c + 1, s + r[0])
    return sorted(per.items(), key=lambda kv: -kv[1][1])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().split("\n")[0])
    ap.add_argument("-n", type=int, default=20, help="the longest N tests (default 20)")
    ap.add_argument("files", nargs="+", help="Criterion JUnit XML files")
    a = ap.parse_args(argv)
    rows, skipped = [], 0
    for path in a.files:
        try:
            r, s = read(path)
            rows += r
            skipped += s
        except (OSError, ET.ParseError) as e:
            print("test_durations: %s: %s" % (path, e), file=sys.stderr)
            return 1
    rows.sort(key=lambda r: -r[0])
    print("%d tests ran, %.1f s of test time, %d files (%d skipped or filtered out)" %
          (len(rows), sum(r[0] for r in rows), len(a.files), skipped))
    for t, f, suite, name, failed in rows[:a.n]:
        print("%8.2f s  %s::%s%s  (%s)" % (t, suite, name, "  FAILED" if failed else "", f))
    print("per suite:")
    for suite, (c, s) in totals(rows, lambda r: r[2]):
        print("%8.1f s  %4d tests  %s" % (s, c, suite))
    if len(a.files) > 1:
        print("per file:")
        for f, (c, s) in totals(rows, lambda r: r[1]):
            print("%8.1f s  %4d tests  %s" % (s, c, f))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
