/* render_bench.c: a gpuval-bench/1 document for people (see render_bench.h): one HTML page, and
 * the Markdown that both `gpuval bench --md` and `gpuval report --md` write. The Markdown's rows
 * are the terminal table's cells (bench_cells.h) and its sweeps and targets the terminal's text
 * (bench_text.h), so the three say the same of a run. */
#include "render/render_bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/json_util.h"
#include "render/bench_cells.h"
#include "render/bench_text.h"
#include "render/render_kit.h"

static void ceiling_row(FILE *f, const char *name, const json_t *c, const char *ptr)
{
    char p[256];
    fputs("<tr>", f);
    gv_rk_td_str(f, name, NULL);
    gv_rk_td_str(f, gv_jstr(c, "what"), NULL);
    bool ok = json_is_true(json_object_get(c, "ok"));
    gv_rk_td_str(f, ok ? "ok" : "not measured", ok ? "PASS" : "SKIP");
    const char *size_key = json_object_get(c, "bytes") ? "bytes" : "n";
    snprintf(p, sizeof p, "%s/%s", ptr, size_key);
    gv_rk_td(f, json_object_get(c, size_key), GV_RK_INT, p);
    snprintf(p, sizeof p, "%s/timing/median_ms", ptr);
    gv_rk_td(f, gv_jget(c, "timing.median_ms"), GV_RK_G3, p);
    const char *rate = json_object_get(c, "gbps") ? "gbps" : "gflops";
    snprintf(p, sizeof p, "%s/%s", ptr, rate);
    gv_rk_td(f, json_object_get(c, rate), GV_RK_G3, p);
    gv_rk_td_str(f, strcmp(rate, "gbps") == 0 ? "GB/s" : "GFLOP/s", NULL);
    gv_rk_td_str(f, gv_jstr(c, "why"), "reason");
    fputs("</tr>\n", f);
}

static void ceilings(FILE *f, const json_t *doc)
{
    const json_t *ce = json_object_get(doc, "ceilings");
    if (!json_is_object(ce)) return;
    fputs("<h2>Ceilings</h2>\n<table><thead><tr><th>ceiling</th><th>what</th><th>status</th>"
          "<th>size</th><th>median ms</th><th>rate</th><th>unit</th><th>why not</th></tr>"
          "</thead>\n<tbody>\n",
          f);
    if (json_object_get(ce, "copy"))
        ceiling_row(f, "copy", json_object_get(ce, "copy"), "/ceilings/copy");
    const char *dt;
    const json_t *g;
    json_object_foreach((json_t *)json_object_get(ce, "gemm"), dt, g)
    {
        char name[64], p[128];
        snprintf(name, sizeof name, "gemm %s", dt);
        snprintf(p, sizeof p, "/ceilings/gemm/%s", dt);
        ceiling_row(f, name, g, p);
    }
    fputs("</tbody></table>\n", f);
}

/* Columns of a timed case: ptr is the case's JSON pointer. */
static void case_cells(FILE *f, const json_t *c, const char *ptr)
{
    static const struct {
        const char *path, *ptr;
        gv_rk_fmt fmt;
    } cols[] = {{"timings.cpu.median_ms", "timings/cpu/median_ms", GV_RK_G3},
                {"timings.kernel_hot.median_ms", "timings/kernel_hot/median_ms", GV_RK_G3},
                {"timings.kernel_cold.median_ms", "timings/kernel_cold/median_ms", GV_RK_G3},
                {"timings.e2e.median_ms", "timings/e2e/median_ms", GV_RK_G3},
                {"speedup.kernel_hot.ratio", "speedup/kernel_hot/ratio", GV_RK_G3},
                {"speedup.e2e.ratio", "speedup/e2e/ratio", GV_RK_G3},
                {"achieved.kernel_hot.gflops", "achieved/kernel_hot/gflops", GV_RK_G3},
                {"achieved.kernel_hot.gbps", "achieved/kernel_hot/gbps", GV_RK_G3},
                {"sanity.accurate_bits", "sanity/accurate_bits", GV_RK_F1}};
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", ptr, cols[k].ptr);
        gv_rk_td(f, gv_jget(c, cols[k].path), cols[k].fmt, p);
    }
}

static const char case_head[] =
    "<th>CPU ms</th><th>hot ms</th><th>cold ms</th><th>e2e ms</th><th>speed-up hot</th>"
    "<th>speed-up e2e</th><th>GFLOP/s</th><th>GB/s</th><th>accurate bits</th>";

static void cases_table(FILE *f, const json_t *doc)
{
    const json_t *cases = json_object_get(doc, "cases");
    fprintf(f,
            "<h2>Timed cases</h2>\n<table><thead><tr><th>op</th><th>dtype</th><th>mode</th>"
            "<th>shape</th><th>verdict</th><th>reason</th>%s</tr></thead>\n<tbody>\n",
            case_head);
    size_t i;
    const json_t *c;
    json_array_foreach(cases, i, c)
    {
        char p[64], sp[64];
        snprintf(p, sizeof p, "/cases/%zu", i);
        snprintf(sp, sizeof sp, "/cases/%zu/shape", i);
        const char *verdict = gv_jstr(c, "verdict");
        fputs("<tr>", f);
        gv_rk_td_str(f, gv_jstr(c, "op"), NULL);
        gv_rk_td_str(f, gv_jstr(c, "dtype"), NULL);
        gv_rk_td_str(f, gv_jstr(c, "mode"), NULL);
        gv_rk_td_list(f, json_object_get(c, "shape"), GV_RK_INT, "\xc3\x97", sp);
        gv_rk_td_str(f, verdict, verdict);
        char reason[512];
        /* a time taken while NVML reported a power or thermal slowdown (bench_text.c) */
        bool slow = json_is_true(json_object_get(json_object_get(c, "clocks"), "throttled"));
        snprintf(reason, sizeof reason, "%s%s%s", gv_jstr(c, "reason"),
                 slow && *gv_jstr(c, "reason") ? "; " : "",
                 slow ? "Warn: timed while the clocks were held down (power or heat)" : "");
        gv_rk_td_str(f, reason, "reason");
        case_cells(f, c, p);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static double point_size(const json_t *xo, const json_t *pt)
{
    double s = gv_jval(json_object_get(pt, "size"));
    if (isnan(s))
        s = gv_jval(json_array_get(json_object_get(pt, "shape"),
                                   (size_t)json_integer_value(json_object_get(xo, "dim_index"))));
    return s;
}

static void vline(FILE *f, const gv_rk_plot *p, double x, const char *colour, const char *dash,
                  const char *label, int row)
{
    if (!(x >= p->x0 && x <= p->x1)) return;
    double px = gv_rk_px(p, x);
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" "
            "stroke-dasharray=\"%s\"/>",
            px, p->T, px, p->H - p->B, colour, dash);
    bool left = px > (p->L + p->W - p->R) / 2.0;
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"%s\" text-anchor=\"%s\">", px + (left ? -4 : 4),
            p->T + 14 + 14 * row, colour, left ? "end" : "start");
    gv_rk_esc(f, label);
    fputs("</text>\n", f);
}

static void crossover_chart(FILE *f, const json_t *xo)
{
    const json_t *pts = json_object_get(xo, "points");
    double xlo = INFINITY, xhi = -INFINITY, ylo = 1, yhi = 1;
    size_t i;
    const json_t *pt;
    static const char *const scopes[2] = {"e2e", "kernel_hot"};
    json_array_foreach(pts, i, pt)
    {
        double s = point_size(xo, pt);
        if (!(s > 0) || !isfinite(s)) continue;
        xlo = fmin(xlo, s);
        xhi = fmax(xhi, s);
        for (int k = 0; k < 2; k++) {
            const json_t *sp = json_object_get(json_object_get(pt, "speedup"), scopes[k]);
            double r[3] = {gv_jval(json_object_get(sp, "ratio")),
                           gv_jval(json_array_get(json_object_get(sp, "ci"), 0)),
                           gv_jval(json_array_get(json_object_get(sp, "ci"), 1))};
            for (int j = 0; j < 3; j++)
                if (r[j] > 0 && isfinite(r[j])) {
                    ylo = fmin(ylo, r[j]);
                    yhi = fmax(yhi, r[j]);
                }
        }
    }
    if (!(xlo <= xhi)) {
        fputs("<p>No point of this sweep has a size to plot.</p>\n", f);
        return;
    }
    gv_rk_decades(&xlo, &xhi);
    gv_rk_decades(&ylo, &yhi);
    gv_rk_plot p = {.W = 760,
                    .H = 320,
                    .L = 60,
                    .R = 150,
                    .T = 16,
                    .B = 44,
                    .x0 = xlo,
                    .x1 = xhi,
                    .y0 = ylo,
                    .y1 = yhi,
                    .logx = true,
                    .logy = true};
    char title[256];
    snprintf(title, sizeof title, "speed-up of the GPU over the CPU oracle against %s",
             gv_jstr(xo, "dim"));
    gv_rk_svg_begin(f, &p, title);
    char xt[96];
    snprintf(xt, sizeof xt, "size %s (log)", gv_jstr(xo, "dim"));
    gv_rk_axes(f, &p, xt, "speed-up CPU/GPU (log)", 0, 0);
    gv_rk_hline(f, &p, 1.0, "even", "break-even (1x)");
    static const char *const colours[2] = {"#1f77b4", "#ff7f0e"};
    for (int k = 1; k >= 0; k--) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                colours[k]);
        json_array_foreach(pts, i, pt)
        {
            const json_t *sp = json_object_get(json_object_get(pt, "speedup"), scopes[k]);
            double s = point_size(xo, pt), r = gv_jval(json_object_get(sp, "ratio"));
            if (s > 0 && isfinite(s) && r > 0 && isfinite(r))
                fprintf(f, "%.1f,%.1f ", gv_rk_px(&p, s), gv_rk_py(&p, r));
        }
        fputs("\"/>\n", f);
        json_array_foreach(pts, i, pt)
        {
            const json_t *sp = json_object_get(json_object_get(pt, "speedup"), scopes[k]);
            double s = point_size(xo, pt), r = gv_jval(json_object_get(sp, "ratio"));
            if (!(s > 0 && isfinite(s) && r > 0 && isfinite(r))) continue;
            double lo = gv_jval(json_array_get(json_object_get(sp, "ci"), 0)),
                   hi = gv_jval(json_array_get(json_object_get(sp, "ci"), 1));
            double x = gv_rk_px(&p, s);
            if (lo > 0 && hi > 0 && isfinite(lo) && isfinite(hi))
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
                        x, gv_rk_py(&p, lo), x, gv_rk_py(&p, hi), colours[k]);
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", x,
                    gv_rk_py(&p, r), colours[k]);
            gv_rk_esc(f, gv_jstr(xo, "dim"));
            fprintf(f, " = %.17g: %s speed-up %.3g</title></circle>\n", s, scopes[k], r);
        }
    }
    char lab[128];
    double xi = gv_jval(json_object_get(xo, "interp_size"));
    snprintf(lab, sizeof lab, "crossover %s = %.3g", gv_jstr(xo, "dim"), xi);
    vline(f, &p, xi, "#c0392b", "4 3", lab, 0);
    double cw = gv_jval(json_object_get(xo, "confident_first_win_size"));
    snprintf(lab, sizeof lab, "confident win from %.3g", cw);
    vline(f, &p, cw, "#176317", "2 3", lab, 1);
    static const char *const names[2] = {"speed-up e2e (CI)", "speed-up kernel hot"};
    gv_rk_legend(f, p.W - p.R + 8, p.T + 4, names, colours, 2);
    gv_rk_svg_end(f);
}

static void crossovers(FILE *f, const json_t *doc)
{
    const json_t *xos = json_object_get(doc, "crossovers");
    if (json_array_size(xos) == 0) return;
    fputs("<h2>Crossover sweeps</h2>\n", f);
    size_t i;
    const json_t *xo;
    json_array_foreach(xos, i, xo)
    {
        char p[192];
        fputs("<h3>", f);
        gv_rk_esc(f, gv_jstr(xo, "op"));
        fputc(' ', f);
        gv_rk_esc(f, gv_jstr(xo, "dtype"));
        fputc(' ', f);
        gv_rk_esc(f, gv_jstr(xo, "mode"));
        fputs(": sweep of ", f);
        gv_rk_esc(f, gv_jstr(xo, "dim"));
        fputs("</h3>\n<table class=\"kv\"><tbody><tr><td>status</td>", f);
        gv_rk_td_str(f, gv_jstr(xo, "status"), NULL);
        static const char *const keys[] = {"interp_size", "first_win_size", "last_loss_size",
                                           "confident_first_win_size", "timed_points"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            snprintf(p, sizeof p, "/crossovers/%zu/%s", i, keys[k]);
            fprintf(f, "</tr><tr><td>%s</td>", keys[k]);
            gv_rk_td(f, json_object_get(xo, keys[k]), GV_RK_G3, p);
        }
        fputs("</tr></tbody></table>\n", f);
        crossover_chart(f, xo);
        fprintf(f, "<table><thead><tr><th>size</th><th>verdict</th>%s</tr></thead>\n<tbody>\n",
                case_head);
        size_t j;
        const json_t *pt;
        json_array_foreach(json_object_get(xo, "points"), j, pt)
        {
            char pp[96];
            snprintf(pp, sizeof pp, "/crossovers/%zu/points/%zu", i, j);
            snprintf(p, sizeof p, "%s/size", pp);
            fputs("<tr>", f);
            gv_rk_td(f, json_object_get(pt, "size"), GV_RK_INT, p);
            gv_rk_td_str(f, gv_jstr(pt, "verdict"), gv_jstr(pt, "verdict"));
            case_cells(f, pt, pp);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
}

void gv_render_bench_html(FILE *f, const json_t *doc)
{
    gv_rk_page_begin(f, "gpuval bench report");
    gv_rk_run_header(f, doc, "bench");
    ceilings(f, doc);
    cases_table(f, doc);
    crossovers(f, doc);
    const json_t *notes = json_object_get(doc, "notes");
    if (json_array_size(notes)) {
        fputs("<h2>Notes</h2>\n<ul>\n", f);
        size_t i;
        const json_t *n;
        json_array_foreach(notes, i, n)
        {
            fputs("<li>", f);
            gv_rk_esc(f, json_is_string(n) ? json_string_value(n) : "");
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    gv_rk_page_end(f);
}

/* ---- Markdown: the one rendering of `gpuval bench --md` and `gpuval report --md` ---- */

static const char md_names[] = "op|dtype|mode|shape|CPU ms|hot ms|cold ms|e2e ms|noise %|"
                               "speed-up e2e [95%]|speed-up hot|GFLOP/s (% gemm)|GB/s (% copy)|"
                               "bits|sanity";
static const char md_align[] = "llllrrrrrlrrrrl";

/* One case or sweep point: the terminal row's cells (bench_cells.h), and its accurate bits. */
static void md_row(FILE *f, const json_t *c)
{
    gv_bench_row v;
    gv_bench_row_of_json(&v, c);
    gv_bench_cells r;
    gv_bench_cells_fill(&r, &v);
    char gflops[80], gbps[80], bits[64];
    snprintf(gflops, sizeof gflops, "%s (%s%%)", r.gflops, r.pct_gemm);
    snprintf(gbps, sizeof gbps, "%s (%s%%)", r.gbps, r.pct_copy);
    gv_rk_fmtnum(bits, sizeof bits, gv_jget(c, "sanity.accurate_bits"), GV_RK_F1);
    const char *cells[] = {v.op,    v.dtype,   v.mode,  v.shape, r.cpu, r.hot, r.cold,   r.e2e,
                           r.noise, r.speedup, r.x_hot, gflops,  gbps,  bits,  r.verdict};
    fputc('|', f);
    for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++)
        gv_rk_md_str(f, cells[k]);
    fputc('\n', f);
}

/* A code block of terminal text that starts with its own blank line (bench_text.h). */
static void md_text_block(FILE *f, void (*print)(FILE *, const json_t *), const json_t *v)
{
    /* the fence is longer than any run of backticks in the text, so nothing in it can close
       the block early (CommonMark 0.31, 4.5 "Fenced code blocks") */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return;
    print(m, v);
    fclose(m);
    size_t run = 0, longest = 2;
    for (size_t i = 0; i < len; i++) {
        run = text[i] == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    fputc('\n', f);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    if (len == 0 || text[0] != '\n') fputc('\n', f); /* no info string */
    fwrite(text, 1, len, f);
    if (len > 0 && text[len - 1] != '\n') fputc('\n', f);
    for (size_t i = 0; i <= longest; i++)
        fputc('`', f);
    fputc('\n', f);
    free(text);
}

void gv_render_bench_md(FILE *f, const json_t *doc)
{
    fputs("## gpuval bench: ", f);
    gv_rk_md_esc(f, *gv_jstr(doc, "device.name") ? gv_jstr(doc, "device.name") : "no device");
    fputs("\n\n`", f);
    gv_rk_md_esc(f, gv_jstr(doc, "argv"));
    fputs("` (", f);
    gv_rk_md_esc(f, gv_jstr(doc, "created"));
    fputs(")\n\n", f);
    const json_t *d = json_object_get(doc, "device");
    if (d && !json_is_null(d)) {
        char ccmaj[32], ccmin[32];
        gv_bench_fmt_count(ccmaj, sizeof ccmaj, gv_jnum(d, "cc_major"));
        gv_bench_fmt_count(ccmin, sizeof ccmin, gv_jnum(d, "cc_minor"));
        fputs("Device: ", f);
        gv_rk_md_esc(f, gv_jstr(d, "name"));
        fprintf(f,
                ", CC %s.%s, %.0f SMs, %.0f MHz, %.1f GiB, L2 %.0f MiB, ECC %s, "
                "driver %.0f, runtime %.0f, cuBLAS %.0f\n\n",
                ccmaj, ccmin, gv_jnum(d, "sm_count"), gv_jnum(d, "sm_clock_mhz"),
                gv_jnum(d, "mem_total_bytes") / 1073741824.0, gv_jnum(d, "l2_bytes") / 1048576.0,
                json_is_true(json_object_get(d, "ecc")) ? "on" : "off",
                gv_jnum(d, "driver_version"), gv_jnum(d, "runtime_version"),
                gv_jnum(d, "cublas_version"));
    } else {
        fputs("Device: none\n\n", f);
    }
    fputs("CPU: ", f);
    gv_rk_md_esc(f, gv_jstr(doc, "host.cpu_model"));
    fprintf(f,
            ", the f64 oracle with %.0f OpenBLAS threads. Times are medians in ms; "
            "intervals are 95%%.\n",
            gv_jnum(doc, "host.oracle_threads"));
    md_text_block(f, gv_bench_render_ceilings, doc);
    size_t i, j;
    const json_t *c, *xo;
    if (json_array_size(json_object_get(doc, "cases")))
        gv_rk_md_head_aligned(f, md_names, md_align);
    json_array_foreach(json_object_get(doc, "cases"), i, c) md_row(f, c);
    json_array_foreach(json_object_get(doc, "crossovers"), i, xo)
    {
        fputs("\n### Crossover: ", f);
        gv_rk_md_esc(f, gv_jstr(xo, "op"));
        fputc(' ', f);
        gv_rk_md_esc(f, gv_jstr(xo, "dtype"));
        fputs(", ", f);
        gv_rk_md_esc(f, gv_jstr(xo, "dim"));
        fputs(" swept", f);
        if (*gv_jstr(xo, "status")) {
            fputs(" (", f);
            gv_rk_md_esc(f, gv_jstr(xo, "status"));
            fputc(')', f);
        }
        fputc('\n', f);
        gv_rk_md_head_aligned(f, md_names, md_align);
        json_array_foreach(json_object_get(xo, "points"), j, c) md_row(f, c);
        md_text_block(f, gv_bench_render_crossover, xo);
    }
    if (json_array_size(json_object_get(doc, "targets"))) {
        fputs("\n### Targets\n", f);
        md_text_block(f, gv_bench_render_targets, doc);
    }
}
