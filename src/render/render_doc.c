/* render_doc.c: the report of every gpuval document that has no renderer of its own (see
 * render_doc.h): merges (fleet, fleet-perf, fleet-probe), compare, screen, golden, collectives,
 * the op list, case.json of inputs and of a dumped failure. One reading of the JSON serves
 * them all, so a new kind in io/schemas.h renders the day it is written; what it cannot know
 * about a kind it shows as the file holds it. What failed leads, as in check's report. */
#include "render/render_doc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_util.h"
#include "io/schemas.h"
#include "render/render_kit.h"

/* ---- what failed ---------------------------------------------------------------------------- */

/* The members that carry a row's outcome and the values that are a failure: a verdict, a
   compare outcome, a merge's disagreement. A row holding one of them leads the report. */
static const struct {
    const char *member, *bad[3];
} fail_rules[] = {
    {"verdict", {"FAIL", "ERROR", NULL}},
    {"rank_verdict", {"FAIL", "ERROR", NULL}},
    {"outcome", {"REGRESSED", "INCONCLUSIVE", NULL}},
    {"agreement", {"DIFFER", NULL, NULL}}, /* a prefix: "DIFFER: outlier ..." */
};

/* Arrays whose every entry is a failure (a merge's outliers, screen's failures). */
static bool failure_array(const char *name)
{
    return strcmp(name, "outliers") == 0 || strcmp(name, "failures") == 0;
}

/* The member of row that makes it a failure, or NULL. "fail": true (a probe merge's feature
   that failed) and "agree": false (devices that disagree) too. */
const char *gv_render_doc_failed(const json_t *row)
{
    if (!json_is_object(row)) return NULL;
    for (size_t r = 0; r < sizeof fail_rules / sizeof fail_rules[0]; r++) {
        const char *v = json_string_value(json_object_get(row, fail_rules[r].member));
        for (int b = 0; v && fail_rules[r].bad[b]; b++)
            if (strncmp(v, fail_rules[r].bad[b], strlen(fail_rules[r].bad[b])) == 0)
                return fail_rules[r].member;
    }
    if (json_is_true(json_object_get(row, "fail"))) return "fail";
    if (json_is_false(json_object_get(row, "agree"))) return "agree";
    return NULL;
}

/* Whether arr is a non-empty array of numbers and strings only. */
static bool scalar_array(const json_t *arr)
{
    size_t i;
    const json_t *e;
    json_array_foreach(arr, i, e) if (!json_is_number(e) && !json_is_string(e)) return false;
    return json_array_size(arr) > 0;
}

/* A value's display text: strings as they are (escaped by the caller), numbers %.6g or the
   integer, booleans yes/no, null "-"; an array of numbers and strings joined by "x" under a
   member named shape (4x5, as every row prints a shape), else by ", "; anything else compact
   JSON. The text is buf's, the value's own, or in *heap, which the caller frees. */
static const char *cell_text(const char *key, const json_t *v, char *buf, size_t len, char **heap)
{
    *heap = NULL;
    if (json_is_string(v)) return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_real(v)) {
        snprintf(buf, len, "%.6g", json_real_value(v));
        return buf;
    }
    if (json_is_boolean(v)) return json_is_true(v) ? "yes" : "no";
    if (!v || json_is_null(v)) return "-";
    if (json_is_array(v) && scalar_array(v)) {
        const char *sep = key && strcmp(key, "shape") == 0 ? "x" : ", ";
        size_t cap = 64, used = 0;
        char *out = malloc(cap);
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e)
        {
            char num[64], *inner;
            const char *t = cell_text(NULL, e, num, sizeof num, &inner);
            size_t need = used + strlen(sep) + strlen(t) + 1;
            if (out && need > cap) {
                while (cap < need)
                    cap *= 2;
                char *grown = realloc(out, cap);
                if (!grown) free(out);
                out = grown;
            }
            if (out) used += (size_t)sprintf(out + used, "%s%s", i ? sep : "", t);
            free(inner);
        }
        *heap = out;
        return out ? out : "?";
    }
    *heap = json_dumps(v, JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENCODE_ANY);
    return *heap ? *heap : "?";
}

/* What identifies a row, as "key value" pairs of its first few scalar members (op, dtype,
   shape, label, file, ...), and why it failed (its outcome member, then reason/why). */
static void row_what(const json_t *row, const char *member, char *buf, size_t len)
{
    size_t used = 0;
    int shown = 0;
    const char *key;
    const json_t *v;
    buf[0] = '\0';
    json_object_foreach((json_t *)row, key, v)
    {
        if (shown == 6 || used >= len) break;
        bool scalar = json_is_string(v) || json_is_number(v) ||
                      (strcmp(key, "shape") == 0 && scalar_array(v));
        if (!scalar || strcmp(key, "reason") == 0 || strcmp(key, "why") == 0 ||
            (member && strcmp(key, member) == 0)) /* said under why */
            continue;
        char num[64], *heap;
        const char *t = cell_text(key, v, num, sizeof num, &heap);
        used += (size_t)snprintf(buf + used, len - used, "%s%s %s", shown ? ", " : "", key, t);
        free(heap);
        shown++;
    }
}

static void row_why(const json_t *row, const char *member, char *buf, size_t len)
{
    const char *outcome = member ? json_string_value(json_object_get(row, member)) : NULL;
    const char *why = gv_jstr(row, "reason");
    if (!*why) why = gv_jstr(row, "why");
    if (member && !outcome) outcome = member; /* "fail" or "agree": the member itself */
    snprintf(buf, len, "%s%s%s", outcome ? outcome : "", outcome && *why ? ": " : "", why);
}

typedef struct failure_sink {
    FILE *f;
    bool html;
    size_t n;
} failure_sink;

static void failure_row(failure_sink *s, const char *where, const json_t *row, const char *member)
{
    char what[512], why[1024];
    row_what(row, member, what, sizeof what);
    row_why(row, member, why, sizeof why);
    if (s->n++ == 0) {
        if (s->html)
            fputs("<table class=\"failures\"><thead><tr><th>where</th><th>row</th><th>why</th>"
                  "</tr></thead>\n<tbody>\n",
                  s->f);
        else
            gv_rk_md_head(s->f, "where|row|why");
    }
    if (s->html) {
        fputs("<tr>", s->f);
        gv_rk_td_str(s->f, where, NULL);
        gv_rk_td_str(s->f, what, "reason");
        gv_rk_td_str(s->f, why, "reason");
        fputs("</tr>\n", s->f);
    } else {
        fputs("|", s->f);
        gv_rk_md_str(s->f, where);
        gv_rk_md_str(s->f, what);
        gv_rk_md_str(s->f, why);
        fputc('\n', s->f);
    }
}

/* Walk arrays of objects to depth 2 (screen's gpus[i].failures): rows that failed, and every
   entry of an outliers or failures array. */
static void failures_in(failure_sink *s, const json_t *obj, const char *prefix, int depth)
{
    const char *key;
    const json_t *arr;
    json_object_foreach((json_t *)obj, key, arr)
    {
        if (json_is_object(arr)) { /* a case.json's "result", a document's own verdict */
            const char *member = gv_render_doc_failed(arr);
            char where[256];
            snprintf(where, sizeof where, "%s%s", prefix, key);
            if (member) failure_row(s, where, arr, member);
            continue;
        }
        if (!json_is_array(arr)) continue;
        bool all = failure_array(key);
        size_t i;
        const json_t *row;
        json_array_foreach(arr, i, row)
        {
            char where[256];
            snprintf(where, sizeof where, "%s%s[%zu]", prefix, key, i);
            const char *member = json_is_object(row) ? gv_render_doc_failed(row) : NULL;
            if (all && !json_is_object(row)) { /* an outlier named by a string */
                json_t *wrap = json_pack("{s:O}", "entry", row);
                failure_row(s, where, wrap, NULL);
                json_decref(wrap);
            } else if (all || member)
                failure_row(s, where, row, member);
            if (depth < 2 && json_is_object(row)) {
                char sub[300];
                snprintf(sub, sizeof sub, "%s.", where);
                failures_in(s, row, sub, depth + 1);
            }
        }
    }
}

/* ---- the document's own tables -------------------------------------------------------------- */

#define MAX_COLS 48

/* The columns of an array of objects: the members of its rows in first-seen order (up to
   MAX_COLS; the rest are named in a note). */
static size_t columns(const json_t *arr, const char **cols, size_t *dropped)
{
    size_t n = 0, i;
    const json_t *row;
    *dropped = 0;
    json_array_foreach(arr, i, row)
    {
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)row, key, v)
        {
            size_t c = 0;
            while (c < n && strcmp(cols[c], key) != 0)
                c++;
            if (c < n) continue;
            if (n == MAX_COLS)
                ++*dropped;
            else
                cols[n++] = key;
        }
        if (i == 63) break; /* rows of one kind: the first 64 name every member */
    }
    return n;
}

static bool objects_only(const json_t *arr)
{
    size_t i;
    const json_t *row;
    json_array_foreach(arr, i, row) if (!json_is_object(row)) return false;
    return json_array_size(arr) > 0;
}

static void cell(FILE *f, bool html, const char *key, const json_t *v)
{
    char num[64], *heap;
    const char *t = cell_text(key, v, num, sizeof num, &heap);
    if (html)
        gv_rk_td_str(f, t, json_is_number(v) ? "n" : (heap || strlen(t) > 40 ? "reason" : NULL));
    else
        gv_rk_md_str(f, t);
    free(heap);
}

static void table(FILE *f, bool html, const char *name, const json_t *arr)
{
    const char *cols[MAX_COLS];
    size_t dropped, n = columns(arr, cols, &dropped);
    if (html) {
        fputs("<h2>", f);
        gv_rk_esc(f, name);
        fprintf(f, " (%zu)</h2>\n<div class=\"wide\"><table><thead><tr>", json_array_size(arr));
        for (size_t c = 0; c < n; c++) {
            fputs("<th>", f);
            gv_rk_esc(f, cols[c]);
            fputs("</th>", f);
        }
        fputs("</tr></thead>\n<tbody>\n", f);
    } else {
        fputs("\n### ", f);
        gv_rk_md_esc(f, name);
        fprintf(f, " (%zu)\n\n|", json_array_size(arr));
        for (size_t c = 0; c < n; c++)
            gv_rk_md_str(f, cols[c]);
        fputs("\n|", f);
        for (size_t c = 0; c < n; c++)
            fputs(" --- |", f);
        fputc('\n', f);
    }
    size_t i;
    const json_t *row;
    json_array_foreach(arr, i, row)
    {
        fputs(html ? "<tr>" : "|", f);
        for (size_t c = 0; c < n; c++)
            cell(f, html, cols[c], json_object_get(row, cols[c]));
        fputs(html ? "</tr>\n" : "\n", f);
    }
    if (html) fputs("</tbody></table></div>\n", f);
    if (dropped)
        fprintf(f,
                html ? "<p class=\"meta\">%zu more members not shown as columns</p>\n"
                     : "\n%zu more members not shown as columns\n",
                dropped);
}

/* The top-level scalars as one two-column table, then each top-level object as its own. */
static void scalars(FILE *f, bool html, const json_t *doc)
{
    json_t *top = json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)doc, key, v)
    {
        if (!json_is_object(v) && !(json_is_array(v) && objects_only(v)))
            json_object_set(top, key, v);
    }
    if (html) {
        fputs("<div class=\"cols\">\n", f);
        gv_rk_kv_table(f, top, "", "Document");
        json_object_foreach((json_t *)doc, key, v) if (json_is_object(v))
        {
            char ptr[300];
            snprintf(ptr, sizeof ptr, "/%s", key);
            gv_rk_kv_table(f, v, ptr, key);
        }
        fputs("</div>\n", f);
    } else {
        json_t *objs = json_object();
        json_object_set(objs, "document", top);
        json_object_foreach((json_t *)doc, key, v) if (json_is_object(v))
            json_object_set(objs, key, v);
        const char *name;
        json_t *obj;
        json_object_foreach(objs, name, obj)
        {
            if (json_object_size(obj) == 0) continue;
            fputs("\n### ", f);
            gv_rk_md_esc(f, name);
            fputs("\n", f);
            gv_rk_md_head(f, "member|value");
            json_object_foreach(obj, key, v)
            {
                fputs("|", f);
                gv_rk_md_str(f, key);
                cell(f, false, key, v);
                fputc('\n', f);
            }
        }
        json_decref(objs);
    }
    json_decref(top);
}

/* What a kind is, from the schema table: "written by ..." */
static void kind_line(char *buf, size_t len, const char *schema)
{
    gv_doc_kind k = gv_doc_kind_of(schema);
    const gv_doc_info *row = k < GV_DOC_COUNT ? gv_doc(k) : NULL;
    snprintf(buf, len, "%s%s", row ? "written by " : "", row ? row->writers : "");
}

static void render(FILE *f, const json_t *doc, bool html)
{
    const char *schema = gv_jstr(doc, "schema");
    char kind[256];
    kind_line(kind, sizeof kind, schema);
    failure_sink s = {.f = f, .html = html};
    if (html) {
        gv_rk_page_begin(f, schema);
        fputs("<h1>gpuval document: ", f);
        gv_rk_esc(f, schema);
        fputs("</h1>\n<p class=\"meta\">", f);
        gv_rk_esc(f, kind);
        fputs("</p>\n<section id=\"failures\"><h2>Failures</h2>\n", f);
    } else {
        fputs("## gpuval document: ", f);
        gv_rk_md_esc(f, schema);
        fputs("\n\n", f);
        gv_rk_md_esc(f, kind);
        fputs("\n\n### Failures\n", f);
    }
    const char *member = gv_render_doc_failed(doc); /* a case.json is one case */
    if (member) failure_row(&s, "document", doc, member);
    failures_in(&s, doc, "", 1);
    if (s.n == 0)
        fputs(html ? "<p class=\"PASS\">nothing failed</p>\n" : "\nnothing failed\n", f);
    else if (html)
        fputs("</tbody></table>\n", f);
    if (html) fputs("</section>\n", f);
    scalars(f, html, doc);
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)doc, key, v) if (json_is_array(v) && objects_only(v))
        table(f, html, key, v);
    if (html) gv_rk_page_end(f);
}

void gv_render_doc_html(FILE *f, const json_t *doc)
{
    render(f, doc, true);
}

void gv_render_doc_md(FILE *f, const json_t *doc)
{
    render(f, doc, false);
}
