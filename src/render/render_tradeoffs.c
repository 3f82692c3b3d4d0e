/* render_tradeoffs.c: a gpuval-tradeoffs/1 document for people (see render_tradeoffs.h): one
 * HTML page, and the Markdown that both `gpuval tradeoffs --md` and `gpuval report --md` write,
 * whose rows are the terminal table's cells (trade_cells.h). */
#include "render/render_tradeoffs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_util.h"
#include "render/render_kit.h"
#include "render/trade_cells.h"

typedef struct pt {
    double x, y; /* px */
    double t, bits;
    const json_t *row;
} pt;

typedef struct box {
    double x0, y0, x1, y1;
} box;

static bool overlaps(const box *a, const box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static int by_time(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    return (p->t > q->t) - (p->t < q->t);
}

/* Place each label beside its point where it collides with no label placed before and no
 * point; the first free spot of a few, else the least bad one. */
static void labels(FILE *f, const gv_rk_plot *p, pt *pts, int n)
{
    if (n <= 0) return; /* nothing to label; and gcc -fsanitize sees no negative size */
    box *placed = calloc((size_t)n * 2 + 1, sizeof *placed);
    int np = 0;
    if (!placed) return;
    for (int i = 0; i < n; i++)
        placed[np++] = (box){pts[i].x - 4, pts[i].y - 4, pts[i].x + 4, pts[i].y + 4};
    static const double off[][2] = {{7, 4},   {7, -8},  {7, 16},   {-7, 4}, {-7, -8},
                                    {-7, 16}, {7, -20}, {-7, -20}, {7, 28}, {-7, 28}};
    for (int i = 0; i < n; i++) {
        char text[96];
        snprintf(text, sizeof text, "%s/%s", gv_jstr(pts[i].row, "dtype"),
                 gv_jstr(pts[i].row, "mode"));
        double w = 6.2 * (double)strlen(text), h = 11;
        int best = 0, best_hits = 1 << 30;
        box bb = {0, 0, 0, 0};
        for (int k = 0; k < (int)(sizeof off / sizeof off[0]); k++) {
            double x = pts[i].x + off[k][0], y = pts[i].y + off[k][1];
            box b = {off[k][0] < 0 ? x - w : x, y - h + 2, off[k][0] < 0 ? x : x + w, y + 2};
            int hits = 0;
            if (b.x0 < p->L || b.x1 > p->W - p->R + 2 || b.y0 < p->T || b.y1 > p->H - p->B)
                hits += 100;
            for (int j = 0; j < np; j++)
                hits += overlaps(&b, &placed[j]);
            if (hits < best_hits) {
                best_hits = hits;
                best = k;
                bb = b;
            }
            if (hits == 0) break;
        }
        placed[np++] = bb;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"%s\">",
                pts[i].x + off[best][0], pts[i].y + off[best][1],
                off[best][0] < 0 ? "end" : "start");
        gv_rk_esc(f, text);
        fputs("</text>\n", f);
    }
    free(placed);
}

static void scatter(FILE *f, const json_t *g, size_t gi)
{
    const json_t *rows = json_object_get(g, "rows");
    size_t n = json_array_size(rows), i;
    pt *pts = calloc(n + 1, sizeof *pts);
    if (!pts) return;
    int np = 0;
    double tlo = INFINITY, thi = -INFINITY, top = 56;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        double t = gv_jval(gv_jget(r, "time_ms.median")),
               b = gv_jval(json_object_get(r, "accurate_bits"));
        if (!(t > 0 && isfinite(t) && isfinite(b))) continue;
        pts[np++] = (pt){0, 0, t, b, r};
        tlo = fmin(tlo, t);
        thi = fmax(thi, t);
        if (b > top) top = ceil(b / 8) * 8;
    }
    if (np == 0) {
        fputs("<p>No row has both a time and accurate bits to plot.</p>\n", f);
        free(pts);
        return;
    }
    gv_rk_decades(&tlo, &thi);
    gv_rk_plot p = {.W = 820,
                    .H = 380,
                    .L = 56,
                    .R = 150,
                    .T = 16,
                    .B = 44,
                    .x0 = tlo,
                    .x1 = thi,
                    .y0 = 0,
                    .y1 = top,
                    .logx = true};
    char label[256];
    snprintf(label, sizeof label, "accurate bits against median time, group %zu", gi + 1);
    gv_rk_svg_begin(f, &p, label);
    gv_rk_axes(f, &p, "median time, ms (log)", "accurate bits", 0, 8);
    gv_rk_tier_lines(f, &p, NULL);
    for (int k = 0; k < np; k++) {
        pts[k].x = gv_rk_px(&p, pts[k].t);
        pts[k].y = gv_rk_py(&p, pts[k].bits);
    }
    qsort(pts, (size_t)np, sizeof *pts, by_time);
    fputs("<polyline class=\"pareto\" fill=\"none\" stroke=\"#555\" stroke-width=\"1.5\" "
          "points=\"",
          f);
    for (int k = 0; k < np; k++)
        if (json_is_true(json_object_get(pts[k].row, "pareto")))
            fprintf(f, "%.1f,%.1f ", pts[k].x, pts[k].y);
    fputs("\"/>\n", f);
    for (int k = 0; k < np; k++) {
        const json_t *row = pts[k].row;
        bool front = json_is_true(json_object_get(row, "pareto")),
             pass = strcmp(gv_jstr(row, "verdict"), "PASS") == 0;
        fprintf(f,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"%s\" "
                "stroke-width=\"%s\"><title>",
                pts[k].x, pts[k].y, front ? "5" : "4",
                front ? gv_rk_dtype_colour(gv_jstr(row, "dtype")) : "#fff",
                pass ? gv_rk_dtype_colour(gv_jstr(row, "dtype")) : "#b00020", pass ? "1.5" : "2.5");
        gv_rk_esc(f, gv_jstr(row, "dtype"));
        fputc('/', f);
        gv_rk_esc(f, gv_jstr(row, "mode"));
        fprintf(f, ": %.3g ms, %.1f bits, ", pts[k].t, pts[k].bits);
        gv_rk_esc(f, gv_jstr(row, "verdict"));
        fputs("</title></circle>\n", f);
    }
    labels(f, &p, pts, np);
    double lx = p.W - p.R + 8, ly = p.T + 110;
    fprintf(
        f,
        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#888\" stroke=\"#888\"/><text x=\"%.1f\" "
        "y=\"%.1f\">Pareto front</text>\n"
        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" stroke=\"#888\" "
        "stroke-width=\"1.5\"/><text x=\"%.1f\" y=\"%.1f\">dominated</text>\n"
        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#fff\" stroke=\"#b00020\" "
        "stroke-width=\"2.5\"/><text x=\"%.1f\" y=\"%.1f\">not PASS</text>\n",
        lx + 5, ly, lx + 14, ly + 4, lx + 5, ly + 16, lx + 14, ly + 20, lx + 5, ly + 32, lx + 14,
        ly + 36);
    /* the legend: the dtypes of the points drawn, in a fixed order */
    static const char *const all[] = {"f64", "f32", "f16", "bf16"};
    const char *dts[4], *cols[4];
    int nd = 0;
    for (int d = 0; d < 4; d++) {
        bool shown = false;
        for (int k = 0; k < np && !shown; k++)
            shown = strcmp(gv_jstr(pts[k].row, "dtype"), all[d]) == 0;
        if (shown) dts[nd] = all[d], cols[nd++] = gv_rk_dtype_colour(all[d]);
    }
    gv_rk_legend(f, lx, p.T + 4, dts, cols, nd);
    gv_rk_svg_end(f);
    free(pts);
}

static bool is_emu(const json_t *r)
{
    return strncmp(gv_jstr(r, "mode"), "fp64emu", 7) == 0 &&
           isfinite(gv_jval(json_object_get(r, "mantissa_bits")));
}

static int by_mantissa(const void *a, const void *b)
{
    const pt *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

static void emu_curve(FILE *f, const json_t *g)
{
    const json_t *rows = json_object_get(g, "rows");
    size_t n = json_array_size(rows), i;
    pt *pts = calloc(n + 1, sizeof *pts);
    if (!pts) return;
    int np = 0;
    double mlo = INFINITY, mhi = -INFINITY;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        double b = gv_jval(json_object_get(r, "accurate_bits"));
        if (!is_emu(r) || !isfinite(b)) continue;
        double m = gv_jval(json_object_get(r, "mantissa_bits"));
        pts[np++] = (pt){m, 0, gv_jval(gv_jget(r, "time_ms.median")), b, r};
        mlo = fmin(mlo, m);
        mhi = fmax(mhi, m);
    }
    if (np == 0) {
        free(pts);
        return;
    }
    qsort(pts, (size_t)np, sizeof *pts, by_mantissa);
    fputs("<h3>fp64 emulation: accurate bits against mantissa bits</h3>\n", f);
    gv_rk_plot p = {.W = 640,
                    .H = 320,
                    .L = 56,
                    .R = 150,
                    .T = 16,
                    .B = 44,
                    .x0 = floor(mlo / 8) * 8,
                    .x1 = ceil(mhi / 8) * 8,
                    .y0 = 0,
                    .y1 = 56};
    if (p.x1 <= p.x0) p.x1 = p.x0 + 8;
    gv_rk_svg_begin(f, &p, "fp64 emulation accurate bits against mantissa bits");
    gv_rk_axes(f, &p, "emulated mantissa bits", "accurate bits", 8, 8);
    gv_rk_tier_lines(f, &p, NULL);
    fputs("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"", f);
    for (int k = 0; k < np; k++)
        fprintf(f, "%.1f,%.1f ", gv_rk_px(&p, pts[k].x), gv_rk_py(&p, pts[k].bits));
    fputs("\"/>\n", f);
    for (int k = 0; k < np; k++) {
        double x = gv_rk_px(&p, pts[k].x), y = gv_rk_py(&p, pts[k].bits);
        bool left = x - p.L < 60; /* a label at the y axis goes right of its point */
        fprintf(f,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#1f77b4\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"%s\">%.3g ms</text>\n",
                x, y, left ? x + 6 : x - 6, y - 6, left ? "start" : "end", pts[k].t);
    }
    /* the bits each mode kept, measured by its width probe: squares */
    bool any_width = false;
    for (int k = 0; k < np; k++) {
        double w = gv_jval(gv_jget(pts[k].row, "probe.width_bits"));
        if (!isfinite(w)) continue;
        any_width = true;
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" "
                "stroke=\"#d62728\" stroke-width=\"1.5\"/>\n",
                gv_rk_px(&p, pts[k].x) - 4, gv_rk_py(&p, w) - 4);
    }
    fputs("<text x=\"", f);
    fprintf(f, "%d\" y=\"%d\">labels: median time</text>\n", p.W - p.R + 6, p.T + 12);
    if (any_width)
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"8\" height=\"8\" fill=\"none\" "
                "stroke=\"#d62728\" stroke-width=\"1.5\"/><text x=\"%d\" y=\"%d\" "
                "font-size=\"10\">bits kept (width probe)</text>\n",
                p.W - p.R + 6, p.T + 24, p.W - p.R + 18, p.T + 32);
    gv_rk_svg_end(f);
    free(pts);
}

/* One numeric cell of a row, its JSON pointer in data-k (a list's members joined). */
typedef struct {
    const char *key;
    gv_rk_fmt fmt;
} num_col;

static void num_cells(FILE *f, const json_t *r, size_t gi, size_t i, const num_col *cols, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char key[64], p[128];
        snprintf(key, sizeof key, "%s", cols[k].key);
        for (char *d = key; *d; d++)
            if (*d == '.') *d = '/';
        snprintf(p, sizeof p, "/groups/%zu/rows/%zu/%s", gi, i, key);
        const json_t *v = gv_jget(r, cols[k].key);
        if (json_is_array(v))
            gv_rk_td_list(f, v, cols[k].fmt, ", ", p);
        else
            gv_rk_td(f, v, cols[k].fmt, p);
    }
}

/* The columns a reader compares modes by (verdict, accurate bits, time, speed-ups, energy,
   the Pareto front) lead, so that they sit within a 1400 px page; the fingerprint, the
   model's numbers and the long texts follow and scroll with the table when it is wider. */
static void rows_table(FILE *f, const json_t *g, size_t gi)
{
    static const num_col key_cols[] = {
        {"accurate_bits", GV_RK_F1}, {"time_ms.median", GV_RK_G3}, {"time_ms.lo", GV_RK_G3},
        {"time_ms.hi", GV_RK_G3},    {"speedup_vs_f64", GV_RK_G3}, {"speedup_vs_default", GV_RK_G3},
        {"energy_j", GV_RK_G3}};
    static const num_col more_cols[] = {{"claimed_bits", GV_RK_INT},
                                        {"correctly_rounded", GV_RK_G3},
                                        {"probe.width_bits", GV_RK_INT},
                                        {"normwise_rel", GV_RK_SCI},
                                        {"max_rel", GV_RK_SCI},
                                        {"tiers_met", GV_RK_SCI},
                                        {"ratio", GV_RK_F2},
                                        {"prob_max", GV_RK_F2},
                                        {"prob_rms", GV_RK_F2},
                                        {"time_ms.n", GV_RK_INT}};
    fputs("<table><thead><tr><th>dtype</th><th>mode</th><th>verdict</th><th>accurate "
          "bits</th><th>median ms</th><th>lo ms</th><th>hi ms</th><th>speed-up vs f64</th>"
          "<th>speed-up vs default</th><th>J/call</th><th>Pareto</th><th>reason</th>"
          "<th>model flag</th><th>math mode</th><th>input bits</th><th>acc bits</th>"
          "<th>block</th><th>rounding</th><th>subnormals</th><th>claimed bits</th>"
          "<th>correctly rounded</th><th>probe width</th><th>normwise</th><th>max_rel</th>"
          "<th>tiers met</th><th>ratio</th><th>prob R max</th><th>prob R RMS</th><th>n</th>"
          "<th>mode probe</th></tr></thead>\n<tbody>\n",
          f);
    size_t i;
    const json_t *r;
    json_array_foreach(json_object_get(g, "rows"), i, r)
    {
        const char *verdict = gv_jstr(r, "verdict");
        fputs("<tr>", f);
        gv_rk_td_str(f, gv_jstr(r, "dtype"), NULL);
        gv_rk_td_str(f, gv_jstr(r, "mode"), NULL);
        gv_rk_td_str(f, verdict, verdict);
        num_cells(f, r, gi, i, key_cols, sizeof key_cols / sizeof key_cols[0]);
        gv_rk_td_str(f, json_is_true(json_object_get(r, "pareto")) ? "yes" : "", NULL);
        gv_rk_td_str(f, gv_jstr(r, "reason"), "reason");
        gv_rk_td_str(f, gv_jstr(r, "model_flag"), "reason");
        gv_rk_td_str(f, gv_jstr(r, "math_mode"), NULL);
        /* the arithmetic fingerprint (gpuval probe), a FAILed feature's cell marked */
        const json_t *ar = json_object_get(r, "arith");
        bool have = ar && !json_is_null(ar);
        static const char *const akeys[] = {"in_bits", "acc_bits", "block", "rounding",
                                            "subnormals"};
        for (int k = 0; k < 5; k++)
            gv_rk_td_str(f, have ? gv_jstr(ar, akeys[k]) : "-",
                         have && gv_jint(ar, "fails", 0) && strstr(gv_jstr(ar, "failed"), akeys[k])
                             ? "FAIL"
                             : NULL);
        num_cells(f, r, gi, i, more_cols, sizeof more_cols / sizeof more_cols[0]);
        const json_t *probe = json_object_get(r, "probe");
        char pw[320];
        if (probe && !json_is_null(probe))
            snprintf(pw, sizeof pw, "%s%s%s", gv_jstr(probe, "what"),
                     *gv_jstr(probe, "reason") ? ": " : "", gv_jstr(probe, "reason"));
        else
            snprintf(pw, sizeof pw, "-");
        gv_rk_td_str(f, pw, "reason");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void group_title(FILE *f, const json_t *g)
{
    gv_rk_esc(f, gv_jstr(g, "op"));
    fputc(' ', f);
    size_t i;
    const json_t *d;
    json_array_foreach(json_object_get(g, "shape"), i, d)
        fprintf(f, "%s%" JSON_INTEGER_FORMAT, i ? "x" : "", json_integer_value(d));
    fputc(' ', f);
    gv_rk_esc(f, gv_jstr(g, "dist"));
}

void gv_render_tradeoffs_html(FILE *f, const json_t *doc)
{
    gv_rk_page_begin(f, "gpuval trade-offs report");
    gv_rk_run_header(f, doc, "trade-offs");
    size_t i;
    const json_t *g;
    json_array_foreach(json_object_get(doc, "groups"), i, g)
    {
        fprintf(f, "<section id=\"group-%zu\"><h2>", i);
        group_title(f, g);
        fputs("</h2>\n", f);
        scatter(f, g, i);
        fputs("<div class=\"wide\">", f); /* a table wider than the page scrolls by itself */
        rows_table(f, g, i);
        fputs("</div>\n", f);
        emu_curve(f, g);
        fputs("</section>\n", f);
    }
    gv_rk_page_end(f);
}

/* ---- Markdown: the one rendering of `gpuval tradeoffs --md` and `gpuval report --md` ---- */

/* The terminal table's columns (trade_cells.h) with the normwise error and the tiers met after
 * the bits; numbers right-aligned. */
static const char md_names[] = "op|size|dtype|mode|math mode|verdict|bits|normwise|tiers met|"
                               "claimed|CR %|probe|arith|R_max|R_rms|median ms [lo, hi]|x vs f64|"
                               "x vs default|J/call|pareto";
static const char md_align[] = "llllllrrlrrrlrrrrrrr";

/* The group's seed as the run was given it: the document's integer is the uint64 seed cast to
 * json_int_t (trade_report.c), so it is cast back; a string is printed as it is. */
static void md_seed(FILE *f, const json_t *seed)
{
    if (json_is_integer(seed))
        fprintf(f, ", seed %llu", (unsigned long long)json_integer_value(seed));
    else if (json_is_string(seed)) {
        fputs(", seed ", f);
        gv_rk_md_esc(f, json_string_value(seed));
    }
}

static void md_group(FILE *f, const json_t *g)
{
    fputs("\n### ", f);
    gv_rk_md_esc(f, gv_jstr(g, "op"));
    fputc(' ', f);
    size_t i;
    const json_t *d, *r;
    json_array_foreach(json_object_get(g, "shape"), i, d)
        fprintf(f, "%s%" JSON_INTEGER_FORMAT, i ? "x" : "", json_integer_value(d));
    fputs(" (", f);
    gv_rk_md_esc(f, gv_jstr(g, "dist"));
    md_seed(f, json_object_get(g, "seed"));
    fputs(")\n", f);
    gv_rk_md_head_aligned(f, md_names, md_align);
    json_array_foreach(json_object_get(g, "rows"), i, r)
    {
        char c[GV_TRADE_NCOL][GV_TRADE_CELL];
        gv_trade_cells(g, r, c);
        fputc('|', f);
        for (int k = 0; k < GV_TRADE_NCOL; k++) {
            gv_rk_md_str(f, c[k]);
            if (k != 6) continue;
            gv_rk_md_num(f, json_object_get(r, "normwise_rel"), GV_RK_SCI);
            gv_rk_md_list(f, json_object_get(r, "tiers_met"), GV_RK_SCI, ", ");
        }
        fputc('\n', f);
    }
    gv_trade_notes(f, g, true);
}

void gv_render_tradeoffs_md(FILE *f, const json_t *doc)
{
    fputs("## gpuval tradeoffs: ", f);
    gv_rk_md_esc(f, *gv_jstr(doc, "device.name") ? gv_jstr(doc, "device.name") : "no device");
    fputs("\n\n`", f);
    gv_rk_md_esc(f, gv_jstr(doc, "argv"));
    fputs("` (", f);
    gv_rk_md_esc(f, gv_jstr(doc, "created"));
    fputs(")\n\n", f);
    const json_t *d = json_object_get(doc, "device");
    if (json_is_object(d)) {
        fputs("Device: ", f);
        gv_rk_md_esc(f, gv_jstr(d, "name"));
        fprintf(f, " (cc %d.%d, %d SMs)\n", gv_jint(d, "cc_major", -1), gv_jint(d, "cc_minor", -1),
                gv_jint(d, "sm_count", -1));
    } else {
        fputs("Device: none\n", f);
    }
    size_t i;
    const json_t *g;
    json_array_foreach(json_object_get(doc, "groups"), i, g) md_group(f, g);
    const json_t *s = json_object_get(doc, "summary");
    if (json_is_object(s)) {
        static const char *const keys[] = {"rows", "passed", "failed", "skipped", "errors"};
        static const char *const after[] = {" rows: ", " passed, ", " failed, ", " skipped, ",
                                            " errors\n"};
        fputc('\n', f);
        for (size_t k = 0; k < 5; k++) {
            char n[64];
            gv_rk_fmtnum(n, sizeof n, json_object_get(s, keys[k]), GV_RK_INT);
            gv_rk_md_esc(f, n);
            fputs(after[k], f);
        }
    }
}
