/* repeat.c: check --repeat, bit-identical outputs across launches on the same inputs
 * (repeat.h). Differences are counted by bytes, so -0 against +0 and two NaNs of different
 * payloads count; the spread is measured in values and in ulps of the storage dtype. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/repeat.h"
#include "core/judge.h"
#include "core/problem.h"

/* One ulp of the storage dtype at x (significand bits p); the smallest subnormal at 0. */
static double ulp_at(double x, gv_dtype t)
{
    int p = t == GV_F32 ? 24 : 53, emin = t == GV_F32 ? -126 : -1022;
    if (!isfinite(x)) return INFINITY;
    int e = x == 0 ? emin : ilogb(x);
    if (e < emin) e = emin;
    return ldexp(1.0, e - (p - 1));
}

void gv_repeat_diff_output(const gv_problem *p, int i, const void *again, gv_repeat_diff *d)
{
    gv_dtype t = p->c.dtype;
    size_t es = gv_dtype_size(t);
    const unsigned char *a = p->out[i].data, *b = again;
    for (int64_t k = 0; k < p->out[i].count; k++) {
        if (memcmp(a + (size_t)k * es, b + (size_t)k * es, es) == 0) continue;
        bool pa, pb;
        double x = gv_load(a, t, k, &pa), y = gv_load(b, t, k, &pb);
        if (d->differing++ == 0) {
            d->first_index = k;
            d->first_output = i;
            d->first_a = x;
            d->first_b = y;
        }
        /* a NaN against anything, or an Inf against another value, is infinitely far */
        double abs_diff = isnan(x) || isnan(y) ? INFINITY : fabs(x - y);
        double ulps = isinf(abs_diff) ? INFINITY : abs_diff / ulp_at(fmin(fabs(x), fabs(y)), t);
        if (abs_diff > d->max_abs) d->max_abs = abs_diff;
        if (ulps > d->max_ulp) d->max_ulp = ulps;
    }
}

void gv_repeat_record(const gv_problem *p, gv_result *r, int repeat, int first_repeat,
                      const gv_repeat_diff *first, const gv_repeat_diff *worst)
{
    gv_result_extra(r, "repeats", repeat);
    gv_result_extra(r, "repeat_differing", (double)worst->differing);
    gv_result_extra(r, "repeat_max_abs_diff", worst->max_abs);
    gv_result_extra(r, "repeat_max_ulp_diff", worst->max_ulp);
    if (!p->c.op->nondeterministic) {
        int o = first->first_output;
        int64_t total = 0;
        for (int i = 0; i < p->l.n_out; i++)
            total += p->out[i].count;
        gv_result_check(r, "repeat_identical", (double)worst->differing, 0.0,
                        "not deterministic: repeat %d of %d differs in %lld of %lld elements, "
                        "first %s element %lld: %.9g, then %.9g",
                        first_repeat, repeat, (long long)first->differing, (long long)total,
                        p->out[o].name ? p->out[o].name : "output", (long long)first->first_index,
                        first->first_a, first->first_b);
    }
    gv_decide(r);
}

void gv_repeat_judge(const gv_problem *p, gk_launch *L, gv_result *r, int repeat)
{
    const gv_op *op = p->c.op;
    size_t es = gv_dtype_size(p->c.dtype);
    gk_host_io io;
    memset(&io, 0, sizeof io);
    for (int i = 0; i < p->l.n_in; i++)
        io.in[i] = p->in[i].data;
    bool ok = true;
    for (int i = 0; i < p->l.n_out && ok; i++) {
        io.out[i] = malloc((size_t)p->out[i].count * es + 1);
        ok = io.out[i] != NULL;
    }
    gv_repeat_diff worst = {0}, first = {0};
    int first_repeat = 0;
    for (int k = 2; ok && k <= repeat; k++) {
        gk_clear_error();
        int rc = gk_run(op->device, L, &io);
        /* the first launch judged the guards; a later one only has to give the same bytes */
        if (rc != GV_OK && rc != GV_EGUARD) {
            r->verdict = GV_ERROR;
            snprintf(r->reason, sizeof r->reason, "repeat %d of %d: %s", k, repeat,
                     gk_last_error());
            goto out;
        }
        gv_repeat_diff d = {0};
        for (int i = 0; i < p->l.n_out; i++)
            gv_repeat_diff_output(p, i, io.out[i], &d);
        if (d.differing && !first_repeat) {
            first = d;
            first_repeat = k;
        }
        if (d.differing > worst.differing) worst.differing = d.differing;
        if (d.max_abs > worst.max_abs) worst.max_abs = d.max_abs;
        if (d.max_ulp > worst.max_ulp) worst.max_ulp = d.max_ulp;
    }
    if (!ok) {
        snprintf(r->internal, sizeof r->internal, "no host memory for the repeats' outputs");
        gv_decide(r);
        goto out;
    }
    gv_repeat_record(p, r, repeat, first_repeat, &first, &worst);
out:
    for (int i = 0; i < p->l.n_out; i++)
        free(io.out[i]);
}

int gv_repeat_canaries_parse(const gv_op *op, gv_dist *dists, gv_shape *shapes, int *launches,
                             int max, char *err, size_t errlen)
{
    int n = 0;
    for (const char *p = op->repeat_canaries; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char entry[128], *c1 = NULL, *c2 = NULL;
        if (len < sizeof entry) {
            memcpy(entry, p, len);
            entry[len] = '\0';
            c1 = strchr(entry, ':');
            c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        }
        if (!c2 || n == max) {
            snprintf(err, errlen,
                     "%s: malformed repeat canary list '%s' (DIST:SHAPE:LAUNCHES, at most %d)",
                     op->name, op->repeat_canaries, max);
            return GV_EINVAL;
        }
        *c1 = *c2 = '\0';
        if (gv_dist_parse(entry, &dists[n]) != GV_OK || !(op->dists & (1u << dists[n]))) {
            snprintf(err, errlen, "%s: repeat canary distribution '%s' is not one the op takes",
                     op->name, entry);
            return GV_EINVAL;
        }
        if (gv_size_spec_parse(c1 + 1, &shapes[n], 1, err, errlen) != 1) return GV_EINVAL;
        char *end = NULL;
        long k = strtol(c2 + 1, &end, 10);
        if (end == c2 + 1 || *end || k < 2 || k > GV_REPEAT_CANARY_MAX) {
            snprintf(err, errlen, "%s: repeat canary launches '%s' is not in 2..%d", op->name,
                     c2 + 1, GV_REPEAT_CANARY_MAX);
            return GV_EINVAL;
        }
        launches[n] = (int)k;
        n++;
        p = comma ? comma + 1 : NULL;
    }
    return n;
}

bool gv_repeat_same_shape(const gv_shape *a, const gv_shape *b)
{
    if (a->nd != b->nd) return false;
    for (int i = 0; i < a->nd; i++)
        if (a->d[i] != b->d[i]) return false;
    return true;
}

int gv_case_repeats(const gv_case *c, int repeat)
{
    if (repeat < 1) repeat = 1;
    if (!c->op || !c->op->repeat_canaries || c->mode != GV_MODE_NATIVE) return repeat;
    gv_dist dists[GV_MAX_REPEAT_CANARIES];
    gv_shape shapes[GV_MAX_REPEAT_CANARIES];
    int launches[GV_MAX_REPEAT_CANARIES];
    char err[256];
    int n = gv_repeat_canaries_parse(c->op, dists, shapes, launches, GV_MAX_REPEAT_CANARIES, err,
                                     sizeof err);
    for (int i = 0; i < n; i++)
        if (dists[i] == c->dist && gv_repeat_same_shape(&shapes[i], &c->shape) &&
            launches[i] > repeat)
            repeat = launches[i];
    return repeat;
}
