#!/usr/bin/env bash
# header_deps.sh SRCDIR: a header edit rebuilds the CUDA objects that include it, and only them.
# Configures a copy of the source in a temporary directory, builds two kernel objects
# (gk_colsum.o, which includes kernels/colsum.cuh, and gk_vadd.o, which does not), then:
#   - nothing touched: ninja has no work;
#   - kernels/colsum.cuh touched: gk_colsum.o is rebuilt, gk_vadd.o is not;
#   - kernels/gk.h and abi/gv_abi.h touched (included by every kernel): both are rebuilt.
# Exits 77 (skipped) where there is no nvcc.
set -euo pipefail
src=$(cd "${1:?usage: header_deps.sh SRCDIR}" && pwd)
command -v nvcc >/dev/null || { echo "no nvcc: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the sources without build directories: git's files where it is a checkout, else a copy
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 cp --parents -t "$tmp")
else
  cp -r "$src"/. "$tmp"
  rm -rf "$tmp"/build*
fi
cd "$tmp"
meson setup b -Dcuda=enabled -Dgpu_arch=90 >/dev/null # one architecture: dependencies, not targets
objs=(gk_colsum.o gk_vadd.o)
ninja -C b "${objs[@]}" >/dev/null
fail=0
rebuilds() { # header... : the objects ninja would rebuild after touching the headers
  sleep 1.1 # a new mtime even on a coarse clock
  (($#)) && touch "$@"
  ninja -C b -n "${objs[@]}" | sed -n 's/.*Generating \(gk_[a-z_]*\) .*/\1.o/p' | sort | tr '\n' ' '
  ninja -C b "${objs[@]}" >/dev/null
}
expect() { # what got want
  if [[ $2 == "$3" ]]; then
    echo "ok: $1: rebuilds [${2% }]"
  else
    echo "FAIL: $1: rebuilds [${2% }], expected [${3% }]"
    fail=1
  fi
}
expect "nothing touched" "$(rebuilds)" ""
expect "kernels/colsum.cuh" "$(rebuilds kernels/colsum.cuh)" "gk_colsum.o "
expect "abi/colsum.h" "$(rebuilds abi/colsum.h)" "gk_colsum.o "
expect "kernels/gk.h" "$(rebuilds kernels/gk.h)" "gk_colsum.o gk_vadd.o "
expect "abi/gv_abi.h" "$(rebuilds abi/gv_abi.h)" "gk_colsum.o gk_vadd.o "
exit $fail
