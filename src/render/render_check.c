/* render_check.c: a gpuval-run/1 document as one HTML page and as Markdown tables (see
 * render_check.h). What failed comes first, before the summary: a reader opens a report to
 * learn that. Then cases grouped by op in the order the run met them, each op with a chart of
 * its cases' verdict margins and a table whose key columns (dtype, mode, verdict) lead. */
#include "render/render_check.h"
#include "io/json_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_kit.h"

/* Two op names are the same: the grouping below compares every case's op with every op's, so
   a name of megabytes (a hostile run file) must not be scanned whole at each comparison: the
   same string (the op's own case) is equal without a scan, and names that differ within their
   first 64 bytes after reading at most those. A 5 MB op took report 22 s of CPU under
   AddressSanitizer's strict_string_checks (CI's sanitizer build), whose strcmp reads both
   strings to their ends. */
static bool same_op(const char *a, const char *b)
{
    return a == b || (strncmp(a, b, 64) == 0 && strcmp(a, b) == 0);
}

/* The distinct op names of cases, in order of first appearance (free the array, not the names). */
static const char **ops_of(const json_t *cases, size_t *n_ops)
{
    size_t n = json_array_size(cases), k = 0;
    const char **ops = calloc(n + 1, sizeof *ops);
    for (size_t i = 0; ops && i < n; i++) {
        const char *op = gv_jstr(json_array_get(cases, i), "op");
        size_t j = 0;
        while (j < k && !same_op(ops[j], op))
            j++;
        if (j == k) ops[k++] = op;
    }
    *n_ops = k;
    return ops;
}

/* A case that makes check exit non-zero: FAIL or ERROR. */
static bool failed(const json_t *c)
{
    const char *v = gv_jstr(c, "verdict");
    return strcmp(v, "FAIL") == 0 || strcmp(v, "ERROR") == 0;
}

/* The case's verdict margin: the largest of the ratios the verdict compared with their bounds,
   each over its bound (the worst-case model's ratio; R max where the probabilistic model
   judges; the op's own checks, value over bound), so that 1 is the bound whichever rule it is.
   NaN when the document carries none of them (a SKIP, an ERROR, an older file). which: the rule
   that gave it, for the chart's tooltip. */
static double margin_of(const json_t *c, const char **which)
{
    double best = NAN;
    *which = "";
    double ratio = gv_jnum(c, "error_model.ratio"), bound = gv_jnum(c, "error_model.bound");
    if (bound > 0 && isfinite(bound) && !isnan(ratio)) {
        best = ratio / bound;
        *which = "worst-case model";
    }
    const json_t *pm = json_object_get(c, "prob_model");
    if (json_is_object(pm) && json_is_true(json_object_get(pm, "judges"))) {
        double rmax = gv_jnum(c, "metrics.prob_max"),
               rb = gv_jval(json_object_get(pm, "max_bound"));
        if (rb > 0 && isfinite(rb) && !isnan(rmax) && !(rmax / rb <= best)) {
            best = rmax / rb;
            *which = "probabilistic model, R max";
        }
    }
    size_t i;
    const json_t *ck;
    json_array_foreach(json_object_get(c, "checks"), i, ck)
    {
        double v = gv_jnum(ck, "value"), b = gv_jnum(ck, "bound");
        if (b > 0 && isfinite(b) && !isnan(v) && !(v / b <= best)) {
            best = v / b;
            *which = gv_jstr(ck, "name");
        }
    }
    return best;
}

/* "C[5, 7] = 1.0072422 (reference 1.0072423)": the worst element as the case records it (its
   place in its output where metrics.worst_at gives it, else the flat index), with as many
   digits as tell the value from the reference; "" where the case records none. */
static void worst_text(const json_t *c, char *buf, size_t len)
{
    buf[0] = '\0';
    const json_t *m = json_object_get(c, "metrics");
    double flat = gv_jnum(m, "worst_index");
    if (!json_is_object(m) || !(flat >= 0)) return;
    const json_t *at = json_object_get(m, "worst_at"), *index = json_object_get(at, "index");
    size_t used;
    if (json_is_array(index) && json_array_size(index) > 0) {
        used = (size_t)snprintf(buf, len, "%s[", gv_jstr(at, "output"));
        for (size_t k = 0; k < json_array_size(index) && used < len; k++)
            used +=
                (size_t)snprintf(buf + used, len - used, "%s%.0f", k ? ", " : "", gv_jat(index, k));
        if (used < len) used += (size_t)snprintf(buf + used, len - used, "]");
    } else
        used = (size_t)snprintf(buf, len, "element %.0f", flat);
    double v = gv_jnum(m, "worst_value"), r = gv_jnum(m, "worst_ref");
    char vt[40], rt[40];
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(vt, sizeof vt, "%.*g", digits, v);
        snprintf(rt, sizeof rt, "%.*g", digits, r);
        if (strcmp(vt, rt) != 0) break;
    }
    if (used < len) snprintf(buf + used, len - used, " = %s (reference %s)", vt, rt);
}

static size_t count_failed(const json_t *cases)
{
    size_t i, n = 0;
    const json_t *c;
    json_array_foreach(cases, i, c) n += failed(c);
    return n;
}

/* The line said when nothing failed: "No case failed: 235 passed, 0 skipped." */
static void nothing_failed(char *buf, size_t len, const json_t *doc)
{
    snprintf(buf, len, "No case failed: %d passed, %d skipped.", gv_jint(doc, "summary.passed", 0),
             gv_jint(doc, "summary.skipped", 0));
}

static size_t op_index(const char **ops, size_t n_ops, const char *op)
{
    size_t o = 0;
    while (o < n_ops && !same_op(ops[o], op))
        o++;
    return o;
}

static void failures_html(FILE *f, const json_t *doc, const char **ops, size_t n_ops)
{
    const json_t *cases = json_object_get(doc, "cases");
    fputs("<section id=\"failures\"><h2>Failures</h2>\n", f);
    if (count_failed(cases) == 0) {
        char line[128];
        nothing_failed(line, sizeof line, doc);
        fputs("<p class=\"PASS\">", f);
        gv_rk_esc(f, line);
        fputs("</p>\n</section>\n", f);
        return;
    }
    fputs("<table class=\"failures\"><thead><tr><th>op</th><th>dtype</th><th>mode</th>"
          "<th>verdict</th><th>dist</th><th>shape</th><th>seed</th><th>worst element</th>"
          "<th>reason</th></tr></thead>\n<tbody>\n",
          f);
    size_t i;
    const json_t *c;
    json_array_foreach(cases, i, c)
    {
        if (!failed(c)) continue;
        char p[128], worst[256];
        const char *verdict = gv_jstr(c, "verdict");
        fprintf(f, "<tr><td><a href=\"#op-%zu\">", op_index(ops, n_ops, gv_jstr(c, "op")));
        gv_rk_esc(f, gv_jstr(c, "op"));
        fputs("</a></td>", f);
        gv_rk_td_str(f, gv_jstr(c, "dtype"), NULL);
        gv_rk_td_str(f, gv_jstr(c, "mode"), NULL);
        gv_rk_td_str(f, verdict, verdict);
        gv_rk_td_str(f, gv_jstr(c, "dist"), NULL);
        snprintf(p, sizeof p, "/cases/%zu/shape", i);
        gv_rk_td_list(f, json_object_get(c, "shape"), GV_RK_INT, "\xc3\x97", p);
        snprintf(p, sizeof p, "/cases/%zu/seed", i);
        gv_rk_td(f, json_object_get(c, "seed"), GV_RK_INT, p);
        worst_text(c, worst, sizeof worst);
        gv_rk_td_str(f, *worst ? worst : "-", "worst");
        gv_rk_td_str(f, gv_jstr(c, "reason"), "reason");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
}

static void failures_md(FILE *f, const json_t *doc)
{
    const json_t *cases = json_object_get(doc, "cases");
    fputs("\n### Failures\n", f);
    if (count_failed(cases) == 0) {
        char line[128];
        nothing_failed(line, sizeof line, doc);
        fputs("\n", f);
        gv_rk_md_esc(f, line);
        fputs("\n", f);
        return;
    }
    gv_rk_md_head(f, "op|dtype|mode|verdict|dist|shape|seed|worst element|reason");
    size_t i;
    const json_t *c;
    json_array_foreach(cases, i, c)
    {
        if (!failed(c)) continue;
        char worst[256];
        fputs("|", f);
        gv_rk_md_str(f, gv_jstr(c, "op"));
        gv_rk_md_str(f, gv_jstr(c, "dtype"));
        gv_rk_md_str(f, gv_jstr(c, "mode"));
        gv_rk_md_str(f, gv_jstr(c, "verdict"));
        gv_rk_md_str(f, gv_jstr(c, "dist"));
        gv_rk_md_list(f, json_object_get(c, "shape"), GV_RK_INT, "x");
        gv_rk_md_num(f, json_object_get(c, "seed"), GV_RK_INT);
        worst_text(c, worst, sizeof worst);
        gv_rk_md_str(f, worst);
        gv_rk_md_str(f, gv_jstr(c, "reason"));
        fputc('\n', f);
    }
}

/* The widest a chart may be: the page's 1400 px less its margins, so that it never scrolls. */
#define CHART_MAX_W 1340

/* The bar step of a chart of n cases with margins L and R: 24 px, narrower where n would push
   the chart past CHART_MAX_W. */
static double bar_step(size_t n, int L, int R)
{
    double room = CHART_MAX_W - L - R;
    return n > 0 && (double)n * 24 > room ? room / (double)n : 24;
}

/* The frame of a per-case bar chart of n cases over [y0, y1]; *step: the bar step. */
static gv_rk_plot chart_frame(size_t n, double y0, double y1, bool logy, double *step)
{
    gv_rk_plot p = {.L = 52, .R = 150, .T = 16, .B = 44, .y0 = y0, .y1 = y1, .logy = logy};
    *step = bar_step(n, p.L, p.R);
    p.W = p.L + p.R + (int)ceil((double)n * *step - 1e-9);
    if (p.W < 560) p.W = 560;
    p.H = 250;
    p.x0 = 0;
    p.x1 = (double)(p.W - p.L - p.R);
    return p;
}

static const char *const chart_dtypes[6] = {"f64", "f32", "f16", "bf16", "c64", "c128"};

/* One case's bar, drawn from base to shown, its title open after "#k dtype mode dist: verdict"
   for the caller to finish; bar_end closes it and writes the value v and the case number. */
typedef struct chart_bar {
    double x, w, y, y0;
    bool bad;
} chart_bar;

static chart_bar bar_begin(FILE *f, const gv_rk_plot *p, double step, size_t k, const json_t *c,
                           double shown, double base, bool seen[6])
{
    const char *dt = gv_jstr(c, "dtype"), *verdict = gv_jstr(c, "verdict");
    for (int d = 0; d < 6; d++)
        if (strcmp(dt, chart_dtypes[d]) == 0) seen[d] = true;
    chart_bar b = {.x = p->L + (double)k * step + step / 8.0,
                   .w = step - step / 4.0,
                   .y = gv_rk_py(p, shown),
                   .y0 = gv_rk_py(p, base),
                   .bad = strcmp(verdict, "PASS") != 0};
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>", b.x,
            b.y, b.w, b.y0 - b.y, gv_rk_dtype_colour(dt),
            b.bad ? " stroke=\"#b00020\" stroke-width=\"2\"" : "");
    fprintf(f, "<title>#%zu ", k + 1);
    gv_rk_esc(f, dt);
    fputc(' ', f);
    gv_rk_esc(f, gv_jstr(c, "mode"));
    fputc(' ', f);
    gv_rk_esc(f, gv_jstr(c, "dist"));
    fputs(": ", f);
    gv_rk_esc(f, verdict);
    return b;
}

static void bar_end(FILE *f, const chart_bar *b, double step, size_t k, const char *v)
{
    fputs("</title></rect>\n", f);
    if (step >= 18)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\">%s</text>",
                b->x + b->w / 2, b->y - 3, v);
    if (step >= 18 || b->bad)
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\"%s>%zu</text>",
                b->x + b->w / 2, b->y0 + 12, b->bad ? " fill=\"#b00020\" font-weight=\"700\"" : "",
                k + 1);
    fputc('\n', f);
}

/* The legend of the dtypes seen, and the chart's end. */
static void chart_end(FILE *f, const gv_rk_plot *p, const bool seen[6], int dy)
{
    const char *names[6], *cols[6];
    int nl = 0;
    for (int d = 0; d < 6; d++)
        if (seen[d]) {
            names[nl] = chart_dtypes[d];
            cols[nl++] = gv_rk_dtype_colour(chart_dtypes[d]);
        }
    gv_rk_legend(f, p->W - p->R + 8, p->T + dy, names, cols, nl);
    gv_rk_svg_end(f);
}

/* Each case's verdict margin (margin_of) against the bound, on a log axis: a bar above the
   line at 1 is a case its rule failed. */
static void margin_chart(FILE *f, const json_t *cases, const char *op)
{
    size_t n = 0, i;
    const json_t *c;
    double lo = 1e-3, hi = 10;
    json_array_foreach(cases, i, c)
    {
        if (!same_op(gv_jstr(c, "op"), op)) continue;
        const char *which;
        double mg = margin_of(c, &which);
        if (mg > 0 && isfinite(mg)) {
            lo = fmin(lo, fmax(mg, 1e-6));
            hi = fmax(hi, fmin(mg, 1e6));
        }
        n++;
    }
    gv_rk_decades(&lo, &hi);
    double step;
    gv_rk_plot p = chart_frame(n, lo, hi, true, &step);
    char label[256];
    snprintf(label, sizeof label, "verdict margin per case of %s (ratio over its bound)", op);
    gv_rk_svg_begin(f, &p, label);
    gv_rk_axes(f, &p, "case (# of the table below)", "ratio / bound", 0, 0);
    size_t k = 0;
    bool seen[6] = {false};
    json_array_foreach(cases, i, c)
    {
        if (!same_op(gv_jstr(c, "op"), op)) continue;
        const char *which;
        double mg = margin_of(c, &which);
        double shown = isnan(mg) ? lo : fmin(fmax(mg, lo), hi);
        chart_bar b = bar_begin(f, &p, step, k, c, shown, lo, seen);
        char v[32];
        if (isnan(mg))
            snprintf(v, sizeof v, "n/a");
        else if (isinf(mg))
            snprintf(v, sizeof v, "inf");
        else
            snprintf(v, sizeof v, "%.2g", mg);
        fprintf(f, ", margin %s", v);
        if (*which) {
            fputs(" (", f);
            gv_rk_esc(f, which);
            fputc(')', f);
        }
        bar_end(f, &b, step, k, v);
        k++;
    }
    gv_rk_hline(f, &p, 1.0, "bound", "bound (margin 1)");
    chart_end(f, &p, seen, 24);
}

/* Whether any case of op carries a verdict margin: the margin chart, else the bits chart. */
static bool op_has_margins(const json_t *cases, const char *op)
{
    size_t i;
    const json_t *c;
    json_array_foreach(cases, i, c)
    {
        const char *which;
        if (same_op(gv_jstr(c, "op"), op) && !isnan(margin_of(c, &which))) return true;
    }
    return false;
}

static void bits_chart(FILE *f, const json_t *cases, const char *op)
{
    size_t n = 0, i;
    const json_t *c, *tiers = NULL;
    double top = 56;
    json_array_foreach(cases, i, c)
    {
        if (!same_op(gv_jstr(c, "op"), op)) continue;
        if (!tiers) tiers = json_object_get(c, "tiers");
        double b = gv_jval(gv_jget(c, "metrics.accurate_bits"));
        if (isfinite(b) && b > top) top = ceil(b / 8) * 8;
        n++;
    }
    double step;
    gv_rk_plot p = chart_frame(n, 0, top, false, &step);
    char label[256];
    snprintf(label, sizeof label, "accurate bits per case of %s", op);
    gv_rk_svg_begin(f, &p, label);
    gv_rk_axes(f, &p, "case (# of the table below)", "accurate bits", 0, 8);
    size_t k = 0;
    bool seen[6] = {false};
    json_array_foreach(cases, i, c)
    {
        if (!same_op(gv_jstr(c, "op"), op)) continue;
        double bits = gv_jval(gv_jget(c, "metrics.accurate_bits"));
        double shown = isfinite(bits) ? fmax(bits, 0) : (bits > 0 ? top : 0);
        chart_bar b = bar_begin(f, &p, step, k, c, shown, 0, seen);
        fprintf(f, ", %s bits", isfinite(bits) ? "" : (isnan(bits) ? "no" : "infinite"));
        char v[32];
        if (isfinite(bits))
            snprintf(v, sizeof v, "%.1f", bits);
        else
            snprintf(v, sizeof v, "%s", isnan(bits) ? "n/a" : "inf");
        bar_end(f, &b, step, k, v);
        k++;
    }
    gv_rk_tier_lines(f, &p, tiers);
    chart_end(f, &p, seen, 4);
}

static const json_t *prob(const json_t *c, const char *key)
{
    return json_object_get(json_object_get(c, "metrics"), key);
}

static void cases_table(FILE *f, const json_t *cases, const char *op)
{
    /* the key columns first and the reason, the one long text, last, where it wraps */
    fputs("<table><thead><tr><th>#</th><th>dtype</th><th>mode</th><th>verdict</th><th>dist</th>"
          "<th>shape</th><th>max_rel</th><th>normwise</th><th>accurate bits</th><th>ratio</th>"
          "<th>prob R max</th><th>prob R RMS</th><th>tiers met</th><th>reason</th></tr></thead>"
          "\n<tbody>\n",
          f);
    size_t i, k = 0;
    const json_t *c;
    json_array_foreach(cases, i, c)
    {
        if (!same_op(gv_jstr(c, "op"), op)) continue;
        char p[128];
        const char *verdict = gv_jstr(c, "verdict");
        fprintf(f, "<tr><td class=\"n\">%zu</td>", ++k);
        gv_rk_td_str(f, gv_jstr(c, "dtype"), NULL);
        gv_rk_td_str(f, gv_jstr(c, "mode"), NULL);
        gv_rk_td_str(f, verdict, verdict);
        gv_rk_td_str(f, gv_jstr(c, "dist"), NULL);
        snprintf(p, sizeof p, "/cases/%zu/shape", i);
        gv_rk_td_list(f, json_object_get(c, "shape"), GV_RK_INT, "\xc3\x97", p);
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
        gv_rk_td_str(f, gv_jstr(c, "reason"), "reason");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

void gv_render_check_html(FILE *f, const json_t *doc)
{
    const json_t *cases = json_object_get(doc, "cases");
    gv_rk_page_begin(f, "gpuval check report");
    gv_rk_run_title(f, doc, "check");
    size_t n_ops;
    const char **ops = ops_of(cases, &n_ops);
    if (!ops) return;
    failures_html(f, doc, ops, n_ops);
    gv_rk_run_tables(f, doc);
    fputs("<nav><h2>Operations</h2><ul>\n", f);
    for (size_t o = 0; o < n_ops; o++) {
        size_t i, n = 0, pass = 0;
        const json_t *c;
        json_array_foreach(cases, i, c) if (same_op(gv_jstr(c, "op"), ops[o]))
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
        if (op_has_margins(cases, ops[o]))
            margin_chart(f, cases, ops[o]);
        else
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
    failures_md(f, doc);
    fputs("\n### Summary\n", f);
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
        gv_rk_md_head(f, "#|dtype|mode|verdict|dist|shape|max_rel|normwise|bits|ratio|R max|"
                         "R RMS|tiers met|reason");
        size_t i, k = 0;
        const json_t *c;
        json_array_foreach(cases, i, c)
        {
            if (!same_op(gv_jstr(c, "op"), ops[o])) continue;
            fprintf(f, "| %zu |", ++k);
            gv_rk_md_str(f, gv_jstr(c, "dtype"));
            gv_rk_md_str(f, gv_jstr(c, "mode"));
            gv_rk_md_str(f, gv_jstr(c, "verdict"));
            gv_rk_md_str(f, gv_jstr(c, "dist"));
            gv_rk_md_list(f, json_object_get(c, "shape"), GV_RK_INT, "x");
            gv_rk_md_num(f, gv_jget(c, "metrics.max_rel"), GV_RK_SCI);
            gv_rk_md_num(f, gv_jget(c, "metrics.normwise_rel"), GV_RK_SCI);
            gv_rk_md_num(f, gv_jget(c, "metrics.accurate_bits"), GV_RK_F1);
            gv_rk_md_num(f, gv_jget(c, "error_model.ratio"), GV_RK_F2);
            gv_rk_md_num(f, prob(c, "prob_max"), GV_RK_F2);
            gv_rk_md_num(f, prob(c, "prob_rms"), GV_RK_F2);
            gv_rk_md_list(f, json_object_get(c, "tiers_met"), GV_RK_SCI, ", ");
            gv_rk_md_str(f, gv_jstr(c, "reason"));
            fputc('\n', f);
        }
    }
    free(ops);
}
