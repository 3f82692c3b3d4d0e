/* bench_result.h: what a timed run's decisions are made from (bench_result.c): each case's
 * timings summarised (medians and their intervals), speed-ups, achieved rates as fractions
 * of the ceilings, the repeat check, the crossover sweeps and the run's counts. The exit
 * code, the sweep's bisection and the targets read these structs; the JSON document
 * (bench_json.h) is written from them once, at the end. */
#ifndef GV_BENCH_RESULT_H
#define GV_BENCH_RESULT_H

#include "bench/bench_case.h"

/* The ceilings' rates: copy GB/s, gemm GFLOP/s per dtype; NaN where not measured. */
typedef struct gv_ceiling_values {
    double copy_gbps;
    double gemm_gflops[GV_NDTYPES];
} gv_ceiling_values;

/* A ceiling's rate (work / median time / 1e9), NaN when it was not measured. */
double gv_ceiling_rate(const gv_ceiling *c, double conf);
/* The rates of c; c NULL: every rate NaN. */
void gv_ceiling_values_of(const gv_ceilings *c, double conf, gv_ceiling_values *v);

typedef struct gv_bench_speedup {
    bool present; /* the CPU and this GPU scope were both timed */
    gv_ratio r;   /* CPU median / GPU median */
} gv_bench_speedup;

typedef struct gv_bench_achieved {
    bool present;
    double gflops, gbps, frac_gemm, frac_copy; /* fractions: NaN without the ceiling */
} gv_bench_achieved;

typedef struct gv_bench_repeat {
    bool present;
    gv_stat first, second;
    bool agree; /* the two medians' intervals overlap */
    double diff_rel;
} gv_bench_repeat;

/* One timed case and what its samples say. */
typedef struct gv_bench_case_result {
    gv_bench_case bc; /* owned: the raw samples stay for the JSON document */
    double conf;
    bool judged;                             /* the sanity verdict compared outputs */
    bool has[GV_NTIMINGS];                   /* the scope was timed (bc.t[i].n > 0) */
    gv_stat t[GV_NTIMINGS];                  /* valid where has[i] */
    gv_bench_speedup speedup[GV_NTIMINGS];   /* GPU scopes only */
    gv_bench_achieved achieved[GV_NTIMINGS]; /* kernel-only scopes only */
    gv_bench_repeat repeat;
    int64_t size; /* a sweep point: the swept dim's size; 0 otherwise */
} gv_bench_case_result;

/* Summarise bc into r, taking bc's samples (bc is left empty); ce may be NULL. */
void gv_bench_result_make(gv_bench_case_result *r, gv_bench_case *bc, const gv_ceiling_values *ce,
                          double conf);
void gv_bench_result_free(gv_bench_case_result *r);
/* The kernel-only scope a rate is read from: hot when timed, else cold. */
gv_timing_id gv_bench_kernel_scope(const gv_bench_case_result *r);
/* A scope's median in ms, NaN when it was not timed. */
double gv_bench_median_ms(const gv_bench_case_result *r, gv_timing_id id);

/* A crossover sweep: points ascending in size, and what they say. */
typedef struct gv_bench_crossover {
    gv_case base;
    int dim;
    char dim_name[32];
    int64_t lo, hi;
    double factor;
    gv_bench_case_result *pts;
    int n, cap;
    bool stopped_early;
    /* set by gv_bench_crossover_finish, from the points that were timed */
    int timed_points;
    gv_crossover_status status; /* valid when timed_points > 0 */
    double first_win_size, last_loss_size, interp_size, confident_first_win_size; /* NaN: none */
} gv_bench_crossover;

void gv_bench_crossover_init(gv_bench_crossover *xo, const gv_case *base, int dim, int64_t lo,
                             int64_t hi, double factor);
/* Insert a point keeping sizes ascending; takes r (r is left empty). GV_OK or GV_ENOMEM. */
int gv_bench_crossover_add(gv_bench_crossover *xo, int64_t size, gv_bench_case_result *r);
/* Recompute status and sizes: median speed-ups for first win, last loss and the
   interpolation; the interval's lower bound above 1 for the confident first win. */
void gv_bench_crossover_finish(gv_bench_crossover *xo);
/* "found", "below the swept range", "not in the swept range", "no point could be timed" */
const char *gv_bench_crossover_status_text(const gv_bench_crossover *xo);
/* The last three points won with intervals above 1. */
bool gv_bench_crossover_three_confident_wins(const gv_bench_crossover *xo);
void gv_bench_crossover_free(gv_bench_crossover *xo);

/* The run's counts by sanity verdict. */
typedef struct gv_bench_summary {
    int sane, failed, skipped, errors;
} gv_bench_summary;
void gv_bench_summary_add(gv_bench_summary *s, const gv_bench_case_result *r);

#endif
