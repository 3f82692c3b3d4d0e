/* bench_targets.h: the project's performance targets as a data table (bench_targets.c),
 * checked against the registry at start-up, and evaluated from the timed cases' structs.
 * A target names an op, a dtype and a shape in the size SPEC grammar; renaming an op makes
 * gv_bench_targets_check fail (exit 3, and a CPU test), never silently drops a target. */
#ifndef GV_BENCH_TARGETS_H
#define GV_BENCH_TARGETS_H

#include "bench/bench_result.h"

typedef enum gv_target_metric {
    GV_TARGET_COPY_FRACTION, /* achieved GB/s (kernel only) / the copy ceiling >= goal */
    GV_TARGET_TIME_RATIO,    /* kernel time / ref_op's kernel time at the same case; no goal */
} gv_target_metric;

typedef struct gv_target_spec {
    const char *op;
    gv_dtype dtype;
    const char *shape; /* one shape, size SPEC grammar: "2^28", "4096x4096x4096" */
    const char *at;    /* the shape as the target's name says it: "2^28 elements" */
    gv_target_metric metric;
    double goal;        /* GV_TARGET_COPY_FRACTION: the fraction to reach */
    const char *ref_op; /* GV_TARGET_TIME_RATIO: the op it is measured against */
} gv_target_spec;

/* The table, and its length. */
extern const gv_target_spec gv_target_specs[];
extern const int gv_n_target_specs;

/* Does the entry resolve: its op (and ref_op) in the registry with its dtype, its shape one
 * shape that the op accepts? GV_OK, or GV_EINTERNAL with why (the entry named). */
int gv_target_spec_check(const gv_target_spec *t, char *why, size_t len);
/* Every entry of the table; GV_OK or the first failure's GV_EINTERNAL and why. */
int gv_bench_targets_check(char *why, size_t len);

/* One target as measured in a run. */
typedef struct gv_bench_target {
    const gv_target_spec *spec;
    const gv_bench_case_result *c;   /* the case measured */
    const gv_bench_case_result *ref; /* GV_TARGET_TIME_RATIO: the ref_op's case */
    gv_timing_id scope;              /* the kernel-only scope read */
    char name[192];
    /* GV_TARGET_COPY_FRACTION */
    double value_gbps, ceiling_gbps, fraction; /* NaN: not measured */
    /* GV_TARGET_TIME_RATIO */
    double ms, ref_ms, ratio, frac_gemm, ref_frac_gemm;
} gv_bench_target;

/* The targets found among cases[0..n), in case order; at most max; the count. */
int gv_bench_targets_eval(const gv_bench_case_result *cases, int n, const gv_ceiling_values *ce,
                          gv_bench_target *out, int max);

#endif
