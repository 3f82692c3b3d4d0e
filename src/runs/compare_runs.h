/* compare_runs.h: regression checks between two run files of one schema (gpuval-run/1 from
 * check, gpuval-bench/1 from bench): cases matched by (op, dtype, mode, dist, shape, seed),
 * accuracy compared by verdict, accurate bits, worst-case and probabilistic ratios, timing by
 * a Mann-Whitney U test on the hot kernel's raw samples. Pure functions on jansson documents,
 * so `gpuval compare` and the CPU tests share every decision. */
#ifndef GV_COMPARE_RUNS_H
#define GV_COMPARE_RUNS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Outcomes, worst last but one: the overall outcome is the worst decided one. */
typedef enum gv_cmp_outcome {
    GV_CMP_SAME = 0,
    GV_CMP_IMPROVED,
    GV_CMP_REGRESSED,
    GV_CMP_INCONCLUSIVE,
} gv_cmp_outcome;
const char *gv_cmp_outcome_name(gv_cmp_outcome o);

/* Mann-Whitney U test of a[0..na) against b[0..nb), two-sided, normal approximation with the
 * tie correction and a continuity correction of 1/2. u is U of a (the number of pairs with
 * a > b, ties counting 1/2); z > 0 when a tends to be larger. p = 1 when every value ties.
 * Counts are size_t: a bench file may hold any number of samples. GV_OK, or GV_EINVAL when na
 * or nb < 1, GV_ENOMEM. */
typedef struct gv_mw {
    double u, z, p;
} gv_mw;
int gv_mann_whitney(const double *a, size_t na, const double *b, size_t nb, gv_mw *out);

/* Thresholds: --bits, --ratio, --force; and the error ratio's floor. */
typedef struct gv_cmp_opts {
    double bits;  /* accurate bits lost (gained) beyond this: REGRESSED (IMPROVED); 1 */
    double ratio; /* error ratio grown (shrunk) by more than this factor; 2 */
    bool force;   /* judge timing even when the device fingerprints differ */
    /* The error ratio's change is judged only where the larger side reaches this fraction of
       the case's bound (error_model.bound); 0: everywhere. GV_CMP_RATIO_FLOOR: one unit of the
       model (u g d) at the usual bound of 16. Below it the worst element's error is under the
       first-order worst case with no safety factor, and its size is rounding luck: another
       summation order, inputs or reference rounding move it twofold (solve.gesv f64 went
       0.0048 -> 0.0105 of a bound of 16 between two equally correct runs). Such a change is
       SAME with that said; a loss of accuracy there still shows in the accurate bits. */
    double ratio_floor;
} gv_cmp_opts;
#define GV_CMP_RATIO_FLOOR (1.0 / 16.0)
#define GV_CMP_OPTS_DEFAULT                                                                        \
    ((gv_cmp_opts){.bits = 1.0, .ratio = 2.0, .force = false, .ratio_floor = GV_CMP_RATIO_FLOOR})

/* One quantity of one case: what changed, base -> new, and its outcome. */
typedef struct gv_cmp_item {
    char what[32]; /* "verdict", "accurate bits", "error ratio", "prob R max", "kernel_hot" */
    char base[40], new_[40];
    char why[160]; /* the reason in words, e.g. "lost 3.0 bits (> 1)" */
    gv_cmp_outcome outcome;
    bool timing;
    /* new / base of the quantity (the error-model ratio, the median time), set when both sides
       measured a positive finite value: what the geometric means of gv_cmp_result multiply */
    bool has_ratio;
    double ratio;
} gv_cmp_item;

#define GV_CMP_MAX_ITEMS 6

/* One matched case. */
typedef struct gv_cmp_case {
    char op[64];
    char name[160]; /* dtype/mode/dist/shape, e.g. f32/native/uniform11/1000x1000 */
    char seed[24];
    gv_cmp_outcome outcome; /* the worst decided of its items; SAME when none */
    int n_items;
    gv_cmp_item items[GV_CMP_MAX_ITEMS];
} gv_cmp_case;

/* The whole comparison. */
typedef struct gv_cmp_result {
    bool bench; /* gpuval-bench/1 (else gpuval-run/1) */
    bool probe; /* gpuval-probe/1: a case is one feature of a row (runs/compare_probe.h) */
    int n_cases;
    gv_cmp_case *cases;
    int n_only_base, n_only_new; /* cases present on one side only: "op name seed" */
    char **only_base, **only_new;
    bool *only_base_ran; /* only_base[i] ran (PASS or FAIL) in the base run */
    /* cases that ran in the base (PASS or FAIL) and have no verdict of their own in the new
       run: SKIP there, ERROR after a base FAIL, or missing. Each makes the overall outcome
       INCONCLUSIVE at least (never SAME or IMPROVED: docs/regression.md) */
    int n_not_run;
    bool device_differs;
    char device_why[256]; /* which fingerprint fields differ */
    /* the runs were made with different seeds (each run's generated cases one seed, no case
       matched with its seed): cases matched without it, verdicts judged, the metrics of other
       inputs shown and not judged (docs/regression.md, "Runs of different seeds") */
    bool across_seeds;
    char seed_base[24], seed_new[24];
    int n_timing, n_timing_inconclusive;
    /* the geometric means of new / base over the matched cases that have the ratio on both
       sides (gv_cmp_item.ratio): the error-model ratio ("error ratio"; bench: the sanity run's)
       and the hot kernel's median time (bench); n_ of each is how many cases entered it (0:
       none, the mean undefined). Left 0 for runs of different seeds, whose metrics measure other
       inputs, and for probe documents, whose features are values, not ratios. */
    double geomean_error, geomean_time;
    int n_geomean_error, n_geomean_time;
    int count[4]; /* matched cases by outcome */
    gv_cmp_outcome overall;
} gv_cmp_result;

/* Compare base with new into *res (free with gv_cmp_result_free). Cases are matched through a
 * hash of their keys (io/run_read.h), linear in the cases. Returns GV_OK, or GV_EINVAL with a
 * message in err when a schema is unknown or the two differ or a side holds one case twice,
 * GV_ENOMEM. The documents are expected to have passed gv_run_read (compare's loader). */
int gv_compare_runs(const json_t *base, const json_t *new_doc, const gv_cmp_opts *opts,
                    gv_cmp_result *res, char *err, size_t err_len);
void gv_cmp_result_free(gv_cmp_result *res);

/* Which device fingerprint fields (name, uuid, driver, cuBLAS) differ between two documents,
 * comma-separated into why; true when any does. */
bool gv_cmp_device_diff(const json_t *a, const json_t *b, char *why, size_t len);

/* The timing decision for one scope's raw samples (ms): INCONCLUSIVE when either side has
 * fewer than 5 samples; REGRESSED when the Mann-Whitney p < 0.01 and the new median is slower
 * by more than max(3 %, noise), noise being the largest relative half-width of the two
 * medians' 95 % intervals and of the two samples' IQR; IMPROVED symmetrically; else SAME.
 * Fills item (what is left as the caller set it). */
gv_cmp_outcome gv_cmp_timing(const double *base, size_t nb, const double *new_s, size_t nn,
                             gv_cmp_item *item);

#endif
