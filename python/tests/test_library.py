"""Finding libgpuval: GPUVAL_LIB is used or refused, never replaced; the version is checked."""

import os
import subprocess
import sys

import gpuval

PROBE = "import gpuval; print(gpuval.lib_path())"


def run_probe(env):
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                          timeout=120)


def test_gpuval_lib_is_the_library_used():
    path = os.environ["GPUVAL_LIB"]
    assert gpuval.lib_path() == path
    res = run_probe(dict(os.environ))
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == path


def test_a_missing_gpuval_lib_is_named_not_replaced(tmp_path):
    missing = str(tmp_path / "libgpuval.so")
    res = run_probe(dict(os.environ, GPUVAL_LIB=missing))
    assert res.returncode != 0
    assert "LibraryNotFound" in res.stderr and missing in res.stderr


def test_a_library_without_the_api_is_refused():
    # libm loads but has no gv_judge
    res = run_probe(dict(os.environ, GPUVAL_LIB="libm.so.6"))
    assert res.returncode != 0
    assert "not libgpuval 1.3" in res.stderr


def test_pkg_config_names_the_libdir(tmp_path):
    import shutil

    import pytest

    if not shutil.which("pkg-config"):
        pytest.skip("no pkg-config")
    libdir = os.path.dirname(os.environ["GPUVAL_LIB"])
    (tmp_path / "gpuval.pc").write_text(f"libdir={libdir}\nName: gpuval\nDescription: test\n"
                                        "Version: 1.3\nLibs: -L${libdir} -lgpuval\n")
    env = {k: v for k, v in os.environ.items() if k != "GPUVAL_LIB"}
    env["PKG_CONFIG_PATH"] = str(tmp_path)
    res = run_probe(env)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == os.path.join(libdir, "libgpuval.so")


def test_without_any_hint_the_search_says_where_it_looked():
    env = {k: v for k, v in os.environ.items() if k not in ("GPUVAL_LIB", "LD_LIBRARY_PATH")}
    env["PKG_CONFIG_PATH"] = env["PKG_CONFIG_LIBDIR"] = "/nonexistent"
    res = run_probe(env)
    if res.returncode == 0:  # an installed libgpuval was found on the system's path: fine
        assert res.stdout.strip()
        return
    assert "GPUVAL_LIB" in res.stderr and "pkg-config" in res.stderr


def test_importing_gpuval_needs_no_library():
    env = dict(os.environ, GPUVAL_LIB="/nonexistent/libgpuval.so")
    res = subprocess.run([sys.executable, "-c", "import gpuval, gpuval.pytest_plugin"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
