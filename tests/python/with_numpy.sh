#!/usr/bin/env bash
# tests/python/with_numpy.sh SCRIPT ARGS...: SCRIPT run by the first Python 3 that imports NumPy:
# python3 on PATH, then the system's /usr/bin/python3 (Debian's python3-numpy, which ci/setup
# installs, where PATH's python3 is another interpreter without it). Exit 77 (skipped) when
# neither has NumPy, so a host without it skips rather than fails, and on a sanitizer build's
# GPUVAL_LIB, which python3 cannot dlopen without ASan's runtime first (tests/python/run_pytest.sh
# runs the package's tests under it).
if [[ -n ${GPUVAL_LIB:-} ]] && ldd "$GPUVAL_LIB" 2>/dev/null | grep -qE 'lib(asan|ubsan|tsan)'; then
  echo "$GPUVAL_LIB is a sanitizer build: skipped" >&2
  exit 77
fi
for py in "$(command -v python3)" /usr/bin/python3; do
  if [[ -x $py ]] && "$py" -c 'import numpy' 2>/dev/null; then
    exec "$py" "$@"
  fi
done
echo "no python3 with numpy (PATH's python3, /usr/bin/python3): skipped" >&2
exit 77
