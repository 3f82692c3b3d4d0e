#!/bin/sh
# expect.sh WANT TEXT CMD...: run CMD; pass when it exits WANT and its output holds TEXT.
# Exit 77 (no CUDA device) passes through as meson's skip, unless GPUVAL_REQUIRE_GPU is set
# to anything but empty or 0.
want=$1 text=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 77 ] && [ "$want" -ne 77 ]; then
  case "${GPUVAL_REQUIRE_GPU:-0}" in
    ''|0) echo "expect.sh: no CUDA device: skipped"; exit 77 ;;
    *) echo "expect.sh: no CUDA device and GPUVAL_REQUIRE_GPU=$GPUVAL_REQUIRE_GPU"; exit 1 ;;
  esac
fi
if [ "$rc" -ne "$want" ]; then
  echo "expect.sh: exit $rc, want $want"
  exit 1
fi
case "$out" in
  *"$text"*) exit 0 ;;
  *) echo "expect.sh: output lacks '$text'"; exit 1 ;;
esac
