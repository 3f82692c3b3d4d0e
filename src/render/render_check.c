/* render_check.c: a gpuval-run/1 document as one HTML page and as Markdown tables (see
 * render_check.h). Cases are grouped by op in the order the run met them. */
#include "render/render_check.h"
#include "io/json_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_kit.h"

/* The distinct op names of cases, in order of first appearance (free the array, not the names). */
static const char **ops_of(const json_t *cases, size_t *n_ops)
{
    size_t n = json_array_size(cases), k = 0;
    const char **ops = calloc(n + 1, sizeof *ops);
    for (size_t i = 0; ops && i < n; i++) {
        const char *op = gv_jstr(json_array_get(cases, i), "op");
        size_t j = 0;
        while (j < k && strcmp(ops[j], op) != 0)
            j++;
        if (j == k) ops[k++] = op;
    }
    *n_ops = k;
    return ops;
}

static void bits_chart(FILE *f, const json_t *cases, const char *op)
{
    size_t n = 0, i;
    const json_t *c, *tiers = NULL;
    double top = 56;
    json_array_foreach(cases, i, c)
    {
        if (strcmp(gv_jstr(c, "op"), op) != 0) continue;
        if (!tiers) tiers = json_object_get(c, "tiers");
        double b = gv_jval(gv_jget(c, "metrics.accurate_bits"));
        if (isfinite(b) && b > top) top = ceil(b / 8) * 8;
        n++;
    }
    const int step = 24;
    gv_rk_plot p = {.L = 52, .R = 150, .T = 16, .B = 44, .y0 = 0, .y1 = top};
    p.W = p.L + p.R + (int)n * step;
    if (p.W < 560) p.W = 560;
    p.H = 250;
    p.x0 = 0;
    p.x1 = (double)(p.W - p.L - p.R);
    char label[256];
    snprintf(label, sizeof label, "accurate bits per case of %s", op);
    gv_rk_svg_begin(f, &p, label);
    gv_rk_axes(f, &p, "case (# of the table below)", "accurate bits", 0, 8);
    size_t k = 0;
    bool seen[6] = {false};
    static const char *const dts[6] = {"f64", "f32", "f16", "bf16", "c64", "c128"};
    json_array_foreach(cases, i, c)
    {
        if (strcmp(gv_jstr(c, "op"), op) != 0) continue;
        const char *dt = gv_jstr(c, "dtype"), *verdict = gv_jstr(c, "verdict");
        for (int d = 0; d < 6; d++)
            if (strcmp(dt, dts[d]) == 0) seen[d] = true;
        double b = gv_jval(gv_jget(c, "metrics.accurate_bits"));
        double x = p.L + (double)k * step + 3, w = step - 6;
        double shown = isfinite(b) ? fmax(b, 0) : (b > 0 ? top : 0);
        double y = gv_rk_py(&p, shown), y0 = gv_rk_py(&p, 0);
        bool bad = strcmp(verdict, "PASS") != 0;
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>", x,
                y, w, y0 - y, gv_rk_dtype_colour(dt),
                bad ? " stroke=\"#b00020\" stroke-width=\"2\"" : "");
        fprintf(f, "<title>#%zu ", k + 1);
        gv_rk_esc(f, dt);
        fputc(' ', f);
        gv_rk_esc(f, gv_jstr(c, "mode"));
        fputc(' ', f);
        gv_rk_esc(f, gv_jstr(c, "dist"));
        fputs(": ", f);
        gv_rk_esc(f, verdict);
        fprintf(f, ", %s bits</title></rect>\n", isfinite(b) ? "" : (isnan(b) ? "no" : "infinite"));
        char v[32];
        if (isfinite(b))
            snprintf(v, sizeof v, "%.1f", b);
        else
            snprintf(v, sizeof v, "%s", isnan(b) ? "n/a" : "inf");
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\">%s</text>",
                x + w / 2, y - 3, v);
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\"%s>%zu</text>\n",
                x + w / 2, y0 + 12, bad ? " fill=\"#b00020\" font-weight=\"700\"" : "", k + 1);
        k++;
    }
    gv_rk_tier_lines(f, &p, tiers);
    const char *names[6], *cols[6];
    int nl = 0;
    for (int d = 0; d < 6; d++)
        if (seen[d]) {
            names[nl] = dts[d];
            cols[nl++] = gv_rk_dtype_colour(dts[d]);
        }
    gv_rk_legend(f, p.W - p.R + 8, p.T + 4, names, cols, nl);
    gv_rk_svg_end(f);
}

static const json_t *prob(const json_t *c, const char *key)
{
    return json_object_get(json_object_get(c, "metrics"), key);
}

static void cases_table(FILE *f, const json_t *cases, const char *op)
{
    fputs("<table><thead><tr><th>#</th><th>dtype</th><th>mode</th><th>dist</th><th>shape</th>"
          "<th>verdict</th><th>reason</th><th>max_rel</th><th>normwise</th><th>accurate "
          "bits</th><th>ratio</th><th>prob R max</th><th>prob R RMS</th><th>tiers "
          "met</th></tr></thead>\n<tbody>\n",
          f);
    size_t i, k = 0;
    const json_t *c;
    json_array_foreach(cases, i, c)
    {
        if (strcmp(gv_jstr(c, "op"), op) != 0) continue;
        char p[128];
        const char *verdict = gv_jstr(c, "verdict");
        fprintf(f, "<tr><td class=\"n\">%zu</td>", ++k);
        gv_rk_td_str(f, gv_jstr(c, "dtype"), NULL);
        gv_rk_td_str(f, gv_jstr(c, "mode"), NULL);
        gv_rk_td_str(f, gv_jstr(c, "dist"), NULL);
        snprintf(p, sizeof p, "/cases/%zu/shape", i);
        gv_rk_td_list(f, json_object_get(c, "shape"), GV_RK_INT, "\xc3\x97", p);
        gv_rk_td_str(f, verdict, verdict);
        gv_rk_td_str(f, gv_jstr(c, "reason"), "reason");
        snprintf(p, sizeof p, "/cases/%zu/metrics/max_rel", i);
        gv_rk_td(f, gv_jget(c, "metrics.max_rel"), GV_RK_SCI, p);
        snprintf(p, sizeof p, "/cases/%zu/metrics/normwise_rel", i);
        gv_rk_td(f, gv_jget(c, "metrics.normwise_rel"), GV_RK_SCI, p);
        snprintf(p, sizeof p, "/cases/%zu/metrics/accurate_bits", i);
        gv_rk_td(f, gv_jget(c, "metrics.accurate_bits"), GV_RK_F1, p);
        snprintf(p, sizeof p, "/cases/%zu/error_model/ratio", i);
        gv_rk_td(f, gv_jget(c, "error_model.ratio"), GV_RK_F2, p);
        snprintf(p, sizeof p, "/cases/%zu/metrics/prob_max", i);
        gv_rk_td(f, prob(c, "prob_max"), GV_RK_F2, p);
        snprintf(p, sizeof p, "/cases/%zu/metrics/prob_rms", i);
        gv_rk_td(f, prob(c, "prob_rms"), GV_RK_F2, p);
        snprintf(p, sizeof p, "/cases/%zu/tiers_met", i);
        gv_rk_td_list(f, json_object_get(c, "tiers_met"), GV_RK_SCI, ", ", p);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

void gv_render_check_html(FILE *f, const json_t *doc)
{
    const json_t *cases = json_object_get(doc, "cases");
    gv_rk_page_begin(f, "gpuval check report");
    gv_rk_run_header(f, doc, "check");
    size_t n_ops;
    const char **ops = ops_of(cases, &n_ops);
    if (!ops) return;
    fputs("<nav><h2>Operations</h2><ul>\n", f);
    for (size_t o = 0; o < n_ops; o++) {
        size_t i, n = 0, pass = 0;
        const json_t *c;
        json_array_foreach(cases, i, c) if (strcmp(gv_jstr(c, "op"), ops[o]) == 0)
        {
            n++;
            pass += strcmp(gv_jstr(c, "verdict"), "PASS") == 0;
        }
        fprintf(f, "<li><a href=\"#op-%zu\">", o);
        gv_rk_esc(f, ops[o]);
        fprintf(f, "</a> %zu case%s, <span class=\"%s\">%zu passed</span></li>\n", n,
                n == 1 ? "" : "s", pass == n ? "PASS" : "FAIL", pass);
    }
    fputs("</ul></nav>\n", f);
    for (size_t o = 0; o < n_ops; o++) {
        fprintf(f, "<section id=\"op-%zu\"><h2>", o);
        gv_rk_esc(f, ops[o]);
        fputs("</h2>\n", f);
        bits_chart(f, cases, ops[o]);
        cases_table(f, cases, ops[o]);
        fputs("</section>\n", f);
    }
    free(ops);
    gv_rk_page_end(f);
}

void gv_render_check_md(FILE *f, const json_t *doc)
{
    const json_t *cases = json_object_get(doc, "cases");
    fputs("## gpuval check: ", f);
    gv_rk_md_esc(f, *gv_jstr(doc, "device.name") ? gv_jstr(doc, "device.name") : "no device");
    fputs("\n\n`", f);
    gv_rk_md_esc(f, gv_jstr(doc, "argv"));
    fputs("` (", f);
    gv_rk_md_esc(f, gv_jstr(doc, "created"));
    fputs(")\n", f);
    gv_rk_md_head(f, "passed|failed|skipped|errors");
    fputs("|", f);
    gv_rk_md_num(f, gv_jget(doc, "summary.passed"), GV_RK_INT);
    gv_rk_md_num(f, gv_jget(doc, "summary.failed"), GV_RK_INT);
    gv_rk_md_num(f, gv_jget(doc, "summary.skipped"), GV_RK_INT);
    gv_rk_md_num(f, gv_jget(doc, "summary.errors"), GV_RK_INT);
    fputc('\n', f);
    size_t n_ops;
    const char **ops = ops_of(cases, &n_ops);
    if (!ops) return;
    for (size_t o = 0; o < n_ops; o++) {
        fputs("\n### ", f);
        gv_rk_md_esc(f, ops[o]);
        fputc('\n', f);
        gv_rk_md_head(f, "#|dtype|mode|dist|shape|verdict|reason|max_rel|normwise|bits|ratio|"
                         "R max|R RMS|tiers met");
        size_t i, k = 0;
        const json_t *c;
        json_array_foreach(cases, i, c)
        {
            if (strcmp(gv_jstr(c, "op"), ops[o]) != 0) continue;
            fprintf(f, "| %zu |", ++k);
            gv_rk_md_str(f, gv_jstr(c, "dtype"));
            gv_rk_md_str(f, gv_jstr(c, "mode"));
            gv_rk_md_str(f, gv_jstr(c, "dist"));
            gv_rk_md_list(f, json_object_get(c, "shape"), GV_RK_INT, "x");
            gv_rk_md_str(f, gv_jstr(c, "verdict"));
            gv_rk_md_str(f, gv_jstr(c, "reason"));
            gv_rk_md_num(f, gv_jget(c, "metrics.max_rel"), GV_RK_SCI);
            gv_rk_md_num(f, gv_jget(c, "metrics.normwise_rel"), GV_RK_SCI);
            gv_rk_md_num(f, gv_jget(c, "metrics.accurate_bits"), GV_RK_F1);
            gv_rk_md_num(f, gv_jget(c, "error_model.ratio"), GV_RK_F2);
            gv_rk_md_num(f, prob(c, "prob_max"), GV_RK_F2);
            gv_rk_md_num(f, prob(c, "prob_rms"), GV_RK_F2);
            gv_rk_md_list(f, json_object_get(c, "tiers_met"), GV_RK_SCI, ", ");
            fputc('\n', f);
        }
    }
    free(ops);
}
