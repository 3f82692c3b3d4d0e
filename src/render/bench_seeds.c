/* bench_seeds.c: the seeds' layouts of a timed run (see bench_seeds.h); the cases are found in
 * the document by op and dtype (bench_plan.h names the seeds' ops). */
#include "render/bench_seeds.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "bench/bench_plan.h"
#include "io/json_util.h"
#include "render/bench_cells.h"

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
    seed_time(f, "CPU time", gv_bench_scope_ms(c, "cpu"));
    seed_time(f, "GPU time", gv_bench_scope_ms(c, "e2e"));
    const json_t *ci = json_object_get(json_object_get(json_object_get(c, "speedup"), "e2e"), "ci");
    if (isnan(gv_jnum(c, "speedup.e2e.ratio")))
        fprintf(f, "Speedup: -\n");
    else
        fprintf(f, "Speedup: %.2f  (95%%: %.2f to %.2f%s)\n", gv_jnum(c, "speedup.e2e.ratio"),
                gv_jat(ci, 0), gv_jat(ci, 1),
                gv_jnum(c, "speedup.e2e.coverage") < 0.95 - 1e-9 ? "; too few CPU runs to hold"
                                                                 : "");
    double hot = gv_bench_scope_ms(c, "kernel_hot");
    if (isfinite(hot))
        fprintf(f, "  (kernel only: GPU time %.4g ms, speed-up %s)\n", hot,
                gv_bench_fmt_speedup(hs, sizeof hs, c, "kernel_hot"));
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
        gv_bench_fmt_verdict(v, sizeof v, c);
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
        double cpu =
            fmin(mm ? gv_bench_scope_ms(mm, "cpu") : NAN, es ? gv_bench_scope_ms(es, "cpu") : NAN);
        double gpu =
            fmin(mm ? gv_bench_scope_ms(mm, "e2e") : NAN, es ? gv_bench_scope_ms(es, "e2e") : NAN);
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
    gv_bench_fmt_verdict(v, sizeof v, c);
    fprintf(f, "%-14s %12s %12s %-24s %12s  %s\n", label,
            gv_bench_fmt_g(a, sizeof a, gv_bench_scope_ms(c, "cpu") * 1e-3, 4),
            gv_bench_fmt_g(b, sizeof b, gv_bench_scope_ms(c, "e2e") * 1e-3, 4),
            gv_bench_fmt_speedup(sp, sizeof sp, c, "e2e"),
            gv_bench_fmt_g(h, sizeof h, gv_bench_scope_ms(c, "kernel_hot") * 1e-3, 4), v);
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
