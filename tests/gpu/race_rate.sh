#!/usr/bin/env bash
# race_rate.sh GPUVAL [RUNS]: how often the repeat canary catches the planted race.
#
# Runs the repeat canary of reduce.sum.nofence (the one-pass sum without its fences: 2^21
# uniform [0,1) elements, 1024 blocks, 32 launches on the same inputs) RUNS times (default 20),
# each in a gpuval process of its own, f32 and f64 apart, and prints
#   reduce.sum.nofence f32: k of 20 runs FAILed (32 launches a run)
# A missing fence shows only when a block's partial is still on its way when the last block
# reads it: k is a measured rate, not a promise, and any k from 0 to RUNS is a result.
# The same for reduce.sum.onepass (with its fences, 10 launches a run) is the control: it must
# FAIL in none. Exit 0 when every run was judged and the control never FAILed; 1 when the
# control FAILed or a run ended in an error (exit 3) or a usage error; 77 without a device.
# meson: `meson test -C build --setup long --suite gpu-long race-rate`.
set -u
gpuval=${1:?usage: race_rate.sh GPUVAL [RUNS]}
runs=${2:-20}
status=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

"$gpuval" info >/dev/null 2>&1
if [ $? -eq 77 ]; then
    echo "race_rate: no CUDA device, skipped"
    exit 77
fi

# one line: OP DTYPE: k of RUNS runs FAILed; sets status on a run that was not judged
measure() {
    local op=$1 dtype=$2 launches=$3 failed=0 k rc
    for ((k = 1; k <= runs; k++)); do
        "$gpuval" check --op "$op" --dtype "$dtype" --dist uniform01 --size 2097152 -q \
            >"$log" 2>&1
        rc=$?
        case $rc in
        0) ;;
        1) failed=$((failed + 1)) ;;
        *)
            echo "race_rate: $op $dtype run $k: exit $rc" >&2
            cat "$log" >&2
            status=1
            ;;
        esac
    done
    echo "$op $dtype: $failed of $runs runs FAILed ($launches launches a run)"
    [ "$op" = reduce.sum.onepass ] && [ "$failed" -gt 0 ] && status=1
    return 0
}

for dtype in f32 f64; do
    measure reduce.sum.nofence "$dtype" 32
    measure reduce.sum.onepass "$dtype" 10
done
exit $status
