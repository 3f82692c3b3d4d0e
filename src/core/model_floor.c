/* model_floor.c: the input-rounding floor of the probabilistic model and the output hash
 * (model_floor.h). Why a floor exists: a product sum_k a_k b_k whose operands are rounded to
 * p bits, a_k (1 + da_k), b_k (1 + db_k), is off by sum_k a_k b_k (da_k + db_k) + O(u^2)
 * before any accumulation error, and the accumulation's own rounding errors are functions of
 * the rounded values, nearly uncorrelated with the input errors: the variance of the total is
 * at least that of the input part, sum_k (a_k b_k)^2 (s_A + s_B), s_X the weighted mean square
 * of the relative rounding errors of X. */
#include "core/model_floor.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"

static inline __attribute__((always_inline)) double round_bits(double x, int p)
{
    if (x == 0.0 || !isfinite(x)) return x;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    if (p >= 1 && p < 53 && ((b >> 52) & 0x7FF) != 0) {
        /* a normal x: round its 53-bit significand to p bits, ties to even, on the bits (a
           carry into the exponent is the next binade, into the top one infinity, as below) */
        int drop = 53 - p;
        uint64_t half = ((uint64_t)1 << (drop - 1)) - 1 + ((b >> drop) & 1);
        b = (b + half) & ~(((uint64_t)1 << drop) - 1);
        memcpy(&x, &b, sizeof x);
        return x;
    }
    int e;
    frexp(x, &e);
    return ldexp(nearbyint(ldexp(x, p - e)), e - p);
}

double gv_round_bits(double x, int p)
{
    return round_bits(x, p);
}

/* Fixed chunks of the floor's sums, each summed in index order and the chunks merged in
   order: the same bits on any thread count (a sum's association is the chunks', never the
   threads'). 2^16 elements, as the compare's. */
enum { FLOOR_CHUNK = 1 << 16 };

double gv_rounding_msq(const double *x, int64_t n, int p)
{
    /* scaled sums (gv_ssq): inputs near the overflow threshold (huge) or subnormal (tiny)
       neither overflow to inf / inf nor underflow to 0 / 0; ordinary data gives err / mag as the
       plain sums did */
    gv_ssq err = {0, 0, 0}, mag = {0, 0, 0};
    int64_t nchunks = (n + FLOOR_CHUNK - 1) / FLOOR_CHUNK;
    gv_ssq *part = nchunks > 1 ? malloc(sizeof *part * 2 * (size_t)nchunks) : NULL;
#pragma omp parallel for schedule(static) if (part != NULL)
    for (int64_t c = 0; c < (part ? nchunks : 1); c++) {
        gv_ssq e = {0, 0, 0}, m = {0, 0, 0};
        int64_t end = part && (c + 1) * FLOOR_CHUNK < n ? (c + 1) * FLOOR_CHUNK : n;
        for (int64_t i = part ? c * FLOOR_CHUNK : 0; i < end; i++) {
            if (!isfinite(x[i])) continue;
            gv_ssq_add(&e, fabs(round_bits(x[i], p) - x[i]));
            gv_ssq_add(&m, fabs(x[i]));
        }
        if (part)
            part[2 * c] = e, part[2 * c + 1] = m;
        else
            err = e, mag = m;
    }
    for (int64_t c = 0; part && c < nchunks; c++) {
        gv_ssq_merge(&err, &part[2 * c]);
        gv_ssq_merge(&mag, &part[2 * c + 1]);
    }
    free(part);
    if (err.sml == 0 && err.big == 0 && mag.sml == 0 && mag.big == 0)
        return mag.med > 0 ? err.med / mag.med : 0.0;
    double q = gv_ssq_ratio(&err, &mag);
    return isinf(q) ? 0.0 : q * q; /* +inf: every x is 0, whose rounding error is 0 too */
}

double gv_prob_floor(const gv_problem *p, const gv_result *r)
{
    const gv_case *c = &p->c;
    int bits = gv_mode_get(c->mode)->input_bits;
    if (!r->prob.on || !(r->prob.u_in > 0) || bits <= 0 || p->l.n_in < 2 || p->l.n_out < 1 ||
        !c->op->floor_from_operands)
        return 0.0;
    const gv_tensor *C = &p->out[0];
    if (!C->pgauge || !C->ref) return 0.0;
    /* the two sums, each on every core in fixed chunks (gv_rounding_msq) */
    double s = gv_rounding_msq(p->in[0].ref, p->in[0].count, bits) +
               gv_rounding_msq(p->in[1].ref, p->in[1].count, bits);
    double w = r->prob.w, sum = 0.0;
    int64_t n = 0, count = C->count, nchunks = (count + FLOOR_CHUNK - 1) / FLOOR_CHUNK;
    double *psum = nchunks > 1 ? malloc(sizeof *psum * (size_t)nchunks) : NULL;
    int64_t *pn = psum ? malloc(sizeof *pn * (size_t)nchunks) : NULL;
    if (!pn) {
        free(psum);
        psum = NULL;
    }
#pragma omp parallel for schedule(static) if (psum != NULL)
    for (int64_t c = 0; c < (psum ? nchunks : 1); c++) {
        double cs = 0.0;
        int64_t cn = 0;
        int64_t end = psum && (c + 1) * FLOOR_CHUNK < count ? (c + 1) * FLOOR_CHUNK : count;
        for (int64_t i = psum ? c * FLOOR_CHUNK : 0; i < end; i++) {
            double g = C->pgauge[i], ref = C->ref[i];
            if (!isfinite(ref) || !isfinite(g) || !(g > 0)) continue;
            double spread = g - fabs(ref); /* sqrt(sum_k (a_k b_k)^2) */
            if (spread < 0) spread = 0;
            double q = spread / (w * g);
            cs += s * q * q;
            cn++;
        }
        if (psum)
            psum[c] = cs, pn[c] = cn;
        else
            sum = cs, n = cn;
    }
    for (int64_t c = 0; psum && c < nchunks; c++)
        sum += psum[c], n += pn[c];
    free(psum);
    free(pn);
    return n > 0 ? sqrt(sum / (double)n) : 0.0;
}
