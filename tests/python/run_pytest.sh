#!/usr/bin/env bash
# tests/python/run_pytest.sh SRCDIR BUILDDIR LIBGPUVAL: the Python package (python/) and its
# pytest plugin, over NumPy on the CPU, against this build's libgpuval.
#
# A virtual environment in BUILDDIR/python-venv gets numpy, pytest, setuptools and wheel once (pip's
# cache in BUILDDIR/pip-cache), then `pip install ./python` on every run, so the tests see the
# package as a user installs it (its pytest11 entry point included). Exit 77 (skipped) when
# python3 has no venv module (Debian's python3-venv) or the package index cannot be reached.
set -uo pipefail
src=$1 build=$2 lib=$3
[[ $lib == /* ]] || lib=$PWD/$lib # the tests load it from other directories too
venv=$build/python-venv
export PIP_CACHE_DIR=$build/pip-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# a sanitizer build's libgpuval cannot be dlopen'ed by python3 (ASan's runtime must be the
# first library of the process: it aborts); the plain build runs these tests
# (grep reads all of ldd's output: with -q it could exit first, ldd then dies of SIGPIPE and
# pipefail reports the pipeline failed, which ran the tests into that abort now and then)
if ldd "$lib" 2>/dev/null | grep -E 'lib(asan|ubsan|tsan)' >/dev/null; then
  echo "$lib is built with sanitizers, which a python3 process cannot load: skipped" >&2
  exit 77
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python3 has no venv/ensurepip (apt-get install python3-venv): skipped" >&2
  exit 77
fi
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import numpy, pytest, setuptools, wheel' 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" || { echo "python3 -m venv failed: skipped" >&2; exit 77; }
  if ! "$venv/bin/pip" install -q numpy 'pytest>=8' 'setuptools>=61' wheel; then
    rm -rf "$venv" # next time from scratch, not from a half-made environment
    echo "pip could not install numpy, pytest, setuptools and wheel (no network?): skipped" >&2
    exit 77
  fi
fi
# the package itself needs nothing from the network: its build backend is already here. It is
# built from a copy, so that setuptools' build/ and egg-info stay out of the source tree.
pkg=$build/python-pkg
rm -rf "$pkg" && mkdir -p "$pkg" || exit 1
cp -r "$src/python/pyproject.toml" "$src/python/README.md" "$src/python/src" "$pkg/" || exit 1
"$venv/bin/pip" install -q --no-build-isolation --no-deps --force-reinstall "$pkg" || exit 1
export GPUVAL_LIB=$lib OPENBLAS_NUM_THREADS=1
cd "$build" || exit 1
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests" \
  --junitxml="$build/python-tests.xml"
