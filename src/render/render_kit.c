/* render_kit.c: shared pieces of the report renderers (see render_kit.h). */
#include "render/render_kit.h"
#include "render/escape.h"
#include "io/json_util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The escaping functions live in render/escape.c, the one copy every printer and cmd/ use;
   these are their names here. */
void gv_rk_esc(FILE *f, const char *s)
{
    gv_esc_html(f, s);
}

void gv_rk_md_esc(FILE *f, const char *s)
{
    gv_esc_md(f, s);
}

void gv_rk_term_esc(FILE *f, const char *s)
{
    gv_esc_term(f, s);
}

char *gv_rk_term_str(const char *s, char *buf, size_t len)
{
    return gv_esc_term_str(s, buf, len);
}

void gv_rk_fmtnum(char *buf, size_t len, const json_t *v, gv_rk_fmt fmt)
{
    if (!v || json_is_null(v)) {
        snprintf(buf, len, "-");
        return;
    }
    if (json_is_string(v)) {
        snprintf(buf, len, "%s", json_string_value(v));
        return;
    }
    if (json_is_integer(v) && (fmt == GV_RK_INT || fmt == GV_RK_G3)) {
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return;
    }
    double x = gv_jval(v);
    switch (fmt) {
    case GV_RK_SCI: snprintf(buf, len, "%.2e", x); break;
    case GV_RK_F1: snprintf(buf, len, "%.1f", x); break;
    case GV_RK_F2: snprintf(buf, len, "%.2f", x); break;
    case GV_RK_G3: snprintf(buf, len, "%.3g", x); break;
    case GV_RK_INT: snprintf(buf, len, "%.0f", x); break;
    }
}

void gv_rk_jsonval(char *buf, size_t len, const json_t *v)
{
    if (!v || json_is_null(v))
        snprintf(buf, len, "null");
    else if (json_is_integer(v))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.17g", json_real_value(v));
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_true(v) || json_is_false(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
        snprintf(buf, len, "%s", s ? s : "null");
        free(s);
    }
}

static void data_attrs(FILE *f, const json_t *v, const char *ptr)
{
    char val[512];
    gv_rk_jsonval(val, sizeof val, v);
    fputs(" data-k=\"", f);
    gv_rk_esc(f, ptr);
    fputs("\" data-v=\"", f);
    gv_rk_esc(f, val);
    fputc('"', f);
}

void gv_rk_td(FILE *f, const json_t *v, gv_rk_fmt fmt, const char *ptr)
{
    if (!v) {
        fputs("<td class=\"n na\">-</td>", f);
        return;
    }
    char text[64];
    gv_rk_fmtnum(text, sizeof text, v, fmt);
    fputs("<td class=\"n\"", f);
    data_attrs(f, v, ptr);
    fputc('>', f);
    gv_rk_esc(f, text);
    fputs("</td>", f);
}

static void list_text(FILE *f, const json_t *arr, gv_rk_fmt fmt, const char *sep, bool html)
{
    size_t i;
    const json_t *e;
    if (json_array_size(arr) == 0) fputs("none", f);
    json_array_foreach(arr, i, e)
    {
        char text[64];
        gv_rk_fmtnum(text, sizeof text, e, fmt);
        if (i) fputs(sep, f);
        if (html)
            gv_rk_esc(f, text);
        else
            gv_rk_md_esc(f, text);
    }
}

void gv_rk_td_list(FILE *f, const json_t *arr, gv_rk_fmt fmt, const char *sep, const char *ptr)
{
    if (!json_is_array(arr)) {
        gv_rk_td(f, arr, fmt, ptr);
        return;
    }
    fputs("<td", f);
    data_attrs(f, arr, ptr);
    fputc('>', f);
    list_text(f, arr, fmt, sep, true);
    fputs("</td>", f);
}

void gv_rk_td_str(FILE *f, const char *s, const char *cls)
{
    if (cls) {
        fputs("<td class=\"", f);
        gv_rk_esc(f, cls);
        fputs("\">", f);
    } else
        fputs("<td>", f);
    gv_rk_esc(f, s);
    fputs("</td>", f);
}

void gv_rk_md_num(FILE *f, const json_t *v, gv_rk_fmt fmt)
{
    char text[64];
    gv_rk_fmtnum(text, sizeof text, v, fmt);
    fputc(' ', f);
    gv_rk_md_esc(f, text); /* a run file may hold a string where a number belongs */
    fputs(" |", f);
}

void gv_rk_md_list(FILE *f, const json_t *arr, gv_rk_fmt fmt, const char *sep)
{
    fputc(' ', f);
    if (json_is_array(arr))
        list_text(f, arr, fmt, sep, false);
    else {
        char text[64];
        gv_rk_fmtnum(text, sizeof text, arr, fmt);
        gv_rk_md_esc(f, text);
    }
    fputs(" |", f);
}

void gv_rk_md_str(FILE *f, const char *s)
{
    fputc(' ', f);
    gv_rk_md_esc(f, s && *s ? s : "-");
    fputs(" |", f);
}

void gv_rk_md_head_aligned(FILE *f, const char *names, const char *align)
{
    int n = 1;
    fputs("\n|", f);
    for (const char *p = names; *p; p++) {
        if (p == names || p[-1] == '|') fputc(' ', f);
        if (*p == '|') {
            fputs(" |", f);
            n++;
        } else
            fputc(*p, f);
    }
    fputs(" |\n|", f);
    for (int i = 0; i < n; i++) {
        /* past the end of align (or none): left */
        bool right = align && (size_t)i < strlen(align) && align[i] == 'r';
        fputs(right ? " --: |" : " --- |", f);
    }
    fputc('\n', f);
}

void gv_rk_md_head(FILE *f, const char *names)
{
    gv_rk_md_head_aligned(f, names, NULL);
}

static const char css[] =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1a1a1a;"
    "max-width:1400px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;border-bottom:1px "
    "solid #ccc}h3{font-size:15px;margin:18px 0 4px}\n"
    ".meta{color:#555;margin:0 0 12px}code{font:12px ui-monospace,monospace}\n"
    "table{border-collapse:collapse;margin:6px 0 14px;font-size:12px}\n"
    "th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}\n"
    "th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums;"
    "font-family:ui-monospace,monospace}\n"
    "caption{text-align:left;font-weight:600;padding:4px 0}\n"
    ".PASS{color:#176317;font-weight:600}.FAIL{color:#b00020;font-weight:700}"
    ".SKIP{color:#777}.ERROR{color:#b05a00;font-weight:700}\n"
    "nav ul{columns:3;list-style:none;padding:0}nav li{margin:1px 0}\n"
    ".reason{width:320px;font-size:11px;overflow-wrap:anywhere}\n"
    "table.failures{width:100%}table.failures .reason{width:auto}\n"
    "svg{display:block;margin:8px 0;background:#fff;font-family:system-ui,sans-serif}\n"
    ".kv td:first-child{color:#555}td.n{white-space:nowrap}\n"
    ".cols{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}\n"
    ".wide{overflow-x:auto;max-width:100%}\n";

void gv_rk_page_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    gv_rk_esc(f, title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css);
}

void gv_rk_page_end(FILE *f)
{
    fputs("<footer class=\"meta\">rendered by gpuval report from the run file; every number "
          "is the file's (each cell's data-v).</footer>\n</body>\n</html>\n",
          f);
}

void gv_rk_run_title(FILE *f, const json_t *doc, const char *what)
{
    const char *dev = gv_jstr(doc, "device.name");
    fputs("<h1>gpuval ", f);
    gv_rk_esc(f, what);
    fputs(" &mdash; ", f);
    gv_rk_esc(f, *dev ? dev : "no device");
    fputs("</h1>\n<p class=\"meta\"><code>", f);
    gv_rk_esc(f, gv_jstr(doc, "argv"));
    fputs("</code><br>schema ", f);
    gv_rk_esc(f, gv_jstr(doc, "schema"));
    fputs(", created ", f);
    gv_rk_esc(f, gv_jstr(doc, "created"));
    fputs(" on ", f);
    gv_rk_esc(f, gv_jstr(doc, "host.hostname"));
    fputs(", gpuval ", f);
    gv_rk_esc(f, gv_jstr(doc, "tool.version"));
    const char *arch = gv_jstr(doc, "build.cuda_arch");
    if (*arch) {
        fputs(", built for ", f);
        gv_rk_esc(f, arch);
    }
    fputs("</p>\n", f);
}

void gv_rk_run_tables(FILE *f, const json_t *doc)
{
    fputs("<div class=\"cols\">\n", f);
    gv_rk_kv_table(f, json_object_get(doc, "device"), "/device", "Device");
    gv_rk_kv_table(f, json_object_get(doc, "host"), "/host", "Host");
    gv_rk_kv_table(f, json_object_get(doc, "summary"), "/summary", "Summary");
    fputs("</div>\n", f);
}

void gv_rk_run_header(FILE *f, const json_t *doc, const char *what)
{
    gv_rk_run_title(f, doc, what);
    gv_rk_run_tables(f, doc);
}

void gv_rk_kv_table(FILE *f, const json_t *obj, const char *ptr, const char *caption)
{
    if (!json_is_object(obj)) return;
    fputs("<table class=\"kv\"><caption>", f);
    gv_rk_esc(f, caption);
    fputs("</caption>\n<tbody>\n", f);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", ptr, key);
        fputs("<tr><td>", f);
        gv_rk_esc(f, key);
        fputs("</td>", f);
        if (json_is_number(v) || json_is_null(v))
            gv_rk_td(f, v, json_is_integer(v) ? GV_RK_INT : GV_RK_G3, p);
        else if (json_is_string(v))
            gv_rk_td_str(f, json_string_value(v), NULL);
        else if (json_is_boolean(v))
            gv_rk_td_str(f, json_is_true(v) ? "yes" : "no", NULL);
        else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17));
            gv_rk_td_str(f, s ? s : "", NULL);
            free(s);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* ---- SVG ---- */

double gv_rk_px(const gv_rk_plot *p, double x)
{
    double a = p->logx ? log10(x) : x, a0 = p->logx ? log10(p->x0) : p->x0,
           a1 = p->logx ? log10(p->x1) : p->x1;
    return p->L + (a - a0) / (a1 - a0) * (p->W - p->L - p->R);
}

double gv_rk_py(const gv_rk_plot *p, double y)
{
    double a = p->logy ? log10(y) : y, a0 = p->logy ? log10(p->y0) : p->y0,
           a1 = p->logy ? log10(p->y1) : p->y1;
    return p->H - p->B - (a - a0) / (a1 - a0) * (p->H - p->T - p->B);
}

void gv_rk_svg_begin(FILE *f, const gv_rk_plot *p, const char *label)
{
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
            p->W, p->H, p->W, p->H);
    gv_rk_esc(f, label);
    fputs("\" font-size=\"11\">\n", f);
}

void gv_rk_svg_end(FILE *f)
{
    fputs("</svg>\n", f);
}

#define GV_RK_MAX_TICKS 200

static void tick_label(char *buf, size_t len, double v)
{
    if (fabs(v) >= 1e4 || (v != 0 && fabs(v) < 1e-3))
        snprintf(buf, len, "1e%d", (int)lround(log10(fabs(v))));
    else
        snprintf(buf, len, "%g", v);
}

void gv_rk_axes(FILE *f, const gv_rk_plot *p, const char *xtitle, const char *ytitle, double xstep,
                double ystep)
{
    double l = p->L, r = p->W - p->R, t = p->T, b = p->H - p->B;
    char lab[32];
    /* at most GV_RK_MAX_TICKS grid lines an axis: a run file's range (0 or negative on a log
       axis, a step lost in a huge range) cannot make the loop endless */
    int nx = 0, ny = 0;
    /* y grid and ticks */
    if (p->logy) {
        for (double v = p->y0; v <= p->y1 * 1.0001 && ++ny <= GV_RK_MAX_TICKS; v *= 10) {
            double y = gv_rk_py(p, v);
            tick_label(lab, sizeof lab, v);
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    l, y, r, y, l - 4, y + 4, lab);
        }
    } else if (ystep > 0) {
        for (double v = p->y0; v <= p->y1 + 1e-9 && ++ny <= GV_RK_MAX_TICKS; v += ystep) {
            double y = gv_rk_py(p, v);
            tick_label(lab, sizeof lab, v);
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    l, y, r, y, l - 4, y + 4, lab);
        }
    }
    if (p->logx) {
        for (double v = p->x0; v <= p->x1 * 1.0001 && ++nx <= GV_RK_MAX_TICKS; v *= 10) {
            double x = gv_rk_px(p, v);
            tick_label(lab, sizeof lab, v);
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    x, t, x, b, x, b + 14, lab);
        }
    } else if (xstep > 0) {
        for (double v = p->x0; v <= p->x1 + 1e-9 && ++nx <= GV_RK_MAX_TICKS; v += xstep) {
            double x = gv_rk_px(p, v);
            tick_label(lab, sizeof lab, v);
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    x, t, x, b, x, b + 14, lab);
        }
    }
    fprintf(f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#888\"/>\n",
            l, t, r - l, b - t);
    if (xtitle && *xtitle) {
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-weight=\"600\">",
                (l + r) / 2, p->H - 6);
        gv_rk_esc(f, xtitle);
        fputs("</text>\n", f);
    }
    if (ytitle && *ytitle) {
        fprintf(f,
                "<text transform=\"translate(14,%.1f) rotate(-90)\" text-anchor=\"middle\" "
                "font-weight=\"600\">",
                (t + b) / 2);
        gv_rk_esc(f, ytitle);
        fputs("</text>\n", f);
    }
}

void gv_rk_hline(FILE *f, const gv_rk_plot *p, double y, const char *cls, const char *label)
{
    if (!(y >= fmin(p->y0, p->y1) && y <= fmax(p->y0, p->y1))) return;
    double py = gv_rk_py(p, y);
    fprintf(f,
            "<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#c0392b\" "
            "stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>",
            cls, p->L, py, p->W - p->R, py);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#c0392b\">", p->W - p->R + 4, py + 4);
    gv_rk_esc(f, label);
    fputs("</text>\n", f);
}

void gv_rk_tier_lines(FILE *f, const gv_rk_plot *p, const json_t *tiers)
{
    static const double dflt[2] = {1e-8, 1e-4};
    size_t n = json_is_array(tiers) ? json_array_size(tiers) : 2;
    for (size_t i = 0; i < n; i++) {
        double t = json_is_array(tiers) ? gv_jval(json_array_get(tiers, i)) : dflt[i];
        if (!(t > 0)) continue;
        char lab[64];
        snprintf(lab, sizeof lab, "tier %.0e (%.1f bits)", t, -log2(t));
        gv_rk_hline(f, p, -log2(t), "tier", lab);
    }
}

void gv_rk_legend(FILE *f, double x, double y, const char *const *names, const char *const *colours,
                  int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">",
                x, y + i * 15, colours[i], x + 14, y + i * 15 + 9);
        gv_rk_esc(f, names[i]);
        fputs("</text>\n", f);
    }
}

const char *gv_rk_dtype_colour(const char *dtype)
{
    static const struct {
        const char *name, *colour;
    } c[] = {{"f64", "#1f77b4"},  {"f32", "#ff7f0e"}, {"f16", "#2ca02c"},
             {"bf16", "#9467bd"}, {"c64", "#8c564b"}, {"c128", "#17becf"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (strcmp(dtype, c[i].name) == 0) return c[i].colour;
    return "#7f7f7f";
}

void gv_rk_decades(double *lo, double *hi)
{
    *lo = pow(10, floor(log10(*lo)));
    *hi = pow(10, ceil(log10(*hi)));
    if (*hi <= *lo) *hi = *lo * 10;
}
