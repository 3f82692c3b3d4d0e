"""pytest plugin (entry point pytest11): one test per gpuval case.

    @pytest.mark.gpuval(op="gemm", dtype="f32", sizes="64x64x64,100x37x129", dists=None)
    def test_my_gemm(gpuval_case):
        A, B = gpuval_case.inputs.to("cupy")
        gpuval_case.judge(my_gemm(A, B))

The marker takes cases()'s arguments (op, dtype, sizes, dists, modes, seed) and parametrizes
the test over those cases; the fixture gpuval_case gives the case's inputs and judge(outputs),
which fails the test on FAIL or ERROR and skips it on SKIP. A failure's message is a header
(the verdict and the case: op, dtype, mode, size, dist, seed), check's row, and the worst
element where the judgement records it:

    gpuval FAIL: gemm f32 native size 100x37x129 dist uniform11 seed 0
      gemm.cublas  f32   native   uniform11 100x37x129  ...  FAIL (...)
      worst element: C[5, 7] = 0.25 (reference 0.5)

pytest's --junitxml then holds one testcase per case, with the verdict and row as properties.
"""

import pytest

from . import _core, _lib

_MARKER_KEYS = ("op", "dtype", "sizes", "dists", "modes", "seed")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "gpuval(op='gemm', dtype='f32', sizes=None, dists=None, modes=None, seed=0): "
        "run the test once per gpuval case; its gpuval_case fixture holds the case")


def _marker_cases(marker):
    if marker.args:
        raise pytest.UsageError("@pytest.mark.gpuval takes keywords only: "
                                + ", ".join(_MARKER_KEYS))
    unknown = set(marker.kwargs) - set(_MARKER_KEYS)
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.gpuval: unknown keyword(s) "
                                f"{', '.join(sorted(unknown))}; it takes {', '.join(_MARKER_KEYS)}")
    return _core.cases(**marker.kwargs)


def _case_id(c):
    return f"{c.op}-{c.dtype}-{c.mode}-{c.dist}-{c.size}" + (f"-s{c.seed}" if c.seed else "")


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("gpuval")
    if marker is None:
        return
    if "gpuval_case" not in metafunc.fixturenames:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.gpuval needs the "
                                "test to take the gpuval_case fixture")
    cs = _marker_cases(marker)
    if not cs:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: @pytest.mark.gpuval selects no "
                                "case")
    metafunc.parametrize("gpuval_case", cs, ids=[_case_id(c) for c in cs], indirect=True)


def _number_pair(value, ref):
    """value and ref with as many digits as tell them apart (6 to 17)."""
    for digits in range(6, 18):
        a, b = f"{value:.{digits}g}", f"{ref:.{digits}g}"
        if a != b:
            break
    return a, b


def worst_element(judgement):
    """'C[5, 7] = 0.25 (reference 0.5)': the worst element as the judgement's JSON records it
    (metrics.worst_at: the output and the index in its shape; else the flat worst_index), or
    None where it records none (an ERROR, a SKIP, an output with nothing measured)."""
    m = judgement.case.get("metrics") or {}
    flat = m.get("worst_index")
    if not isinstance(flat, int) or flat < 0:
        return None
    at = m.get("worst_at") or {}
    index = at.get("index")
    if isinstance(index, list) and index:
        where = f"{at.get('output', 'output')}[{', '.join(str(i) for i in index)}]"
    else:
        where = f"element {flat}"
    try:
        value, ref = float(m.get("worst_value")), float(m.get("worst_ref"))
    except (TypeError, ValueError):
        return where
    a, b = _number_pair(value, ref)
    return f"{where} = {a} (reference {b})"


def failure_message(case, judgement):
    """What a failing gpuval test says: a header naming the verdict and the case, check's row
    (libgpuval's own), and the worst element where the judgement has one."""
    lines = [f"gpuval {judgement.verdict}: {case.op} {case.dtype} {case.mode} size {case.size} "
             f"dist {case.dist} seed {case.seed}",
             f"  {judgement.row}"]
    worst = worst_element(judgement)
    if worst:
        lines.append(f"  worst element: {worst}")
    return "\n".join(lines)


class GpuvalCase:
    """One case of a @pytest.mark.gpuval test: case (op, dtype, mode, size, dist, seed),
    inputs (a gpuval.CaseInputs: NumPy arrays; .to("cupy") or .to("torch") for the GPU),
    judge(outputs)."""

    def __init__(self, case, node):
        self.case = case
        self._node = node
        self.inputs = _core.inputs(case.op, case.dtype, case.size, case.dist, case.seed,
                                   case.mode)
        self.judgement = None

    def judge(self, outputs):
        """Judge outputs (one array or a sequence, any framework): returns the Judgement on
        PASS; fails the test on FAIL or ERROR (failure_message: the case, check's row, the
        worst element) and skips it on SKIP, check's row the reason."""
        j = _core.judge(self.case.op, self.inputs, outputs)
        self.judgement = j
        self._node.user_properties.append(("gpuval_verdict", j.verdict))
        self._node.user_properties.append(("gpuval_row", j.row))
        if j.verdict == "SKIP":
            pytest.skip(j.row)
        if j.verdict != "PASS":
            pytest.fail(failure_message(self.case, j), pytrace=False)
        return j


# An old-style wrapper (hookwrapper=True, an outcome object): pytest 7 (Debian 12's
# python3-pytest, which the offline CPU test uses) has no wrapper=True, and pytest 8 takes both.
@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    # a marked test that returns without judging its outputs has checked nothing: it fails
    outcome = yield
    if outcome.excinfo is not None:
        return  # the test's own failure stands
    case = getattr(pyfuncitem, "funcargs", {}).get("gpuval_case")
    if isinstance(case, GpuvalCase) and case.judgement is None:
        pytest.fail(f"{_case_id(case.case)}: the test never called gpuval_case.judge(outputs)",
                    pytrace=False)


@pytest.fixture
def gpuval_case(request):
    """The gpuval case of a test marked @pytest.mark.gpuval."""
    if not hasattr(request, "param"):
        raise pytest.UsageError(f"{request.node.nodeid}: gpuval_case needs "
                                "@pytest.mark.gpuval(op=...) on the test")
    return GpuvalCase(request.param, request.node)


def pytest_terminal_summary(terminalreporter):
    # which libgpuval judged, once a test has loaded it (a session without gpuval tests loads
    # none): a wheel's CPU-only library and a CUDA build judge alike, and the line says which
    if _lib._loaded is None:
        return
    info = _lib.lib_info()
    cuda = {True: "with CUDA", False: "CPU only, no CUDA", None: "CUDA unknown"}[info["cuda"]]
    terminalreporter.write_line(f"gpuval: libgpuval {info['api']} at {info['path']} "
                                f"({info['found_by']}; {cuda})")
