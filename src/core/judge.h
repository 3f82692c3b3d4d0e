/* judge.h: the verdict of one case (judge.c): a result started from the case, the outputs
 * judged against the reference, and the one rule that decides. */
#ifndef GV_JUDGE_H
#define GV_JUDGE_H

#include "core/op.h"

/* Record an extra named number in r (ignored past GV_MAX_EXTRA). */
void gv_result_extra(struct gv_result *r, const char *name, double value);
/* Record a measurement with its bound; why (printf-style) explains a failure in the row. */
void gv_result_check(struct gv_result *r, const char *name, double value, double bound,
                     const char *why_fmt, ...) __attribute__((format(printf, 5, 6)));
/* gv_result_check whose FAIL names cause (GV_CAUSES) rather than "op residual": a measure
   hook's rule that tells the real cause apart (dense's lost range). */
void gv_result_check_cause(struct gv_result *r, gv_cause cause, const char *name, double value,
                           double bound, const char *why_fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Assert what every gv_result keeps, for the code that walks its arrays: 0..GV_MAX_TIERS
 * tiers, 0..GV_MAX_CHECKS checks and 0..GV_MAX_EXTRA extras, each with a name. A result made
 * by gv_result_init and the hooks above always does; a broken one is gpuval's bug. */
void gv_result_assert_bounds(const struct gv_result *r);

/* Set r's verdict and its reason (fmt with two numbers, either may be unused). */
void gv_result_set(struct gv_result *r, gv_verdict v, const char *fmt, double a, double b);

/* Start a result for a case: the case, the tiers (gv_default_tiers: every run is judged at
 * the same ones, so that runs compare), the op's error model (u, depth, ratio bound), its
 * expected tier, flops and bytes; verdict PASS, no metrics yet. gv_judge_problem reads these. */
void gv_result_init(gv_result *r, const gv_case *c);

/* The outputs were computed outside gpuval's kernel (gpuval judge, gv_judge): judge them at
 * the op's order-free depth, the one that covers every summation order its definition allows
 * (op->order_free_depth, in both models), not at the depth of gpuval's own kernel's order.
 * An op without one keeps its depth (it holds for any order). After gv_result_init. */
void gv_result_order_free(gv_result *r);

/* Judge the outputs already in p->out[].data against p->out[].ref: fills r, which
 * gv_result_init must have started. Used by gv_run_case and by tests that plant results by
 * hand. */
void gv_judge_problem(const gv_problem *p, gv_result *r);

/* The one verdict rule, from what r holds (metrics, checks, guard report, models), in this
 * precedence: guard (a red zone or an input written) > unwritten elements > the harness's
 * own broken contract (ERROR) > nothing to judge (SKIP) > NaN/Inf placement > the op's
 * checks (residuals against their bounds) > the envelope of the claimed arithmetic (given
 * inputs of products and sums: distance, then its bias; envelope.h) > worst-case error model >
 * probabilistic model > bias > exact probe > expected tier. Used by check, bench's sanity verdict and the tests. */
void gv_decide(gv_result *r);

/* The bias rule's premise (the per-case rule and the pooled one, bias_pool.h): the op's
 * errors are independent and symmetric on the case's inputs (op->bias_dists) and its mode
 * rounds to nearest; else why_not says which is missing. */
bool gv_bias_premise(const gv_case *c, char *why_not, size_t len);

/* The bias of m in words, from the larger of its two z (metrics.h): "errors lean toward zero
 * (z = -11.3 over 16384 outputs, mean -0.42 ulp)"; "upward"/"downward" where the signed z is
 * the larger. The mean is in R where the probabilistic model is on (in_r), else in ulps. */
void gv_bias_lean(const gv_metrics *m, bool in_r, char *buf, size_t len);

/* Whether the bias rule leans past its bound: at least GV_BIAS_MIN_N elements and either
 * |z| over GV_BIAS_Z_BOUND (a NaN z never is). Judged or not, the table notes it. */
bool gv_bias_over(const gv_metrics *m);

#endif
