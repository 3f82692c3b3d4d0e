"""PyTorch's bf16 and f16 results on a GPU, judged as what they are: torch.matmul of bf16 and f16
tensors (f32 accumulation) and F.softmax of a bf16 tensor PASS as bf16/f16 outputs (the f32
model plus the output's rounding); the same outputs cast to float32 and labelled f32 FAIL (the
rounding was not declared); a dot product accumulated in bf16 (every partial sum rounded to bf16)
FAILs. Skipped, not failed, without torch or a CUDA device (the CPU suite collects it)."""

import pytest

import gpuval

K = 1024  # long enough that bf16 accumulation is far outside f32's envelope


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    # f32 accumulation throughout: PyTorch's default lets cuBLAS reduce split-K partial sums in
    # the half type, which is not the f32 arithmetic these outputs are judged against
    saved = (torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
             torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction)
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    yield torch
    (torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
     torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction) = saved


@pytest.mark.parametrize("half", ["bfloat16", "float16"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_torch_matmul_of_half_tensors_passes_as_half_and_fails_labelled_f32(torch, half, seed):
    dt = getattr(torch, half)
    g = torch.Generator(device="cuda").manual_seed(seed)
    A = (torch.rand(64, K, device="cuda", generator=g) * 2 - 1).to(dt)
    B = (torch.rand(K, 48, device="cuda", generator=g) * 2 - 1).to(dt)
    C = A @ B
    assert C.dtype == dt
    j = gpuval.judge("gemm", [A, B], C)
    assert j.verdict == "PASS", j.row
    assert j.dtype == ("bf16" if half == "bfloat16" else "f16")
    lied = gpuval.judge("gemm", [A, B], C.float())  # the half result labelled f32
    assert lied.verdict == "FAIL", lied.row


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_torch_softmax_of_bf16_passes_as_bf16_and_fails_labelled_f32(torch, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    X = ((torch.rand(16, 4096, device="cuda", generator=g) * 8) - 4).to(torch.bfloat16)
    Y = torch.nn.functional.softmax(X, dim=-1)
    assert Y.dtype == torch.bfloat16
    j = gpuval.judge("softmax.rows", X, Y)
    assert j.verdict == "PASS", j.row
    lied = gpuval.judge("softmax.rows", X, Y.float())
    assert lied.verdict == "FAIL", lied.row
    zeros = gpuval.judge("softmax.rows", X, torch.zeros_like(Y))
    assert zeros.verdict == "FAIL", zeros.row


def test_bf16_accumulated_dot_products_fail(torch):
    g = torch.Generator(device="cuda").manual_seed(7)
    A = (torch.rand(64, K, device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
    B = (torch.rand(K, 48, device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
    acc = torch.zeros(64, 48, device="cuda", dtype=torch.bfloat16)
    for p in range(K):  # every partial sum rounded to bf16: bf16 accumulation
        acc = acc + A[:, p:p + 1] * B[p:p + 1, :]
    assert acc.dtype == torch.bfloat16
    j = gpuval.judge("gemm", [A, B], acc)
    assert j.verdict == "FAIL", j.row
    good = gpuval.judge("gemm", [A, B], A @ B)
    assert good.verdict == "PASS", good.row
