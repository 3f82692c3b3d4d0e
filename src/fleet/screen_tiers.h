/* screen_tiers.h: the fixed selections of `gpuval screen` (screen_tiers.c). A tier is a short,
 * versioned list of cases, one row each (op, dtype, mode, size, dist, unit), chosen to touch each
 * unit of a GPU that computes (tensor cores, FP64, SIMT FMA, SFU, reductions, stencils, memory
 * bandwidth, FFT) once, small enough for its time box. The rows are data: a size changes in the
 * table and nowhere else, and the tier's name gains a version ("prolog/2") whenever a row
 * changes, so that golden digests recorded for one version are never compared with another's.
 * The cases run through the check machinery (gv_select, the isolated case runner); screen adds
 * no pipeline of its own. */
#ifndef GV_SCREEN_TIERS_H
#define GV_SCREEN_TIERS_H

#include <stddef.h>

#include "core/gv.h"

/* The units a case exercises, as operators read them in a drain reason and as Prometheus
 * labels: X(id, label, what). */
#define GV_SCREEN_UNITS(X)                                                                         \
    X(TENSOR, "tensor-cores", "tensor cores (TF32, BF16, F16 products)")                           \
    X(FP64, "fp64", "FP64 units (double-precision products)")                                      \
    X(SIMT_FMA, "simt-fma", "SIMT FMA pipes (hand-written tiled products)")                        \
    X(SFU, "sfu", "special function units (fast sin, exp)")                                        \
    X(MATH, "math", "correctly rounded library math (sinf, expf)")                                 \
    X(REDUCE, "reduce", "reductions (warp shuffles, shared memory)")                               \
    X(STENCIL, "stencil", "stencils (shared-memory tiles, halos)")                                 \
    X(MEMORY, "memory", "memory bandwidth (streaming vadd)")                                       \
    X(FFT, "fft", "FFT (cuFFT)")                                                                   \
    X(HEALTH, "health", "the board's own account (NVML: ECC, remapped rows, XID events)")           \
    X(PERF, "perf", "speed against the node's other GPUs and the golden file (copy, products)")

typedef enum gv_screen_unit {
#define GV_SCREEN_UNIT_ENUM(id, label, what) GV_UNIT_##id,
    GV_SCREEN_UNITS(GV_SCREEN_UNIT_ENUM)
#undef GV_SCREEN_UNIT_ENUM
        GV_SCREEN_NUNITS
} gv_screen_unit;

/* The units a tier's cases exercise come first; the last two are judged from the board's
   account and the screen's timed copy and products, not from cases. */
#define GV_SCREEN_CASE_UNITS GV_UNIT_HEALTH

/* "tensor-cores"; "" past the table */
const char *gv_screen_unit_label(int unit);
/* The unit whose label is s, or -1. */
int gv_screen_unit_parse(const char *s);

/* One case of a tier. dist NULL: the op's default distribution. */
typedef struct gv_screen_row {
    const char *op, *dtype, *mode, *size, *dist;
    gv_screen_unit unit;
} gv_screen_row;

typedef struct gv_screen_tier {
    const char *name;      /* "prolog" */
    const char *version;   /* "prolog/1": recorded in every output and in the golden file */
    double budget_s;       /* the time box for a node (all its GPUs at once) */
    double case_timeout_s; /* one case may take this long before it is an ERROR */
    const char *what;
    const gv_screen_row *rows;
    int n_rows;
} gv_screen_tier;

/* The tier named name ("prolog", "drain") or NULL. */
const gv_screen_tier *gv_screen_tier_find(const char *name);
/* Tier i, NULL past the last: for help texts and tests. */
const gv_screen_tier *gv_screen_tier_at(int i);

/* The tier's cases, in row order, one case per row (allocated into *cases; free with free()):
 * each row selected through gv_select with the op named exactly, its dtype, mode, dist and the
 * one shape. Returns the count (tier->n_rows), or GV_EINVAL with the row and the reason in err
 * (an op not registered, a mode the op lacks, a malformed size): a defect of the table, which
 * tests/cpu/test_screen.c holds every tier free of. */
int gv_screen_cases(const gv_screen_tier *tier, gv_case **cases, char *err, size_t len);

/* The unit of the case with op, dtype, mode, dist and shape ("gemm.cublas", "f32", "tf32",
 * "uniform11", "1024x1024x1024") in tier, or -1 when no row is that case. */
int gv_screen_unit_of(const gv_screen_tier *tier, const char *op, const char *dtype,
                      const char *mode, const char *dist, const char *shape);

#endif
