/* stats.h: the statistics of timed runs, pure functions on arrays of samples so that every
 * piece is tested on the CPU: medians, distribution-free confidence intervals of a median
 * from order statistics, ratios of medians with an interval, the rule that decides when a
 * scope has enough samples, the geometric size sweep and the CPU/GPU crossover in it. */
#ifndef GV_STATS_H
#define GV_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* Median of x[0..n) (x is not changed); NaN when n < 1. */
double gv_median(const double *x, int n);

/* P(X <= j) for X ~ Binomial(n, 1/2); 0 for j < 0, 1 for j >= n. */
double gv_binom_half_cdf(int n, int j);

/* The distribution-free confidence interval of a median (Conover, Practical Nonparametric
 * Statistics, 3rd ed., sec. 3.2): [x_(k), x_(n+1-k)] of the sorted samples (1-based ranks),
 * k the largest rank with P(X <= k-1) <= (1-conf)/2, X ~ Binomial(n, 1/2). Its coverage is
 * 1 - 2 P(X <= k-1), returned. When n is too small for conf, k = 1 (the whole range) and
 * the coverage returned is below conf. n >= 1. */
double gv_median_ci_ranks(int n, double conf, int *lo_rank, int *hi_rank);

/* One scope's samples summarised. */
typedef struct gv_stat {
    int n;
    double median;
    double lo, hi;     /* confidence interval of the median (see gv_median_ci_ranks) */
    double coverage;   /* its actual coverage */
    double rel_spread; /* relative spread of the median: (hi - lo) / (2 median) */
    double min, max;
} gv_stat;

/* GV_OK, GV_EINVAL (n < 1), GV_ENOMEM. */
int gv_stat_describe(const double *x, int n, double conf, gv_stat *s);

/* num/den as a ratio of medians (a speed-up: CPU time over GPU time) with the interval
 * [lo_num / hi_den, hi_num / lo_den] of the two medians' intervals, each taken at
 * 1 - (1-conf)/2 so that together they hold with probability >= conf (Bonferroni). */
typedef struct gv_ratio {
    double ratio, lo, hi;
    double coverage; /* Bonferroni lower bound: cov_num + cov_den - 1 */
} gv_ratio;
int gv_ratio_of_medians(const double *num, int nn, const double *den, int nd, double conf,
                        gv_ratio *r);

/* When has a scope sampled enough? Never before min_samples, unless a time budget (used for
 * the CPU, whose single runs may take seconds) would be exceeded by one more sample of the
 * mean length; then when the median's relative spread is at most target_spread or the
 * elapsed time reaches cap_s; always at max_samples. */
typedef struct gv_sampling {
    double target_spread; /* e.g. 0.01 */
    double cap_s;         /* e.g. 0.5 */
    int min_samples;      /* e.g. 10 */
    int max_samples;      /* storage bound, e.g. 10000 */
    double budget_s;      /* 0: none */
    double conf;          /* confidence of the median's interval, e.g. 0.95 */
} gv_sampling;

typedef enum gv_stop {
    GV_STOP_NO = 0,
    GV_STOP_SPREAD, /* the median's relative spread reached the target */
    GV_STOP_CAP,    /* the time cap */
    GV_STOP_MAX,    /* max_samples */
    GV_STOP_BUDGET, /* fewer than min_samples: the budget would be exceeded */
} gv_stop;
const char *gv_stop_name(gv_stop s);

/* Decide after sample n (ms[0..n) taken in elapsed_s). The spread is evaluated at every
 * sample up to 64, then at checkpoints that grow with n (sorting stays cheap). */
gv_stop gv_sampling_stop(const gv_sampling *p, const double *ms, int n, double elapsed_s);

/* Sizes lo, lo f, lo f^2, ... (rounded, strictly increasing) then hi; 1 <= lo <= hi, f > 1.
 * Returns the count, or GV_EINVAL when arguments are bad or more than max would be needed. */
int gv_geom_sizes(int64_t lo, int64_t hi, double factor, int64_t *out, int max);

/* The crossover in a sweep: sizes ascending, speedup[i] the GPU's speed-up there
 * (CPU median / GPU median, > 1 when the GPU is faster). */
typedef enum gv_crossover_status {
    GV_XO_FOUND = 0, /* the GPU loses at first_win - 1 and wins at first_win and every
                        larger swept size */
    GV_XO_BELOW,     /* the GPU wins at every swept size: the crossover is below the range */
    GV_XO_NONE,      /* the GPU does not win at the largest swept size */
} gv_crossover_status;

typedef struct gv_crossover {
    gv_crossover_status status;
    int first_win; /* index, -1 for GV_XO_NONE */
    /* GV_XO_FOUND: size where the speed-up crosses 1, interpolated linearly in
       (log size, log speed-up) between the bracketing points; NaN otherwise */
    double interp;
} gv_crossover;

/* GV_OK or GV_EINVAL (n < 1, sizes not ascending). */
int gv_crossover_find(const double *size, const double *speedup, int n, gv_crossover *x);
const char *gv_crossover_status_name(gv_crossover_status s);

#endif
