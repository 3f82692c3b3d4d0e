/* stats.c: medians and their order-statistic intervals, ratios of medians, the sampling
 * stop rule, geometric sweeps and the crossover (see stats.h). No I/O, no device. */
#include "bench/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gv.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *sorted_copy(const double *x, int n)
{
    double *s = malloc(sizeof *s * (size_t)n + 1);
    if (!s) return NULL;
    memcpy(s, x, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return s;
}

static double median_sorted(const double *s, int n)
{
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double gv_median(const double *x, int n)
{
    if (n < 1) return NAN;
    double *s = sorted_copy(x, n);
    if (!s) return NAN;
    double m = median_sorted(s, n);
    free(s);
    return m;
}

double gv_binom_half_cdf(int n, int j)
{
    if (j < 0) return 0.0;
    if (j >= n) return 1.0;
    /* log-space terms: 2^-n underflows for n > 1074, the terms that matter do not */
    double logp = -n * log(2.0), cdf = 0.0;
    for (int i = 0; i <= j; i++) {
        cdf += exp(logp);
        logp += log((double)(n - i)) - log((double)(i + 1));
    }
    return cdf < 1.0 ? cdf : 1.0;
}

double gv_median_ci_ranks(int n, double conf, int *lo_rank, int *hi_rank)
{
    assert(n >= 1 && conf > 0 && conf < 1);
    double half_alpha = 0.5 * (1.0 - conf);
    /* largest k with P(X <= k-1) <= alpha/2, walking the cdf upwards once */
    int k = 0;
    double logp = -n * log(2.0), cdf = 0.0;
    for (int i = 0; i < (n + 1) / 2; i++) {
        cdf += exp(logp);
        if (cdf > half_alpha) break;
        k = i + 1;
        logp += log((double)(n - i)) - log((double)(i + 1));
    }
    if (k < 1) k = 1; /* too few samples for conf: the whole range */
    *lo_rank = k;
    *hi_rank = n + 1 - k;
    return 1.0 - 2.0 * gv_binom_half_cdf(n, k - 1);
}

int gv_stat_describe(const double *x, int n, double conf, gv_stat *st)
{
    memset(st, 0, sizeof *st);
    st->median = st->lo = st->hi = st->rel_spread = st->min = st->max = NAN;
    if (n < 1) return GV_EINVAL;
    double *s = sorted_copy(x, n);
    if (!s) return GV_ENOMEM;
    int lo, hi;
    st->n = n;
    st->coverage = gv_median_ci_ranks(n, conf, &lo, &hi);
    st->median = median_sorted(s, n);
    st->lo = s[lo - 1];
    st->hi = s[hi - 1];
    st->min = s[0];
    st->max = s[n - 1];
    st->rel_spread = st->median > 0 ? (st->hi - st->lo) / (2.0 * st->median) : INFINITY;
    free(s);
    return GV_OK;
}

int gv_ratio_of_medians(const double *num, int nn, const double *den, int nd, double conf,
                        gv_ratio *r)
{
    r->ratio = r->lo = r->hi = NAN;
    r->coverage = 0.0;
    if (nn < 1 || nd < 1) return GV_EINVAL;
    double each = 1.0 - 0.5 * (1.0 - conf);
    gv_stat a, b;
    int rc = gv_stat_describe(num, nn, each, &a);
    if (rc == GV_OK) rc = gv_stat_describe(den, nd, each, &b);
    if (rc != GV_OK) return rc;
    r->ratio = a.median / b.median;
    r->lo = a.lo / b.hi;
    r->hi = b.lo > 0 ? a.hi / b.lo : INFINITY;
    r->coverage = a.coverage + b.coverage - 1.0;
    if (r->coverage < 0) r->coverage = 0;
    return GV_OK;
}

const char *gv_stop_name(gv_stop s)
{
    switch (s) {
    case GV_STOP_NO: return "running";
    case GV_STOP_SPREAD: return "spread";
    case GV_STOP_CAP: return "cap";
    case GV_STOP_MAX: return "max";
    case GV_STOP_BUDGET: return "budget";
    }
    return "?";
}

/* Evaluate the spread at every n up to 64, then every 2^floor(log2(n/32)) samples: about
   32 sorts per doubling of n. */
static bool spread_checkpoint(int n)
{
    if (n <= 64) return true;
    int step = 1;
    while (step * 2 <= n / 32)
        step *= 2;
    return n % step == 0;
}

gv_stop gv_sampling_stop(const gv_sampling *p, const double *ms, int n, double elapsed_s)
{
    if (n >= p->max_samples) return GV_STOP_MAX;
    if (n < p->min_samples) {
        if (p->budget_s > 0 && n >= 1 && elapsed_s + elapsed_s / n > p->budget_s)
            return GV_STOP_BUDGET;
        return GV_STOP_NO;
    }
    if (spread_checkpoint(n)) {
        gv_stat st;
        if (gv_stat_describe(ms, n, p->conf, &st) == GV_OK && st.rel_spread <= p->target_spread)
            return GV_STOP_SPREAD;
    }
    if (elapsed_s >= p->cap_s) return GV_STOP_CAP;
    return GV_STOP_NO;
}

int gv_geom_sizes(int64_t lo, int64_t hi, double factor, int64_t *out, int max)
{
    if (lo < 1 || hi < lo || !(factor > 1.0) || max < 1) return GV_EINVAL;
    int n = 0;
    double v = (double)lo;
    int64_t prev = 0;
    while (v < (double)hi) {
        int64_t s = (int64_t)llround(v);
        if (s <= prev) s = prev + 1;
        if (s >= hi) break;
        if (n == max) return GV_EINVAL;
        out[n++] = prev = s;
        v = (double)s * factor;
    }
    if (n == max) return GV_EINVAL;
    out[n++] = hi;
    return n;
}

int gv_crossover_find(const double *size, const double *speedup, int n, gv_crossover *x)
{
    x->status = GV_XO_NONE;
    x->first_win = -1;
    x->interp = NAN;
    if (n < 1) return GV_EINVAL;
    for (int i = 1; i < n; i++)
        if (!(size[i] > size[i - 1])) return GV_EINVAL;
    int last_loss = -1;
    for (int i = 0; i < n; i++)
        if (!(speedup[i] > 1.0)) last_loss = i; /* NaN counts as no win */
    if (last_loss == n - 1) return GV_OK;
    x->first_win = last_loss + 1;
    if (last_loss < 0) {
        x->status = GV_XO_BELOW;
        return GV_OK;
    }
    x->status = GV_XO_FOUND;
    int a = last_loss, b = last_loss + 1;
    double y0 = log(speedup[a]), y1 = log(speedup[b]);
    if (speedup[a] > 0 && isfinite(y0) && isfinite(y1) && y1 > y0) {
        double x0 = log(size[a]), x1 = log(size[b]);
        x->interp = exp(x0 + (0.0 - y0) * (x1 - x0) / (y1 - y0));
    } else {
        x->interp = size[b];
    }
    return GV_OK;
}

const char *gv_crossover_status_name(gv_crossover_status s)
{
    switch (s) {
    case GV_XO_FOUND: return "found";
    case GV_XO_BELOW: return "below the swept range";
    case GV_XO_NONE: return "not in the swept range";
    }
    return "?";
}
