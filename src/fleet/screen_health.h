/* screen_health.h: the board's health and speed in a screen run document (screen_health.c):
 * what a worker writes into its run's "screen" block (the NVML snapshots before and after its
 * cases, the critical XID events between them, the timed copy and products) and what the judge
 * reads back from it. The rules are gv_health_judge's (core/power.h) for health and
 * gv_screen_perf_slow's for speed, so that tests judge planted boards without a GPU. */
#ifndef GV_SCREEN_HEALTH_H
#define GV_SCREEN_HEALTH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/power.h"

/* The speeds a screen measures on each GPU, as X(id, json key, unit, what). */
#define GV_SCREEN_PERF(X)                                                                          \
    X(COPY, "copy_gbs", "GB/s", "device-to-device copy")                                           \
    X(GEMM_F32, "gemm_f32_tflops", "TFLOP/s", "cuBLAS f32 product (pedantic: SIMT FMA)")           \
    X(GEMM_F64, "gemm_f64_tflops", "TFLOP/s", "cuBLAS f64 product")

enum {
#define GV_SCREEN_PERF_ENUM(id, key, unit, what) GV_PERF_##id,
    GV_SCREEN_PERF(GV_SCREEN_PERF_ENUM)
#undef GV_SCREEN_PERF_ENUM
        GV_SCREEN_NPERF
};
const char *gv_screen_perf_key(int i);
const char *gv_screen_perf_unit(int i);

/* A GPU is a performance outlier when a speed of it is below its reference divided by this:
   the median of the node's other GPUs of its model, and the golden file's speed for its key.
   Healthy boards of one model differ by a few percent (docs/fleet.md); a board at two thirds of
   its peers has lost clocks, links or memory. */
#define GV_SCREEN_PERF_MARGIN 1.5

/* The health block of a run: {"before": {...}, "after": {...}, "xid": [codes], "xid_watch":
   "why not watched" or absent}. */
json_t *gv_screen_health_json(const gv_health *before, const gv_health *after,
                              const unsigned long long *xid, int n_xid, const char *watch_why);
/* Read a health block back (NULL or malformed: before/after not ok, with why). n_xid <= GV_XID_MAX
   codes in xid; returns the number of events (which may be more). */
int gv_screen_health_read(const json_t *block, gv_health *before, gv_health *after,
                          unsigned long long xid[GV_XID_MAX]);

/* The perf block of a run: {"copy_gbs": x, ...}; a speed that was not measured is absent (and
   "why_<key>" says why). values[i] <= 0: not measured. */
json_t *gv_screen_perf_json(const double values[GV_SCREEN_NPERF],
                            const char *const why[GV_SCREEN_NPERF]);
/* values[i] from a perf block (0 where absent or not a positive number). */
void gv_screen_perf_read(const json_t *block, double values[GV_SCREEN_NPERF]);

/* Whether speed `value` is slow against `reference` (both > 0), by GV_SCREEN_PERF_MARGIN. */
bool gv_screen_perf_slow(double value, double reference);

#endif
