"""Where libgpuval is looked for (gpuval/_libfind.py): a CUDA build before the wheel's bundled
CPU library, the bundled one before a CPU-only build, and CUDA read off the ELF file."""

import os
import shutil
import subprocess
import sys

import pytest

import gpuval
from gpuval import _libfind


def built_lib():
    return os.path.realpath(os.environ["GPUVAL_LIB"])


def test_needed_of_the_build_names_its_libraries_not_cuda():
    needed = _libfind.elf_needed(built_lib())
    assert needed is not None and "libc.so.6" in needed
    assert any(n.startswith("libopenblas") for n in needed), needed
    # the tests run over a CPU build (tests/python/run_pytest.sh); a CUDA one links libcudart
    assert _libfind.has_cuda(built_lib()) is any(n.startswith("libcudart") for n in needed)


def test_what_is_not_an_elf_file_is_unknown(tmp_path):
    text = tmp_path / "libgpuval.so"
    text.write_text("INPUT(-lgpuval)\n")  # a linker script is no library
    assert _libfind.elf_needed(str(text)) is None
    assert _libfind.has_cuda(str(text)) is None
    assert _libfind.has_cuda(str(tmp_path / "missing.so")) is None


def test_a_library_that_links_cudart_has_cuda(tmp_path):
    if not shutil.which("patchelf"):
        pytest.skip("no patchelf to add libcudart to a copy of the library")
    fake = tmp_path / "libgpuval.so.1"
    shutil.copyfile(built_lib(), fake)
    subprocess.run(["patchelf", "--add-needed", "libcudart.so.12", str(fake)], check=True)
    assert "libcudart.so.12" in _libfind.elf_needed(str(fake))
    assert _libfind.has_cuda(str(fake)) is True


def fake_world(monkeypatch, tmp_path, system, cuda):
    """system: the paths a meson build left (pkg-config, find_library); cuda: those with CUDA;
    a bundled library in tmp_path/_libs."""
    libs = tmp_path / "_libs"
    libs.mkdir()
    (libs / _libfind.SONAME).write_bytes(b"")
    monkeypatch.setattr(_libfind, "BUNDLED_DIR", str(libs))
    monkeypatch.setattr(_libfind, "system_candidates", lambda: (list(system), ["note"]))
    monkeypatch.setattr(_libfind, "has_cuda", lambda p: p in cuda)
    return str(libs / _libfind.SONAME)


def test_a_cuda_build_comes_before_the_bundled_library(monkeypatch, tmp_path):
    bundled = fake_world(monkeypatch, tmp_path, ["/cpu/libgpuval.so", "/gpu/libgpuval.so"],
                         {"/gpu/libgpuval.so"})
    order = [p for p, _ in _libfind.candidates()[0]]
    assert order == ["/gpu/libgpuval.so", bundled, "/cpu/libgpuval.so"]


def test_without_a_wheel_a_cpu_build_is_used(monkeypatch, tmp_path):
    fake_world(monkeypatch, tmp_path, ["/cpu/libgpuval.so"], set())
    monkeypatch.setattr(_libfind, "BUNDLED_DIR", str(tmp_path / "none"))
    assert [p for p, _ in _libfind.candidates()[0]] == ["/cpu/libgpuval.so"]


def test_a_build_copied_without_its_symlinks_is_found(tmp_path):
    # the file libgpuval.so.MAJOR.MINOR.PATCH alone, without the libgpuval.so and .so.1 links
    if not shutil.which("pkg-config"):
        pytest.skip("no pkg-config")
    libdir = tmp_path / "lib"
    libdir.mkdir()
    shutil.copyfile(built_lib(), libdir / f"libgpuval.so.{gpuval.__version__}")
    (tmp_path / "gpuval.pc").write_text(f"libdir={libdir}\nName: gpuval\nDescription: test\n"
                                        "Version: 1.3\nLibs: -L${libdir} -lgpuval\n")
    env = {k: v for k, v in os.environ.items() if k != "GPUVAL_LIB"}
    env["PKG_CONFIG_PATH"] = str(tmp_path)
    res = subprocess.run([sys.executable, "-c", "import gpuval; i = gpuval.lib_info(); "
                          "print(i['path']); print(i['cuda'])"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    path, cuda = res.stdout.split()
    assert path == str(libdir / f"libgpuval.so.{gpuval.__version__}")
    assert cuda == str(_libfind.has_cuda(built_lib()))


def _core_world(monkeypatch, detected, flags):
    """_lib._name_openblas_core with OpenBLAS's detection and the CPU's flags made up."""
    from gpuval import _lib

    for k in ("OPENBLAS_CORETYPE", "GPUVAL_OPENBLAS_CORE_FROM"):
        # set, then removed: monkeypatch then restores the variable as it was after the test,
        # removing what _name_openblas_core set (left behind, a SkylakeX core named here would
        # reach every later process of the session, numpy's OpenBLAS too)
        monkeypatch.setenv(k, "unset")
        monkeypatch.delenv(k)
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(
        a, 0, stdout=detected + "\n", stderr=""))
    monkeypatch.setattr(_lib, "_cpu_flags", lambda: set(flags))
    _lib._name_openblas_core("/x/libgpuval.so")
    return os.environ.get("OPENBLAS_CORETYPE"), os.environ.get("GPUVAL_OPENBLAS_CORE_FROM")


def test_a_prescott_fallback_names_the_core_the_command_names(monkeypatch):
    # the command's rule (src/cmd/gpuval_main.c), so that the Python route's oracles run the
    # same kernels and its cache entries carry the same version as `gpuval check`'s
    avx512 = {"avx512f", "avx512dq", "avx512bw", "avx512vl", "avx2", "fma"}
    assert _core_world(monkeypatch, "Prescott", avx512) == ("SkylakeX", "Prescott")
    assert _core_world(monkeypatch, "Prescott", {"avx2", "fma"}) == ("Haswell", "Prescott")
    assert _core_world(monkeypatch, "Prescott", {"sse3"}) == (None, None)
    assert _core_world(monkeypatch, "Zen", avx512) == (None, None)  # a core OpenBLAS knew


def test_a_core_the_user_named_is_kept(monkeypatch):
    from gpuval import _lib

    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("asked OpenBLAS anyway"))
    _lib._name_openblas_core("/x/libgpuval.so")
    assert os.environ["OPENBLAS_CORETYPE"] == "Haswell"


def test_the_core_probe_reads_what_openblas_detected():
    from gpuval import _lib

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    res = subprocess.run([sys.executable, "-c", _lib._CORE_PROBE, built_lib()], env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip(), "openblas_get_corename gave nothing"
