#!/usr/bin/env bash
# tests/python/run_pytest.sh SRCDIR BUILDDIR LIBGPUVAL: the Python package (python/) and its
# pytest plugin, over NumPy on the CPU, against this build's libgpuval.
#
# A virtual environment in BUILDDIR/python-venv, then `pip install ./python` into it on every run,
# so the tests see the package as a user installs it (its pytest11 entry point included). Where
# a system Python already has numpy, pytest, setuptools and wheel (Debian's python3-numpy,
# python3-pytest, python3-setuptools, python3-wheel: ci/setup installs them) the environment is
# made over its packages (--system-site-packages) and nothing is downloaded, so an offline CI
# runs these tests; only without them does pip fetch the four once (its cache in
# BUILDDIR/pip-cache). Exit 77 (skipped) when python3 has no venv module (Debian's python3-venv),
# or when the packages are neither installed nor reachable. A sanitizer build's library runs
# with ASan's runtime preloaded (below).
set -uo pipefail
src=$1 build=$2 lib=$3
[[ $lib == /* ]] || lib=$PWD/$lib # the tests load it from other directories too
venv=$build/python-venv
export PIP_CACHE_DIR=$build/pip-cache PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

# A sanitizer build's libgpuval (CI's build-asan) cannot simply be dlopen'ed by python3: ASan's
# runtime must be the first library of the process, or it aborts. So the tests run with that
# runtime preloaded (LD_PRELOAD, the path ldd resolves for the library), and the library's
# every call from Python is checked by ASan and UBSan. Leak detection is off in that process:
# the interpreter leaves its own objects allocated at exit, and a suppression by module would
# hide the library's leaks too (every allocation has python3's frames below it); the C tests
# and the CLI runs of the same build check the library for leaks. A ThreadSanitizer build is
# not run here. (ldd's whole output is read into a variable: a grep -q could exit first, ldd
# then died of SIGPIPE and pipefail reported the pipeline failed.)
deps=$(ldd "$lib" 2>/dev/null)
preload=
if grep -E 'libtsan' <<<"$deps" >/dev/null; then
  echo "$lib is built with ThreadSanitizer, which these tests do not run under: skipped" >&2
  exit 77
elif grep -E 'lib(asan|ubsan)' <<<"$deps" >/dev/null; then
  preload=$(awk '$1 ~ /^libasan/ && $2 == "=>" {print $3}' <<<"$deps")
  [[ -n $preload && -f $preload ]] || preload=$(awk '$1 ~ /^libubsan/ && $2 == "=>" {print $3}' <<<"$deps")
  if [[ -z $preload || ! -f $preload ]]; then
    echo "$lib is built with sanitizers whose runtime ldd does not resolve: skipped" >&2
    exit 77
  fi
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "python3 has no venv/ensurepip (apt-get install python3-venv): skipped" >&2
  exit 77
fi
needs='import numpy, pytest, setuptools, wheel'
if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c "$needs" 2>/dev/null; then
  rm -rf "$venv"
  # the first python3 with the packages installed: PATH's, then the system's own (PATH's may
  # be another installation, a pyenv or a conda one, without Debian's packages)
  system_py=
  for py in python3 /usr/bin/python3; do
    if "$py" -c "$needs; import venv, ensurepip" 2>/dev/null; then system_py=$py; break; fi
  done
  if [[ -n $system_py ]]; then
    echo "using $system_py's numpy and pytest (no download)" >&2
    "$system_py" -m venv --system-site-packages "$venv" ||
      { echo "$system_py -m venv failed: skipped" >&2; exit 77; }
  else
    python3 -m venv "$venv" || { echo "python3 -m venv failed: skipped" >&2; exit 77; }
    if ! "$venv/bin/pip" install -q numpy 'pytest>=7' 'setuptools>=61' wheel; then
      rm -rf "$venv" # next time from scratch, not from a half-made environment
      echo "numpy, pytest, setuptools and wheel are not installed (apt-get install" \
        "python3-numpy python3-pytest python3-setuptools python3-wheel) and pip could not" \
        "fetch them (no network?): skipped" >&2
      exit 77
    fi
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
if [[ -n $preload ]]; then
  echo "sanitizer build: $preload preloaded, leak detection off in python3" >&2
  export LD_PRELOAD=$preload
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
fi
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests" \
  --junitxml="$build/python-tests.xml"
