"""gpuval.kernel_eval: candidates run in a child process on seeds they cannot predict; the
exploit corpus (tests/exploits/kernels.py) FAILs, each with its reason, and correct kernels
PASS on every seed."""
import os
import subprocess
import sys

import pytest

import gpuval.kernel_eval as ke

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "exploits", "kernels.py")
OP, SIZES = "softmax.rows", "33x100,16x1000"


def run(name, seeds=3, dtype="f32"):
    return ke.evaluate(OP, f"{KERNELS}:{name}", dtype=dtype, seeds=seeds, sizes=SIZES,
                       dists="uniform11,wide")


@pytest.mark.parametrize("name", ["correct", "correct_f32_math"])
def test_correct_kernels_pass_on_every_seed(name):
    doc = run(name, seeds=4)
    assert "error" not in doc, doc.get("error")
    assert doc["failed"] == 0, [c for c in doc["cases"] if c["verdict"] != "PASS"]
    assert doc["passed"] == 4 * 2 * 2
    assert len(set(doc["seeds"])) == 4  # drawn, not fixed


@pytest.mark.parametrize("name, words", [
    ("zeros", ""),
    ("constant", ""),
    ("nan_filled", "NaN"),
    ("subsampled", ""),
    ("writes_input", "wrote to its input"),
    ("cached", "stale output"),
    ("half_precision", ""),
    ("shape_overfit", ""),
])
def test_every_exploit_fails(name, words):
    doc = run(name)
    assert "error" not in doc, doc.get("error")
    failed = [c for c in doc["cases"] if c["verdict"] != "PASS"]
    assert failed, f"{name}: every case passed"
    assert any(words in c["reason"] for c in failed), [c["reason"] for c in failed]


def test_the_child_never_sees_the_oracle_and_a_crash_is_reported(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\ndef k(x):\n    sys.exit(3)\n")
    doc = ke.evaluate(OP, f"{bad}:k", seeds=2, sizes="33x100", dists="uniform11")
    assert "error" in doc and "ended" in doc["error"]
    missing = ke.evaluate(OP, f"{bad}:nope", seeds=2, sizes="33x100", dists="uniform11")
    assert "no callable" in missing["error"]


def test_command_line_exit_codes(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    base = [sys.executable, "-m", "gpuval.kernel_eval", "--op", OP, "--sizes", "33x100",
            "--dists", "uniform11", "--seeds", "2", "-q"]
    ok = subprocess.run(base + ["--candidate", f"{KERNELS}:correct"], env=env,
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = subprocess.run(base + ["--candidate", f"{KERNELS}:zeros", "--json",
                                 str(tmp_path / "v.json")], env=env, capture_output=True,
                         text=True, timeout=300)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert (tmp_path / "v.json").read_text().startswith("{")
    usage = subprocess.run(base + ["--candidate", "nocolon"], env=env, capture_output=True,
                           text=True, timeout=300)
    assert usage.returncode == 2, usage.stdout + usage.stderr
