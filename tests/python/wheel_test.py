#!/usr/bin/env python3
"""tests/python/wheel_test.py SRCDIR BUILDDIR LIBGPUVAL VERSION: the wheel (tools/build_wheel.py) of
this build's CPU-only libgpuval installs into a clean virtual environment and judges there
with nothing of the build, the repository or the system's libraries beyond glibc.

1. The wheel is built, named for VERSION (meson's project version: one version), unzipped and
   its RECORD checked here (every file listed once, its sha256 and size), independently of
   build_wheel.py --check, which must agree; a wheel with one byte of a file changed, and one
   with a file RECORD does not list, must fail that check.
2. `python3 -m venv` (no system site packages) gets numpy and pytest from the package index
   (pip's cache in BUILDDIR/pip-cache) or, with GPUVAL_WHEELHOUSE=DIR, from that directory
   alone (--no-index: an offline CI); then the wheel, with --no-index, so nothing is built.
3. From a directory outside the repository, with GPUVAL_LIB unset, LD_LIBRARY_PATH empty,
   pkg-config pointed at an empty directory and PATH the venv's bin alone (no meson, ninja,
   nvcc, compiler or pkg-config reachable, checked): `import gpuval; print(gpuval.judge(...).row)`
   PASSes a correct product and FAILs a wrong one, with the wheel's own library (lib_info: the
   bundled one, no CUDA); a tiny pytest file with @pytest.mark.gpuval passes, its wrong kernel
   failing as it must, and the summary names the library.
4. ldd on the installed libgpuval: every dependency resolves inside the installed gpuval/_libs
   or to glibc and libgcc_s (build_wheel.SYSTEM), with no loader warning.

Given a CUDA build's library, it first builds a CPU-only libgpuval in BUILDDIR/wheel-cpu (the
wheel carries that one). Exit 77 (skipped, with the reason): a sanitizer build's library
(no wheel ships one; the `python` test runs it under the sanitizers), no
venv/ensurepip (Debian's python3-venv), no patchelf, or numpy and pytest neither reachable nor
in GPUVAL_WHEELHOUSE.
"""
import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

SKIP = 77
src, build, lib = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
version = sys.argv[4]
sys.path.insert(0, os.path.join(src, "tools"))
import build_wheel  # noqa: E402

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def skip(why):
    print(f"skipped: {why}")
    sys.exit(SKIP)


def sh(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return res


# --- what this test needs ---------------------------------------------------------------------
ldd_lib = sh(["ldd", lib]).stdout
if any(s in ldd_lib for s in ("libasan", "libubsan", "libtsan")):
    # a wheel ships a plain library; the sanitizer build's library is run from Python by the
    # `python` test (its runtime preloaded), and the plain build runs this one
    skip(f"{lib} is built with sanitizers: no wheel is made of it (the python test runs it "
         "under them; the plain build's python_wheel tests the wheel)")
if sh([sys.executable, "-c", "import venv, ensurepip"]).returncode != 0:
    skip("python3 has no venv/ensurepip (apt-get install python3-venv)")
if not shutil.which("patchelf"):
    skip("no patchelf (apt-get install patchelf): tools/build_wheel.py rewrites the bundled "
         "libraries' names and RPATH with it")
if "libcudart" in sh(["readelf", "-d", lib]).stdout:
    # the wheel carries a CPU-only libgpuval: a CUDA build (CI's, wherever nvcc is installed)
    # makes one beside it, kept in its build directory so that a rerun only relinks
    cpu = os.path.join(build, "wheel-cpu")
    if not os.path.exists(os.path.join(cpu, "build.ninja")):
        r = sh(["meson", "setup", cpu, src, "-Dcuda=disabled"])
        if r.returncode != 0:
            print(r.stdout[-2000:], r.stderr[-2000:])
            sys.exit(1)
    r = sh(["meson", "compile", "-C", cpu, "include/gpuval:shared_library"])
    if r.returncode != 0:
        print(r.stdout[-2000:], r.stderr[-2000:])
        sys.exit(1)
    lib = os.path.realpath(os.path.join(cpu, "include", "libgpuval.so"))
    print(f"ok a CPU-only libgpuval beside the CUDA build: {lib}")

work = os.path.join(build, "wheel-test")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# --- 1. build, unzip, RECORD --------------------------------------------------------------------
res = sh([sys.executable, os.path.join(src, "tools", "build_wheel.py"), "--lib", lib,
          "--python", os.path.join(src, "python"), "--out", os.path.join(work, "dist")])
print(res.stdout + res.stderr)
if not check(res.returncode == 0, "tools/build_wheel.py builds the wheel"):
    sys.exit(1)
wheel = res.stdout.strip().splitlines()[-1]
check(os.path.basename(wheel) == f"gpuval-{version}-py3-none-linux_x86_64.whl",
      f"{os.path.basename(wheel)}: meson's version {version}, tag py3-none-linux_x86_64")

# the same inputs give the same wheel, byte for byte (python/README.md says so)
again = sh([sys.executable, os.path.join(src, "tools", "build_wheel.py"), "--lib", lib,
            "--python", os.path.join(src, "python"), "--out", os.path.join(work, "again")])
if check(again.returncode == 0, "tools/build_wheel.py builds it a second time"):
    second = again.stdout.strip().splitlines()[-1]
    check(open(wheel, "rb").read() == open(second, "rb").read(),
          "the second wheel is the first, byte for byte")

unz = os.path.join(work, "unzipped")
with zipfile.ZipFile(wheel) as z:
    z.extractall(unz)
files = sorted(os.path.relpath(os.path.join(r, f), unz).replace(os.sep, "/")
               for r, _, fs in os.walk(unz) for f in fs)
records = [f for f in files if f.endswith(".dist-info/RECORD")]
if check(len(records) == 1, "one .dist-info/RECORD"):
    with open(os.path.join(unz, records[0]), newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    listed = {r[0]: r for r in rows}
    check(len(listed) == len(rows), "RECORD lists each file once")
    check(sorted(listed) == files, "RECORD lists exactly the files of the archive")
    bad = []
    for name, (_, h, size) in sorted(listed.items()):
        if name == records[0]:
            bad += [] if (h, size) == ("", "") else [f"{name}: RECORD hashes itself"]
            continue
        data = open(os.path.join(unz, name), "rb").read()
        want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
            b"=").decode()
        if h != want or size != str(len(data)):
            bad.append(name)
    check(not bad, f"every file's sha256 and size are RECORD's ({len(listed) - 1} files) "
          + ", ".join(bad))
check("gpuval/_libs/libgpuval.so.1" in files, "the wheel carries gpuval/_libs/libgpuval.so.1")
check(any(f.startswith("gpuval/_libs/libopenblas-") for f in files),
      "the wheel carries OpenBLAS under a hashed name")

check(sh([sys.executable, os.path.join(src, "tools", "build_wheel.py"), "--check",
          wheel]).returncode == 0, "build_wheel.py --check: the wheel is sound")


def rewrite(dest, change):
    """A copy of the wheel with change(name, data) -> data or None (left out) per entry, and
    extra entries from change(None, None) -> [(name, data)]."""
    with zipfile.ZipFile(wheel) as zi, zipfile.ZipFile(dest, "w") as zo:
        for info in zi.infolist():
            data = change(info.filename, zi.read(info))
            if data is not None:
                zo.writestr(info, data)
        for name, data in change(None, None) or []:
            zo.writestr(name, data)
    return dest


def one_byte(name, data):
    if name == "gpuval/_core.py":
        return data[:100] + bytes([data[100] ^ 1]) + data[101:]
    return data if name else None


def extra_file(name, data):
    return data if name else [("gpuval/extra.py", b"print('not in RECORD')\n")]


for label, change, named in (("one byte of gpuval/_core.py changed", one_byte, "_core.py"),
                             ("a file RECORD does not list", extra_file, "extra.py")):
    bad_dir = os.path.join(work, "bad-" + change.__name__)
    os.makedirs(bad_dir)
    bad_wheel = rewrite(os.path.join(bad_dir, os.path.basename(wheel)), change)
    r = sh([sys.executable, os.path.join(src, "tools", "build_wheel.py"), "--check", bad_wheel])
    check(r.returncode == 1 and named in r.stderr,
          f"build_wheel.py --check fails a wheel with {label}: {r.stderr.strip()[:160]}")

# --- 2. a clean venv, numpy and pytest, the wheel ------------------------------------------------
venv = os.path.join(work, "venv")
if sh([sys.executable, "-m", "venv", venv]).returncode != 0:
    skip(f"{sys.executable} -m venv failed")
py = os.path.join(venv, "bin", "python")
pip_env = dict(os.environ, PIP_CACHE_DIR=os.path.join(build, "pip-cache"),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
wheelhouse = os.environ.get("GPUVAL_WHEELHOUSE")
src_args = ["--no-index", "--find-links", wheelhouse] if wheelhouse else []
r = sh([py, "-m", "pip", "install", "-q"] + src_args + ["numpy", "pytest>=7"], env=pip_env,
       timeout=400)
if r.returncode != 0:
    skip("numpy and pytest could not be installed into the clean venv "
         + (f"from GPUVAL_WHEELHOUSE={wheelhouse}" if wheelhouse else
            "from the package index (offline? set GPUVAL_WHEELHOUSE to a directory of wheels)")
         + f": {r.stderr.strip()[-300:]}")
print("numpy and pytest from " + (f"the wheelhouse {wheelhouse}" if wheelhouse else
                                  "the package index"))
r = sh([py, "-m", "pip", "install", "-q", "--no-index", wheel], env=pip_env, timeout=300)
if not check(r.returncode == 0, f"pip install --no-index {os.path.basename(wheel)}: "
             + r.stderr.strip()[-300:]):
    sys.exit(1)

# --- 3. judge and the pytest plugin from outside the repository ---------------------------------
outside = tempfile.mkdtemp(prefix="gpuval-wheel-")
empty = os.path.join(outside, "no-pkgconfig")
os.makedirs(empty)
env = {k: v for k, v in os.environ.items()
       if k not in ("GPUVAL_LIB", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CUDA_HOME",
                    "CUDA_PATH")}
# PATH is the venv's bin alone: a machine with only Python has no meson, ninja, nvcc, compiler
# or pkg-config, and the package must not need one of them to load or judge
env.update(LD_LIBRARY_PATH="", PKG_CONFIG_PATH=empty, PKG_CONFIG_LIBDIR=empty,
           PYTHONNOUSERSITE="1", OPENBLAS_NUM_THREADS="1", PATH=os.path.join(venv, "bin"))
TOOLS = ("meson", "ninja", "nvcc", "cc", "gcc", "pkg-config", "nvidia-smi")
r = sh([py, "-c", "import shutil, sys; print([t for t in sys.argv[1:] if shutil.which(t)])"]
       + list(TOOLS), env=env, cwd=outside)
check(r.returncode == 0 and r.stdout.strip() == "[]",
      f"no {', '.join(TOOLS)} on the venv's PATH: {r.stdout.strip()} {r.stderr.strip()[-200:]}")
site = sh([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
          env=env).stdout.strip()
bundled = os.path.join(site, "gpuval", "_libs", "libgpuval.so.1")

JUDGE = """
import gpuval, numpy as np
case = gpuval.inputs("gemm", "f32", size="40x64x30", dist="uniform11", seed=3)
A, B = case
C = (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32)
print(gpuval.judge("gemm", case, [C]).row)
C[5, 7] = 0.25
print(gpuval.judge("gemm", case, [C]).row)
info = gpuval.lib_info()
print(info["path"]); print(info["found_by"]); print(info["cuda"])
print(gpuval.__file__)
"""
r = sh([py, "-c", JUDGE], env=env, cwd=outside, timeout=300)
print(r.stdout + r.stderr)
out = r.stdout.splitlines()
if check(r.returncode == 0 and len(out) == 6, "import gpuval; gpuval.judge(...).row runs"):
    check(out[0].rstrip().endswith("PASS"), f"a correct product PASSes: {out[0].strip()}")
    check(" FAIL " in out[1] and "error model" in out[1],
          f"one wrong element FAILs: {out[1].strip()}")
    check(out[2] == bundled, f"the library is the wheel's: {out[2]}")
    check(out[3] == "the wheel's bundled CPU-only library" and out[4] == "False",
          f"lib_info: {out[3]}, cuda {out[4]}")
    check(out[5].startswith(site), f"gpuval imported from the venv: {out[5]}")

PLUGIN = '''
import numpy as np, pytest

def gemm(A, B):
    return (A.astype(np.float64) @ B.astype(np.float64)).astype(A.dtype)

def wrong_gemm(A, B):
    return (A[:, :-1] @ B[:-1, :]).astype(A.dtype)  # drops the last k term

@pytest.mark.gpuval(op="gemm", dtype="f32", sizes="33x17x9,8x64x8", dists="uniform11")
def test_gemm(gpuval_case):
    gpuval_case.judge(gemm(*gpuval_case.inputs))

@pytest.mark.xfail(strict=True, raises=pytest.fail.Exception)
@pytest.mark.gpuval(op="gemm", dtype="f32", sizes="33x17x9", dists="uniform11")
def test_wrong_gemm(gpuval_case):
    gpuval_case.judge(wrong_gemm(*gpuval_case.inputs))
'''
with open(os.path.join(outside, "test_plugin_from_wheel.py"), "w") as f:
    f.write(PLUGIN)
r = sh([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plugin_from_wheel.py"],
       env=env, cwd=outside, timeout=300)
print(r.stdout + r.stderr)
check(r.returncode == 0 and "2 passed, 1 xfailed" in r.stdout,
      "the pytest plugin: 2 cases pass, the wrong kernel fails (xfail strict)")
check(f"gpuval: libgpuval 1.4 at {bundled}" in r.stdout and "CPU only, no CUDA" in r.stdout,
      "pytest's summary names the bundled CPU-only library")

# --- 4. ldd on the installed library -------------------------------------------------------------
# (ldd is a shell script of the system's: the system's PATH, the same empty LD_LIBRARY_PATH)
r = sh(["ldd", bundled], env=dict(env, PATH=os.environ.get("PATH", "/usr/bin:/bin")))
print(r.stdout + r.stderr)
libs_dir = os.path.realpath(os.path.dirname(bundled))
outside_deps = []
for line in r.stdout.splitlines():
    parts = line.split()
    name = os.path.basename(parts[0])
    where = parts[2] if len(parts) > 2 and parts[1] == "=>" else parts[0]
    if where == "not" or (name not in build_wheel.SYSTEM
                          and os.path.dirname(os.path.realpath(where)) != libs_dir):
        outside_deps.append(line.strip())
check(r.returncode == 0 and not outside_deps and not r.stderr.strip(),
      "ldd: every dependency inside gpuval/_libs or glibc/libgcc_s, no warning "
      + "; ".join(outside_deps))

shutil.rmtree(outside, ignore_errors=True)
print(f"{len(failures)} failed" if failures else "all held")
sys.exit(1 if failures else 0)
