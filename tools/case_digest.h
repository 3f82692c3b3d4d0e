/* case_digest.h: a case's host work as two digests, for comparing builds and thread counts
 * (tools/host_bench.c prints them; tests/cpu/test_threads.c holds them equal on 1, 2 and 3
 * threads). Header-only: neither user links more than the core.
 *
 *   case_fake_output   the "device" output without a device: the reference off by -3..3 units
 *                      of the dtype's roundoff (so that the judge's sums, maxima and histograms
 *                      are not all zero), or with steps off by -3..3 steps of the dtype
 *                      (nextafter) at every magnitude, subnormals too, as a GPU's few-ulp
 *                      errors are
 *   case_data_digest   what the case computed from: inputs (f64 and storage bits), references,
 *                      gauges
 *   case_judged_digest its judgement: verdict, reason, every metric, checks and extras, field
 *                      by field */
#ifndef GV_TOOLS_CASE_DIGEST_H
#define GV_TOOLS_CASE_DIGEST_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/hash.h"
#include "core/op.h"

/* r rounded to the dtype, then moved k steps of the dtype (k < 0: down) */
static inline double case_step_off(gv_dtype t, double r, int k)
{
    if (t == GV_F32) {
        float f = (float)r;
        for (; k > 0; k--)
            f = nextafterf(f, INFINITY);
        for (; k < 0; k++)
            f = nextafterf(f, -INFINITY);
        return f;
    }
    for (; k > 0; k--)
        r = nextafter(r, INFINITY);
    for (; k < 0; k++)
        r = nextafter(r, -INFINITY);
    return r;
}

static inline void case_fake_output(gv_problem *p, gv_dtype t, bool steps)
{
    double u = gv_unit_roundoff(t, GV_MODE_NATIVE);
    size_t es = gv_dtype_size(t);
    for (int k = 0; k < p->l.n_out; k++)
        for (int64_t e = 0; e < p->out[k].count; e++) {
            double v = steps ? case_step_off(t, p->out[k].ref[e], (int)(e % 7) - 3)
                             : p->out[k].ref[e] * (1.0 + u * (double)(e % 7 - 3));
            gv_dtype_store_n(t, (char *)p->out[k].data + e * (int64_t)es, &v, 1);
        }
}

static inline uint64_t case_data_digest(const gv_problem *p, gv_dtype t)
{
    uint64_t d = 0;
    for (int k = 0; k < p->l.n_in; k++) {
        d = gv_xxh64(p->in[k].ref, (size_t)p->in[k].count * sizeof(double), d);
        d = gv_xxh64(p->in[k].data, (size_t)p->in[k].count * gv_dtype_size(t), d);
    }
    for (int k = 0; k < p->l.n_out; k++) {
        size_t b = (size_t)p->out[k].count * sizeof(double);
        d = gv_xxh64(p->out[k].ref, b, d);
        d = gv_xxh64(p->out[k].gauge, b, d);
        if (p->out[k].pgauge) d = gv_xxh64(p->out[k].pgauge, b, d);
    }
    return d;
}

static inline uint64_t case_judged_digest(const gv_result *r)
{
    const gv_metrics *m = &r->m;
    double v[] = {m->max_abs,       m->max_rel,     m->normwise_rel, m->max_ulp,
                  m->ratio,         m->worst_value, m->worst_ref,    m->prob_max,
                  m->prob_sq,       m->prob_signed, m->rel_sq,       m->ulp_p50,
                  m->ulp_p99,       m->sq_err.med,  m->sq_err.sml,   m->sq_err.big,
                  m->sq_ref.med,    m->sq_ref.sml,  m->sq_ref.big,   r->prob.floor_rms,
                  r->expected_tier, r->env.d_max,   r->env.z};
    int64_t iv[] = {r->verdict,
                    m->n,
                    m->nonfinite_mismatches,
                    m->first_nonfinite_index,
                    m->poisoned,
                    m->worst_index,
                    m->prob_n,
                    m->prob_worst_index,
                    m->inexact,
                    m->first_inexact_index,
                    m->mismatches[0],
                    m->mismatches[1],
                    (int64_t)r->output_hash,
                    r->n_checks,
                    r->n_extra};
    uint64_t j = gv_xxh64(v, sizeof v, 0);
    j = gv_xxh64(iv, sizeof iv, j);
    j = gv_xxh64(m->ulp_hist, sizeof m->ulp_hist, j);
    for (int k = 0; k < r->n_checks; k++)
        j = gv_xxh64(&r->checks[k].value, sizeof(double), j);
    for (int k = 0; k < r->n_extra; k++) /* the op's measurements, worst elements among them */
        j = gv_xxh64(&r->extra[k].value, sizeof(double), j);
    return gv_xxh64(r->reason, strlen(r->reason), j);
}

#endif
