"""What the API hands the library is checked first: a seed outside 0..2^64 - 1 (ctypes would
wrap -1 to 2^64 - 1 and 2^64 to 0, silently another case), a seed or size of the wrong type,
unknown op, dist and mode names, and bad sizes each raise GpuvalError with the library's
message (or the library's words), never a ctypes error and never a case of other inputs."""

import numpy as np
import pytest

import gpuval

SIZE = "8x12x4"


@pytest.mark.parametrize("seed", [-1, 2**64, 2**64 + 5, -(2**63), 1.5, "3", None, True, 1e3])
def test_a_seed_outside_its_range_or_type_is_refused(seed):
    with pytest.raises(gpuval.GpuvalError) as e:
        gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=seed)
    assert "seed" in str(e.value)
    a = np.ones((8, 12), np.float32)
    b = np.ones((12, 4), np.float32)
    with pytest.raises(gpuval.GpuvalError):
        gpuval.judge("gemm", [a, b], [a @ b], seed=seed)
    with pytest.raises(gpuval.GpuvalError):
        gpuval.cases("gemm", seed=seed)


def test_the_largest_seed_is_taken_exactly():
    top = gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=2**64 - 1)
    assert top.seed == 2**64 - 1
    wrapped = gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=0)
    assert not np.array_equal(top["A"], wrapped["A"]), "2^64 - 1 is not 0"
    assert gpuval.inputs("gemm", "f32", SIZE, "uniform11", seed=np.uint64(7)).seed == 7


@pytest.mark.parametrize("kw, says", [({"dist": "bogus"}, "bogus"), ({"mode": "bogus"}, "bogus"),
                                      ({"size": "-5x4x4"}, "-5x4x4"), ({"size": -5}, "-5"),
                                      ({"size": 0}, "0"), ({"size": 10**30}, "4.6e18"),
                                      ({"size": 2.5}, "size"), ({"size": [8, 12, 4]}, "size")])
def test_unknown_names_and_bad_sizes_raise_the_library_s_message(kw, says):
    args = {"dtype": "f32", "size": SIZE, "dist": "uniform11"}
    args.update(kw)
    with pytest.raises(gpuval.GpuvalError) as e:
        gpuval.inputs("vadd" if "size" in kw and kw["size"] != "-5x4x4" else "gemm", **args)
    assert says in str(e.value)


def test_an_unknown_op_raises():
    with pytest.raises(gpuval.GpuvalError) as e:
        gpuval.inputs("no.such.op")
    assert "no.such.op" in str(e.value)


def test_cases_refuse_unknown_dists_and_modes_at_once():
    with pytest.raises(gpuval.GpuvalError) as e:
        gpuval.cases("gemm", dists=["uniform11", "bogusdist"])
    assert "bogusdist" in str(e.value)
    with pytest.raises(gpuval.GpuvalError) as e:
        gpuval.cases("gemm", modes="native,bogusmode")
    assert "bogusmode" in str(e.value)
    assert len(gpuval.cases("gemm", sizes=[SIZE], dists=["uniform11"], modes=["native", "tf32"])) == 2
