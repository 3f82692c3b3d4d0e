/* inputs.c: what the provenance of a case's inputs lets the judge claim (inputs.h). Not part
 * of the oracle cache's version: it decides verdicts, never references. */
#include "core/inputs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/gen.h" /* GV_PAR_MIN */
#include "core/metrics.h"

bool gv_inputs_known(gv_inputs in)
{
    return in == GV_INPUTS_GENERATED || in == GV_INPUTS_DECLARED;
}

void gv_result_set_inputs(gv_result *r, gv_inputs in)
{
    const gv_op *op = r->c.op;
    /* a user's make_inputs hook made them: gpuval does not know their statistics, whoever
       made the case */
    r->inputs = op->user_inputs && in == GV_INPUTS_GENERATED ? GV_INPUTS_GIVEN : in;
    r->prob.reported_only = r->prob.on && !gv_inputs_known(r->inputs);
    /* an exact probe is the probe's inputs (tie, perm2), made by the generator: given arrays
       under a probe's dist name are not, and a declaration of independence does not make
       them so */
    r->exact = r->inputs == GV_INPUTS_GENERATED && op->exact && op->exact(&r->c);
    /* the bias rule rests on errors symmetric about zero, which the op declares for its
       generator's distributions only (bias_dists): on other data the lean is reported */
    if (r->inputs != GV_INPUTS_GENERATED && r->bias.judged) {
        r->bias.judged = false;
        snprintf(r->bias.why_not, sizeof r->bias.why_not,
                 "inputs not gpuval's: their errors need not be symmetric");
    }
}

/* gamma_d(u) = d u / (1 - d u) (Higham ASNA Lemma 3.1), infinite where d u >= 1. */
static double gamma_of(double d, double u)
{
    double x = d * u;
    return x < 1.0 ? x / (1.0 - x) : INFINITY;
}

void gv_tier_on_given(const gv_problem *p, gv_result *r)
{
    if (r->expected_tier <= 0) return;
    double d_oracle = r->prob.on ? r->prob.oracle_depth : r->depth;
    double per_g = gamma_of(r->depth, r->u) + gamma_of(d_oracle > 1 ? d_oracle : 1.0, 0x1p-53);
    double worst = 0.0;
    for (int i = 0; i < p->l.n_out; i++) {
        const gv_tensor *t = &p->out[i];
        const double *g = t->gauge;
        /* a maximum: the same whatever the order, so on all cores */
#pragma omp parallel for schedule(static) reduction(max : worst) if (t->count >= GV_PAR_MIN)
        for (int64_t k = 0; k < t->count; k++) {
            double ref = t->ref[k], gk = g ? g[k] : fabs(ref);
            if (!isfinite(ref) || !isfinite(gk)) continue; /* NaN/Inf placement judges these */
            double need = per_g * gk / (1.0 + fabs(ref));
            if (need > worst) worst = need;
        }
    }
    if (worst > r->expected_tier) {
        snprintf(r->tier_note, sizeof r->tier_note,
                 "given inputs: the worst-case model allows errors up to %.2g (1 + |r|) here, "
                 "over the tier %.0e",
                 worst, r->expected_tier);
        r->expected_tier = 0.0;
        r->expected_tier_why[0] = '\0';
    }
}

bool gv_given_match(const gv_problem *p, const gv_given_inputs *given)
{
    if (given->n != p->l.n_in) return false;
    for (int i = 0; i < given->n; i++) {
        const gv_tensor *t = &p->in[i];
        if (given->count[i] != t->count) return false;
        if (memcmp(t->data, given->data[i], (size_t)t->count * gv_dtype_size(p->c.dtype)) != 0)
            return false;
    }
    return true;
}
