/* bench_plan.h: what a timed run times (bench_plan.c): presets, sweeps, and sizes that fit. */
#ifndef GV_BENCH_PLAN_H
#define GV_BENCH_PLAN_H

#include "bench_case.h"

typedef struct gv_case_list {
    gv_case *v;
    int n, cap;
} gv_case_list;
int gv_case_list_add(gv_case_list *l, const gv_case *c); /* GV_OK or GV_ENOMEM */

/* A crossover sweep: dim `dim` of `base` takes the geometric sizes lo..hi (ratio factor),
 * then up to `refine` geometric bisections between the last loss and the first win. */
#define GV_MAX_SWEEP 64
typedef struct gv_sweep {
    const gv_op *op;
    gv_dtype dtype;
    gv_mode mode;
    gv_shape base;
    int dim;
    int64_t lo, hi;
    double factor;
    int refine;
} gv_sweep;

/* Messages for the user about what a preset had to leave out (an op this build lacks). */
typedef struct gv_notes {
    int n;
    char text[8][320];
} gv_notes;

/* "seed000 seed002 targets short" */
extern const char gv_bench_preset_names[];
/* Append a preset's cases, set its sweep (have_sweep) and adjust o (e.g. targets do not time
 * the CPU). Ops are looked up by name in the registry; one that is missing is left out with
 * a note. GV_OK, GV_EINVAL (unknown name), GV_ENOMEM. */
int gv_bench_preset(const char *name, gv_case_list *cases, gv_sweep *sw, bool *have_sweep,
                    gv_bench_opts *o, gv_notes *notes);
/* The op's default shape number `which` (-1: the last); GV_EINVAL if it has none. */
int gv_op_default_shape(const gv_op *op, int which, gv_shape *out);
/* Parse "DIM=LO..HI" (sizes as in a size SPEC) against sw->op's dims into sw->dim/lo/hi. */
int gv_sweep_parse(gv_sweep *sw, const char *spec, char *why, size_t len);
/* The sweep's sizes (<= GV_MAX_SWEEP), each shape accepted by the op, the largest fitting
 * this machine; the count, or GV_EINVAL with why. */
int gv_sweep_sizes(const gv_sweep *sw, const gv_bench_opts *o, int64_t *sizes, char *why,
                   size_t len);
/* Does a case fit this host's memory and (when there is a device) the device's total
 * memory? GV_OK, or GV_EINVAL with why. Runs before any work, so that sizes that cannot
 * fit are bad input (exit 2), not a crash half-way. */
int gv_bench_fits(const gv_case *c, const gv_bench_opts *o, char *why, size_t len);

#endif
