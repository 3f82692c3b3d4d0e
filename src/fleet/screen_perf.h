/* screen_perf.h: a screen worker's timed copy and products (screen_perf.c), the speeds the
 * screen judges each GPU by against its peers and the golden file (screen_health.h). */
#ifndef GV_SCREEN_PERF_H
#define GV_SCREEN_PERF_H

#include "fleet/screen_health.h"

/* Time the copy and the f32 and f64 products of the current device as `gpuval bench` times its
   ceilings (bench/bench_case.h: medians of at least 10 samples after a warm-up), into values
   (0 and why[i] where one could not be timed). slow > 1: a planted slow board
   (GPUVAL_SCREEN_FAULT=DEV:slow:F), each counted launch made of `slow` launches. */
void gv_screen_perf_measure(int slow, double values[GV_SCREEN_NPERF], char why[][200]);

#endif
