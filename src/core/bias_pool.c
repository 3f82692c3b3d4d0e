/* bias_pool.c: the bias rule pooled over the cases of a run (bias_pool.h). Each pooled case
 * adds its elements' normalised signed errors (metrics.h: the signed R where the probabilistic
 * model is on, else signed ulps), as the per-case rule sums them; a group's z is their sum over
 * the root of their sum of squares, its bound Hoeffding's, as the per-case rule's. */
#include "core/bias_pool.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inputs.h"
#include "core/judge.h"
#include "core/metrics.h"

bool gv_bias_pool_takes(const gv_result *r)
{
    char why[96];
    return (r->verdict == GV_PASS || r->verdict == GV_FAIL) && gv_inputs_known(r->inputs) &&
           !r->ftz_allowed && !r->daz_allowed && r->m.bias_n >= 1 && r->m.bias_n < GV_BIAS_MIN_N &&
           gv_bias_premise(&r->c, why, sizeof why);
}

static bool same_group(const gv_result *a, const gv_result *b)
{
    return a->c.op == b->c.op && a->c.dtype == b->c.dtype && a->c.mode == b->c.mode;
}

/* Whether results[i] is pooled in the group of results[first]: taken by the rule, of the
   group, and the first of its seed there. Cases of one seed share their inputs (a longer
   vector's first elements are a shorter one's, and every dist is drawn from the same stream),
   so their errors are not independent: 64 sizes of one seed are one sum 64 times, and pooled
   they leaned past the bound for a correct tree sum on an H100 (z = -5.8). One case a seed. */
static bool pooled(const gv_result *results, int first, int i)
{
    const gv_result *r = &results[i];
    if (!same_group(r, &results[first]) || !gv_bias_pool_takes(r)) return false;
    for (int j = first; j < i; j++)
        if (results[j].c.seed == r->c.seed && same_group(&results[j], r) &&
            gv_bias_pool_takes(&results[j]))
            return false;
    return true;
}

/* "shape dist seed N" of one case, for the reason */
static void case_name(const gv_result *r, char *buf, size_t len)
{
    char sz[64];
    snprintf(buf, len, "%s %s seed %llu", gv_shape_format(&r->c.shape, sz, sizeof sz),
             gv_dist_name(r->c.dist), (unsigned long long)r->c.seed);
}

void gv_bias_pool_line(const gv_result *results, const gv_bias_pool_group *g, char *buf, size_t len)
{
    const gv_result *f = &results[g->first];
    int used = snprintf(buf, len, "%s %s %s: ", f->c.op->name, gv_dtype_name(f->c.dtype),
                        gv_mode_name(f->c.mode));
    if (used < 0 || (size_t)used >= len) return;
    if (!g->judged) {
        snprintf(buf + used, len - (size_t)used,
                 "%d seed%s of one-output cases, under the %d the pooled bias rule needs (cases of one "
                 "seed share their inputs: one a seed)", g->cases,
                 g->cases == 1 ? "" : "s", GV_BIAS_POOL_MIN_N);
        return;
    }
    const bool by_sr = !(fabs(g->z) > fabs(g->z_sr)); /* ties: toward/away from zero */
    const double z = by_sr ? g->z_sr : g->z;
    const char *way =
        by_sr ? (z < 0 ? "toward zero" : "away from zero") : (z < 0 ? "downward" : "upward");
    snprintf(buf + used, len - (size_t)used,
             "errors lean %s over %d cases (z = %+.1f, %lld outputs, bound %.1f)", way, g->cases, z,
             g->n, GV_BIAS_POOL_Z);
}

/* The group of results[first] (every case of its op, dtype and mode that the rule takes)
   judged into g; its PASSes FAIL where it leans past the bound. */
static void judge_group(gv_result *results, int n, int first, gv_bias_pool_group *g)
{
    *g = (gv_bias_pool_group){.first = first};
    double sum = 0.0, sum_sr = 0.0;
    gv_ssq sq = {0};
    for (int i = first; i < n; i++) {
        const gv_result *r = &results[i];
        if (!pooled(results, first, i)) continue;
        g->cases++;
        g->n += r->m.bias_n;
        sum += r->m.bias_sum;
        sum_sr += r->m.bias_sum_sr;
        gv_ssq_merge(&sq, &r->m.bias_sq);
    }
    assert(g->cases >= 1);
    g->z = gv_ssq_div(sum, &sq);
    g->z_sr = gv_ssq_div(sum_sr, &sq);
    g->judged = g->cases >= GV_BIAS_POOL_MIN_N;
    g->over = g->judged && (fabs(g->z) > GV_BIAS_POOL_Z || fabs(g->z_sr) > GV_BIAS_POOL_Z);
    if (!g->over) return;
    char lean[200], cases[200];
    gv_bias_pool_line(results, g, lean, sizeof lean);
    /* the group's cases by name: its first few, then how many more */
    size_t used = 0;
    int named = 0;
    cases[0] = '\0';
    for (int i = first; i < n && used < sizeof cases; i++) {
        if (!pooled(results, first, i)) continue;
        if (named == 3) {
            snprintf(cases + used, sizeof cases - used, ", %d more", g->cases - named);
            break;
        }
        char one[96];
        case_name(&results[i], one, sizeof one);
        used += (size_t)snprintf(cases + used, sizeof cases - used, "%s%s", named ? "; " : "", one);
        named++;
    }
    for (int i = first; i < n; i++) {
        gv_result *r = &results[i];
        if (!pooled(results, first, i) || r->verdict != GV_PASS) continue;
        r->verdict = GV_FAIL;
        r->cause = GV_CAUSE_BIAS;
        snprintf(r->reason, sizeof r->reason, "bias across cases: %.140s (%.90s)", lean, cases);
    }
}

int gv_bias_pool_judge(gv_result *results, int n, gv_bias_pool_group *groups, int max)
{
    int ng = 0;
    /* a group is judged once, at its first case the rule takes; the verdicts it changes are
       PASSes to FAILs, which the rule still takes, so later groups see the same cases */
    for (int first = 0; first < n; first++) {
        if (!gv_bias_pool_takes(&results[first])) continue;
        bool seen = false;
        for (int i = 0; i < first && !seen; i++)
            seen = same_group(&results[i], &results[first]) && gv_bias_pool_takes(&results[i]);
        if (seen) continue;
        gv_bias_pool_group g;
        judge_group(results, n, first, &g);
        if (ng < max) groups[ng] = g;
        ng++;
    }
    return ng < max ? ng : max;
}
