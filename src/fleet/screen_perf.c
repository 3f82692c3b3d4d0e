/* screen_perf.c: the timed copy and products of a screen worker (screen_perf.h), through the bench wing's ceilings so that the screen times as
 * `gpuval bench` does: events around launches after a warm-up, medians of at least 10 samples. */
#include "fleet/screen_perf.h"

#include <stdio.h>
#include <string.h>

#include "bench/bench_case.h"
#include "bench/stats.h"

/* GPUVAL_SCREEN_FAULT=DEV:slow:F: every counted launch is F real ones, so that the GPU really
   spends F times as long for the work it reports (the planted slow board). */
static int slow_factor = 1;
static int slow_sample(gk_bench *b, int scope, int reps, double *ms)
{
    int rc = gv_bench_cuda.sample(b, scope, reps * slow_factor, ms);
    *ms *= slow_factor;
    return rc;
}

void gv_screen_perf_measure(int slow, double values[GV_SCREEN_NPERF], char why[][200])
{
    gv_bench_opts o;
    gv_bench_opts_default(&o);
    gv_bench_device dev = gv_bench_cuda;
    if (slow > 1) {
        slow_factor = slow;
        dev.sample = slow_sample;
    }
    o.device = &dev;
    gv_ceilings c;
    gv_bench_ceilings(&o, (1u << GV_F32) | (1u << GV_F64), &c);
    const gv_ceiling *by[GV_SCREEN_NPERF] = {&c.copy, &c.gemm[GV_F32], &c.gemm[GV_F64]};
    const double scale[GV_SCREEN_NPERF] = {1e9, 1e12, 1e12}; /* GB/s, TFLOP/s */
    for (int i = 0; i < GV_SCREEN_NPERF; i++) {
        values[i] = 0;
        snprintf(why[i], 200, "%.190s", by[i]->ok ? "" : by[i]->why);
        if (!by[i]->ok || by[i]->t.n < 1) continue;
        double ms = gv_median(by[i]->t.ms, by[i]->t.n);
        if (ms > 0) values[i] = by[i]->work / (ms * 1e-3) / scale[i];
    }
    gv_ceilings_free(&c);
    slow_factor = 1;
}
