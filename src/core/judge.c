/* judge.c: the verdict of one case (judge.h) — a result started from the case and its op's
 * error models, the outputs compared with the reference (metrics.h), the op's own measurements,
 * and the one rule that decides (gv_decide). Not part of the oracle cache's version: editing
 * the judge leaves cached references valid. */
#include "core/judge.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/envelope.h"
#include "core/gen.h" /* GV_PAR_MIN */
#include "core/hash.h"
#include "core/inputs.h"
#include "core/metrics.h"
#include "core/model_floor.h"

void gv_result_assert_bounds(const gv_result *r)
{
    assert(r->tiers.n >= 0 && r->tiers.n <= GV_MAX_TIERS);
    assert(r->n_checks >= 0 && r->n_checks <= GV_MAX_CHECKS);
    assert(r->n_extra >= 0 && r->n_extra <= GV_MAX_EXTRA);
    for (int i = 0; i < r->n_checks; i++)
        assert(r->checks[i].name != NULL);
    for (int i = 0; i < r->n_extra; i++)
        assert(r->extra[i].name != NULL);
}

void gv_result_extra(gv_result *r, const char *name, double value)
{
    if (r->n_extra >= GV_MAX_EXTRA) return;
    r->extra[r->n_extra].name = name;
    r->extra[r->n_extra].value = value;
    r->n_extra++;
}

bool gv_bias_premise(const gv_case *c, char *why_not, size_t len)
{
    why_not[0] = '\0';
    if (!c->op->bias_dists)
        snprintf(why_not, len, "%s's errors are not independent roundings", c->op->name);
    else if (!gv_mode_get(c->mode)->promises_rn)
        snprintf(why_not, len, "mode %s does not promise round-to-nearest", gv_mode_name(c->mode));
    else if (!(c->op->bias_dists & (1u << c->dist)))
        snprintf(why_not, len, "%s's errors are not symmetric on %s inputs", c->op->name,
                 gv_dist_name(c->dist));
    return why_not[0] == '\0';
}

void gv_bias_lean(const gv_metrics *m, bool in_r, char *buf, size_t len)
{
    bool by_sign_r = !(fabs(m->bias_z) > fabs(m->bias_z_sr)); /* ties: toward/away from zero */
    double z = by_sign_r ? m->bias_z_sr : m->bias_z;
    double mean = by_sign_r ? m->bias_mean_sr : m->bias_mean;
    const char *way =
        by_sign_r ? (z < 0 ? "toward zero" : "away from zero") : (z < 0 ? "downward" : "upward");
    snprintf(buf, len, "errors lean %s (z = %+.1f over %lld outputs, mean %+.2g %s)", way, z,
             (long long)m->bias_n, mean, in_r ? "R" : "ulp");
}

bool gv_bias_over(const gv_metrics *m)
{
    return m->bias_n >= GV_BIAS_MIN_N &&
           (fabs(m->bias_z) > GV_BIAS_Z_BOUND || fabs(m->bias_z_sr) > GV_BIAS_Z_BOUND);
}

static double default_expected_tier(const gv_case *c)
{
    /* modes that promise the dtype's accuracy (native, default, the emulations that claim
       it) expect its tier; reduced modes report the tier they reach */
    return gv_mode_get(c->mode)->promises_tier ? gv_dtype_tier(c->dtype) : 0.0;
}

static void result_check_v(gv_result *r, gv_cause cause, const char *name, double value,
                           double bound, const char *why_fmt, va_list ap)
{
    assert(cause >= GV_CAUSE_NONE && cause < GV_NCAUSES);
    if (r->n_checks >= GV_MAX_CHECKS) {
        /* more checks than room is a bug of the op's hook, not a verdict to drop silently */
        snprintf(r->internal, sizeof r->internal, "more than %d checks from %s", GV_MAX_CHECKS,
                 r->c.op->name);
        return;
    }
    __typeof__(r->checks[0]) *k = &r->checks[r->n_checks++];
    k->name = name;
    k->value = value;
    k->bound = bound;
    k->cause = cause;
    vsnprintf(k->why, sizeof k->why, why_fmt, ap);
}

void gv_result_check(gv_result *r, const char *name, double value, double bound,
                     const char *why_fmt, ...)
{
    va_list ap;
    va_start(ap, why_fmt);
    result_check_v(r, GV_CAUSE_NONE, name, value, bound, why_fmt, ap);
    va_end(ap);
}

void gv_result_check_cause(gv_result *r, gv_cause cause, const char *name, double value,
                           double bound, const char *why_fmt, ...)
{
    va_list ap;
    va_start(ap, why_fmt);
    result_check_v(r, cause, name, value, bound, why_fmt, ap);
    va_end(ap);
}

void gv_result_init(gv_result *r, const gv_case *c)
{
    memset(r, 0, sizeof *r);
    const gv_op *op = c->op;
    r->c = *c;
    assert(gv_default_tiers.n >= 0 && gv_default_tiers.n <= GV_MAX_TIERS);
    r->tiers = gv_default_tiers;
    r->u = op->unit_roundoff ? op->unit_roundoff(c) : gv_unit_roundoff(c->dtype, c->mode);
    r->depth = op->depth(c);
    r->ratio_bound = op->ratio_bound > 0 ? op->ratio_bound : GV_DEFAULT_RATIO_BOUND;
    r->expected_tier = default_expected_tier(c);
    if (op->expected_tier)
        r->expected_tier = op->expected_tier(c, r->expected_tier_why, sizeof r->expected_tier_why);
    r->flops = op->flops(c);
    r->bytes = op->bytes(c);
    r->m.worst_index = r->m.first_nonfinite_index = r->m.first_poisoned_index = -1;
    r->m.prob_worst_index = r->m.first_inexact_index = -1;
    r->m.first_spurious_index = r->m.first_lost_index = r->m.first_flushed_index = -1;
    r->m.first_zero_normal_index = -1;
    r->m.first_zero_sign_index = -1;
    r->env.worst = -1;
    /* The probabilistic model judges the arithmetic the mode claims: accumulation at the
       dtype's u and depth (f16acc's at 2^-11), inputs rounded to the mode's input bits where
       it has fewer than the dtype (tf32 2^-11, bf16 2^-8, fp8 2^-4, a fixed-point emulation
       2^-bits). Fast-math modes have function errors outside its form and keep the
       worst-case model alone; so do the scaled fp8 modes, whose tensor-core sums truncate
       (errors that lean one way and grow like k, not sqrt(k)). */
    if (op->pgauge && c->mode != GV_MODE_FASTMATH && !gv_mode_scaled(c->mode)) {
        gv_case native = *c;
        native.mode = GV_MODE_NATIVE;
        int in_bits = gv_mode_get(c->mode)->input_bits;
        r->prob.on = true;
        int acc_bits = gv_mode_get(c->mode)->acc_bits;
        r->prob.u =
            acc_bits > 0 ? ldexp(1.0, -acc_bits) : gv_unit_roundoff(c->dtype, GV_MODE_NATIVE);
        r->prob.depth = op->depth(&native);
        r->prob.u_in =
            in_bits > 0 && in_bits < gv_dtype_mantissa_bits(c->dtype) ? ldexp(1.0, -in_bits) : 0.0;
        r->prob.oracle_depth = op->oracle_depth ? op->oracle_depth(c) : r->prob.depth;
        r->prob.w = gv_prob_unit(r->prob.u, r->prob.depth, r->prob.u_in) +
                    0x1p-53 * sqrt(r->prob.oracle_depth > 1 ? r->prob.oracle_depth : 1.0);
    }
    r->exact = op->exact && op->exact(c);
    r->bias.judged = gv_bias_premise(c, r->bias.why_not, sizeof r->bias.why_not);
    gv_result_set_inputs(r, GV_INPUTS_GENERATED); /* the run says otherwise where they are not */
}

void gv_result_order_free(gv_result *r)
{
    const gv_op *op = r->c.op;
    r->env.foreign = true; /* nor is gpuval's kernel's order theirs (envelope.h) */
    if (!op->order_free_depth) return;
    r->depth = op->order_free_depth(&r->c);
    if (r->prob.on) {
        /* in the native arithmetic's terms, as gv_result_init counts it; the oracle's own
           depth (prob.oracle_depth) is the oracle's order and stays */
        gv_case native = r->c;
        native.mode = GV_MODE_NATIVE;
        r->prob.depth = op->order_free_depth(&native);
        r->prob.w = gv_prob_unit(r->prob.u, r->prob.depth, r->prob.u_in) +
                    0x1p-53 * sqrt(r->prob.oracle_depth > 1 ? r->prob.oracle_depth : 1.0);
    }
}

void gv_result_set(gv_result *r, gv_verdict v, const char *fmt, double a, double b)
{
    r->verdict = v;
    snprintf(r->reason, sizeof r->reason, fmt, a, b);
}

/* The index of tier t among r's tiers, adding it when it is not there (an expected tier is
   always measured, whatever tiers the run was asked for); -1 if there is no room. */
static int tier_index(gv_result *r, double t)
{
    for (int k = 0; k < r->tiers.n; k++)
        if (r->tiers.t[k] == t) return k;
    if (r->tiers.n == GV_MAX_TIERS) return -1;
    r->tiers.t[r->tiers.n] = t;
    return r->tiers.n++;
}

const char *gv_cause_name(gv_cause c)
{
    static const char *const names[GV_NCAUSES] = {
#define GV_CAUSE_NAME_(e, name, what) name,
        GV_CAUSES(GV_CAUSE_NAME_)
#undef GV_CAUSE_NAME_
    };
    return (int)c >= 0 && c < GV_NCAUSES ? names[c] : "?";
}

/* The verdict's rules, one job each, in the verdict's one order (DESIGN.md, "Compare"): each
   returns true where it decided r (cause and reason set; the verdict FAIL unless it sets
   another) and false to hand r to the next rule. */

/* What makes the outputs unreadable or the case unjudgeable: guard bands, unwritten elements,
   the harness's own errors, a case the models cannot judge. */
static bool decide_integrity(gv_result *r)
{
    const gv_metrics *m = &r->m;
    char *why = r->reason;
    size_t len = sizeof r->reason;
    if (r->guard[0]) {
        r->cause = GV_CAUSE_GUARD;
        snprintf(why, len, "%s", r->guard);
        return true;
    }
    if (m->poisoned) {
        r->cause = GV_CAUSE_UNWRITTEN;
        snprintf(why, len, "%lld unwritten elements (first at %lld)", (long long)m->poisoned,
                 (long long)m->first_poisoned_index);
        return true;
    }
    if (r->internal[0]) {
        r->verdict = GV_ERROR;
        snprintf(why, len, "internal: %s", r->internal);
        return true;
    }
    if (r->unjudgeable[0]) {
        r->verdict = GV_SKIP;
        snprintf(why, len, "%s", r->unjudgeable);
        return true;
    }
    return false;
}

/* NaN and infinities where the oracle has none, finite values where it has them, NaN/Inf
   elsewhere misplaced, and zeros of the wrong sign where IEEE fixes it. */
static bool decide_nonfinite(gv_result *r)
{
    const gv_metrics *m = &r->m;
    /* each a count, its first element, and the reason "N what (first at I)then" */
    const struct {
        int64_t n, first;
        gv_cause cause;
        const char *what, *then;
    } rules[] = {
        {m->nonfinite_spurious, m->first_spurious_index, GV_CAUSE_INTERMEDIATE_OVERFLOW,
         "NaN/Inf where the result is finite, in the dtype's range",
         ": an intermediate overflowed or an operation was invalid"},
        {m->nonfinite_lost, m->first_lost_index, GV_CAUSE_LOST_NONFINITE,
         "finite values where the result is NaN or infinite", ": a NaN or an infinity was dropped"},
        {m->nonfinite_mismatches, m->first_nonfinite_index, GV_CAUSE_NONFINITE_PLACEMENT,
         "NaN/Inf not where the oracle has them", ""},
        {m->zero_sign_wrong, m->first_zero_sign_index, GV_CAUSE_ZERO_SIGN,
         "zeros of the wrong sign", ": IEEE fixes the sign of this op's zero results"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (!rules[i].n) continue;
        r->cause = rules[i].cause;
        snprintf(r->reason, sizeof r->reason, "%lld %s (first at %lld)%s", (long long)rules[i].n,
                 rules[i].what, (long long)rules[i].first, rules[i].then);
        return true;
    }
    return false;
}

/* Subnormal results returned as zero where the mode promises IEEE subnormals (and no
   flush-to-zero was declared): a loss of range beside kept subnormals, else a flush. */
static bool decide_subnormals(gv_result *r)
{
    const gv_metrics *m = &r->m;
    char *why = r->reason;
    size_t len = sizeof r->reason;
    const bool ieee_subnormals =
        gv_mode_get(r->c.mode)->promises_rn && !r->c.op->subnormals_unpromised && !r->ftz_allowed;
    if (m->flushed && m->subnormal_kept && ieee_subnormals) {
        r->cause = GV_CAUSE_LOST_RANGE;
        /* zeros where the result is subnormal, beside subnormals returned as such: no
           flush-to-zero (which returns none), but a loss of range, as 1 / (1 + exp(-x)) has
           where exp(-x) overflows to inf while the true value is a subnormal */
        snprintf(why, len,
                 "lost range: %lld of %lld outputs below 2^%d returned as zero (first at %lld) "
                 "while %lld were returned as subnormals, so not flush-to-zero: an intermediate "
                 "overflowed or underflowed; mode %s promises IEEE subnormals",
                 (long long)m->flushed, (long long)m->subnormal_ref, gv_dtype_min_exp(r->c.dtype),
                 (long long)m->first_flushed_index, (long long)m->subnormal_kept,
                 gv_mode_name(r->c.mode));
        return true;
    }
    if (m->flushed && m->zero_normal && ieee_subnormals) {
        r->cause = GV_CAUSE_LOST_RANGE;
        /* zeros where the result is normal too, as log(1 + exp(x)) gives for x below about
           -17 in f32: flush-to-zero leaves normal results alone, so this is not it */
        snprintf(why, len,
                 "lost range: %lld outputs returned as zero where the result is far above the "
                 "subnormals (first at %lld), beside %lld of %lld below 2^%d, so not "
                 "flush-to-zero: an intermediate underflowed or overflowed; mode %s promises "
                 "IEEE subnormals",
                 (long long)m->zero_normal, (long long)m->first_zero_normal_index,
                 (long long)m->flushed, (long long)m->subnormal_ref, gv_dtype_min_exp(r->c.dtype),
                 gv_mode_name(r->c.mode));
        return true;
    }
    if (m->flushed && ieee_subnormals) {
        r->cause = GV_CAUSE_FLUSHED;
        snprintf(why, len,
                 "FTZ: %lld of %lld outputs below 2^%d flushed to zero (first at %lld); "
                 "mode %s promises IEEE subnormals",
                 (long long)m->flushed, (long long)m->subnormal_ref, gv_dtype_min_exp(r->c.dtype),
                 (long long)m->first_flushed_index, gv_mode_name(r->c.mode));
        return true;
    }
    return false;
}

/* The op's own residual checks (a solver's backward error, ...), in the op's order. */
static bool decide_residuals(gv_result *r)
{
    for (int i = 0; i < r->n_checks; i++) {
        if (!(r->checks[i].value <= r->checks[i].bound)) {
            r->cause =
                r->checks[i].cause != GV_CAUSE_NONE ? r->checks[i].cause : GV_CAUSE_RESIDUAL;
            snprintf(r->reason, sizeof r->reason, "%s", r->checks[i].why);
            return true;
        }
    }
    return false;
}

/* The error models: the envelope (given inputs), the worst case, the probabilistic model's
   maximum and RMS, the bias, and an exact probe's exactness. */
static bool decide_models(gv_result *r)
{
    const gv_metrics *m = &r->m;
    char *why = r->reason;
    size_t len = sizeof r->reason;
    /* given inputs of a product or a sum: the distance to what the claimed arithmetic produces
       on them in any legal order, and the lean of the outputs across that envelope. Before
       the worst case, which it is sharper than (an output past that bound lies far outside
       the envelope), so that the reason names the arithmetic the output matches. */
    if (r->env.judged && gv_envelope_fails(r, why, len)) {
        /* outputs that carry a narrower operand format's rounding: a precision impostor */
        r->cause = r->env.sig_best >= 0 ? GV_CAUSE_PRECISION : GV_CAUSE_ORDER;
        return true;
    }
    if (!(m->ratio <= r->ratio_bound)) {
        r->cause = GV_CAUSE_PRECISION;
        snprintf(why, len, "error model: ratio %.3g over bound %.3g", m->ratio, r->ratio_bound);
        return true;
    }
    if (r->prob.on && !r->prob.reported_only && !(m->prob_max <= GV_PROB_MAX_BOUND)) {
        r->cause = GV_CAUSE_PRECISION;
        snprintf(why, len, "probabilistic model: max R %.3g over %.3g at element %lld", m->prob_max,
                 GV_PROB_MAX_BOUND, (long long)m->prob_worst_index);
        return true;
    }
    if (r->prob.on && !r->prob.reported_only && m->prob_n >= GV_PROB_RMS_MIN_N &&
        !(m->prob_rms <= GV_PROB_RMS_BOUND)) {
        r->cause = GV_CAUSE_PRECISION;
        snprintf(why, len, "probabilistic model: RMS R %.3g over %.3g (%.1f effective bits)",
                 m->prob_rms, GV_PROB_RMS_BOUND, m->eff_bits);
        return true;
    }
    if (r->bias.judged && gv_bias_over(m)) {
        r->cause = GV_CAUSE_BIAS;
        char lean[160];
        gv_bias_lean(m, r->prob.on, lean, sizeof lean);
        snprintf(why, len, "bias: %s", lean);
        return true;
    }
    if (r->exact && m->inexact) {
        r->cause = GV_CAUSE_INEXACT;
        snprintf(why, len, "exact probe: %lld of %lld elements inexact (first at %lld)",
                 (long long)m->inexact, (long long)m->n, (long long)m->first_inexact_index);
        return true;
    }
    return false;
}

/* The expected tier, where the case has one: measured (or the harness erred) and met. */
static bool decide_tier(gv_result *r)
{
    if (!(r->expected_tier > 0)) return false;
    char *why = r->reason;
    size_t len = sizeof r->reason;
    int k = -1;
    for (int i = 0; i < r->tiers.n; i++)
        if (r->tiers.t[i] == r->expected_tier) k = i;
    if (k < 0) {
        /* gv_judge_problem measures it; a result decided without that is the harness's bug */
        r->verdict = GV_ERROR;
        snprintf(why, len, "internal: the expected tier %.0e was not measured", r->expected_tier);
        return true;
    }
    if (!gv_tier_met(&r->m, k)) {
        r->cause = GV_CAUSE_TIER;
        snprintf(why, len, "expected tier %.0e missed: %lld elements", r->expected_tier,
                 (long long)r->m.mismatches[k]);
        return true;
    }
    return false;
}

void gv_decide(gv_result *r)
{
    /* the one order: integrity > NaN/Inf placement > subnormals > op residuals > error
       models > expected tier */
    static bool (*const rules[])(gv_result *) = {decide_integrity,  decide_nonfinite,
                                                 decide_subnormals, decide_residuals,
                                                 decide_models,     decide_tier};
    gv_result_assert_bounds(r);
    r->verdict = GV_FAIL;
    r->cause = GV_CAUSE_NONE;
    r->reason[0] = '\0';
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i](r)) return;
    r->verdict = GV_PASS;
    r->cause = GV_CAUSE_NONE;
}

/* On generated inputs a tier t is promised only where the probabilistic model guarantees it
   (on given ones, where the worst-case model does: gv_tier_on_given): when its largest
   allowance GV_PROB_MAX_BOUND w G_i exceeds t (1 + |r_i|) for some element (zero-mean inputs
   summed deep cancel to |r| far below G), no tier is expected and the models alone judge. */
static void tier_within_model(const gv_problem *p, gv_result *r)
{
    if (!gv_inputs_known(r->inputs)) { /* no model of these inputs: the worst case guarantees */
        gv_tier_on_given(p, r);
        return;
    }
    if (!r->prob.on || r->expected_tier <= 0 || r->expected_tier_why[0]) return;
    double worst = 0.0;
    for (int i = 0; i < p->l.n_out; i++) {
        const gv_tensor *t = &p->out[i];
        if (!t->pgauge) continue;
            /* a maximum: the same whatever the order, so on all cores */
#pragma omp parallel for schedule(static) reduction(max : worst) if (t->count >= GV_PAR_MIN)
        for (int64_t k = 0; k < t->count; k++) {
            double num = GV_PROB_MAX_BOUND * r->prob.w * t->pgauge[k], den = 1.0 + fabs(t->ref[k]);
            if (!gv_quot_may_exceed(num, den, worst)) continue; /* cannot raise the maximum */
            double need = num / den;
            if (need > worst) worst = need; /* NaN (never computed) is caught by the compare */
        }
    }
    if (worst > r->expected_tier) {
        snprintf(r->tier_note, sizeof r->tier_note,
                 "the model allows errors up to %.2g (1 + |r|) here, over the tier %.0e", worst,
                 r->expected_tier);
        r->expected_tier = 0.0;
    }
}

/* The judge's serial pass over whole tensors, the output hash (XXH64, one stream), reads only
   p, which the compare leaves alone: on large outputs it runs on a thread of its own beside
   it. The probabilistic floor sums in fixed chunks on every core (model_floor.c), after the
   compare: beside it, its OpenMP team would double the threads on the cores. */
typedef struct judge_side {
    const gv_problem *p;
    const gv_result *r;
    double floor_rms;
    uint64_t hash;
} judge_side;

static void *side_hash(void *arg)
{
    judge_side *s = arg;
    s->hash = gv_output_hash(s->p);
    return NULL;
}

static void *side_floor(void *arg)
{
    judge_side *s = arg;
    s->floor_rms = gv_prob_floor(s->p, s->r);
    return NULL;
}

/* w, the probabilistic model's unit. Which reference judges: an exact one (reference.h) has
   no rounding of its own, so the model allows for the device's alone; the f64 oracle's own
   error, about 2^-53 sqrt(its depth) of G, is added otherwise. Set before the side threads
   start: the floor reads w. */
static void set_prob_unit(const gv_problem *p, gv_result *r)
{
    r->ref_exact = p->ref_exact;
    if (r->prob.on)
        r->prob.w =
            gv_prob_unit(r->prob.u, r->prob.depth, r->prob.u_in) +
            (p->ref_exact ? 0.0
                          : 0x1p-53 * sqrt(r->prob.oracle_depth > 1 ? r->prob.oracle_depth : 1.0));
}

/* A copy of output 0's reference as the claimed arithmetic sees it, or NULL where the oracle's
   stands. The range of the converted operands (op.h, mode_reference): where the mode's
   conversion makes an operand infinite, NaN, saturated or zero beside an infinity, output 0 is
   judged against the reference of the converted operands, so that NaN and Inf sit where the
   claimed arithmetic puts them. The limits of the op's value that IEEE reaches by more than
   one formula (op.h, limit_reference) go on the same copy. A failure is r->internal's. */
static double *converted_reference(const gv_problem *p, gv_result *r, int64_t *range_patched)
{
    const gv_case *c = &p->c;
    double *mode_ref = NULL;
    *range_patched = 0;
    if (c->op->mode_reference && gv_format_get(gv_mode_get(c->mode)->probe_in)->p > 0 &&
        p->l.n_out > 0) {
        mode_ref = malloc(sizeof *mode_ref * (size_t)p->out[0].count + 1);
        int rc = mode_ref ? GV_OK : GV_ENOMEM;
        if (rc == GV_OK) {
            memcpy(mode_ref, p->out[0].ref, sizeof *mode_ref * (size_t)p->out[0].count);
            rc = c->op->mode_reference(p, mode_ref, range_patched);
        }
        if (rc != GV_OK)
            snprintf(r->internal, sizeof r->internal, "%s: the converted operands' reference: %s",
                     c->op->name, gv_strerror(rc));
        if (rc != GV_OK || *range_patched == 0) {
            free(mode_ref);
            mode_ref = NULL;
        }
    }
    if (c->op->limit_reference && p->l.n_out > 0 && !r->internal[0]) {
        double *lim = mode_ref;
        if (!lim) {
            lim = malloc(sizeof *lim * (size_t)p->out[0].count + 1);
            if (lim) memcpy(lim, p->out[0].ref, sizeof *lim * (size_t)p->out[0].count);
        }
        int64_t limits = 0;
        int rc = lim ? c->op->limit_reference(p, lim, &limits) : GV_ENOMEM;
        if (rc != GV_OK)
            snprintf(r->internal, sizeof r->internal, "%s: the limits' reference: %s", c->op->name,
                     gv_strerror(rc));
        if (limits > 0 && rc == GV_OK) {
            mode_ref = lim;
            gv_result_extra(r, "limit_outputs", (double)limits);
        } else if (lim != mode_ref) {
            free(lim);
        }
    }
    return mode_ref;
}

/* Every output against its reference (output 0's may be ref0) under the op's error model,
   merged into r->m. */
static void compare_outputs(const gv_problem *p, gv_result *r, const double *ref0)
{
    const gv_case *c = &p->c;
    int bits = gv_mode_precision_bits(c->dtype, c->mode);
    /* the operations that may underflow: counted in the native arithmetic's terms (a mode's
       depth may count blocks, as tf32's 4 + k/2^13 does, while each of the k products still
       rounds into the subnormals on its own) */
    gv_case native = *c;
    native.mode = GV_MODE_NATIVE;
    const double eta_terms =
        c->op->underflow_terms ? c->op->underflow_terms(c) : c->op->depth(&native);
    for (int i = 0; i < p->l.n_out; i++) {
        const gv_tensor *t = &p->out[i];
        gv_error_model em = {
            .gauge = t->gauge,
            .depth = r->depth,
            .u = r->u,
            .pgauge = r->prob.on ? t->pgauge : NULL,
            .pw = r->prob.w,
            .exact = r->exact,
            .ref_lo = p->ref_exact ? t->ref_lo : NULL,
            /* a mode that promises IEEE arithmetic rounds into the
               subnormals; another may flush them, erring by up to 2^emin */
            .eta = gv_mode_get(c->mode)->promises_rn && !c->op->subnormals_unpromised &&
                           !r->ftz_allowed
                       ? gv_underflow_eta(c->dtype)
                       : 2.0 * gv_dtype_normal_min(c->dtype),
            .eta_terms = eta_terms,
            /* flushed operands and results lose the sign IEEE gives a zero */
            .zero_sign = c->op->zero_sign && !r->ftz_allowed};
        gv_metrics m;
        gv_compare(t->data, c->dtype, i == 0 && ref0 ? ref0 : t->ref, t->count, &r->tiers, &em,
                   bits, &m);
        if (i == 0)
            r->m = m;
        else
            gv_metrics_merge(&r->m, &m, r->tiers.n);
    }
}

/* The envelope starts afresh, with what its caller set: the declared order, whether the
   outputs are gpuval's own (whose kernel's order is known), the architecture, whether its lean
   is judged; where it applies, its numbers go under "extra" in the JSON. */
static void judge_envelope(const gv_problem *p, gv_result *r)
{
    r->env = (gv_envelope){.worst = -1,
                           .order = r->env.order,
                           .foreign = r->env.foreign,
                           .arch = r->env.arch,
                           .lean_unjudged = r->env.lean_unjudged};
    if (gv_envelope_applies(r)) gv_envelope_judge(p, r);
    if (!r->env.judged) return;
    gv_result_extra(r, "envelope_d_max", r->env.d_max);
    gv_result_extra(r, "envelope_bias_z",
                    fabs(r->env.z) > fabs(r->env.z_sr) ? r->env.z : r->env.z_sr);
    for (int a = 0; a < r->env.n_arith; a++)
        gv_result_extra(r, r->env.arith[a].extra, r->env.arith[a].share);
    for (int s = 0; s < r->env.n_sig; s++) {
        gv_result_extra(r, r->env.sig[s].extra_beta, r->env.sig[s].beta);
        gv_result_extra(r, r->env.sig[s].extra_z, r->env.sig[s].z);
    }
}

void gv_judge_problem(const gv_problem *p, gv_result *r)
{
    const gv_case *c = &p->c;
    r->n_checks = 0;
    r->unjudgeable[0] = r->internal[0] = '\0';
    set_prob_unit(p, r);
    judge_side side = {p, r, 0.0, 0};
    int64_t out_elems = 0;
    for (int i = 0; i < p->l.n_out; i++)
        out_elems += p->out[i].count;
    pthread_t th_hash;
    bool on_hash = false;
    if (out_elems >= ((int64_t)1 << 20))
        on_hash = pthread_create(&th_hash, NULL, side_hash, &side) == 0;
    tier_within_model(p, r);
    if (r->expected_tier > 0 && tier_index(r, r->expected_tier) < 0)
        snprintf(r->internal, sizeof r->internal, "no room to measure the expected tier %.0e",
                 r->expected_tier);
    int64_t range_patched = 0;
    double *mode_ref = converted_reference(p, r, &range_patched);
    compare_outputs(p, r, mode_ref);
    side_floor(&side);
    if (on_hash)
        pthread_join(th_hash, NULL);
    else
        side_hash(&side);
    free(mode_ref);
    if (range_patched) gv_result_extra(r, "range_converted_outputs", (double)range_patched);
    r->prob.floor_rms = side.floor_rms;
    r->output_hash = side.hash;
    r->have_hash = true;
    judge_envelope(p, r);
    if (c->op->measure) c->op->measure(p, r);
    if (r->bias.judged && r->m.bias_n < GV_BIAS_MIN_N) /* the rule has no power: say so */
        snprintf(r->bias.why_not, sizeof r->bias.why_not, "%lld elements, under the %d it needs",
                 (long long)r->m.bias_n, GV_BIAS_MIN_N);
    r->bias.judged = r->bias.judged && r->m.bias_n >= GV_BIAS_MIN_N;
    gv_decide(r);
}
