/* bench_text.c: the terminal printer of a timed run (see bench_text.h). Its text is what
 * `gpuval bench` has always printed: scripts and tests compare it, so a change here is a change
 * of the command's output. */
#include "render/bench_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/power.h"
#include "io/json_util.h"
#include "render/bench_cells.h"
#include "render/render_kit.h"

/* A run file's string at path in o, escaped for the terminal into buf. */
static const char *tx(const json_t *o, const char *path, char *buf, size_t len)
{
    return gv_rk_term_str(gv_jstr(o, path), buf, len);
}

/* ---- terminal table ---- */

void gv_bench_render_header(FILE *f)
{
    fprintf(f, "%-24s %-5s %-8s %-16s %9s %9s %9s %9s %6s %-22s %8s %8s %5s %7s %5s  %s\n", "op",
            "dtype", "mode", "shape", "cpu ms", "hot ms", "cold ms", "e2e ms", "noise%",
            "speed-up e2e [95%]", "x hot", "GFLOP/s", "%gemm", "GB/s", "%copy", "sanity");
}

static void render_row(FILE *f, const gv_bench_row *v)
{
    gv_bench_cells r;
    gv_bench_cells_fill(&r, v);
    fprintf(f, "%-24s %-5s %-8s %-16s %9s %9s %9s %9s %6s %-22s %8s %8s %5s %7s %5s  %s", v->op,
            v->dtype, v->mode, v->shape, r.cpu, r.hot, r.cold, r.e2e, r.noise, r.speedup, r.x_hot,
            r.gflops, r.pct_gemm, r.gbps, r.pct_copy, r.verdict);
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
    gv_bench_row v;
    gv_bench_row_of_json(&v, c);
    render_row(f, &v);
}

void gv_bench_render_row_result(FILE *f, const gv_bench_case_result *r)
{
    gv_bench_row v;
    gv_bench_row_of_result(&v, r);
    render_row(f, &v);
}

static void ceiling_line(FILE *f, bool copy, const char *dtype, bool ok, double rate, double size,
                         double n, const char *math_mode, const char *why)
{
    char ns[32];
    gv_bench_fmt_count(ns, sizeof ns, n);
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
    char why[256], mm[64], dt[64];
    ceiling_line(f, true, "", json_is_true(json_object_get(copy, "ok")), gv_jnum(copy, "gbps"),
                 gv_jnum(copy, "bytes"), gv_jnum(copy, "timing.n"), "",
                 tx(copy, "why", why, sizeof why));
    const char *key;
    json_t *g;
    json_object_foreach(json_object_get(ce, "gemm"), key, g)
    {
        ceiling_line(f, false, gv_rk_term_str(key, dt, sizeof dt),
                     json_is_true(json_object_get(g, "ok")), gv_jnum(g, "gflops"), gv_jnum(g, "n"),
                     gv_jnum(g, "timing.n"), tx(g, "math_mode", mm, sizeof mm),
                     tx(g, "why", why, sizeof why));
    }
}

/* ---- crossover ---- */

void gv_bench_render_crossover(FILE *f, const json_t *xo)
{
    char dim_text[64], op[96], dtype[32], mode[64], st_text[128];
    const char *dim = tx(xo, "dim", dim_text, sizeof dim_text);
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
            tx(xo, "op", op, sizeof op), tx(xo, "dtype", dtype, sizeof dtype),
            tx(xo, "mode", mode, sizeof mode), dim, gv_jnum(xo, "lo"), gv_jnum(xo, "hi"),
            gv_jnum(xo, "factor"), base);
    fprintf(f, "%12s %10s %11s %-24s %11s  %s\n", dim, "cpu ms", "e2e ms", "speed-up e2e [95%]",
            "hot ms", "sanity");
    json_array_foreach(json_object_get(xo, "points"), i, p)
    {
        char a[32], b[32], h[32], sp[64], v[320];
        gv_bench_fmt_verdict(v, sizeof v, p);
        fprintf(f, "%12.0f %10s %11s %-24s %11s  %s\n", gv_jnum(p, "size"),
                gv_bench_fmt_g(a, sizeof a, gv_bench_scope_ms(p, "cpu"), 4),
                gv_bench_fmt_g(b, sizeof b, gv_bench_scope_ms(p, "e2e"), 4),
                gv_bench_fmt_speedup(sp, sizeof sp, p, "e2e"),
                gv_bench_fmt_g(h, sizeof h, gv_bench_scope_ms(p, "kernel_hot"), 4), v);
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
        fprintf(f, "no crossover: %s\n", gv_rk_term_str(st, st_text, sizeof st_text));
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
        char target[256];
        tx(t, "target", target, sizeof target);
        if (json_object_get(t, "ratio")) {
            fprintf(f,
                    "  %-58s %.3g (%.4g ms / %.4g ms; tiled %.1f%%, cuBLAS %.1f%% of the "
                    "gemm ceiling)%s\n",
                    target, gv_jnum(t, "ratio"), gv_jnum(t, "tiled_ms"), gv_jnum(t, "cublas_ms"),
                    100 * gv_jnum(t, "tiled_frac_gemm_ceiling"),
                    100 * gv_jnum(t, "cublas_frac_gemm_ceiling"), flag);
        } else if (!isfinite(gv_jnum(t, "value_gbps")) || !isfinite(gv_jnum(t, "ceiling_gbps"))) {
            /* no figures to show (no device, the case skipped): say so, not "nan of nan" */
            fprintf(f, "  %-58s not measured%s\n", target, flag);
        } else {
            fprintf(f, "  %-58s %.4g of %.4g GB/s = %.1f%%  %s%s\n", target,
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
        char name[256];
        fprintf(f,
                "repeat check (%s, kernel hot timed twice): %.4g ms [%.4g, %.4g] then %.4g ms "
                "[%.4g, %.4g], %+.2f%%: %s\n",
                tx(c, "case", name, sizeof name), gv_jnum(r, "first.median_ms"),
                gv_jnum(r, "first.ci_lo"), gv_jnum(r, "first.ci_hi"),
                gv_jnum(r, "second.median_ms"), gv_jnum(r, "second.ci_lo"),
                gv_jnum(r, "second.ci_hi"), 100 * gv_jnum(r, "diff_rel"),
                agree ? "agree"
                      : "DISAGREE (intervals apart: clocks or other load moved the "
                        "timings; read the intervals with care)");
    }
}

/* Whether case i is the first of its op among cases[0..i) with an own model (own) or with the
   plain count (!own) and a byte count. */
static bool first_of_op(const json_t *cases, size_t i, bool own)
{
    const char *op = gv_jstr(json_array_get(cases, i), "op");
    for (size_t k = 0; k < i; k++) {
        const json_t *p = json_array_get(cases, k);
        if (strcmp(gv_jstr(p, "op"), op) == 0 && (*gv_jstr(p, "bytes_model") != 0) == own &&
            gv_jnum(p, "bytes") > 0)
            return false;
    }
    return true;
}

void gv_bench_render_bytes_models(FILE *f, const json_t *doc)
{
    const json_t *cases = json_object_get(doc, "cases"), *c;
    size_t i;
    json_array_foreach(cases, i, c)
    {
        const char *model = gv_jstr(c, "bytes_model"), *op = gv_jstr(c, "op");
        if (!*model || !(gv_jnum(c, "bytes") > 0) || !first_of_op(cases, i, true)) continue;
        char op_text[96], model_text[256];
        fprintf(f, "bytes of %s (GB/s, %%copy): %s\n", gv_rk_term_str(op, op_text, sizeof op_text),
                gv_rk_term_str(model, model_text, sizeof model_text));
    }
    bool any = false;
    json_array_foreach(cases, i, c)
    {
        if (*gv_jstr(c, "bytes_model") || !(gv_jnum(c, "bytes") > 0) ||
            !first_of_op(cases, i, false))
            continue;
        char op_text[96];
        fprintf(f, "%s%s", any ? ", " : "bytes of ",
                gv_rk_term_str(gv_jstr(c, "op"), op_text, sizeof op_text));
        any = true;
    }
    if (any) fprintf(f, " (GB/s, %%copy): %s\n", GV_BYTES_PLAIN);
}
