"""The gate's precision context on a GPU (gpuval.kernel_eval with framework="torch"): torch's
own f32 convolutions (cuDNN) and matmul (cuBLAS) PASS on every case of three hidden seeds once
the gate has asked torch for f32; the same calls after the candidate turns TF32 back on (in its
call, or when its file is imported) FAIL, and the verdict names the switch. The two runs differ
in the TF32 flags alone, which makes TF32 the cause of a FAIL of torch's default conv. Skipped,
not failed, without torch or a CUDA device."""
import os

import pytest

import gpuval.kernel_eval as ke

HERE = os.path.dirname(os.path.abspath(__file__))
CANDS = os.path.join(HERE, "exploits", "torch_precision.py")
AT_IMPORT = os.path.join(HERE, "exploits", "torch_tf32_at_import.py")

PROBLEMS = [("conv.2d.valid", "conv2d"), ("conv.3d.valid", "conv3d"), ("gemm.cublas", "gemm")]
# correct f32 computations by other routes: an FFT convolution, a torch.compile'd product
ALTERNATIVES = [("conv.2d.valid", "conv2d_fft"), ("gemm.cublas", "gemm_compiled")]


@pytest.fixture(autouse=True)
def _cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")


def _run(op, cand, seeds=3):
    doc = ke.evaluate(op, cand, dtype="f32", seeds=seeds, framework="torch", dists="uniform11")
    assert "error" not in doc, doc.get("error")
    assert doc["framework_precision"] == "tf32 off"
    assert any(s.startswith("torch: ") for s in doc["precision_settings"])
    return doc


@pytest.mark.parametrize("op, name", PROBLEMS + ALTERNATIVES)
def test_torch_f32_calls_pass_with_tf32_off(op, name):
    # GPUVAL_KE_SEEDS=20 runs the long form (3 hidden seeds by default)
    doc = _run(op, f"{CANDS}:{name}", seeds=int(os.environ.get("GPUVAL_KE_SEEDS", "3")))
    bad = [(c["size"], c["reason"]) for c in doc["cases"] if c["verdict"] != "PASS"]
    assert not bad and doc["failed"] == 0, bad
    assert not any("tf32_turned_on" in c for c in doc["cases"])


@pytest.mark.parametrize("op, cand", [(op, f"{CANDS}:{name}_tf32") for op, name in PROBLEMS]
                         + [("conv.3d.valid", f"{AT_IMPORT}:conv3d")])
def test_tf32_turned_back_on_fails_and_is_named(op, cand):
    doc = _run(op, cand)
    failed = [c for c in doc["cases"] if c["verdict"] != "PASS"]
    print(op, cand.rsplit("/", 1)[-1], f"{doc['failed']} of {doc['failed'] + doc['passed']} "
          "FAIL:", sorted({c["reason"] for c in failed})[:3])
    assert failed, "every case passed"
    assert all("turned TF32 back on" in c["reason"] for c in failed), failed
