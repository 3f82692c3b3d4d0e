/* test_render.c: `gpuval report` and the renderers under it (src/render/), on the fixtures in
 * tests/fixtures (a real H100 check run; synthetic bench and trade-offs documents): the HTML
 * is well formed (tags balanced in order, void elements excepted, attributes quoted), every SVG
 * element sits in an <svg> with width, height and viewBox, nothing is fetched (no http(s) URL
 * but the SVG namespace, no script), every data-v is the JSON value its data-k points at, the
 * Markdown tables have header and separator rows, and bad input exits 2 writing nothing. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/bench_cells.h"
#include "render/bench_csv.h"
#include "render/bench_seeds.h"
#include "render/bench_text.h"
#include "render/progress.h"
#include "io/schemas.h"
#include "io/run_doc.h"
#include "render/run_text.h"
#include "render/render.h"
#include "testkit.h"

static json_t *fixture(const char *name)
{
    const char *root = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(root, "GPUVAL_SRCDIR names the source tree (tests/meson.build)");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/%s", root, name);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    cr_assert_not_null(doc, "%s: %s", path, err.text);
    return doc;
}

static char *render(const json_t *doc, bool html)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    (html ? gv_render_html : gv_render_md)(f, doc);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    buf[fread(buf, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return buf;
}

/* A whole file as a malloc'ed string; the test fails when it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    buf[fread(buf, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return buf;
}

static char *fixture_text(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/%s", getenv("GPUVAL_SRCDIR"), name);
    return slurp(path);
}

/* The first line at which a and b differ, for a failure's message. */
static int first_diff_line(const char *a, const char *b)
{
    int line = 1;
    for (; *a && *a == *b; a++, b++)
        line += *a == '\n';
    return line;
}

/* The value at JSON pointer ptr ("/cases/3/metrics/max_rel") in doc, or NULL. */
static const json_t *pointer(const json_t *doc, const char *ptr)
{
    char key[256];
    while (doc && *ptr == '/') {
        ptr++;
        size_t n = strcspn(ptr, "/");
        if (n >= sizeof key) return NULL;
        memcpy(key, ptr, n);
        key[n] = '\0';
        doc = json_is_array(doc) ? json_array_get(doc, strtoul(key, NULL, 10))
                                 : json_object_get(doc, key);
        ptr += n;
    }
    return doc;
}

static void unescape(char *s)
{
    static const struct {
        const char *ent;
        char c;
    } e[] = {{"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&#39;", '\''}};
    char *w = s;
    for (const char *r = s; *r;) {
        size_t k = 0;
        for (; k < sizeof e / sizeof e[0]; k++)
            if (strncmp(r, e[k].ent, strlen(e[k].ent)) == 0) break;
        if (k < sizeof e / sizeof e[0]) {
            *w++ = e[k].c;
            r += strlen(e[k].ent);
        } else
            *w++ = *r++;
    }
    *w = '\0';
}

/* Does data-v text dv state the JSON value v exactly? */
static bool same_value(const json_t *v, const char *dv)
{
    if (!v) return false;
    if (json_is_null(v)) return strcmp(dv, "null") == 0;
    if (json_is_integer(v)) return strtoll(dv, NULL, 10) == json_integer_value(v);
    if (json_is_real(v)) return strtod(dv, NULL) == json_real_value(v);
    if (json_is_string(v)) return strcmp(dv, json_string_value(v)) == 0;
    json_t *back = json_loads(dv, JSON_DECODE_ANY, NULL);
    bool eq = back && json_equal(back, (json_t *)v);
    json_decref(back);
    return eq;
}

typedef struct html_check {
    int svgs, values, bad_values;
    char why[512];
} html_check;

static bool is_void(const char *t)
{
    static const char *const v[] = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (strcmp(t, v[i]) == 0) return true;
    return false;
}

static bool is_svg_only(const char *t)
{
    static const char *const v[] = {"line", "rect", "circle", "polyline", "polygon",
                                    "path", "text", "g",      "tspan"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (strcmp(t, v[i]) == 0) return true;
    return false;
}

/* The tag-balance checker; data-v values are checked against doc. false with c->why set. */
static bool check_html(const char *h, const json_t *doc, html_check *c)
{
    char stack[64][32];
    int depth = 0, svg_depth = 0;
    memset(c, 0, sizeof *c);
    for (const char *p = h; *p;) {
        if (*p != '<') {
            p++;
            continue;
        }
        if (strncmp(p, "<!--", 4) == 0) {
            const char *e = strstr(p, "-->");
            if (!e) return snprintf(c->why, sizeof c->why, "unclosed comment"), false;
            p = e + 3;
            continue;
        }
        if (strncmp(p, "<!DOCTYPE", 9) == 0) {
            p = strchr(p, '>') + 1;
            continue;
        }
        bool closing = p[1] == '/';
        const char *q = p + 1 + closing;
        char tag[32];
        size_t n = 0;
        while (isalnum((unsigned char)*q) && n < sizeof tag - 1)
            tag[n++] = (char)tolower((unsigned char)*q++);
        tag[n] = '\0';
        if (n == 0) return snprintf(c->why, sizeof c->why, "stray '<' at %.40s", p), false;
        if (closing) {
            if (*q != '>') return snprintf(c->why, sizeof c->why, "bad close %.40s", p), false;
            if (depth == 0 || strcmp(stack[depth - 1], tag) != 0)
                return snprintf(c->why, sizeof c->why, "</%s> closes <%s>", tag,
                                depth ? stack[depth - 1] : "nothing"),
                       false;
            depth--;
            if (strcmp(tag, "svg") == 0) svg_depth--;
            p = q + 1;
            continue;
        }
        bool self_close = false, has_w = false, has_h = false, has_vb = false;
        char dk[512] = "", dv[2048] = "";
        for (;;) {
            while (isspace((unsigned char)*q))
                q++;
            if (*q == '>') break;
            if (q[0] == '/' && q[1] == '>') {
                self_close = true;
                q++;
                break;
            }
            char name[64];
            size_t k = 0;
            while ((isalnum((unsigned char)*q) || *q == '-' || *q == ':' || *q == '_') &&
                   k < sizeof name - 1)
                name[k++] = *q++;
            name[k] = '\0';
            if (k == 0 || q[0] != '=' || q[1] != '"')
                return snprintf(c->why, sizeof c->why, "unquoted attribute in <%s> at %.40s", tag,
                                q),
                       false;
            q += 2;
            const char *end = strchr(q, '"');
            if (!end || memchr(q, '<', (size_t)(end - q)))
                return snprintf(c->why, sizeof c->why, "bad attribute value in <%s>", tag), false;
            size_t vl = (size_t)(end - q);
            if (strcmp(name, "width") == 0) has_w = true;
            if (strcmp(name, "height") == 0) has_h = true;
            if (strcmp(name, "viewBox") == 0) has_vb = true;
            if (strcmp(name, "data-k") == 0 && vl < sizeof dk) {
                memcpy(dk, q, vl);
                dk[vl] = '\0';
            }
            if (strcmp(name, "data-v") == 0 && vl < sizeof dv) {
                memcpy(dv, q, vl);
                dv[vl] = '\0';
            }
            q = end + 1;
        }
        if (*dv || *dk) {
            c->values++;
            unescape(dv);
            if (!*dk || !same_value(pointer(doc, dk), dv)) {
                if (!c->bad_values)
                    snprintf(c->why, sizeof c->why, "data-v=\"%s\" is not the value at %s", dv, dk);
                c->bad_values++;
            }
        }
        if (strcmp(tag, "svg") == 0) {
            if (!(has_w && has_h && has_vb))
                return snprintf(c->why, sizeof c->why, "<svg> without width/height/viewBox"), false;
            svg_depth++;
            c->svgs++;
        }
        if (is_svg_only(tag) && svg_depth == 0)
            return snprintf(c->why, sizeof c->why, "<%s> outside <svg>", tag), false;
        if (self_close && svg_depth == 0)
            return snprintf(c->why, sizeof c->why, "<%s/> outside <svg>", tag), false;
        p = q + 1;
        if (self_close || is_void(tag)) continue;
        if (depth == 64) return snprintf(c->why, sizeof c->why, "too deep"), false;
        snprintf(stack[depth++], sizeof stack[0], "%s", tag);
        if (strcmp(tag, "style") == 0) { /* raw text up to </style> */
            const char *e = strstr(p, "</style>");
            if (!e) return snprintf(c->why, sizeof c->why, "unclosed <style>"), false;
            p = e;
        }
    }
    if (depth) return snprintf(c->why, sizeof c->why, "<%s> never closed", stack[depth - 1]), false;
    return c->bad_values == 0;
}

static void no_outside_refs(const char *h)
{
    cr_expect_null(strstr(h, "https://"), "no https URL");
    cr_expect_null(strstr(h, "<script"), "no script");
    cr_expect_null(strstr(h, "url("), "no CSS url()");
    cr_expect_null(strstr(h, "@import"), "no CSS import");
    cr_expect_null(strstr(h, " src="), "no src attributes");
    static const char ns[] = "xmlns=\"http://www.w3.org/2000/svg\"";
    for (const char *p = strstr(h, "http://"); p; p = strstr(p + 1, "http://")) {
        size_t off = strlen("xmlns=\"");
        cr_expect(p - h >= (long)off && strncmp(p - off, ns, strlen(ns)) == 0,
                  "an http URL that is not the SVG namespace: %.60s", p);
    }
}

/* The cells of a separator row ("| --- | --: |"), each dashes with an optional colon at either
   end (the column's alignment) between optional spaces; -1 when a cell is anything else. */
static int sep_row_cells(const char *s, size_t len)
{
    if (len < 2 || s[0] != '|' || s[len - 1] != '|') return -1;
    int cells = 0;
    for (size_t i = 1; i < len;) {
        size_t j = i;
        while (j < len && s[j] == ' ')
            j++;
        if (j < len && s[j] == ':') j++;
        size_t dashes = 0;
        while (j < len && s[j] == '-')
            j++, dashes++;
        if (j < len && s[j] == ':') j++;
        while (j < len && s[j] == ' ')
            j++;
        if (dashes == 0 || j >= len || s[j] != '|') return -1;
        cells++;
        i = j + 1;
    }
    return cells;
}

/* Every Markdown table: header row, separator row, then rows of as many cells. */
static int check_md(const char *md)
{
    int tables = 0;
    const char *p = md;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        bool row = len > 0 && p[0] == '|';
        if (row) {
            /* a table starts here: count header cells, expect a separator next */
            int cells = 0;
            for (size_t i = 1; i < len; i++)
                cells += p[i] == '|' && p[i - 1] != '\\';
            const char *sep = eol ? eol + 1 : p + len;
            const char *se = strchr(sep, '\n');
            size_t sl = se ? (size_t)(se - sep) : strlen(sep);
            int sep_cells = sep_row_cells(sep, sl);
            cr_expect_eq(sep_cells, cells, "separator after header %.*s: %.*s", (int)len, p,
                         (int)sl, sep);
            tables++;
            /* the body */
            const char *r = se ? se + 1 : sep + sl;
            while (*r == '|') {
                const char *re = strchr(r, '\n');
                size_t rl = re ? (size_t)(re - r) : strlen(r);
                int n = 0;
                for (size_t i = 1; i < rl; i++)
                    n += r[i] == '|' && r[i - 1] != '\\';
                cr_expect_eq(n, cells, "row %.*s", (int)rl, r);
                r = re ? re + 1 : r + rl;
            }
            p = r;
            continue;
        }
        p = eol ? eol + 1 : p + len;
    }
    return tables;
}

static void render_fixture(const char *name, int min_values, int min_svgs, int min_tables)
{
    json_t *doc = fixture(name);
    cr_assert_neq(gv_render_kind_of(doc), GV_RENDER_UNKNOWN, "%s", name);
    char *h = render(doc, true);
    html_check c;
    cr_expect(check_html(h, doc, &c), "%s: %s", name, c.why);
    cr_expect_geq(c.values, min_values, "%s: %d data-v values", name, c.values);
    cr_expect_geq(c.svgs, min_svgs, "%s: %d charts", name, c.svgs);
    cr_expect_eq(c.bad_values, 0, "%s: %d bad values (%s)", name, c.bad_values, c.why);
    no_outside_refs(h);
    char *md = render(doc, false);
    cr_expect_geq(check_md(md), min_tables, "%s: Markdown tables", name);
    free(md);
    free(h);
    json_decref(doc);
}

Test(render, check_run_every_case_and_a_chart_per_op)
{
    render_fixture("check-h100.json", 235 * 5, 21,
                   22); /* shape, max_rel, normwise, bits, tiers met */
    json_t *doc = fixture("check-h100.json");
    char *h = render(doc, true);
    cr_expect(strstr(h, "aria-label=\"verdict margin per case of vadd") != NULL,
              "the chart shows verdict margins where the run carries ratios and bounds");
    cr_expect(strstr(h, "bound (margin 1)") != NULL, "the bound's line");
    cr_expect(strstr(h, "data-k=\"/cases/20/metrics/prob_max\"") != NULL ||
                  strstr(h, "/metrics/prob_max\"") != NULL,
              "prob R max from metrics.prob_max");
    free(h);
    json_decref(doc);
}

/* ---- what failed comes first ---- */

/* The fixture with case 40 (gemm.tiled f64) turned into a FAIL over its bound whose worst
   element is C[5, 7], and case 100 into an ERROR; the summary counts them. */
static json_t *planted_failures(void)
{
    json_t *doc = fixture("check-h100.json");
    json_t *cases = json_object_get(doc, "cases");
    json_t *c = json_array_get(cases, 40);
    cr_assert_str_eq(json_string_value(json_object_get(c, "op")), "gemm.tiled");
    json_object_set_new(c, "verdict", json_string("FAIL"));
    json_object_set_new(c, "reason", json_string("planted: ratio 52.3 over its bound 16"));
    json_object_set_new(json_object_get(c, "error_model"), "ratio", json_real(52.3));
    json_t *m = json_object_get(c, "metrics");
    json_object_set_new(m, "worst_at", json_pack("{s:s, s:[i, i]}", "output", "C", "index", 5, 7));
    json_object_set_new(m, "worst_value", json_real(1.5));
    json_object_set_new(m, "worst_ref", json_real(1.25));
    json_t *e = json_array_get(cases, 100);
    json_object_set_new(e, "verdict", json_string("ERROR"));
    json_object_set_new(e, "reason", json_string("planted: cudaErrorIllegalAddress"));
    json_object_set_new(e, "metrics", json_null());
    json_t *sum = json_object_get(doc, "summary");
    json_object_set_new(sum, "passed", json_integer(233));
    json_object_set_new(sum, "failed", json_integer(1));
    json_object_set_new(sum, "errors", json_integer(1));
    return doc;
}

/* The offset of needle in h, failing the test where it is absent. */
static long at(const char *h, const char *needle)
{
    const char *p = strstr(h, needle);
    cr_assert_not_null(p, "'%s' is missing", needle);
    return p - h;
}

Test(render, check_report_leads_with_its_failures)
{
    json_t *doc = planted_failures();
    char *md = render(doc, false);
    check_md(md);
    long fails = at(md, "\n### Failures\n"), summary = at(md, "\n### Summary\n");
    cr_expect_lt(fails, summary, "Failures before the summary:\n%s", md);
    cr_expect_lt(summary, at(md, "\n### vadd\n"), "the summary before the ops");
    /* the section holds the two failing cases, and no other */
    char section[4096];
    snprintf(section, sizeof section, "%.*s", (int)(summary - fails), md + fails);
    const char *row = strstr(section, "| gemm.tiled | f64 | native | FAIL | uniform01 | "
                                      "1000x999x1001 | 0 |");
    cr_expect_not_null(row, "the planted FAIL's identity:\n%s", section);
    cr_expect_not_null(strstr(section, "| C[5, 7] = 1.5 (reference 1.25) |"),
                       "its worst element:\n%s", section);
    cr_expect_not_null(strstr(section, "planted: ratio 52.3 over its bound 16"), "its reason");
    cr_expect_not_null(strstr(section, "| ERROR |"), "an ERROR is listed too:\n%s", section);
    cr_expect_not_null(strstr(section, "planted: cudaErrorIllegalAddress"), "with its reason");
    int rows = 0;
    for (const char *p = strstr(section, "| --- |"); p && (p = strstr(p, "\n| ")); p++)
        rows++;
    cr_expect_eq(rows, 2, "two failing cases, %d rows:\n%s", rows, section);
    cr_expect_null(strstr(section, "No case failed"), "no 'nothing failed' line");

    char *h = render(doc, true);
    html_check c;
    cr_expect(check_html(h, doc, &c), "%s", c.why);
    cr_expect_lt(at(h, "<section id=\"failures\">"), at(h, "<caption>Summary</caption>"),
                 "Failures before the summary table");
    cr_expect_lt(at(h, "<caption>Summary</caption>"), at(h, "<section id=\"op-0\">"));
    long fs = at(h, "<section id=\"failures\">"), fe = at(h + fs, "</section>") + fs;
    snprintf(section, sizeof section, "%.*s", (int)(fe - fs), h + fs);
    cr_expect_not_null(strstr(section, "<a href=\"#op-2\">gemm.tiled</a>"),
                       "the failing case links to its op:\n%s", section);
    cr_expect_not_null(strstr(section, "C[5, 7] = 1.5 (reference 1.25)"), "%s", section);
    cr_expect_not_null(strstr(section, "<td class=\"FAIL\">FAIL</td>"), "%s", section);
    cr_expect_not_null(strstr(section, "<td class=\"ERROR\">ERROR</td>"), "%s", section);
    /* the FAIL's bar in gemm.tiled's chart stands over the bound: margin 52.3 / 16 */
    cr_expect_not_null(strstr(h, "FAIL, margin 3.3 (worst-case model)"), "the planted margin");
    free(h);
    free(md);
    json_decref(doc);
}

Test(render, check_report_says_so_when_nothing_failed)
{
    json_t *doc = fixture("check-h100.json");
    char *md = render(doc, false);
    long fails = at(md, "\n### Failures\n"), summary = at(md, "\n### Summary\n");
    cr_expect_lt(fails, summary);
    cr_expect_eq(at(md, "No case failed: 235 passed, 0 skipped."), fails + 15,
                 "one line right under the heading:\n%.300s", md + fails);
    char section[512];
    snprintf(section, sizeof section, "%.*s", (int)(summary - fails), md + fails);
    cr_expect_null(strchr(section, '|'), "no table: %s", section);
    char *h = render(doc, true);
    cr_expect_lt(at(h, "No case failed: 235 passed, 0 skipped."),
                 at(h, "<caption>Summary</caption>"));
    free(h);
    free(md);
    json_decref(doc);
}

/* The key columns lead both tables and the reason, the one long text, comes last (the cell
   that wraps), so the columns a reader looks for never need a horizontal scroll. */
Test(render, check_tables_lead_with_their_key_columns)
{
    json_t *doc = fixture("check-h100.json");
    char *md = render(doc, false);
    cr_expect_not_null(strstr(md, "\n| # | dtype | mode | verdict | dist | shape | max_rel |"),
                       "Markdown: %.600s", md);
    cr_expect_not_null(strstr(md, "| tiers met | reason |\n"), "the reason last");
    char *h = render(doc, true);
    cr_expect_not_null(strstr(h, "<tr><th>#</th><th>dtype</th><th>mode</th><th>verdict</th>"),
                       "HTML: the key columns first");
    cr_expect_not_null(strstr(h, "<th>tiers met</th><th>reason</th></tr>"), "the reason last");
    cr_expect_not_null(strstr(h, ".reason{width:"), "reasons wrap in a column of fixed width");
    free(h);
    free(md);
    json_decref(doc);
}

/* The trade-off table has 30 columns, wider than a 1400 px page: the ones modes are compared
   by (verdict, accurate bits, time, speed-ups, energy, Pareto) lead, in that order, and the
   fingerprint and the long texts come after them, in the part that scrolls. */
Test(render, tradeoffs_table_leads_with_its_key_columns)
{
    json_t *doc = fixture("tradeoffs-synthetic.json");
    char *h = render(doc, true);
    cr_expect_not_null(strstr(h, "<tr><th>dtype</th><th>mode</th><th>verdict</th><th>accurate "
                                 "bits</th><th>median ms</th><th>lo ms</th><th>hi ms</th>"
                                 "<th>speed-up vs f64</th><th>speed-up vs default</th>"
                                 "<th>J/call</th><th>Pareto</th><th>reason</th>"),
                       "the key columns first: %.2000s", strstr(h, "<thead>"));
    /* each row's cells in the header's order: the verdict third, its bits fourth */
    const char *row = strstr(h, "<tr><td>f32</td><td>tf32</td><td class=\"PASS\">PASS</td>"
                                "<td class=\"n\" data-k=\"/groups/0/rows/");
    cr_expect_not_null(row, "a row's cells in the header's order: %.3000s", strstr(h, "<tbody>"));
    free(h);
    json_decref(doc);
}

/* Every chart fits the page (1400 px less its margins), however many cases an op has. */
Test(render, charts_fit_the_page_width)
{
    json_t *doc = fixture("check-h100.json");
    json_t *cases = json_object_get(doc, "cases"), *many = json_array();
    for (int k = 0; k < 400; k++)
        json_array_append_new(many, json_deep_copy(json_array_get(cases, 0)));
    json_object_set_new(doc, "cases", many);
    for (int with_model = 1; with_model >= 0; with_model--) {
        if (!with_model) /* no ratio: the bits chart, which must fit as well */
            for (size_t i = 0; i < json_array_size(many); i++)
                json_object_del(json_array_get(many, i), "error_model");
        char *h = render(doc, true);
        int svgs = 0;
        for (const char *p = strstr(h, "<svg "); p; p = strstr(p + 1, "<svg ")) {
            const char *w = strstr(p, "width=\"");
            cr_assert_not_null(w);
            cr_expect_leq(atoi(w + 7), 1340, "an svg %d px wide", atoi(w + 7));
            svgs++;
        }
        cr_expect_eq(svgs, 1);
        cr_expect_not_null(
            strstr(h, with_model ? "verdict margin per case" : "accurate bits per case"),
            "the %s chart", with_model ? "margin" : "bits");
        if (!with_model) {
            cr_expect(strstr(h, "tier 1e-08 (26.6 bits)") != NULL, "the 1e-8 tier line");
            cr_expect(strstr(h, "tier 1e-04 (13.3 bits)") != NULL, "the 1e-4 tier line");
        }
        free(h);
    }
    json_decref(doc);
}

Test(render, bench_run_ceilings_cases_and_crossover_charts)
{
    render_fixture("bench-synthetic.json", 100, 2, 3);
    json_t *doc = fixture("bench-synthetic.json");
    char *h = render(doc, true);
    cr_expect(strstr(h, "crossover n = 5.83e+04") != NULL, "the crossover is marked");
    cr_expect(strstr(h, "break-even") != NULL);
    free(h);
    json_decref(doc);
}

Test(render, tradeoffs_scatter_pareto_front_and_emulation_curve)
{
    render_fixture("tradeoffs-synthetic.json", 200, 3, 2);
    json_t *doc = fixture("tradeoffs-synthetic.json");
    char *h = render(doc, true);
    cr_expect(strstr(h, "class=\"pareto\"") != NULL, "the Pareto front");
    cr_expect(strstr(h, "f32/tf32") != NULL, "points labelled dtype/mode");
    cr_expect(strstr(h, "fp64 emulation: accurate bits against mantissa bits") != NULL);
    cr_expect(strstr(h, "data-v=\"inf\"") != NULL, "\"inf\" carried as such");
    free(h);
    json_decref(doc);
}

Test(render, model_flag_energy_and_throttle_marks_are_shown)
{
    json_t *doc = fixture("tradeoffs-synthetic.json");
    json_t *row = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "groups"), 0), "rows"), 1);
    cr_assert_not_null(row);
    json_object_set_new(row, "model_flag",
                        json_string("better than its model: the same bits as f32 native"));
    json_object_set_new(row, "energy_j", json_real(0.0625));
    char *h = render(doc, true), *md = render(doc, false);
    cr_expect_not_null(strstr(h, "better than its model: the same bits as f32 native"));
    cr_expect_not_null(strstr(md, "better than its model: the same bits as f32 native"));
    cr_expect_not_null(strstr(h, "<th>J/call</th>"));
    cr_expect_not_null(strstr(md, "J/call"));
    cr_expect_not_null(strstr(md, "0.0625"), "energy per call in the Markdown");
    free(h);
    free(md);
    json_decref(doc);

    doc = fixture("bench-synthetic.json");
    json_t *c = json_array_get(json_object_get(doc, "cases"), 0);
    cr_assert_not_null(c);
    h = render(doc, true);
    cr_expect_null(strstr(h, "Warn: timed while"), "no mark without a slowdown");
    free(h);
    json_object_set_new(c, "clocks",
                        json_pack("{s:i, s:i, s:i, s:b}", "sm_mhz_before", 1980, "sm_mhz_after",
                                  1395, "throttle_reasons", 4, "throttled", 1));
    h = render(doc, true);
    cr_expect_not_null(strstr(h, "Warn: timed while the clocks were held down"));
    free(h);
    json_decref(doc);
}

/* The terminal printers and the CSV printer of a timed run print, byte for byte, what `gpuval
   bench` printed before they moved to src/render/: tests/fixtures/bench-terminal.txt and .csv
   were written by the printers of bench/bench_report.c from bench-terminal.json. Scripts read
   this text, so a difference is a change of the command's output. */
Test(render, bench_terminal_and_csv_text_are_unchanged)
{
    json_t *doc = fixture("bench-terminal.json");
    char *text = NULL, *csv = NULL;
    size_t len = 0, csv_len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    gv_bench_render_header(f);
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(doc, "cases"), i, c) gv_bench_render_row(f, c);
    gv_bench_render_ceilings(f, doc);
    json_array_foreach(json_object_get(doc, "crossovers"), i, c) gv_bench_render_crossover(f, c);
    gv_bench_render_targets(f, doc);
    gv_bench_render_repeat(f, doc);
    gv_bench_render_seed002(f, doc);
    gv_bench_render_seed000(f, doc);
    fclose(f);
    f = open_memstream(&csv, &csv_len);
    cr_assert_not_null(f);
    gv_bench_render_csv(f, doc);
    fclose(f);
    char *want = fixture_text("bench-terminal.txt"), *want_csv = fixture_text("bench-terminal.csv");
    cr_expect(strstr(want, "Warn: timed while the clocks were held down") &&
                  strstr(want, "DISAGREE") && strstr(want, "MISSED") &&
                  strstr(want, "====TEST MATMUL -> SUM====") && strstr(want, "k = 100"),
              "the fixture reaches every kind of line");
    cr_expect_str_eq(text, want, "terminal text differs from line %d", first_diff_line(text, want));
    cr_expect_str_eq(csv, want_csv, "CSV differs from line %d", first_diff_line(csv, want_csv));
    free(want);
    free(want_csv);
    free(text);
    free(csv);
    json_decref(doc);
}

/* `gpuval bench --md` and `gpuval report --md` printed two different Markdown documents; the one
   printer left shows what either showed: the device and the command line with its date, the
   host, the ceilings, per case the terminal row's cells and the accurate bits, per sweep its
   status, table and text, and the targets. */
Test(render, bench_markdown_shows_what_both_printers_showed)
{
    json_t *doc = fixture("bench-terminal.json");
    char *md = render(doc, false);
    static const char *const want[] = {
        "## gpuval bench: NVIDIA H100 80GB HBM3\n",
        "`gpuval bench --test` (2026-11-23T10:00:00Z)",
        "Device: NVIDIA H100 80GB HBM3, CC 9.0, 132 SMs",
        "CPU: Synthetic CPU, the f64 oracle with 4 OpenBLAS threads",
        "ceiling: gemm f64 not measured (out of memory)",
        "| e2e ms | noise % | speed-up e2e [95%] |",
        "| GFLOP/s (% gemm) | GB/s (% copy) | bits | sanity |\n"
        "| --- | --- | --- | --- | --: | --: | --: | --: | --: | --- | --: | --: | --: | --: | --- "
        "|\n",
        /* the noise: the widest relative half-width of a median's interval, in % */
        "| vadd | f32 | native | 1000000 | 1.2 | 0.011 | 0.0132 | 0.9 | 1 | 1.33 [1.29, 1.37] | 109 "
        "| 90.91 (0.1%) | 1091 (2%) | 22.6 | ok |",
        "| 8.4 | SANITY FAILED: max_rel 3e-3 > 1e-4 \\| tier |",
        "### Crossover: vadd f32, n swept (found)\n",
        "### Crossover: gemm.tiled f32, n swept (not found: the GPU never wins)\n",
        "the GPU, end to end, beats the CPU from n = 65536",
        "### Targets\n\n```\ntargets (against the ceilings measured in this run):",
        "MISSED (sanity not ok: do not trust)"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        cr_expect_not_null(strstr(md, want[k]), "missing '%s' in\n%s", want[k], md);
    free(md);
    json_decref(doc);
}

/* Likewise `gpuval tradeoffs --md` and `gpuval report --md` of a trade-off run: the terminal
   table's columns with the normwise error and the tiers met, each group's seed, the notes and
   flags under it, and the counts. */
/* A bench row's noise is the widest relative half-width among its timings, whichever scope it
   is in: a noisy CPU median shows as much as a noisy kernel's; none timed is "-". */
Test(render, bench_noise_is_the_widest_interval_of_the_row)
{
    json_t *c = json_pack("{s:s, s:{s:{s:f, s:f}, s:{s:f, s:f}, s:{s:f, s:f}, s:{s:f, s:f}}}", "op",
                          "vadd", "timings", "kernel_hot", "median_ms", 1.0, "rel_spread", 0.02,
                          "kernel_cold", "median_ms", 1.0, "rel_spread", 0.004, "e2e", "median_ms",
                          2.0, "rel_spread", 0.01, "cpu", "median_ms", 9.0, "rel_spread", 0.125);
    gv_bench_row v;
    gv_bench_cells r;
    gv_bench_row_of_json(&v, c);
    gv_bench_cells_fill(&r, &v);
    cr_expect_str_eq(r.noise, "12", "the CPU's 12.5%% is the widest (%%.2g)");
    json_object_set_new(json_object_get(json_object_get(c, "timings"), "cpu"), "rel_spread",
                        json_real(0.003));
    gv_bench_row_of_json(&v, c);
    gv_bench_cells_fill(&r, &v);
    cr_expect_str_eq(r.noise, "2", "the hot kernel's 2%%");
    json_object_del(c, "timings");
    gv_bench_row_of_json(&v, c);
    gv_bench_cells_fill(&r, &v);
    cr_expect_str_eq(r.noise, "-", "nothing timed, no noise");
    json_decref(c);
}

Test(render, tradeoffs_markdown_shows_what_both_printers_showed)
{
    json_t *doc = fixture("tradeoffs-synthetic.json");
    json_t *row = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "groups"), 0), "rows"), 2);
    json_object_set_new(row, "model_flag", json_string("better than its model: test"));
    /* a GEMM row's arithmetic fingerprint (gpuval probe) in its own column; '!' and the
       flushed subnormals where a feature FAILed */
    json_object_set_new(row, "arith",
                        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "in_bits", "11",
                                  "acc_bits", "24", "block", "8", "rounding", "RZ", "subnormals",
                                  "kept/kept", "fails", 0, "failed", ""));
    json_t *row3 = json_array_get(
        json_object_get(json_array_get(json_object_get(doc, "groups"), 0), "rows"), 3);
    json_object_set_new(row3, "arith",
                        json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:s}", "in_bits", "24",
                                  "acc_bits", "24", "block", "1", "rounding", "RNE", "subnormals",
                                  "flushed/flushed", "fails", 2, "failed",
                                  "subnormal_in,subnormal_out"));
    char *md = render(doc, false);
    static const char *const want[] = {
        "## gpuval tradeoffs: NVIDIA H100 80GB HBM3\n",
        "`gpuval tradeoffs --test` (2026-11-23T10:00:00Z)",
        "Device: NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs)",
        "### gemm.cublas 4096x4096x4096 (uniform01, seed 0)\n",
        "| op | size | dtype | mode | math mode | verdict | bits | normwise | tiers met | claimed "
        "| "
        "CR % | probe | arith | R_max | R_rms | median ms [lo, hi] | x vs f64 | x vs default | "
        "J/call | pareto |",
        "| gemm.cublas | 4096x4096x4096 | f64 | native | none | PASS | 51.2 | 3.87e-16 | "
        "1.00e-08, 1.00e-04 | - | - | - | - | 0.8 | 0.2 | 9.8 [9.604, 10.09] | 1 | 1 | 3.1 | yes |",
        "| 11/24 b8 RZ |",
        "| !24/24 b1 RNE sub:flushed/flushed |",
        "| tf32 | CUBLAS_TF32_TENSOR_OP_MATH |",
        "\n- bf16 native FAIL: normwise 5e-3 > 1e-4\n- Warn: f32 tf32: better than its model: "
        "test\n",
        "- f16 native SKIP: no f16 kernel",
        "\n15 rows: 13 passed, 1 failed, 1 skipped, - errors\n"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        cr_expect_not_null(strstr(md, want[k]), "missing '%s' in\n%s", want[k], md);
    free(md);
    json_decref(doc);
}

/* Every kind of io/schemas.h's table renders: those without a renderer of their own through
   render_doc.c, opening with what failed. Each synthetic document holds one failing row (its
   kind's own way of failing) among passing ones, and a string that would break the page, a
   Markdown row or a heading if it were not escaped. */
Test(render, every_document_kind_renders_failures_first)
{
    static const struct {
        gv_doc_kind kind;
        const char *array, *bad_member, *bad, *good;
    } kinds[] = {
        {GV_DOC_FLEET, "cases", "agreement", "DIFFER: outlier dev1", "identical"},
        {GV_DOC_FLEET_PERF, "cases", "verdict", "FAIL", "PASS"},
        {GV_DOC_COMPARE, "cases", "outcome", "REGRESSED", "SAME"},
        {GV_DOC_OPS, "ops", "verdict", "ERROR", "PASS"},
        {GV_DOC_FLEET_PROBE, "features", "fail", NULL, NULL},
        {GV_DOC_INPUTS, "inputs", "verdict", "FAIL", "PASS"},
        {GV_DOC_SCREEN, "gpus", "verdict", "FAIL", "PASS"},
        {GV_DOC_GOLDEN, "entries", "outcome", "INCONCLUSIVE", "SAME"},
        {GV_DOC_COLLECTIVES, "collectives", "rank_verdict", "ERROR", "PASS"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const char *schema = gv_schema(kinds[k].kind);
        json_t *rows = json_array();
        for (int i = 0; i < 3; i++) {
            json_t *row = json_pack("{s:s, s:i, s:[i,i]}", "op", i == 1 ? "<b>|# x](y)" : "vadd",
                                    "seed", i, "shape", 4, 5);
            if (kinds[k].bad)
                json_object_set_new(row, kinds[k].bad_member,
                                    json_string(i == 1 ? kinds[k].bad : kinds[k].good));
            else
                json_object_set_new(row, kinds[k].bad_member, json_boolean(i == 1));
            json_object_set_new(row, "reason", json_string(i == 1 ? "planted fault 7" : ""));
            json_array_append_new(rows, row);
        }
        json_t *doc = json_pack("{s:s, s:{s:i, s:f}, s:o}", "schema", schema, "summary", "cases", 3,
                                "ratio", 1.5, kinds[k].array, rows);
        cr_expect_eq(gv_render_kind_of(doc), GV_RENDER_DOC, "%s renders", schema);
        char *md = render(doc, false);
        cr_expect_geq(check_md(md), 3, "%s: failures, summary and rows as tables:\n%s", schema, md);
        long fails = at(md, "\n### Failures\n"), table = at(md, "\n### summary\n");
        cr_expect_lt(fails, table, "%s: Failures lead:\n%s", schema, md);
        char section[4096];
        snprintf(section, sizeof section, "%.*s", (int)(table - fails), md + fails);
        char where[64];
        snprintf(where, sizeof where, "| %s[1] |", kinds[k].array);
        cr_expect_not_null(strstr(section, where), "%s: the failing row:\n%s", schema, section);
        cr_expect_not_null(strstr(section, "planted fault 7"), "%s: its reason", schema);
        cr_expect_not_null(strstr(section, "seed 1, shape 4x5"), "%s: its identity:\n%s", schema,
                           section);
        cr_expect_not_null(strstr(md, "| 4x5 |"), "%s: a shape as rows print it", schema);
        cr_expect_null(strstr(section, "[0]"), "%s: a passing row is no failure:\n%s", schema,
                       section);
        cr_expect_null(strstr(section, "[2]"), "%s: a passing row is no failure", schema);
        cr_expect_null(strstr(md, "\n# x"), "%s: no heading injected", schema);
        cr_expect_null(strstr(md, "<b>"), "%s: no tag injected", schema);
        char *h = render(doc, true);
        html_check c;
        cr_expect(check_html(h, doc, &c), "%s: %s", schema, c.why);
        cr_expect_eq(c.bad_values, 0, "%s: %s", schema, c.why);
        cr_expect_gt(c.values, 0, "%s: the summary's numbers carry their values", schema);
        no_outside_refs(h);
        cr_expect_lt(at(h, "<section id=\"failures\">"), at(h, "<caption>summary</caption>"),
                     "%s: Failures before the summary", schema);
        cr_expect_null(strstr(h, "<b>"), "%s: no tag injected", schema);
        free(h);
        free(md);
        json_decref(doc);
    }
    /* a document that is one case (a dumped case.json, with its result) fails as itself */
    json_t *one = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:s}}", "schema", gv_schema(GV_DOC_CASE),
                            "op", "gemm", "verdict", "FAIL", "reason", "planted fault 9",
                            "result", "verdict", "ERROR", "reason", "planted fault 10");
    cr_expect_eq(gv_render_kind_of(one), GV_RENDER_DOC);
    char *one_md = render(one, false);
    cr_expect_not_null(strstr(one_md, "| document | schema gpuval-case/1, op gemm | FAIL: planted "
                                      "fault 9 |"),
                       "%s", one_md);
    cr_expect_not_null(strstr(one_md, "| result | - | ERROR: planted fault 10 |"), "%s", one_md);
    free(one_md);
    json_decref(one);
    /* nothing failed: said so, and no failure table */
    json_t *doc = json_pack("{s:s, s:[{s:s}]}", "schema", gv_schema(GV_DOC_COMPARE), "cases",
                            "outcome", "SAME");
    char *md = render(doc, false);
    cr_expect_not_null(strstr(md, "### Failures\n\nnothing failed\n"), "%s", md);
    free(md);
    json_decref(doc);
}

Test(render, checker_rejects_what_it_should)
{
    cr_expect_eq(sep_row_cells("| --- | --: | :-: |", 19), 3, "alignments are separators");
    cr_expect_eq(sep_row_cells("| --- | x |", 11), -1, "a cell that is not dashes");
    cr_expect_eq(sep_row_cells("| --- | : |", 11), -1, "a colon without dashes");
    cr_expect_eq(sep_row_cells("| a | b |", 9), -1, "a header row is no separator");
    json_t *doc = json_pack("{s:f}", "x", 1.5);
    html_check c;
    cr_expect_not(check_html("<p><b>x</p></b>", doc, &c), "crossed tags");
    cr_expect_not(check_html("<p class=x>y</p>", doc, &c), "unquoted attribute");
    cr_expect_not(check_html("<p><line x1=\"1\"/></p>", doc, &c), "svg element outside svg");
    cr_expect_not(check_html("<svg width=\"1\"></svg>", doc, &c), "svg without viewBox");
    cr_expect_not(check_html("<td data-k=\"/x\" data-v=\"1.25\">1.3</td>", doc, &c), "wrong value");
    cr_expect(check_html("<td data-k=\"/x\" data-v=\"1.5\">1.5</td><br>", doc, &c), "%s", c.why);
    json_decref(doc);
}

/* ---- the command line ---- */

static char out[1 << 20], err[16384];

static bool exists(const char *p)
{
    return access(p, F_OK) == 0;
}

Test(render_cli, writes_html_and_markdown_to_stdout)
{
    char dir[] = "/tmp/gpuval-report-XXXXXX", html[256], args[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(html, sizeof html, "%s/page.html", dir);
    snprintf(args, sizeof args,
             "report '%s/tests/fixtures/tradeoffs-synthetic.json' --html '%s' --md -",
             getenv("GPUVAL_SRCDIR"), html);
    int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 0, "%s", err);
    cr_expect(exists(html));
    cr_expect(strstr(out, "| dtype | mode |") != NULL, "%s", out);
    unlink(html);
    rmdir(dir);
}

/* A command's --md and `gpuval report --md` of the run file it wrote are one printer: the same
   bytes. With a device the runs are short; without one every row is a SKIP and the files are
   still written (exit 77). */
Test(render_cli, a_commands_markdown_is_reports_markdown)
{
    static const struct {
        const char *run, *title;
    } runs[] = {{"bench --op vadd --size 1000 --cap 0.1", "## gpuval bench: "},
                {"tradeoffs --op gemm.cublas --size 64x64x64", "## gpuval tradeoffs: "}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char dir[512], json[600], md[600], md2[600], args[2048];
        gv_test_scratch_dir(dir, sizeof dir, "mdsame");
        snprintf(json, sizeof json, "%s/run.json", dir);
        snprintf(md, sizeof md, "%s/run.md", dir);
        snprintf(md2, sizeof md2, "%s/report.md", dir);
        snprintf(args, sizeof args, "%s --json '%s' --md '%s'", runs[i].run, json, md);
        int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
        cr_expect(rc == 0 || rc == 77, "%s: exit %d: %s", runs[i].run, rc, err);
        snprintf(args, sizeof args, "report '%s' --md '%s'", json, md2);
        cr_expect_eq(gv_test_run_cli_split(args, out, sizeof out, err, sizeof err), 0, "%s", err);
        char *a = slurp(md), *b = slurp(md2);
        cr_expect_eq(strncmp(a, runs[i].title, strlen(runs[i].title)), 0, "%s", a);
        cr_expect(strstr(a, "\n| --- |") != NULL, "a table: %s", a);
        cr_expect_str_eq(a, b, "%s --md and report --md differ from line %d", runs[i].run,
                         first_diff_line(a, b));
        free(a);
        free(b);
        gv_test_remove_dir(dir);
    }
}

/* `report` takes every document gpuval writes: compare's, a merge's, case.json (it refused all
   three before render_doc.c); the same strict file rules (a FIFO, a directory) still hold. */
Test(render_cli, every_document_gpuval_writes_is_reported)
{
    char dir[512], in[600], md[600], args[2048];
    gv_test_scratch_dir(dir, sizeof dir, "anydoc");
    snprintf(in, sizeof in, "%s/doc.json", dir);
    snprintf(md, sizeof md, "%s/doc.md", dir);
    static const char *const docs[] = {
        "{\"schema\": \"gpuval-compare/1\", \"outcome\": \"REGRESSED\", \"cases\": [{\"op\": "
        "\"vadd\", \"outcome\": \"REGRESSED\", \"items\": [{\"what\": \"accurate bits\", "
        "\"outcome\": \"REGRESSED\", \"why\": \"lost 8.0 accurate bits\"}]}]}",
        "{\"schema\": \"gpuval-inputs/1\", \"op\": \"vadd\", \"inputs\": [{\"name\": \"a\", "
        "\"file\": \"a.npy\"}]}",
        "{\"schema\": \"gpuval-fleet/1\", \"cases\": [{\"op\": \"vadd\", \"agreement\": "
        "\"DIFFER: outlier dev1\"}], \"outliers\": []}"};
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        FILE *f = fopen(in, "w");
        fputs(docs[i], f);
        fclose(f);
        snprintf(args, sizeof args, "report '%s' --md '%s'", in, md);
        int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
        cr_expect_eq(rc, 0, "doc %zu: rc %d: %s", i, rc, err);
        char *text = exists(md) ? slurp(md) : strdup("");
        cr_expect_not_null(strstr(text, "## gpuval document: gpuval-"), "doc %zu:\n%s", i, text);
        if (i == 0)
            cr_expect_not_null(strstr(text, "| cases[0].items[0] | what accurate bits | "
                                            "REGRESSED: lost 8.0 accurate bits |"),
                               "the regression leads:\n%s", text);
        free(text);
        unlink(md);
    }
    /* a document that is not an object, and an unknown gpuval schema: refused, exit 2 */
    static const char *const bad[] = {"[1, 2]", "{\"schema\": \"gpuval-nope/1\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(in, "w");
        fputs(bad[i], f);
        fclose(f);
        snprintf(args, sizeof args, "report '%s' --md '%s'", in, md);
        cr_expect_eq(gv_test_run_cli_split(args, out, sizeof out, err, sizeof err), 2, "%s",
                     bad[i]);
        cr_expect_not(exists(md), "nothing written for %s", bad[i]);
    }
    unlink(in);
    rmdir(dir);
}

Test(render_cli, bad_input_exits_2_and_writes_nothing)
{
    char dir[] = "/tmp/gpuval-report-XXXXXX", p[256], html[256], tmp[300], args[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(html, sizeof html, "%s/page.html", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", html);
    static const struct {
        const char *content, *expect;
    } bad[] = {{"{\"schema\": \"gpuval-nope/9\"}", "unknown schema 'gpuval-nope/9'"},
               {"{\"cases\": []}", "no \"schema\""},
               {"{\"schema\": \"gpuval-run/1\",\n \"cases\": [1,", "line 2"},
               {NULL, "No such file"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(p, sizeof p, "%s/in%zu.json", dir, i);
        if (bad[i].content) {
            FILE *f = fopen(p, "w");
            fputs(bad[i].content, f);
            fclose(f);
        }
        snprintf(args, sizeof args, "report '%s' --html '%s' --md '%s.md'", p, html, html);
        int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
        cr_expect_eq(rc, 2, "case %zu: rc %d", i, rc);
        cr_expect(strstr(err, bad[i].expect) != NULL, "case %zu: %s", i, err);
        cr_expect(strstr(err, p) != NULL, "the file is named: %s", err);
        cr_expect_not(exists(html), "nothing written");
        cr_expect_not(exists(tmp), "no temporary left");
        unlink(p);
    }
    /* an output that cannot be written is found before the input is read */
    snprintf(args, sizeof args, "report /nonexistent.json --html '%s/no/such/dir/x.html'", dir);
    cr_expect_eq(gv_test_run_cli_split(args, out, sizeof out, err, sizeof err), 2);
    cr_expect(strstr(err, "cannot write --html") != NULL, "%s", err);
    cr_expect_eq(gv_test_run_cli_split("report", out, sizeof out, err, sizeof err), 2);
    snprintf(args, sizeof args, "report '%s/tests/fixtures/check-h100.json'",
             getenv("GPUVAL_SRCDIR"));
    cr_expect_eq(gv_test_run_cli_split(args, out, sizeof out, err, sizeof err), 2, "no output");
    rmdir(dir);
}

/* ---- check's progress line ---- */

Test(progress, durations_read_as_a_person_says_them)
{
    static const struct {
        double s;
        const char *want;
    } d[] = {{0, "0 s"},
             {0.4, "0 s"},
             {59.4, "59 s"},
             {125, "2 min 05 s"},
             {3599, "59 min 59 s"},
             {3720, "1 h 02 min"},
             {NAN, "0 s"},
             {-3, "0 s"}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        char buf[32];
        gv_progress_duration(buf, sizeof buf, d[i].s);
        cr_expect_str_eq(buf, d[i].want, "%g s", d[i].s);
    }
}

Test(progress, line_counts_cases_elapsed_and_the_time_left)
{
    char line[256];
    /* 120 cases done in 14 s: 292 more at that pace take 34 s */
    gv_progress_line(line, sizeof line, 120, 412, 14.0, "gemm.cublas f32 native 64x64x64");
    cr_expect_str_eq(line, "case 121/412, 14 s, ~34 s left: gemm.cublas f32 native 64x64x64");
    /* nothing done yet: no estimate to give */
    gv_progress_line(line, sizeof line, 0, 412, 0.01, "vadd f32 native 1000");
    cr_expect_str_eq(line, "case 1/412, 0 s: vadd f32 native 1000");
    gv_progress_line(line, sizeof line, 3, 10, 150.0, NULL);
    cr_expect_str_eq(line, "case 4/10, 2 min 30 s, ~5 min 50 s left");
    /* a long label is cut, the counts never: the line fits an 80-column terminal */
    char label[200];
    memset(label, 'x', sizeof label - 1);
    label[sizeof label - 1] = '\0';
    gv_progress_line(line, sizeof line, 2, 10, 1.0, label);
    cr_expect_eq(strlen(line), GV_PROGRESS_COLS);
    cr_expect_eq(strncmp(line, "case 3/10, 1 s, ~4 s left: xxx", 30), 0, "%s", line);
    char small[16];
    gv_progress_line(small, sizeof small, 2, 10, 1.0, label);
    cr_expect_str_eq(small, "case 3/10, 1 s,", "a buffer shorter than the line");
}

/* What `gpuval check ARGS` writes to a terminal: run under script(1), which gives it one,
   its stdout sent to /dev/null so that only stderr's lines remain. */
static void on_a_terminal(const char *args, char *buf, size_t len)
{
    if (system("command -v script >/dev/null 2>&1") != 0)
        cr_skip_test("script(1) is not installed: no terminal to run check on");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "script -qec \"'%s' check %s >/dev/null\" /dev/null </dev/null",
             gv_test_gpuval_bin(), args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(buf, 1, len - 1, p);
    buf[n] = '\0';
    pclose(p);
}

Test(progress, check_shows_it_on_a_terminal_only_and_never_with_q)
{
    static char tty[1 << 16];
    on_a_terminal("--op vadd", tty, sizeof tty);
    cr_expect_not_null(strstr(tty, "\rcase 1/"), "the first case: %.400s", tty);
    cr_expect_not_null(strstr(tty, "\rcase 2/"), "the second: %.400s", tty);
    cr_expect_not_null(strstr(tty, " left: vadd "), "an estimate once a case is done: %.400s", tty);
    on_a_terminal("-q --op vadd", tty, sizeof tty);
    /* no line rewritten in place: every '\r' is a terminal's end of line, "\r\n" */
    for (const char *p = strchr(tty, '\r'); p; p = strchr(p + 1, '\r'))
        cr_expect_eq(p[1], '\n', "-q: a line rewritten in place: %.400s", tty);
    cr_expect_null(strstr(tty, "case 1/"), "-q: no progress line: %.400s", tty);
    int rc = gv_test_run_cli_split("check --op vadd", out, sizeof out, err, sizeof err);
    cr_expect(rc == 0 || rc == 77, "rc %d", rc);
    cr_expect_null(strstr(err, "case 1/"), "stderr in a file: no progress line: %.400s", err);
}

/* ---- rows that fit a terminal ---- */

/* The widest line of text in UTF-8 characters, and the number of lines. */
static int widest(const char *text, int *lines)
{
    int w = 0, cur = 0;
    *lines = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            ++*lines;
            cur = 0;
            continue;
        }
        if (*p != '\r' && ((unsigned char)*p & 0xC0) != 0x80 && ++cur > w) w = cur;
    }
    return w;
}

static char *wrapped(const char *line, int cols)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    gv_wrap_row(m, line, cols);
    fclose(m);
    return text;
}

Test(rows, wrap_keeps_every_word_and_breaks_before_a_note)
{
    char line[600];
    snprintf(line, sizeof line,
             "%-137s FAIL (error model: ratio 1.67e+07 over bound 16) [expects "
             "1e-04: f32 \xc3\x97 %s]",
             "vadd f32 native", "depth 1");
    int lines, w;
    char *t = wrapped(line, 160);
    w = widest(t, &lines);
    cr_expect_leq(w, 160, "%d columns:\n%s", w, t);
    cr_expect_eq(lines, 2, "%s", t);
    cr_expect_not_null(
        strstr(t, "FAIL\n      (error model: ratio 1.67e+07 over bound 16) [expects"),
        "the break comes before the reason, which is indented:\n%s", t);
    free(t);
    /* every word kept, in order: the line without its breaks is the line */
    t = wrapped(line, 60);
    w = widest(t, &lines);
    cr_expect_leq(w, 60, "%d columns:\n%s", w, t);
    char joined[800] = "";
    for (char *tok = strtok(t, " \n"); tok; tok = strtok(NULL, " \n")) {
        strcat(joined, *joined ? " " : "");
        strcat(joined, tok);
    }
    char words[800] = "";
    char copy[600];
    snprintf(copy, sizeof copy, "%s", line);
    for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " ")) {
        strcat(words, *words ? " " : "");
        strcat(words, tok);
    }
    cr_expect_str_eq(joined, words);
    free(t);
    /* a word longer than a line is cut, never a UTF-8 character */
    memset(line, 'x', 300);
    line[300] = '\0';
    memcpy(line + 158, "\xc3\x97", 2);
    t = wrapped(line, 160);
    w = widest(t, &lines);
    cr_expect_leq(w, 160, "%d", w);
    cr_expect_not_null(strstr(t, "\xc3\x97"), "the character whole");
    free(t);
    /* a line that fits is written as it is */
    t = wrapped("vadd PASS", 160);
    cr_expect_str_eq(t, "vadd PASS\n");
    free(t);
}

/* judge's FAIL row on a terminal fits 160 columns (it was 178), -w keeps it one line, and into
   a pipe it is one line whatever the width. */
Test(rows, a_failing_row_fits_a_terminal_and_w_keeps_it_whole)
{
    if (system("command -v script >/dev/null 2>&1") != 0)
        cr_skip_test("script(1) is not installed: no terminal to run judge on");
    char dir[512], cmd[4096], buf[8192];
    gv_test_scratch_dir(dir, sizeof dir, "rowfit");
    snprintf(cmd, sizeof cmd, "'%s' inputs --op vadd --size 1000 --out '%s/c' >/dev/null",
             gv_test_gpuval_bin(), dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    /* c = a: far off a + b, a FAIL with its reason */
    const char *forms[] = {"", " -w", "PIPE"};
    for (int k = 0; k < 3; k++) {
        const char *judge = "judge --case '%s/c/case.json' --outputs '%s/c/a.npy'";
        char args[1200];
        snprintf(args, sizeof args, judge, dir, dir);
        if (k < 2)
            snprintf(cmd, sizeof cmd, "script -qec \"'%s' %s%s\" /dev/null </dev/null",
                     gv_test_gpuval_bin(), args, forms[k]);
        else
            snprintf(cmd, sizeof cmd, "'%s' %s", gv_test_gpuval_bin(), args);
        FILE *p = popen(cmd, "r");
        cr_assert_not_null(p);
        size_t n = fread(buf, 1, sizeof buf - 1, p);
        buf[n] = '\0';
        pclose(p);
        cr_assert_not_null(strstr(buf, "FAIL"), "%s", buf);
        cr_assert_not_null(strstr(buf, "over bound"), "the reason: %s", buf);
        int lines, w = widest(buf, &lines);
        if (k == 0) {
            cr_expect_leq(w, 160, "a row on a terminal fits 160 columns (%d):\n%s", w, buf);
            cr_expect_eq(lines, 4, "header, row, its reason, summary:\n%s", buf);
        } else {
            cr_expect_gt(w, 160, "%s: the row on one line (%d):\n%s", k == 1 ? "-w" : "a pipe", w,
                         buf);
            cr_expect_eq(lines, 3, "header, row, summary:\n%s", buf);
        }
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}
