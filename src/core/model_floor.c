/* model_floor.c: the input-rounding floor of the probabilistic model and the output hash
 * (model_floor.h). Why a floor exists: a product sum_k a_k b_k whose operands are rounded to
 * p bits, a_k (1 + da_k), b_k (1 + db_k), is off by sum_k a_k b_k (da_k + db_k) + O(u^2)
 * before any accumulation error, and the accumulation's own rounding errors are functions of
 * the rounded values, nearly uncorrelated with the input errors: the variance of the total is
 * at least that of the input part, sum_k (a_k b_k)^2 (s_A + s_B), s_X the weighted mean square
 * of the relative rounding errors of X. */
#include "core/model_floor.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
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

double gv_rounding_msq(const double *x, int64_t n, int p)
{
    /* scaled sums (gv_ssq): inputs near the overflow threshold (huge) or subnormal (tiny)
       neither overflow to inf / inf nor underflow to 0 / 0; ordinary data gives err / mag as the
       plain sums did, bit for bit */
    gv_ssq err = {0, 0, 0}, mag = {0, 0, 0};
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) continue;
        gv_ssq_add(&err, fabs(round_bits(x[i], p) - x[i]));
        gv_ssq_add(&mag, fabs(x[i]));
    }
    if (err.sml == 0 && err.big == 0 && mag.sml == 0 && mag.big == 0)
        return mag.med > 0 ? err.med / mag.med : 0.0;
    double q = gv_ssq_ratio(&err, &mag);
    return isinf(q) ? 0.0 : q * q; /* +inf: every x is 0, whose rounding error is 0 too */
}

typedef struct msq_job {
    const double *x;
    int64_t n;
    int p;
    double msq;
} msq_job;

static void *msq_thread(void *arg)
{
    msq_job *j = arg;
    j->msq = gv_rounding_msq(j->x, j->n, j->p);
    return NULL;
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
    /* the two sums at once, each in its own order: B's on a thread of its own */
    msq_job jb = {p->in[1].ref, p->in[1].count, bits, 0.0};
    pthread_t th;
    bool threaded = jb.n >= ((int64_t)1 << 20) && pthread_create(&th, NULL, msq_thread, &jb) == 0;
    double sa = gv_rounding_msq(p->in[0].ref, p->in[0].count, bits);
    if (threaded)
        pthread_join(th, NULL);
    else
        msq_thread(&jb);
    double s = sa + jb.msq;
    double sum = 0.0, w = r->prob.w;
    int64_t n = 0;
    for (int64_t i = 0; i < C->count; i++) {
        double g = C->pgauge[i], ref = C->ref[i];
        if (!isfinite(ref) || !isfinite(g) || !(g > 0)) continue;
        double spread = g - fabs(ref); /* sqrt(sum_k (a_k b_k)^2) */
        if (spread < 0) spread = 0;
        double q = spread / (w * g);
        sum += s * q * q;
        n++;
    }
    return n > 0 ? sqrt(sum / (double)n) : 0.0;
}
