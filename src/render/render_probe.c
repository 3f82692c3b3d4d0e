/* render_probe.c: a gpuval-probe/1 document as one HTML page and as Markdown tables (see
 * render_probe.h). The document passed the strict reader (io/probe_read.h): every measured row
 * has its features, each with a value and a verdict. */
#include "render/render_probe.h"
#include "io/json_util.h"

#include <stdbool.h>
#include <string.h>

#include "render/render_kit.h"

static int fails_of(const json_t *row)
{
    int n = 0;
    const char *name;
    const json_t *x;
    json_object_foreach(json_object_get(row, "features"), name, x) n +=
        strcmp(gv_jstr(x, "verdict"), "FAIL") == 0;
    return n;
}

/* Order class of a row: 0 with a FAIL, 1 measured without, 2 skipped. */
static int row_class(const json_t *row)
{
    if (json_object_get(row, "skipped")) return 2;
    return fails_of(row) ? 0 : 1;
}

static const char *expected_text(const json_t *x)
{
    const char *e = json_string_value(json_object_get(x, "expected"));
    return e ? e : "-";
}

static void row_title(FILE *f, const json_t *row, bool md)
{
    void (*esc)(FILE *, const char *) = md ? gv_rk_md_esc : gv_rk_esc;
    esc(f, gv_jstr(row, "op"));
    fputc(' ', f);
    esc(f, gv_jstr(row, "dtype"));
    fputc(' ', f);
    esc(f, gv_jstr(row, "mode"));
    const char *mm = gv_jstr(row, "math_mode");
    if (*mm) {
        fputs(" [", f);
        esc(f, mm);
        fputc(']', f);
    }
}

/* The features of row with verdict FAIL (fail_pass true) or the others, in the file's order. */
static void html_features(FILE *f, const json_t *row, bool fail_pass)
{
    const char *name;
    const json_t *x;
    json_object_foreach(json_object_get(row, "features"), name, x)
    {
        const char *v = gv_jstr(x, "verdict");
        if ((strcmp(v, "FAIL") == 0) != fail_pass) continue;
        fputs("<tr>", f);
        gv_rk_td_str(f, name, NULL);
        gv_rk_td_str(f, gv_jstr(x, "value"), NULL);
        gv_rk_td_str(f, expected_text(x), NULL);
        gv_rk_td_str(f, v, v);
        gv_rk_td_str(f, gv_jstr(x, "detail"), "reason");
        gv_rk_td_str(f, gv_jstr(x, "source"), "reason");
        fputs("</tr>\n", f);
    }
}

static void md_features(FILE *f, const json_t *row, bool fail_pass)
{
    const char *name;
    const json_t *x;
    json_object_foreach(json_object_get(row, "features"), name, x)
    {
        const char *v = gv_jstr(x, "verdict");
        if ((strcmp(v, "FAIL") == 0) != fail_pass) continue;
        fputc('|', f);
        gv_rk_md_str(f, name);
        gv_rk_md_str(f, gv_jstr(x, "value"));
        gv_rk_md_str(f, expected_text(x));
        gv_rk_md_str(f, fail_pass ? "**FAIL**" : v);
        gv_rk_md_str(f, gv_jstr(x, "detail"));
        fputc('\n', f);
    }
}

void gv_render_probe_html(FILE *f, const json_t *doc)
{
    const json_t *rows = json_object_get(doc, "rows");
    gv_rk_page_begin(f, "gpuval probe report");
    gv_rk_run_header(f, doc, "probe");
    fputs("<p class=\"meta\">expectations ", f);
    const char *path = gv_jstr(doc, "expectations.path");
    gv_rk_esc(f, *path ? path : "none (every feature NEW)");
    fputs(" (", f);
    gv_rk_esc(f, gv_jstr(doc, "expectations.arch"));
    fputs(")</p>\n", f);
    int k = 0;
    for (int cls = 0; cls < 3; cls++) {
        size_t i;
        const json_t *row;
        json_array_foreach(rows, i, row)
        {
            if (row_class(row) != cls) continue;
            fprintf(f, "<section id=\"row-%zu\"><h2>", i);
            row_title(f, row, false);
            fputs("</h2>\n", f);
            k++;
            if (cls == 2) {
                fputs("<p>skipped: ", f);
                gv_rk_esc(f, gv_jstr(row, "skipped"));
                fputs("</p></section>\n", f);
                continue;
            }
            fprintf(f, "<p><span class=\"%s\">%d FAIL</span></p>\n", cls ? "PASS" : "FAIL",
                    fails_of(row));
            fputs("<table><thead><tr><th>feature</th><th>measured</th><th>expected</th>"
                  "<th>verdict</th><th>seen</th><th>source</th></tr></thead>\n<tbody>\n",
                  f);
            html_features(f, row, true);
            html_features(f, row, false);
            fputs("</tbody></table></section>\n", f);
        }
    }
    if (!k) fputs("<p>No rows.</p>\n", f);
    gv_rk_page_end(f);
}

void gv_render_probe_md(FILE *f, const json_t *doc)
{
    const json_t *rows = json_object_get(doc, "rows");
    fputs("## gpuval probe: ", f);
    gv_rk_md_esc(f, *gv_jstr(doc, "device.name") ? gv_jstr(doc, "device.name") : "no device");
    fputs("\n\n`", f);
    gv_rk_md_esc(f, gv_jstr(doc, "argv"));
    fputs("`, expectations ", f);
    const char *path = gv_jstr(doc, "expectations.path");
    gv_rk_md_esc(f, *path ? path : "none");
    fputc('\n', f);
    gv_rk_md_head(f, "PASS|FAIL|NEW|errors");
    fputc('|', f);
    gv_rk_md_num(f, gv_jget(doc, "summary.pass"), GV_RK_INT);
    gv_rk_md_num(f, gv_jget(doc, "summary.fail"), GV_RK_INT);
    gv_rk_md_num(f, gv_jget(doc, "summary.new"), GV_RK_INT);
    gv_rk_md_num(f, gv_jget(doc, "summary.errors"), GV_RK_INT);
    fputc('\n', f);
    for (int cls = 0; cls < 3; cls++) {
        size_t i;
        const json_t *row;
        json_array_foreach(rows, i, row)
        {
            if (row_class(row) != cls) continue;
            fputs("\n### ", f);
            row_title(f, row, true);
            fputc('\n', f);
            if (cls == 2) {
                fputs("\nskipped: ", f);
                gv_rk_md_esc(f, gv_jstr(row, "skipped"));
                fputc('\n', f);
                continue;
            }
            gv_rk_md_head(f, "feature|measured|expected|verdict|seen");
            md_features(f, row, true);
            md_features(f, row, false);
        }
    }
}
