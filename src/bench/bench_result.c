/* bench_result.c: a timed case's samples summarised into the struct that the run's
 * decisions read (bench_result.h), and the crossover sweep over such cases. Statistics come
 * from stats.c. */
#include "bench/bench_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double gv_ceiling_rate(const gv_ceiling *c, double conf)
{
    if (!c->ok || c->t.n < 1) return NAN;
    gv_stat st;
    if (gv_stat_describe(c->t.ms, c->t.n, conf, &st) != GV_OK) return NAN;
    return c->work / (st.median * 1e-3) / 1e9;
}

void gv_ceiling_values_of(const gv_ceilings *c, double conf, gv_ceiling_values *v)
{
    v->copy_gbps = c ? gv_ceiling_rate(&c->copy, conf) : NAN;
    for (int t = 0; t < GV_NDTYPES; t++)
        v->gemm_gflops[t] = c ? gv_ceiling_rate(&c->gemm[t], conf) : NAN;
}

void gv_bench_result_make(gv_bench_case_result *r, gv_bench_case *bc, const gv_ceiling_values *ce,
                          double conf)
{
    memset(r, 0, sizeof *r);
    r->bc = *bc;
    memset(bc, 0, sizeof *bc);
    r->conf = conf;
    const gv_bench_case *b = &r->bc;
    r->judged = b->timed && (b->sanity.verdict == GV_PASS || b->sanity.verdict == GV_FAIL);
    for (int i = 0; i < GV_NTIMINGS; i++) {
        r->has[i] = b->t[i].n > 0;
        if (r->has[i]) gv_stat_describe(b->t[i].ms, b->t[i].n, conf, &r->t[i]);
    }
    double copy = ce ? ce->copy_gbps : NAN, gemm = ce ? ce->gemm_gflops[b->c.dtype] : NAN;
    const gv_samples *cpu = &b->t[GV_T_CPU];
    for (int i = GV_T_HOT; i <= GV_T_E2E; i++) {
        const gv_samples *g = &b->t[i];
        if (g->n == 0) continue;
        if (cpu->n > 0) {
            r->speedup[i].present = true;
            gv_ratio_of_medians(cpu->ms, cpu->n, g->ms, g->n, conf, &r->speedup[i].r);
        }
        if (i == GV_T_E2E) continue; /* transfers are not the op's flops or bytes */
        double s = r->t[i].median * 1e-3;
        gv_bench_achieved *a = &r->achieved[i];
        a->present = true;
        a->gflops = b->sanity.flops / s / 1e9;
        a->gbps = b->sanity.bytes / s / 1e9;
        a->frac_gemm = a->gflops / gemm;
        a->frac_copy = a->gbps / copy;
    }
    if (b->repeat.n > 0 && b->t[GV_T_HOT].n > 0) {
        gv_bench_repeat *rp = &r->repeat;
        rp->present = true;
        rp->first = r->t[GV_T_HOT];
        gv_stat_describe(b->repeat.ms, b->repeat.n, conf, &rp->second);
        rp->agree = rp->first.lo <= rp->second.hi && rp->second.lo <= rp->first.hi;
        rp->diff_rel = rp->second.median / rp->first.median - 1.0;
    }
}

void gv_bench_result_free(gv_bench_case_result *r)
{
    gv_bench_case_free(&r->bc);
}

gv_timing_id gv_bench_kernel_scope(const gv_bench_case_result *r)
{
    return r->achieved[GV_T_HOT].present ? GV_T_HOT : GV_T_COLD;
}

double gv_bench_median_ms(const gv_bench_case_result *r, gv_timing_id id)
{
    return r->has[id] ? r->t[id].median : NAN;
}

/* ---- crossover sweeps ---- */

void gv_bench_crossover_init(gv_bench_crossover *xo, const gv_case *base, int dim, int64_t lo,
                             int64_t hi, double factor)
{
    memset(xo, 0, sizeof *xo);
    xo->base = *base;
    xo->dim = dim;
    xo->lo = lo;
    xo->hi = hi;
    xo->factor = factor;
    /* the name of dim `dim` in "m,k,n" */
    const char *name = base->op->dims;
    for (int i = 0; i < dim && strchr(name, ','); i++)
        name = strchr(name, ',') + 1;
    size_t len = strcspn(name, ",");
    if (len >= sizeof xo->dim_name) len = sizeof xo->dim_name - 1;
    memcpy(xo->dim_name, name, len);
    xo->dim_name[len] = '\0';
    xo->status = GV_XO_NONE;
    xo->first_win_size = xo->last_loss_size = xo->interp_size = NAN;
    xo->confident_first_win_size = NAN;
}

int gv_bench_crossover_add(gv_bench_crossover *xo, int64_t size, gv_bench_case_result *r)
{
    if (xo->n == xo->cap) {
        int cap = xo->cap ? 2 * xo->cap : 16;
        gv_bench_case_result *grown = realloc(xo->pts, sizeof *grown * (size_t)cap);
        if (!grown) {
            gv_bench_result_free(r);
            return GV_ENOMEM;
        }
        xo->pts = grown;
        xo->cap = cap;
    }
    int at = xo->n;
    for (int i = 0; i < xo->n; i++)
        if (xo->pts[i].size > size) {
            at = i;
            break;
        }
    memmove(&xo->pts[at + 1], &xo->pts[at], sizeof *xo->pts * (size_t)(xo->n - at));
    xo->pts[at] = *r;
    xo->pts[at].size = size;
    memset(r, 0, sizeof *r);
    xo->n++;
    return GV_OK;
}

void gv_bench_crossover_finish(gv_bench_crossover *xo)
{
    int n = xo->n;
    double *size = calloc((size_t)n + 1, sizeof *size),
           *ratio = calloc((size_t)n + 1, sizeof *ratio),
           *lower = calloc((size_t)n + 1, sizeof *lower);
    int m = 0;
    for (int i = 0; size && ratio && lower && i < n; i++) {
        const gv_bench_speedup *s = &xo->pts[i].speedup[GV_T_E2E];
        if (!s->present || isnan(s->r.ratio)) continue; /* not timed: no evidence */
        size[m] = (double)xo->pts[i].size;
        ratio[m] = s->r.ratio;
        lower[m] = s->r.lo;
        m++;
    }
    gv_crossover x = {GV_XO_NONE, -1, NAN}, xc = {GV_XO_NONE, -1, NAN};
    if (m > 0) {
        gv_crossover_find(size, ratio, m, &x);
        gv_crossover_find(size, lower, m, &xc);
    }
    xo->timed_points = m;
    xo->status = x.status;
    xo->first_win_size = x.first_win >= 0 ? size[x.first_win] : NAN;
    xo->last_loss_size = x.status == GV_XO_FOUND       ? size[x.first_win - 1]
                         : x.status == GV_XO_NONE && m ? size[m - 1]
                                                       : NAN;
    xo->interp_size = x.interp;
    xo->confident_first_win_size = xc.first_win >= 0 ? size[xc.first_win] : NAN;
    free(size);
    free(ratio);
    free(lower);
}

const char *gv_bench_crossover_status_text(const gv_bench_crossover *xo)
{
    return xo->timed_points ? gv_crossover_status_name(xo->status) : "no point could be timed";
}

bool gv_bench_crossover_three_confident_wins(const gv_bench_crossover *xo)
{
    if (xo->n < 3) return false;
    for (int i = xo->n - 3; i < xo->n; i++) {
        const gv_bench_speedup *s = &xo->pts[i].speedup[GV_T_E2E];
        if (!s->present || !(s->r.lo > 1.0)) return false;
    }
    return true;
}

void gv_bench_crossover_free(gv_bench_crossover *xo)
{
    for (int i = 0; i < xo->n; i++)
        gv_bench_result_free(&xo->pts[i]);
    free(xo->pts);
    memset(xo, 0, sizeof *xo);
}

void gv_bench_summary_add(gv_bench_summary *s, const gv_bench_case_result *r)
{
    switch (r->bc.sanity.verdict) {
    case GV_PASS: s->sane++; break;
    case GV_FAIL: s->failed++; break;
    case GV_SKIP: s->skipped++; break;
    case GV_ERROR: s->errors++; break;
    default: break;
    }
}
