/* bench_cells.c: the formatted numbers of a timed case, for every bench printer (see
 * bench_cells.h). */
#include "render/bench_cells.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/json_util.h"
#include "render/render_kit.h"

const char *gv_bench_fmt_g(char *buf, size_t len, double x, int digits)
{
    if (isnan(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*g", digits, x);
    return buf;
}

const char *gv_bench_fmt_count(char *buf, size_t len, double x)
{
    if (isnan(x))
        snprintf(buf, len, "nan");
    else if (isinf(x))
        snprintf(buf, len, "%s", x > 0 ? "inf" : "-inf");
    else if (fabs(x) < 9e18)
        snprintf(buf, len, "%lld", (long long)x);
    else
        snprintf(buf, len, "%.0f", x);
    return buf;
}

const char *gv_bench_fmt_speedup(char *buf, size_t len, const json_t *c, const char *scope)
{
    const json_t *s = json_object_get(json_object_get(c, "speedup"), scope);
    if (!s) return snprintf(buf, len, "-"), buf;
    const json_t *ci = json_object_get(s, "ci");
    double r = gv_jnum(s, "ratio");
    /* '*': too few samples (a CPU budget) for the interval to hold at 95% */
    bool short_cov = gv_jnum(s, "coverage") < 0.95 - 1e-9;
    snprintf(buf, len, "%.3g [%.3g, %.3g]%s", r, gv_jat(ci, 0), gv_jat(ci, 1),
             short_cov ? "*" : "");
    return buf;
}

double gv_bench_scope_ms(const json_t *c, const char *scope)
{
    char path[64];
    snprintf(path, sizeof path, "timings.%s.median_ms", scope);
    return gv_jnum(c, path);
}

void gv_bench_verdict_text(char *buf, size_t len, const char *v, const char *why)
{
    if (strcmp(v, "PASS") == 0)
        snprintf(buf, len, "ok");
    else if (strcmp(v, "FAIL") == 0)
        snprintf(buf, len, "SANITY FAILED: %s", why);
    else
        snprintf(buf, len, "%s%s%s", v, *why ? ": " : "", why);
}

void gv_bench_fmt_verdict(char *buf, size_t len, const json_t *c)
{
    char verdict[32], reason[256];
    gv_bench_verdict_text(buf, len, gv_rk_term_str(gv_jstr(c, "verdict"), verdict, sizeof verdict),
                          gv_rk_term_str(gv_jstr(c, "reason"), reason, sizeof reason));
}

void gv_bench_row_of_json(gv_bench_row *v, const json_t *c)
{
    static const char *const keys[5] = {"op", "dtype", "mode", "verdict", "reason"};
    const char **to[5] = {&v->op, &v->dtype, &v->mode, &v->verdict, &v->reason};
    for (int k = 0; k < 5; k++)
        *to[k] = gv_rk_term_str(gv_jstr(c, keys[k]), v->text[k], sizeof v->text[k]);
    gv_rk_term_str(gv_jstr(c, "shape_label"), v->shape, sizeof v->shape);
    v->noise = NAN;
    for (int i = 0; i < GV_NTIMINGS; i++) {
        v->ms[i] = gv_bench_scope_ms(c, gv_timing_key(i));
        char path[64];
        snprintf(path, sizeof path, "timings.%s.rel_spread", gv_timing_key(i));
        double rs = gv_jnum(c, path);
        if (rs >= 0 && !(rs <= v->noise)) v->noise = rs; /* NaN: absent, never the widest */
    }
    const json_t *s = json_object_get(json_object_get(c, "speedup"), "e2e");
    v->has_sp = s != NULL;
    v->sp = gv_jnum(s, "ratio");
    v->sp_lo = gv_jat(json_object_get(s, "ci"), 0);
    v->sp_hi = gv_jat(json_object_get(s, "ci"), 1);
    v->sp_cov = gv_jnum(s, "coverage");
    v->x_hot = gv_jnum(c, "speedup.kernel_hot.ratio");
    v->gflops = gv_jnum(c, "achieved.kernel_hot.gflops");
    v->frac_gemm = gv_jnum(c, "achieved.kernel_hot.frac_gemm_ceiling");
    v->gbps = gv_jnum(c, "achieved.kernel_hot.gbps");
    v->frac_copy = gv_jnum(c, "achieved.kernel_hot.frac_copy_ceiling");
    v->cpu_budget = strcmp(gv_jstr(c, "timings.cpu.stop"), "budget") == 0;
    v->cpu_n = gv_jnum(c, "timings.cpu.n");
    v->hold_timeouts = gv_jnum(c, "launch.hold_timeouts");
    v->throttled = json_is_true(json_object_get(json_object_get(c, "clocks"), "throttled"));
    v->mhz_before = gv_jnum(c, "clocks.sm_mhz_before");
    v->mhz_after = gv_jnum(c, "clocks.sm_mhz_after");
    v->throttle = gv_jnum(c, "clocks.throttle_reasons");
}

void gv_bench_row_of_result(gv_bench_row *v, const gv_bench_case_result *r)
{
    const gv_case *c = &r->bc.c;
    v->op = c->op->name;
    v->dtype = gv_dtype_name(c->dtype);
    v->mode = gv_mode_name(c->mode);
    v->verdict = gv_verdict_name(r->bc.sanity.verdict);
    v->reason = r->bc.sanity.reason;
    gv_shape_format(&c->shape, v->shape, sizeof v->shape);
    v->noise = NAN;
    for (int i = 0; i < GV_NTIMINGS; i++) {
        v->ms[i] = gv_bench_median_ms(r, (gv_timing_id)i);
        double rs = r->has[i] ? r->t[i].rel_spread : NAN;
        if (rs >= 0 && !(rs <= v->noise)) v->noise = rs;
    }
    const gv_bench_speedup *s = &r->speedup[GV_T_E2E];
    v->has_sp = s->present;
    v->sp = s->present ? s->r.ratio : NAN;
    v->sp_lo = s->present ? s->r.lo : NAN;
    v->sp_hi = s->present ? s->r.hi : NAN;
    v->sp_cov = s->present ? s->r.coverage : NAN;
    v->x_hot = r->speedup[GV_T_HOT].present ? r->speedup[GV_T_HOT].r.ratio : NAN;
    const gv_bench_achieved *a = &r->achieved[GV_T_HOT];
    v->gflops = a->present ? a->gflops : NAN;
    v->frac_gemm = a->present ? a->frac_gemm : NAN;
    v->gbps = a->present ? a->gbps : NAN;
    v->frac_copy = a->present ? a->frac_copy : NAN;
    v->cpu_budget = r->has[GV_T_CPU] && r->bc.t[GV_T_CPU].stop == GV_STOP_BUDGET;
    v->cpu_n = r->has[GV_T_CPU] ? r->bc.t[GV_T_CPU].n : NAN;
    v->hold_timeouts = r->bc.info.hold_timeouts;
    v->throttled = r->bc.clocks.ok && r->bc.clocks.throttled;
    v->mhz_before = r->bc.clocks.sm_mhz_before;
    v->mhz_after = r->bc.clocks.sm_mhz_after;
    v->throttle = (double)r->bc.clocks.throttle;
}

void gv_bench_cells_fill(gv_bench_cells *r, const gv_bench_row *v)
{
    gv_bench_fmt_g(r->cpu, sizeof r->cpu, v->ms[GV_T_CPU], 4);
    gv_bench_fmt_g(r->hot, sizeof r->hot, v->ms[GV_T_HOT], 4);
    gv_bench_fmt_g(r->cold, sizeof r->cold, v->ms[GV_T_COLD], 4);
    gv_bench_fmt_g(r->e2e, sizeof r->e2e, v->ms[GV_T_E2E], 4);
    gv_bench_fmt_g(r->noise, sizeof r->noise, 100 * v->noise, 2);
    if (!v->has_sp)
        snprintf(r->speedup, sizeof r->speedup, "-");
    else /* '*': too few samples (a CPU budget) for the interval to hold at 95% */
        snprintf(r->speedup, sizeof r->speedup, "%.3g [%.3g, %.3g]%s", v->sp, v->sp_lo, v->sp_hi,
                 v->sp_cov < 0.95 - 1e-9 ? "*" : "");
    gv_bench_fmt_g(r->x_hot, sizeof r->x_hot, v->x_hot, 3);
    gv_bench_fmt_g(r->gflops, sizeof r->gflops, v->gflops, 4);
    gv_bench_fmt_g(r->pct_gemm, sizeof r->pct_gemm, 100 * v->frac_gemm, 3);
    gv_bench_fmt_g(r->gbps, sizeof r->gbps, v->gbps, 4);
    gv_bench_fmt_g(r->pct_copy, sizeof r->pct_copy, 100 * v->frac_copy, 3);
    gv_bench_verdict_text(r->verdict, sizeof r->verdict, v->verdict, v->reason);
}
