/* bench_plan.h: what a timed run times (bench_plan.c): presets, sweeps, and sizes that fit. */
#ifndef GV_BENCH_PLAN_H
#define GV_BENCH_PLAN_H

#include "bench/bench_case.h"

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

/* A preset as data: its cases and sweep name ops and shapes (size SPEC grammar) that
 * gv_bench_presets_check resolves against the registry at start-up; a renamed op is an
 * internal error (exit 3) and fails a CPU test, never a silently shorter run. */
typedef struct gv_preset_case {
    const char *op;
    gv_dtype dtype; /* native mode */
    const char *shape;
} gv_preset_case;

typedef struct gv_preset_sweep {
    const char *op;
    gv_dtype dtype;
    const char *base;  /* the other dims */
    const char *range; /* "DIM=LO..HI" */
    double factor;
    int refine;
} gv_preset_sweep;

typedef struct gv_preset {
    const char *name;
    const gv_preset_case *cases;
    int n_cases;
    const gv_preset_sweep *sweep; /* NULL: none */
    double cap_s;                 /* > 0: the time cap of every scope */
    double cpu_budget_s;          /* >= 0: the CPU's budget */
    bool no_cpu;                  /* do not time the CPU (the targets are the GPU's) */
} gv_preset;

extern const gv_preset gv_presets[];
extern const int gv_n_presets;
/* The ops of the seeds' layouts (render/bench_seeds.c), named once with the presets: seed 002's
 * matmul -> sum and einsum; seed 000's vadd and sin_iter. */
extern const char *const gv_seed002_ops[2];
extern const char *const gv_seed000_ops[2];

/* "seed000 seed002 targets short" */
const char *gv_bench_preset_names(void);
/* An entry of preset `preset` as a case or a sweep; GV_OK, or GV_EINTERNAL with why naming
 * the entry (no such op, a dtype it lacks, a shape it refuses). */
int gv_preset_case_resolve(const char *preset, const gv_preset_case *pc, gv_case *out, char *why,
                           size_t len);
int gv_preset_sweep_resolve(const char *preset, const gv_preset_sweep *ps, gv_sweep *out, char *why,
                            size_t len);
/* Every preset's every entry; GV_OK or the first failure's GV_EINTERNAL and why. */
int gv_bench_presets_check(char *why, size_t len);
/* Append a preset's cases, set its sweep (have_sweep) and adjust o (e.g. targets do not time
 * the CPU). GV_OK, GV_EINVAL (unknown name), GV_ENOMEM, GV_EINTERNAL (an entry does not
 * resolve: why in notes). */
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
