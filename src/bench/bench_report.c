/* bench_report.c: every rendering of a timed run, made from its JSON document alone (see
 * bench_report.h): the terminal table (one row per case, units in headers, the sanity
 * verdict last), ceilings, crossover sweeps, targets, the repeat check, the seeds' own
 * layouts, CSV and Markdown, and the atomic writing of files. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_report.h"
#include "io/json_util.h"
#include "bench/bench_plan.h"
#include "io/outfile.h"
#include "core/power.h"

/* ---- small formatting helpers ---- */

/* "%.4g" of x into buf, or "-" when x is not a number. */
static const char *fmt_g(char *buf, size_t len, double x, int digits)
{
    if (isnan(x))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*g", digits, x);
    return buf;
}

/* A whole number read back as a double (gv_jnum: NaN when absent): "nan", "inf", "-inf" when
   not finite, never cast to an integer type then (undefined behaviour). */
static const char *fmt_count(char *buf, size_t len, double x)
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

/* "12.3 [12.1, 12.5]" for the speed-up of scope key, or "-". */
static const char *fmt_speedup(char *buf, size_t len, const json_t *c, const char *scope)
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

static double median_ms(const json_t *c, const char *scope)
{
    char path[64];
    snprintf(path, sizeof path, "timings.%s.median_ms", scope);
    return gv_jnum(c, path);
}

static bool tier_met(const json_t *c, double tier)
{
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(json_object_get(c, "sanity"), "tiers_met"), i, t)
    {
        if (fabs(json_number_value(t) - tier) <= 1e-3 * tier) return true;
    }
    return false;
}

static bool judged(const json_t *c)
{
    return json_is_true(json_object_get(json_object_get(c, "sanity"), "judged"));
}

/* "ok", "SANITY FAILED: why", "SKIP: why", "ERROR: why" */
static void verdict_text(char *buf, size_t len, const char *v, const char *why)
{
    if (strcmp(v, "PASS") == 0)
        snprintf(buf, len, "ok");
    else if (strcmp(v, "FAIL") == 0)
        snprintf(buf, len, "SANITY FAILED: %s", why);
    else
        snprintf(buf, len, "%s%s%s", v, *why ? ": " : "", why);
}

static void fmt_verdict(char *buf, size_t len, const json_t *c)
{
    verdict_text(buf, len, gv_jstr(c, "verdict"), gv_jstr(c, "reason"));
}

/* ---- terminal table ---- */

void gv_bench_render_header(FILE *f)
{
    fprintf(f, "%-24s %-5s %-8s %-16s %9s %9s %9s %9s %-22s %8s %8s %5s %7s %5s  %s\n", "op",
            "dtype", "mode", "shape", "cpu ms", "hot ms", "cold ms", "e2e ms", "speed-up e2e [95%]",
            "x hot", "GFLOP/s", "%gemm", "GB/s", "%copy", "sanity");
}

/* The numbers of one case's row, read from a case's struct or from its JSON. */
typedef struct row_vals {
    const char *op, *dtype, *mode, *verdict, *reason;
    char shape[64];
    double ms[GV_NTIMINGS];
    bool has_sp;
    double sp, sp_lo, sp_hi, sp_cov, x_hot, gflops, frac_gemm, gbps, frac_copy;
    bool cpu_budget;
    double cpu_n, hold_timeouts;
    bool throttled; /* NVML reported a slowdown around the GPU scopes */
    double mhz_before, mhz_after, throttle;
} row_vals;

static void row_vals_json(row_vals *v, const json_t *c)
{
    v->op = gv_jstr(c, "op");
    v->dtype = gv_jstr(c, "dtype");
    v->mode = gv_jstr(c, "mode");
    v->verdict = gv_jstr(c, "verdict");
    v->reason = gv_jstr(c, "reason");
    snprintf(v->shape, sizeof v->shape, "%s", gv_jstr(c, "shape_label"));
    for (int i = 0; i < GV_NTIMINGS; i++)
        v->ms[i] = median_ms(c, gv_timing_key(i));
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

static void row_vals_result(row_vals *v, const gv_bench_case_result *r)
{
    const gv_case *c = &r->bc.c;
    v->op = c->op->name;
    v->dtype = gv_dtype_name(c->dtype);
    v->mode = gv_mode_name(c->mode);
    v->verdict = gv_verdict_name(r->bc.sanity.verdict);
    v->reason = r->bc.sanity.reason;
    gv_shape_format(&c->shape, v->shape, sizeof v->shape);
    for (int i = 0; i < GV_NTIMINGS; i++)
        v->ms[i] = gv_bench_median_ms(r, (gv_timing_id)i);
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

/* The formatted numbers of one case's row, shared by the terminal table and Markdown. */
typedef struct row_cells {
    char cpu[32], hot[32], cold[32], e2e[32], speedup[64], x_hot[32];
    char gflops[32], pct_gemm[32], gbps[32], pct_copy[32], verdict[320];
} row_cells;

static void row_cells_fill(row_cells *r, const row_vals *v)
{
    fmt_g(r->cpu, sizeof r->cpu, v->ms[GV_T_CPU], 4);
    fmt_g(r->hot, sizeof r->hot, v->ms[GV_T_HOT], 4);
    fmt_g(r->cold, sizeof r->cold, v->ms[GV_T_COLD], 4);
    fmt_g(r->e2e, sizeof r->e2e, v->ms[GV_T_E2E], 4);
    if (!v->has_sp)
        snprintf(r->speedup, sizeof r->speedup, "-");
    else /* '*': too few samples (a CPU budget) for the interval to hold at 95% */
        snprintf(r->speedup, sizeof r->speedup, "%.3g [%.3g, %.3g]%s", v->sp, v->sp_lo, v->sp_hi,
                 v->sp_cov < 0.95 - 1e-9 ? "*" : "");
    fmt_g(r->x_hot, sizeof r->x_hot, v->x_hot, 3);
    fmt_g(r->gflops, sizeof r->gflops, v->gflops, 4);
    fmt_g(r->pct_gemm, sizeof r->pct_gemm, 100 * v->frac_gemm, 3);
    fmt_g(r->gbps, sizeof r->gbps, v->gbps, 4);
    fmt_g(r->pct_copy, sizeof r->pct_copy, 100 * v->frac_copy, 3);
    verdict_text(r->verdict, sizeof r->verdict, v->verdict, v->reason);
}

static void render_row(FILE *f, const row_vals *v)
{
    row_cells r;
    row_cells_fill(&r, v);
    fprintf(f, "%-24s %-5s %-8s %-16s %9s %9s %9s %9s %-22s %8s %8s %5s %7s %5s  %s", v->op,
            v->dtype, v->mode, v->shape, r.cpu, r.hot, r.cold, r.e2e, r.speedup, r.x_hot, r.gflops,
            r.pct_gemm, r.gbps, r.pct_copy, r.verdict);
    if (v->cpu_budget)
        fprintf(f, " [cpu: %.0f sample%s within the budget; * interval below 95%%]", v->cpu_n,
                v->cpu_n == 1 ? "" : "s");
    if (v->hold_timeouts > 0)
        fprintf(f, " [the op's launch waited on the device: samples taken without the hold]");
    fputc('\n', f);
    if (v->throttled) {
        char names[128];
        fprintf(f,
                "  Warn: timed while the clocks were held down (%s; SM %.0f -> %.0f MHz): these "
                "times are not the board's full speed\n",
                gv_throttle_names((unsigned long long)v->throttle, names, sizeof names),
                v->mhz_before, v->mhz_after);
    }
}

void gv_bench_render_row(FILE *f, const json_t *c)
{
    row_vals v;
    row_vals_json(&v, c);
    render_row(f, &v);
}

void gv_bench_render_row_result(FILE *f, const gv_bench_case_result *r)
{
    row_vals v;
    row_vals_result(&v, r);
    render_row(f, &v);
}

static void ceiling_line(FILE *f, bool copy, const char *dtype, bool ok, double rate, double size,
                         double n, const char *math_mode, const char *why)
{
    char ns[32];
    fmt_count(ns, sizeof ns, n);
    if (copy && ok)
        fprintf(f,
                "ceiling: copy %.1f GB/s (D2D of %.0f MiB, bytes read + written, median of %s)\n",
                rate, size / 1048576.0, ns);
    else if (copy)
        fprintf(f, "ceiling: copy not measured (%s)\n", why);
    else if (ok)
        fprintf(f, "ceiling: gemm %s %.1f GFLOP/s (cuBLAS %.0f^3, %s, median of %s)\n", dtype, rate,
                size, math_mode, ns);
    else if (!strstr(why, "no "))
        fprintf(f, "ceiling: gemm %s not measured (%s)\n", dtype, why);
}

void gv_bench_render_ceilings_of(FILE *f, const gv_ceilings *c, double conf)
{
    ceiling_line(f, true, "", c->copy.ok, gv_ceiling_rate(&c->copy, conf), (double)c->copy.size,
                 (double)c->copy.t.n, "", c->copy.why);
    for (int t = 0; t < GV_NDTYPES; t++) {
        const gv_ceiling *g = &c->gemm[t];
        ceiling_line(f, false, gv_dtype_name((gv_dtype)t), g->ok, gv_ceiling_rate(g, conf),
                     (double)g->size, (double)g->t.n, g->math_mode, g->why);
    }
}

void gv_bench_render_ceilings(FILE *f, const json_t *doc)
{
    const json_t *ce = json_object_get(doc, "ceilings");
    if (!ce || json_is_null(ce)) return;
    const json_t *copy = json_object_get(ce, "copy");
    ceiling_line(f, true, "", json_is_true(json_object_get(copy, "ok")), gv_jnum(copy, "gbps"),
                 gv_jnum(copy, "bytes"), gv_jnum(copy, "timing.n"), "", gv_jstr(copy, "why"));
    const char *key;
    json_t *g;
    json_object_foreach(json_object_get(ce, "gemm"), key, g)
    {
        ceiling_line(f, false, key, json_is_true(json_object_get(g, "ok")), gv_jnum(g, "gflops"),
                     gv_jnum(g, "n"), gv_jnum(g, "timing.n"), gv_jstr(g, "math_mode"),
                     gv_jstr(g, "why"));
    }
}

/* ---- crossover ---- */

void gv_bench_render_crossover(FILE *f, const json_t *xo)
{
    const char *dim = gv_jstr(xo, "dim");
    char base[96] = "";
    size_t i;
    json_t *d, *p;
    json_array_foreach(json_object_get(xo, "base_shape"), i, d)
    {
        size_t used = strlen(base);
        snprintf(base + used, sizeof base - used, "%s%lld", i ? "x" : "",
                 (long long)json_integer_value(d));
    }
    fprintf(f,
            "\ncrossover: %s %s %s, %s swept %.0f..%.0f (x%.3g) on %s; GPU end to end "
            "(pinned H2D + kernel + D2H) against the CPU oracle\n",
            gv_jstr(xo, "op"), gv_jstr(xo, "dtype"), gv_jstr(xo, "mode"), dim, gv_jnum(xo, "lo"),
            gv_jnum(xo, "hi"), gv_jnum(xo, "factor"), base);
    fprintf(f, "%12s %10s %11s %-24s %11s  %s\n", dim, "cpu ms", "e2e ms", "speed-up e2e [95%]",
            "hot ms", "sanity");
    json_array_foreach(json_object_get(xo, "points"), i, p)
    {
        char a[32], b[32], h[32], sp[64], v[320];
        fmt_verdict(v, sizeof v, p);
        fprintf(f, "%12.0f %10s %11s %-24s %11s  %s\n", gv_jnum(p, "size"),
                fmt_g(a, sizeof a, median_ms(p, "cpu"), 4),
                fmt_g(b, sizeof b, median_ms(p, "e2e"), 4), fmt_speedup(sp, sizeof sp, p, "e2e"),
                fmt_g(h, sizeof h, median_ms(p, "kernel_hot"), 4), v);
    }
    const char *st = gv_jstr(xo, "status");
    if (strcmp(st, "found") == 0) {
        fprintf(f,
                "the GPU, end to end, beats the CPU from %s = %.0f on (at every larger swept "
                "size); interpolated crossover %s ~ %.3g",
                dim, gv_jnum(xo, "first_win_size"), dim, gv_jnum(xo, "interp_size"));
        if (!isnan(gv_jnum(xo, "confident_first_win_size")))
            fprintf(f, "; with 95%% confidence from %s = %.0f", dim,
                    gv_jnum(xo, "confident_first_win_size"));
        fputc('\n', f);
    } else if (strcmp(st, "below the swept range") == 0) {
        fprintf(f,
                "the GPU, end to end, beats the CPU at every swept size: the crossover is "
                "below %s = %.0f\n",
                dim, gv_jnum(xo, "first_win_size"));
    } else if (strcmp(st, "not in the swept range") == 0) {
        fprintf(f,
                "the GPU, end to end, does not beat the CPU at the largest swept size %s = "
                "%.0f\n",
                dim, gv_jnum(xo, "last_loss_size"));
    } else {
        fprintf(f, "no crossover: %s\n", st);
    }
    if (json_is_true(json_object_get(xo, "stopped_early")))
        fprintf(f, "(sweep stopped early: the GPU won with intervals above 1 at the last 3 "
                   "sizes)\n");
}

/* ---- targets, repeat check ---- */

void gv_bench_render_targets(FILE *f, const json_t *doc)
{
    const json_t *ts = json_object_get(doc, "targets");
    if (json_array_size(ts) == 0) return;
    fprintf(f, "\ntargets (against the ceilings measured in this run):\n");
    size_t i;
    json_t *t;
    json_array_foreach(ts, i, t)
    {
        const json_t *met = json_object_get(t, "met");
        const char *sanity = gv_jstr(t, "sanity");
        const char *flag = strcmp(sanity, "PASS") != 0 ? " (sanity not ok: do not trust)" : "";
        if (json_object_get(t, "ratio")) {
            fprintf(f,
                    "  %-58s %.3g (%.4g ms / %.4g ms; tiled %.1f%%, cuBLAS %.1f%% of the "
                    "gemm ceiling)%s\n",
                    gv_jstr(t, "target"), gv_jnum(t, "ratio"), gv_jnum(t, "tiled_ms"),
                    gv_jnum(t, "cublas_ms"), 100 * gv_jnum(t, "tiled_frac_gemm_ceiling"),
                    100 * gv_jnum(t, "cublas_frac_gemm_ceiling"), flag);
        } else if (!isfinite(gv_jnum(t, "value_gbps")) || !isfinite(gv_jnum(t, "ceiling_gbps"))) {
            /* no figures to show (no device, the case skipped): say so, not "nan of nan" */
            fprintf(f, "  %-58s not measured%s\n", gv_jstr(t, "target"), flag);
        } else {
            fprintf(f, "  %-58s %.4g of %.4g GB/s = %.1f%%  %s%s\n", gv_jstr(t, "target"),
                    gv_jnum(t, "value_gbps"), gv_jnum(t, "ceiling_gbps"),
                    100 * gv_jnum(t, "fraction"),
                    json_is_true(met)    ? "met"
                    : json_is_false(met) ? "MISSED"
                                         : "not measured",
                    flag);
        }
    }
}

void gv_bench_render_repeat(FILE *f, const json_t *doc)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        const json_t *r = json_object_get(c, "repeat_check");
        if (!r) continue;
        bool agree = json_is_true(json_object_get(r, "agree"));
        fprintf(f,
                "repeat check (%s, kernel hot timed twice): %.4g ms [%.4g, %.4g] then %.4g ms "
                "[%.4g, %.4g], %+.2f%%: %s\n",
                gv_jstr(c, "case"), gv_jnum(r, "first.median_ms"), gv_jnum(r, "first.ci_lo"),
                gv_jnum(r, "first.ci_hi"), gv_jnum(r, "second.median_ms"),
                gv_jnum(r, "second.ci_lo"), gv_jnum(r, "second.ci_hi"),
                100 * gv_jnum(r, "diff_rel"),
                agree ? "agree"
                      : "DISAGREE (intervals apart: clocks or other load moved the "
                        "timings; read the intervals with care)");
    }
}

/* ---- the seeds' layouts ---- */

static const json_t *find_case(const json_t *doc, const char *op, const char *dtype)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        if (strcmp(gv_jstr(c, "op"), op) == 0 && strcmp(gv_jstr(c, "dtype"), dtype) == 0 &&
            strcmp(gv_jstr(c, "mode"), "native") == 0)
            return c;
    }
    return NULL;
}

/* Seconds as the seed prints them (4 decimals), with ms when that shows too little. */
static void seed_time(FILE *f, const char *what, double ms)
{
    if (isnan(ms))
        fprintf(f, "%s: -\n", what);
    else if (ms < 10)
        fprintf(f, "%s: %.4f  (%.4g ms)\n", what, ms * 1e-3, ms);
    else
        fprintf(f, "%s: %.4f\n", what, ms * 1e-3);
}

static void seed002_test(FILE *f, const char *title, const json_t *c)
{
    char hs[64];
    fprintf(f, "%s\n==========================\n", title);
    if (!c) {
        fprintf(f, "(not in this run)\n==========================\n\n");
        return;
    }
    seed_time(f, "CPU time", median_ms(c, "cpu"));
    seed_time(f, "GPU time", median_ms(c, "e2e"));
    const json_t *ci = json_object_get(json_object_get(json_object_get(c, "speedup"), "e2e"), "ci");
    if (isnan(gv_jnum(c, "speedup.e2e.ratio")))
        fprintf(f, "Speedup: -\n");
    else
        fprintf(f, "Speedup: %.2f  (95%%: %.2f to %.2f%s)\n", gv_jnum(c, "speedup.e2e.ratio"),
                gv_jat(ci, 0), gv_jat(ci, 1),
                gv_jnum(c, "speedup.e2e.coverage") < 0.95 - 1e-9 ? "; too few CPU runs to hold"
                                                                 : "");
    double hot = median_ms(c, "kernel_hot");
    if (isfinite(hot))
        fprintf(f, "  (kernel only: GPU time %.4g ms, speed-up %s)\n", hot,
                fmt_speedup(hs, sizeof hs, c, "kernel_hot"));
    else
        fprintf(f, "  (kernel only: not timed)\n");
    fprintf(f, "==========================\n\n");
    if (judged(c)) {
        fprintf(f, "All elements within allowance of 1e-8: %s\n",
                tier_met(c, 1e-8) ? "True" : "False");
        fprintf(f, "All elements within allowance of 1e-4: %s\n",
                tier_met(c, 1e-4) ? "True" : "False");
    } else {
        char v[320];
        fmt_verdict(v, sizeof v, c);
        fprintf(f,
                "All elements within allowance of 1e-8: -\nAll elements within allowance of "
                "1e-4: -  (%s)\n",
                v);
    }
    if (strcmp(gv_jstr(c, "verdict"), "FAIL") == 0)
        fprintf(f, "SANITY FAILED: %s\n", gv_jstr(c, "reason"));
    fputc('\n', f);
}

void gv_bench_render_seed002(FILE *f, const json_t *doc)
{
    fprintf(f,
            "\nseed 002: matmul -> sum, and einsum ij,jk->k, per run (the seed timed 10 runs "
            "at once)\nCPU time: the f64 oracle (%.0f OpenBLAS threads); GPU time: end to end, "
            "pinned H2D + kernel + D2H; medians, speed-ups with 95%% intervals\n\n",
            gv_jnum(doc, "host.oracle_threads"));
    for (int t = 0; t < GV_NDTYPES; t++) {
        const char *dt = gv_dtype_name((gv_dtype)t);
        const json_t *mm = find_case(doc, gv_seed002_ops[0], dt);
        const json_t *es = find_case(doc, gv_seed002_ops[1], dt);
        if (!mm && !es) continue;
        /* the seed's numpy names: float32, float64 */
        fprintf(f, "Data type: float%d\n---------------------------------------------\n\n",
                (int)(8 * gv_dtype_size((gv_dtype)t)));
        seed002_test(f, "====TEST MATMUL -> SUM====", mm);
        seed002_test(f, "=======TEST EINSUM========", es);
        double cpu = fmin(mm ? median_ms(mm, "cpu") : NAN, es ? median_ms(es, "cpu") : NAN);
        double gpu = fmin(mm ? median_ms(mm, "e2e") : NAN, es ? median_ms(es, "e2e") : NAN);
        fprintf(f, "=======BEST TIMES========\n==========================\n");
        seed_time(f, "CPU time", cpu);
        seed_time(f, "GPU time", gpu);
        if (isnan(cpu / gpu))
            fprintf(f, "Speedup: -\n");
        else
            fprintf(f, "Speedup: %.2f\n", cpu / gpu);
        fprintf(f, "==========================\n\n--------------------------------------------\n");
    }
}

static void seed000_row(FILE *f, const char *label, const json_t *c)
{
    char a[32], b[32], h[32], sp[64], v[320];
    fmt_verdict(v, sizeof v, c);
    fprintf(f, "%-14s %12s %12s %-24s %12s  %s\n", label,
            fmt_g(a, sizeof a, median_ms(c, "cpu") * 1e-3, 4),
            fmt_g(b, sizeof b, median_ms(c, "e2e") * 1e-3, 4), fmt_speedup(sp, sizeof sp, c, "e2e"),
            fmt_g(h, sizeof h, median_ms(c, "kernel_hot") * 1e-3, 4), v);
}

void gv_bench_render_seed000(FILE *f, const json_t *doc)
{
    size_t i;
    json_t *c, *n;
    fprintf(f, "\nseed 000: CPU = the f64 oracle, GPU = end to end (pinned H2D + kernel + D2H); "
               "seconds per run, medians\n");
    fprintf(f, "%-14s %12s %12s %-24s %12s  %s\n", "vadd f32", "CPU s", "GPU s",
            "speed-up e2e [95%]", "kernel s", "sanity");
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        if (strcmp(gv_jstr(c, "op"), gv_seed000_ops[0]) != 0) continue;
        char label[32];
        snprintf(label, sizeof label, "n = %s", gv_jstr(c, "shape_label"));
        seed000_row(f, label, c);
    }
    fprintf(f, "(seed, Quadro 2000D, numba: n = 1e5 CPU 0.000106 s, GPU 0.119 s; n = 1.15e7 CPU "
               "0.0137 s, GPU 0.471 s)\n\n");
    bool any = false;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        if (strcmp(gv_jstr(c, "op"), gv_seed000_ops[1]) != 0) continue;
        if (!any)
            fprintf(f, "%-14s %12s %12s %-24s %12s  %s\n", "sin_iter", "CPU s", "GPU s",
                    "speed-up e2e [95%]", "kernel s", "sanity");
        any = true;
        char label[48];
        const json_t *shape = json_object_get(c, "shape");
        snprintf(label, sizeof label, "k = %lld",
                 (long long)json_integer_value(json_array_get(shape, 1)));
        seed000_row(f, label, c);
    }
    if (any)
        fprintf(f, "(seed: speed-ups 0.08, 5.27, 33.22, 65.58 at k = 1, 10, 100, 1000; "
                   "\"roughly the same speed at 6 iterations\")\n");
    json_array_foreach(json_object_get(doc, "notes"), i, n)
        fprintf(f, "note: %s\n", json_string_value(n));
}

/* ---- CSV and Markdown ---- */

/* RFC 4180: quote a field holding a comma, quote or line break; double inner quotes. */
static void csv_field(FILE *f, const char *s, bool last)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (const char *p = s; *p; p++) {
            if (*p == '"') fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

static void csv_num(FILE *f, double x)
{
    if (!isnan(x)) fprintf(f, "%.9g", x);
    fputc(',', f);
}

static const char *const csv_scopes[] = {"cpu", "kernel_hot", "kernel_cold", "e2e"};

static void csv_row(FILE *f, const char *group, const json_t *c)
{
    char tiers[64] = "", path[96];
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(json_object_get(c, "sanity"), "tiers_met"), i, t)
    {
        size_t used = strlen(tiers);
        snprintf(tiers + used, sizeof tiers - used, "%s%g", i ? " " : "", json_number_value(t));
    }
    csv_field(f, group, false);
    const char *ids[] = {"op", "dtype", "mode", "dist", "shape_label"};
    for (size_t k = 0; k < 5; k++)
        csv_field(f, gv_jstr(c, ids[k]), false);
    csv_num(f, gv_jnum(c, "flops"));
    csv_num(f, gv_jnum(c, "bytes"));
    csv_num(f, gv_jnum(c, "oracle_threads"));
    for (size_t s = 0; s < 4; s++) {
        const char *keys[] = {"median_ms", "n", "stop"};
        snprintf(path, sizeof path, "timings.%s.%s", csv_scopes[s], keys[0]);
        csv_num(f, gv_jnum(c, path));
        const json_t *ci =
            json_object_get(json_object_get(json_object_get(c, "timings"), csv_scopes[s]), "ci_ms");
        csv_num(f, gv_jat(ci, 0));
        csv_num(f, gv_jat(ci, 1));
        snprintf(path, sizeof path, "timings.%s.%s", csv_scopes[s], keys[1]);
        csv_num(f, gv_jnum(c, path));
        snprintf(path, sizeof path, "timings.%s.%s", csv_scopes[s], keys[2]);
        csv_field(f, gv_jstr(c, path), false);
    }
    for (size_t s = 1; s < 4; s++) {
        const json_t *sp = json_object_get(json_object_get(c, "speedup"), csv_scopes[s]);
        const json_t *ci = json_object_get(sp, "ci");
        csv_num(f, gv_jnum(sp, "ratio"));
        csv_num(f, gv_jat(ci, 0));
        csv_num(f, gv_jat(ci, 1));
    }
    for (size_t s = 1; s < 3; s++) {
        const char *keys[] = {"gflops", "gbps", "frac_gemm_ceiling", "frac_copy_ceiling"};
        for (size_t k = 0; k < 4; k++) {
            snprintf(path, sizeof path, "achieved.%s.%s", csv_scopes[s], keys[k]);
            csv_num(f, gv_jnum(c, path));
        }
    }
    csv_field(f, tiers, false);
    csv_field(f, gv_jstr(c, "verdict"), false);
    csv_field(f, gv_jstr(c, "reason"), true);
}

void gv_bench_render_csv(FILE *f, const json_t *doc)
{
    fputs("group,op,dtype,mode,dist,shape,flops,bytes,oracle_threads", f);
    for (size_t s = 0; s < 4; s++)
        fprintf(f, ",%s_median_ms,%s_ci_lo_ms,%s_ci_hi_ms,%s_n,%s_stop", csv_scopes[s],
                csv_scopes[s], csv_scopes[s], csv_scopes[s], csv_scopes[s]);
    for (size_t s = 1; s < 4; s++)
        fprintf(f, ",speedup_%s,speedup_%s_lo,speedup_%s_hi", csv_scopes[s], csv_scopes[s],
                csv_scopes[s]);
    for (size_t s = 1; s < 3; s++)
        fprintf(f, ",%s_gflops,%s_gbps,%s_frac_gemm,%s_frac_copy", csv_scopes[s], csv_scopes[s],
                csv_scopes[s], csv_scopes[s]);
    fputs(",tiers_met,verdict,reason\n", f);
    size_t i, j;
    json_t *c, *xo;
    json_array_foreach(json_object_get(doc, "cases"), i, c) csv_row(f, "case", c);
    json_array_foreach(json_object_get(doc, "crossovers"), i, xo)
    {
        char group[128];
        snprintf(group, sizeof group, "crossover %s %s", gv_jstr(xo, "op"), gv_jstr(xo, "dim"));
        json_array_foreach(json_object_get(xo, "points"), j, c) csv_row(f, group, c);
    }
}

/* Markdown text: '|' would split a cell. */
static void md_text(FILE *f, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '|') fputc('\\', f);
        fputc(*p == '\n' ? ' ' : *p, f);
    }
}

static void md_row(FILE *f, const json_t *c)
{
    row_vals v;
    row_vals_json(&v, c);
    row_cells r;
    row_cells_fill(&r, &v);
    fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s%%) | %s (%s%%) | ", v.op,
            v.dtype, v.mode, v.shape, r.cpu, r.hot, r.cold, r.e2e, r.speedup, r.x_hot, r.gflops,
            r.pct_gemm, r.gbps, r.pct_copy);
    md_text(f, r.verdict);
    fputs(" |\n", f);
}

static const char md_head[] =
    "| op | dtype | mode | shape | CPU ms | hot ms | cold ms | e2e ms | speed-up e2e [95%] | "
    "speed-up hot | GFLOP/s (% gemm) | GB/s (% copy) | sanity |\n"
    "|---|---|---|---|--:|--:|--:|--:|---|--:|--:|--:|---|\n";

void gv_bench_render_md(FILE *f, const json_t *doc)
{
    fprintf(f, "# gpuval bench\n\n`");
    md_text(f, gv_jstr(doc, "argv"));
    fprintf(f, "` (%s)\n\n", gv_jstr(doc, "created"));
    const json_t *d = json_object_get(doc, "device");
    if (d && !json_is_null(d)) {
        char ccmaj[32], ccmin[32];
        fmt_count(ccmaj, sizeof ccmaj, gv_jnum(d, "cc_major"));
        fmt_count(ccmin, sizeof ccmin, gv_jnum(d, "cc_minor"));
        fprintf(
            f,
            "Device: %s, CC %s.%s, %.0f SMs, %.0f MHz, %.1f GiB, L2 %.0f MiB, ECC %s, "
            "driver %.0f, runtime %.0f, cuBLAS %.0f\n\n",
            gv_jstr(d, "name"), ccmaj, ccmin, gv_jnum(d, "sm_count"), gv_jnum(d, "sm_clock_mhz"),
            gv_jnum(d, "mem_total_bytes") / 1073741824.0, gv_jnum(d, "l2_bytes") / 1048576.0,
            json_is_true(json_object_get(d, "ecc")) ? "on" : "off", gv_jnum(d, "driver_version"),
            gv_jnum(d, "runtime_version"), gv_jnum(d, "cublas_version"));
    } else {
        fprintf(f, "Device: none\n\n");
    }
    fprintf(f,
            "CPU: %s, the f64 oracle with %.0f OpenBLAS threads. Times are medians in ms; "
            "intervals are 95%%.\n\n```\n",
            gv_jstr(doc, "host.cpu_model"), gv_jnum(doc, "host.oracle_threads"));
    gv_bench_render_ceilings(f, doc);
    fprintf(f, "```\n");
    size_t i, j;
    json_t *c, *xo;
    if (json_array_size(json_object_get(doc, "cases"))) fprintf(f, "\n%s", md_head);
    json_array_foreach(json_object_get(doc, "cases"), i, c) md_row(f, c);
    json_array_foreach(json_object_get(doc, "crossovers"), i, xo)
    {
        fprintf(f, "\n## Crossover: %s %s, %s swept\n\n%s", gv_jstr(xo, "op"), gv_jstr(xo, "dtype"),
                gv_jstr(xo, "dim"), md_head);
        json_array_foreach(json_object_get(xo, "points"), j, c) md_row(f, c);
        fprintf(f, "\n```");
        gv_bench_render_crossover(f, xo);
        fprintf(f, "```\n");
    }
    if (json_array_size(json_object_get(doc, "targets"))) {
        fprintf(f, "\n## Targets\n\n```");
        gv_bench_render_targets(f, doc);
        fprintf(f, "```\n");
    }
}

struct emit_ctx {
    gv_bench_format fmt;
    const json_t *doc;
};

static int emit(FILE *f, void *ctx)
{
    const struct emit_ctx *c = ctx;
    if (c->fmt == GV_FMT_CSV)
        gv_bench_render_csv(f, c->doc);
    else
        gv_bench_render_md(f, c->doc);
    return ferror(f) ? -1 : 0;
}

int gv_bench_write(const char *path, gv_bench_format fmt, const json_t *doc)
{
    if (fmt == GV_FMT_JSON) return gv_bench_write_json(path, doc);
    struct emit_ctx c = {fmt, doc};
    return gv_write_file(path, emit, &c) == 0 ? GV_OK : GV_EIO;
}
