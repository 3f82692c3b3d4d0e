/* bias_pool.h: the bias rule pooled over the cases of a run (bias_pool.c). A reduction with
 * one output a case (reduce.sum) gives the per-case bias rule (metrics.h, GV_BIAS_MIN_N) one
 * signed error, which cannot show a lean; across the cases of one op, dtype and mode the
 * signed errors of an accumulation that rounds toward zero all lean one way, while a correct
 * round-to-nearest kernel's are fair coins. docs/error-models.md, "Bias pooled across cases".
 * Its callers: the kernel gate, which pools across its hidden seeds from each case's JSON
 * (io/run_doc.c writes gv_bias_pool_takes and the sums; python/src/gpuval/kernel_eval.py), and
 * the tests that measure the rule (tests/cpu/model_bias_pool.c). check does not pool: a run has
 * one seed, and the rule pools one case a seed. */
#ifndef GV_CORE_BIAS_POOL_H
#define GV_CORE_BIAS_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/op.h"

/* The pooled rule's bound on |z| and |z_sr| (Hoeffding, conditionally on the |e_i|, as the
 * per-case rule: P(|z| > t) <= 2 exp(-t^2/2) each, so 4 exp(-10.125) = 1.6e-4 for the two z of
 * one group of a correct round-to-nearest kernel), and the fewest cases that can reach it: n
 * equal errors of one sign give z = sqrt(n), so under t^2 = 20.25 cases the rule has no power
 * and says so instead of judging. */
#define GV_BIAS_POOL_Z     4.5
#define GV_BIAS_POOL_MIN_N 21

/* Whether the pooled rule takes r: judged (PASS or FAIL), gpuval's own inputs, the bias
 * premise of its op, dist and mode holds (gv_bias_premise), nothing flushed was allowed, and
 * its own bias rule had too few elements to judge (1 to GV_BIAS_MIN_N - 1). */
bool gv_bias_pool_takes(const gv_result *r);

/* One group's pooled lean: its cases (indices into the results), its elements and z. */
typedef struct gv_bias_pool_group {
    int first;   /* the group's first case: its op, dtype and mode name the group */
    int cases;   /* how many cases of the group were pooled */
    long long n; /* their elements */
    double z, z_sr;
    bool judged; /* enough cases to reach the bound */
    bool over;   /* judged and |z| or |z_sr| over GV_BIAS_POOL_Z */
} gv_bias_pool_group;

/* Pools results[0..n) by (op, dtype, mode) and judges each group: where it leans past the
 * bound, every pooled case that PASSed FAILs with cause bias and a reason naming the lean and
 * the group's cases (a case that FAILed already keeps its own reason). groups[0..max) gets
 * each group with a pooled case, in the order of their first cases; returns their count
 * (groups past max are judged but not listed). */
int gv_bias_pool_judge(gv_result *results, int n, gv_bias_pool_group *groups, int max);

/* The group in words: "reduce.sum f32 native: errors lean toward zero over 24 cases
 * (z = -5.2, 24 outputs; cases 3, 7, 12, ...)"; or why it was not judged. */
void gv_bias_pool_line(const gv_result *results, const gv_bias_pool_group *g, char *buf,
                       size_t len);

#endif
