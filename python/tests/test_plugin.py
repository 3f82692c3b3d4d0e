"""The pytest plugin: @pytest.mark.gpuval makes one test per case, gpuval_case.judge fails a
test with check's row, and --junitxml carries one testcase per case."""

import xml.etree.ElementTree as ET

import gpuval

GOOD = """
import numpy as np
import pytest

@pytest.mark.gpuval(op="gemm", dtype="f32", sizes="64x64x64,100x37x129",
                    dists=["uniform01", "uniform11"])
def test_gemm(gpuval_case):
    A, B = gpuval_case.inputs
    j = gpuval_case.judge(A @ B)
    assert j.verdict == "PASS"
"""

BROKEN = """
import pytest

@pytest.mark.gpuval(op="gemm", sizes="100x37x129", dists="uniform01,uniform11")
def test_gemm_off_by_one(gpuval_case):
    A, B = gpuval_case.inputs
    gpuval_case.judge(A[:, :-1] @ B[:-1, :])
"""

FORGETFUL = """
import pytest

@pytest.mark.gpuval(op="gemm", sizes="64x64x64", dists="uniform01")
def test_computes_but_never_judges(gpuval_case):
    A, B = gpuval_case.inputs
    A @ B
"""


def junit_cases(path):
    root = ET.parse(path).getroot()
    return root.findall(".//testcase")


def test_marker_makes_one_testcase_per_case(pytester):
    pytester.makepyfile(test_good=GOOD)
    res = pytester.runpytest_subprocess("--junitxml=out.xml", "-p", "no:cacheprovider")
    res.assert_outcomes(passed=4)
    cases = junit_cases(pytester.path / "out.xml")
    assert len(cases) == 4
    names = sorted(c.get("name") for c in cases)
    assert names[0].startswith("test_gemm[gemm-f32-native-uniform01-100x37x129")
    props = cases[0].findall("./properties/property")
    verdicts = [p.get("value") for p in props if p.get("name") == "gpuval_verdict"]
    assert verdicts == ["PASS"]


def test_a_failing_case_fails_with_checks_row(pytester):
    pytester.makepyfile(test_broken=BROKEN)
    res = pytester.runpytest_subprocess("--junitxml=out.xml", "-p", "no:cacheprovider")
    res.assert_outcomes(failed=2)
    res.stdout.fnmatch_lines([
        "*gpuval FAIL: gemm f32 native size 100x37x129 dist uniform01 seed 0",
        "*gemm*f32*native*uniform01*100x37x129*FAIL*",
        "*worst element: C?*, *? = * (reference *)"])
    cases = junit_cases(pytester.path / "out.xml")
    assert len(cases) == 2
    for c in cases:
        failure = c.find("failure")
        assert failure is not None and "FAIL" in failure.get("message")


def test_a_test_that_never_judges_fails(pytester):
    pytester.makepyfile(test_forgetful=FORGETFUL)
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*never called gpuval_case.judge*"])


def test_the_marker_needs_the_fixture_and_known_keywords(pytester):
    pytester.makepyfile(test_misused="""
import pytest

@pytest.mark.gpuval(op="gemm", size="64x64x64")
def test_typo(gpuval_case):
    pass
""")
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert res.ret != 0
    output = "\n".join(res.outlines + res.errlines)
    assert "unknown keyword(s) size" in output


def test_cases_follow_the_ops_description():
    info = gpuval.op_info("gemm")
    n = len(gpuval._core._names(info["test_shapes"])) * len(gpuval._core._names(info["dists"]))
    assert len(gpuval.cases("gemm")) == n


PLANTED = """
import pytest

@pytest.mark.xfail(strict=True, raises=pytest.fail.Exception, reason="planted: drops a term")
@pytest.mark.gpuval(op="gemm", sizes="100x37x129", dists="uniform11")
def test_planted(gpuval_case):
    A, B = gpuval_case.inputs
    gpuval_case.judge(A[:, :-1] @ B[:-1, :])

@pytest.mark.xfail(strict=True, raises=pytest.fail.Exception, reason="correct: must not xfail")
@pytest.mark.gpuval(op="gemm", sizes="100x37x129", dists="uniform11")
def test_correct(gpuval_case):
    A, B = gpuval_case.inputs
    gpuval_case.judge(A @ B)
"""


def test_a_planted_bug_is_an_expected_failure(pytester):
    # how the examples keep a kernel that must FAIL in a passing suite: xfail(strict=True)
    pytester.makepyfile(test_planted=PLANTED)
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rxX")
    res.assert_outcomes(xfailed=1, failed=1)  # the correct kernel's PASS breaks strict xfail
    res.stdout.fnmatch_lines(["*test_correct*", "*XPASS(strict)*"])


ONE_ELEMENT_OFF = """
import pytest

@pytest.mark.gpuval(op="gemm", sizes="40x64x30", dists="uniform11", seed=3)
def test_one_element_off(gpuval_case):
    A, B = gpuval_case.inputs
    C = A @ B
    C[5, 7] = 0.25 if C[5, 7] != 0.25 else 0.5
    gpuval_case.judge(C)
"""


def test_a_failure_names_the_case_and_where_its_worst_element_lies(pytester):
    pytester.makepyfile(test_off=ONE_ELEMENT_OFF)
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines([
        "*gpuval FAIL: gemm f32 native size 40x64x30 dist uniform11 seed 3",
        "*gemm*f32*native*uniform11*40x64x30*FAIL*",
        "*worst element: C?5, 7? = 0.25 (reference *)"])


def test_the_failure_message_from_a_judgement():
    from gpuval import pytest_plugin
    case = gpuval.cases("gemm", sizes="40x64x30", dists="uniform11", seed=3)[0]
    ci = gpuval.inputs(case.op, case.dtype, case.size, case.dist, case.seed)
    A, B = ci
    C = A @ B
    C[39, 29] += 1.0  # the last element: the index is the output's, not a flat one
    j = gpuval.judge("gemm", ci, C)
    assert j.verdict == "FAIL"
    lines = pytest_plugin.failure_message(case, j).split("\n")
    assert lines[0] == "gpuval FAIL: gemm f32 native size 40x64x30 dist uniform11 seed 3"
    assert lines[1] == "  " + j.row
    assert lines[2].startswith("  worst element: C[39, 29] = "), lines[2]
    m = j.case["metrics"]
    assert m["worst_index"] == 39 * 30 + 29
    assert m["worst_at"] == {"output": "C", "index": [39, 29]}
    value, ref = pytest_plugin._number_pair(m["worst_value"], m["worst_ref"])
    assert lines[2].endswith(f"= {value} (reference {ref})") and value != ref
