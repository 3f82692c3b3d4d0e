# python/tests: the package over NumPy only (no GPU, CuPy or torch needed); libgpuval from
# GPUVAL_LIB (tests/python/run_pytest.sh sets it to the build's). The conformance suite's
# table of counts is printed here, at the end of the session, and written to
# $GPUVAL_CONFORMANCE_OUT (JSON) when set: test_conformance.py gathers the records.
import json
import os
import sys

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def torch_ieee():
    """torch on a CUDA device with TF32 off for matmuls and cuDNN (cuDNN's default is on: a
    native f32 label needs it off), restored after: fp32_precision ("ieee") from torch 2.9, the
    allow_tf32 flags before; cuDNN's enabled flag restored too (tests may switch it). Skipped,
    not failed, without torch or a device."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    m, c = torch.backends.cuda.matmul, torch.backends.cudnn
    new_api = hasattr(m, "fp32_precision") and hasattr(getattr(c, "conv", None), "fp32_precision")
    if new_api:
        saved = (m.fp32_precision, c.conv.fp32_precision)
        m.fp32_precision = c.conv.fp32_precision = "ieee"
    else:
        saved = (m.allow_tf32, c.allow_tf32)
        m.allow_tf32 = c.allow_tf32 = False
    enabled = c.enabled
    try:
        yield torch
    finally:
        c.enabled = enabled
        if new_api:
            m.fp32_precision, c.conv.fp32_precision = saved
        else:
            m.allow_tf32, c.allow_tf32 = saved


def pytest_terminal_summary(terminalreporter):
    mod = sys.modules.get("test_conformance")
    records = getattr(mod, "RESULTS", None)
    if not records:
        return
    rows = mod.summary(records)
    tr = terminalreporter
    tr.section("gpuval conformance: library calls judged")
    tr.write_line(f"{'framework':<9} {'dtype':<5} {'label':<9} {'cases':>6} {'PASS right':>10} "
                  f"{'FAIL wrong':>10} {'of judged':>9} {'needs allow':>11}")
    for r in rows:
        tr.write_line(f"{r['framework']:<9} {r['dtype']:<5} {r['label']:<9} {r['cases']:>6} "
                      f"{r['pass_right']:>10} {r['fail_wrong']:>10} {r['wrong_judged']:>9} "
                      f"{r['declared']:>11}")
    out = os.environ.get("GPUVAL_CONFORMANCE_OUT")
    if out:
        with open(out, "w") as f:
            json.dump({"summary": rows, "cases": records}, f, indent=1)
        tr.write_line(f"conformance records: {out}")
