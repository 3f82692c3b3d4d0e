"""torch.nn.functional.conv2d, conv1d and scaled_dot_product_attention on a GPU, judged through
gpuval.check by the conv and attn families' oracles and error models (docs/error-models.md,
sections conv and attn): f32 with TF32 off for matmuls and cuDNN, and f64, on every dist the op
takes at its test sizes and three seeds, must PASS; a wrong variant (the window flipped, the
bias dropped, the scale left out, the causal mask left off) must FAIL. cuDNN's own choice of
algorithm is judged, and so is ATen's native convolution (cuDNN off). Skipped, not failed,
without torch or a CUDA device (the CPU suite collects it and skips it)."""

import pytest

import gpuval

SEEDS = [0, 1, 2]


@pytest.fixture
def torch(torch_ieee):
    """torch with TF32 off (conftest.py, torch_ieee)."""
    return torch_ieee


def _conv_calls(F):
    """Each conv op as torch computes it (abi/conv.h's geometries)."""
    return {"conv.2d": lambda x, w, b: F.conv2d(x, w, b, padding=1),
            "conv.2d.k1": lambda x, w, b: F.conv2d(x, w, b),
            "conv.2d.k7s2": lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=3),
            "conv.1d": lambda x, w, b: F.conv1d(x, w, b, padding=1)}


def _failed(judgements):
    return [j.row for j in judgements if j.verdict != "PASS"]


@pytest.mark.parametrize("cudnn", [True, False])
@pytest.mark.parametrize("op", ["conv.2d", "conv.2d.k1", "conv.2d.k7s2", "conv.1d"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_torch_conv_passes(torch, op, dtype, cudnn):
    torch.backends.cudnn.enabled = cudnn
    fn = _conv_calls(torch.nn.functional)[op]
    for seed in SEEDS:
        js = gpuval.check(fn, op=op, dtype=dtype, framework="torch", seed=seed)
        assert js and not _failed(js), _failed(js)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_torch_conv_wrong_variants_fail(torch, dtype):
    F = torch.nn.functional
    flipped = lambda x, w, b: F.conv2d(x, w.flip(-1, -2), b, padding=1)  # noqa: E731
    nobias = lambda x, w, b: F.conv2d(x, w, None, padding=1)  # noqa: E731
    for fn in (flipped, nobias):
        js = gpuval.check(fn, op="conv.2d", dtype=dtype, sizes="2x3x7x5,1x16x17x8",
                          dists="uniform11", framework="torch")
        assert all(j.verdict == "FAIL" for j in js), [j.row for j in js]


@pytest.mark.parametrize("op", ["attn.sdpa", "attn.sdpa.causal"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_torch_sdpa_passes(torch, op, dtype):
    F = torch.nn.functional
    causal = op.endswith("causal")
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
    for seed in SEEDS:
        js = gpuval.check(fn, op=op, dtype=dtype, framework="torch", seed=seed)
        assert js and not _failed(js), _failed(js)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_torch_sdpa_wrong_variants_fail(torch, dtype):
    F = torch.nn.functional
    unscaled = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=1.0)  # noqa: E731
    js = gpuval.check(unscaled, op="attn.sdpa", dtype=dtype, sizes="2x3x17x8,1x2x100x64",
                      dists="uniform11", framework="torch")
    assert all(j.verdict == "FAIL" for j in js), [j.row for j in js]
    unmasked = lambda q, k, v: F.scaled_dot_product_attention(q, k, v)  # noqa: E731
    js = gpuval.check(unmasked, op="attn.sdpa.causal", dtype=dtype,
                      sizes="2x3x17x8,1x2x100x64", dists="uniform11", framework="torch")
    assert all(j.verdict == "FAIL" for j in js), [j.row for j in js]
