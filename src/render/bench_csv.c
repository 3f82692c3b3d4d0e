/* bench_csv.c: a gpuval-bench/1 document as CSV (see bench_csv.h). Numbers at 9 significant
 * digits; an absent number is an empty field. */
#include "render/bench_csv.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "io/json_util.h"

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
