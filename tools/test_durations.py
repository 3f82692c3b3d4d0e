#!/usr/bin/env python3
"""tools/test_durations.py FILE [N]: where a Criterion run's time went, from its JUnit XML
(`test_gpu --xml=FILE`; the meson `gpu` test writes build/tests/gpu-tests.xml): the N longest
tests (default 20), largest first, and each suite's total. Times are each test's own wall time;
with --jobs=8 they overlap, so their sum is about 8 times the run's wall time."""
import sys
import xml.etree.ElementTree as ET


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip())
        return 2
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 20
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print("test_durations: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 1
    rows = []
    for suite in root.iter("testsuite"):
        for case in suite.iter("testcase"):
            rows.append((float(case.get("time") or 0), suite.get("name"), case.get("name"),
                         case.find("failure") is not None))
    rows.sort(key=lambda r: -r[0])
    total = sum(r[0] for r in rows)
    print("%d tests, %.1f s of test time" % (len(rows), total))
    for t, suite, name, failed in rows[:n]:
        print("%8.2f s  %s::%s%s" % (t, suite, name, "  FAILED" if failed else ""))
    per = {}
    for t, suite, _, _ in rows:
        c, s = per.get(suite, (0, 0.0))
        per[suite] = (c + 1, s + t)
    print("per suite:")
    for suite, (c, s) in sorted(per.items(), key=lambda kv: -kv[1][1]):
        print("%8.1f s  %4d tests  %s" % (s, c, suite))
    return 0


if __name__ == "__main__":
    sys.exit(main())
