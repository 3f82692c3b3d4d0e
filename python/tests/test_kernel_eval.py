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
# hidden seeds for the correct kernels: 4 by default; GPUVAL_KE_SEEDS=20 runs the long form
CORRECT_SEEDS = int(os.environ.get("GPUVAL_KE_SEEDS", "4"))


def run(name, seeds=3, dtype="f32"):
    return ke.evaluate(OP, f"{KERNELS}:{name}", dtype=dtype, seeds=seeds, sizes=SIZES,
                       dists="uniform11,wide")


@pytest.mark.parametrize("name", ["correct", "correct_f32_math"])
def test_correct_kernels_pass_on_every_seed(name):
    doc = run(name, seeds=CORRECT_SEEDS)
    assert "error" not in doc, doc.get("error")
    assert doc["failed"] == 0, [c for c in doc["cases"] if c["verdict"] != "PASS"]
    assert doc["passed"] == CORRECT_SEEDS * 2 * 2
    assert len(set(doc["seeds"])) == CORRECT_SEEDS  # drawn, not fixed


@pytest.mark.parametrize("name, words", [
    ("zeros", ""),
    ("constant", ""),
    ("nan_filled", "NaN"),
    ("subsampled", ""),
    ("writes_input", "wrote to its input"),
    ("cached", "stale output"),
    ("half_precision", ""),
    ("bf16_inputs", ""),
    ("shape_overfit", ""),
])
def test_every_exploit_fails(name, words):
    doc = run(name)
    assert "error" not in doc, doc.get("error")
    failed = [c for c in doc["cases"] if c["verdict"] != "PASS"]
    print(name, f"{len(failed)} of {len(doc['cases'])} FAIL:", failed[0]["reason"] if failed else "")
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


KB_OPS = os.path.join(HERE, "exploits", "kb_ops.py")


@pytest.mark.parametrize("op, name, sizes, dists", [
    ("reduce.argmax", "argmax", "1x1,33x100,7x1025", "smallint,special,uniform01"),
    ("scan.cumprod", "cumprod", "3x7,16x1000,4x4097", "uniform01,uniform11"),
    ("norm.batch", "batch_norm", "1x1x1x1,4x16x8x8", "uniform11,smallint"),
    ("reduce.argmin", "argmin", "1x1,33x100,7x1025", "smallint,special,uniform01"),
    ("reduce.max", "amax", "1x1,33x100,7x1025", "smallint,special,uniform01"),
    ("conv.2d.valid", "conv2d_valid", "1x1x3x1,2x3x7x5,1x16x17x8", "uniform11,wide"),
    ("act.relu", "relu", "1,1000,100003", "wide,uniform11"),
    ("act.softsign", "softsign", "1,1000,100003", "wide,uniform11"),
    ("act.softplus", "softplus", "1,1000,100003", "wide,uniform11"),
])
def test_kernelbench_families_pass_correct_kernels(op, name, sizes, dists):
    """int64 indices are taken as indices; right answers that coincide across inputs (an
    argmax of one value, a norm of one value) are not stale."""
    seeds = max(3, CORRECT_SEEDS)
    doc = ke.evaluate(op, f"{KB_OPS}:{name}", seeds=seeds, sizes=sizes, dists=dists)
    assert "error" not in doc, doc.get("error")
    assert doc["failed"] == 0, [c["reason"] for c in doc["cases"] if c["verdict"] != "PASS"]
    assert doc["passed"] == seeds * len(sizes.split(",")) * len(dists.split(","))


@pytest.mark.parametrize("op, name, sizes, dists, words", [
    ("reduce.argmax", "argmax_last_of_ties", "33x100", "smallint", "argmax:"),
    ("reduce.argmax", "argmax_skips_nan", "33x100", "special", "argmax:"),
    ("scan.cumprod", "cumprod_exclusive", "16x1000", "uniform01", ""),
    ("norm.batch", "instance_norm", "4x16x8x8", "uniform11", "error model"),
    ("reduce.argmin", "argmin_skips_nan", "33x100", "special", "argmin:"),
    ("reduce.max", "amax_fmax", "33x100", "special", "NaN"),
    ("conv.2d.valid", "conv2d_valid_padded", "2x3x7x5,1x16x17x8", "uniform11", "error model"),
    # the tail's results come back 0, normal ones too: a loss of range, not flush-to-zero
    ("act.softplus", "softplus_naive", "1000", "wide", "lost range"),
])
def test_kernelbench_families_fail_wrong_kernels(op, name, sizes, dists, words):
    doc = ke.evaluate(op, f"{KB_OPS}:{name}", seeds=2, sizes=sizes, dists=dists)
    assert "error" not in doc, doc.get("error")
    print(op, name, f"{doc['failed']} of {len(doc['cases'])} FAIL:", doc["cases"][0]["reason"])
    assert doc["passed"] == 0, [c for c in doc["cases"] if c["verdict"] == "PASS"]
    assert all(words in c["reason"] for c in doc["cases"]), [c["reason"] for c in doc["cases"]]


SUMS = os.path.join(HERE, "exploits", "sums.py")


@pytest.mark.parametrize("name, fails", [("pairwise", False), ("pairwise_rz", True)])
def test_pooled_bias_across_hidden_seeds(name, fails):
    """reduce.sum has one output a case: the per-case bias rule cannot judge it, and a tree
    that rounds every addition toward zero lies within any order's envelope of one sum. The
    gate draws hidden seeds until 64 have a case, pools their signed errors (one case a seed)
    and FAILs the RZ tree for bias across seeds; the same tree rounding to nearest PASSes."""
    doc = ke.evaluate("reduce.sum", f"{SUMS}:{name}", seeds=2, sizes="100000", dists="uniform11")
    assert "error" not in doc, doc.get("error")
    assert len(doc["pool_seeds"]) == 62
    (g,) = doc["bias_pool"]
    assert g["seeds"] == 64 and g["judged"], g
    if fails:
        assert g["over"] and g["z_sign_r"] < -4.5, g
        assert doc["failed"] == 2 and doc["pool_failed"] == 62, (doc["failed"], doc["pool_failed"])
        assert all("bias across seeds" in c["reason"] and "toward zero" in c["reason"]
                   for c in doc["cases"] if c["verdict"] != "PASS"), doc["cases"][:3]
    else:
        assert not g["over"] and abs(g["z"]) < 4.5 and abs(g["z_sign_r"]) < 4.5, g
        assert doc["failed"] == 0, [c for c in doc["cases"] if c["verdict"] != "PASS"][:3]
        assert doc["passed"] == 2 and doc["pool_passed"] == 62


PRECISION = os.path.join(HERE, "exploits", "precision.py")


@pytest.mark.parametrize("name, verdict", [
    ("sees_f32", "PASS"),
    ("turns_tf32_on_and_is_right", "PASS"),
    ("turns_tf32_on_and_is_wrong", "FAIL"),
])
def test_the_child_asks_torch_for_f32_and_names_tf32_turned_back_on(name, verdict,
                                                                     monkeypatch):
    """With a stand-in torch (its flags only): the child sets cuDNN's and the matmuls' f32
    precision to 'ieee' when torch is imported, here by the candidate's call; a candidate that
    sets TF32 again is judged by its numbers, and a FAIL names the switch."""
    monkeypatch.syspath_prepend(os.path.join(HERE, "exploits", "fake_torch"))
    doc = ke.evaluate(OP, f"{PRECISION}:{name}", seeds=2, sizes="33x100", dists="uniform11")
    assert "error" not in doc, doc.get("error")
    assert doc["framework_precision"] == "tf32 off"
    assert any(s.startswith("torch: cuda.matmul, cudnn.conv") for s in doc["precision_settings"])
    assert "cupy: CUPY_TF32=0" in doc["precision_settings"]
    assert {c["verdict"] for c in doc["cases"]} == {verdict}, doc["cases"]
    if name == "sees_f32":
        assert not any("tf32_turned_on" in c for c in doc["cases"])
    else:
        assert all("fp32_precision = 'tf32'" in c["tf32_turned_on"] for c in doc["cases"])
    if verdict == "FAIL":
        assert all("turned TF32 back on" in c["reason"] for c in doc["cases"])
