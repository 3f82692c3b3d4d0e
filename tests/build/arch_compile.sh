#!/usr/bin/env bash
# tests/build/arch_compile.sh NVCC SRCDIR: every kernel source compiles for every architecture
# of the portable set (tools/cuda_arch.py all: sm_75 ... sm_120), as machine code (-cubin:
# nvcc's front end and ptxas, which is where an instruction an architecture lacks is refused,
# e.g. "Feature 'cp.async' requires .target sm_80 or higher"), without the host compile or a
# link: the cheapest compile that proves each architecture builds. One nvcc per (file,
# architecture), as many at a time as there are cores. Skipped (77) without nvcc.
set -uo pipefail
nvcc=$1
src=$2
if [[ ! -x $nvcc ]]; then
  echo "no nvcc: skipped"
  exit 77
fi
archs=$(python3 "$src/tools/cuda_arch.py" all | sed -n 2p | tr ',' '\n' | sed -n 's/^sm_//p')
[[ -n $archs ]] || { echo "tools/cuda_arch.py all gave no architectures"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
t0=$SECONDS
for cu in "$src"/kernels/*.cu; do
  for a in $archs; do
    echo "$cu $a"
  done
done | xargs -P "$jobs" -n 2 sh -c '
  cu=$1 a=$2 out='"$tmp"'/$(basename "$cu" .cu).$a
  if ! "'"$nvcc"'" -gencode=arch=compute_$a,code=sm_$a -cubin -DGV_HAVE_CUDA \
       -DGV_CUDA_ARCH=\"sm_$a\" --expt-relaxed-constexpr -O2 -I"'"$src"'/kernels" \
       -Werror=cross-execution-space-call,deprecated-declarations,reorder \
       "$cu" -o "$out.cubin" > "$out.log" 2>&1; then
    echo "FAIL sm_$a $(basename "$cu")"; cat "$out.log"; touch "$out.failed"
  fi' sh
n_cu=$(ls "$src"/kernels/*.cu | wc -l)
n_arch=$(echo $archs | wc -w)
failed=$(ls "$tmp"/*.failed 2>/dev/null | wc -l)
built=$(ls "$tmp"/*.cubin 2>/dev/null | wc -l)
echo "$n_cu kernel sources x $n_arch architectures ($(echo $archs | sed 's/\([0-9]*\)/sm_\1/g')):" \
     "$built cubins, $failed failed, $((SECONDS - t0)) s on $jobs cores"
[[ $failed -eq 0 && $built -eq $((n_cu * n_arch)) ]]
