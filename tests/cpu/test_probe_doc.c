/* test_probe_doc.c: probe documents (gpuval-probe/1) in the regression loop, without a GPU:
 * written by the probe wing's own writer (src/probe/probe_doc.c) from synthetic measurements
 * judged by the shipped probe/sm_90.expect, then read back by the strict reader, compared
 * (`gpuval compare`), rendered (`gpuval report`) and merged (`gpuval merge`) through the real
 * binary. Every test also runs on tests/fixtures/probe-h100.json when that file exists (a
 * document a GPU wrote): what it edits and expects is derived from the document, never typed
 * in. GPUVAL and GPUVAL_SRCDIR come from tests/meson.build. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gv.h"
#include "core/registry.h"
#include "io/probe_read.h"
#include "io/run_read.h"
#include "probe/expect.h"
#include "probe/probe_doc.h"
#include "testkit.h"

/* paths are a scratch directory and short names, values a rule's short text: never near the
   buffers' sizes */
#pragma GCC diagnostic ignored "-Wformat-truncation"

static const char *srcdir(void)
{
    const char *s = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(s, "GPUVAL_SRCDIR must name the source tree");
    return s;
}

/* ---- the generator: synthetic measurements through the writer ---------------------------- */

/* A value rule r accepts, derived from its text: the first alternative of "a|b", N of ">=N"
   and of "N..M", the literal else; "n/a" where there is no rule or it is '?'. */
static void value_meeting(const gv_fp_rule *r, char *buf, size_t len)
{
    if (!r || strcmp(r->value, "?") == 0) {
        snprintf(buf, len, "n/a");
        return;
    }
    const char *v = r->value;
    if (strncmp(v, ">=", 2) == 0) v += 2;
    snprintf(buf, len, "%s", v);
    buf[strcspn(buf, "|")] = '\0';
    char *dots = strstr(buf, "..");
    if (dots) *dots = '\0';
}

/* The probe document of one synthetic device (index dev) in path: gemm.cublas f32 native,
   f32 tf32 and f64 native measured as sm_90.expect says, but f32 native's in_bits_A, which
   measures 11 (TF32 under the native label: a FAIL), and f32 fp8 skipped. */
static void write_generated(const char *path, int dev)
{
    char ep[600], err[700];
    snprintf(ep, sizeof ep, "%s/probe/sm_90.expect", srcdir());
    static gv_fp_expect ex; /* the rows point into its rules until the document is built */
    cr_assert_eq(gv_fp_expect_read(ep, &ex, err, sizeof err), GV_OK, "%s", err);
    const gv_op *op = gv_op_find("gemm.cublas");
    cr_assert_not_null(op);
    static const struct {
        gv_dtype t;
        gv_mode m;
    } which[] = {{GV_F32, GV_MODE_NATIVE},
                 {GV_F32, GV_MODE_TF32},
                 {GV_F64, GV_MODE_NATIVE},
                 {GV_F32, GV_MODE_FP8}};
    gv_probe_row rows[4];
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < 4; i++) {
        gv_probe_row *r = &rows[i];
        r->op = op;
        r->dtype = which[i].t;
        r->mode = which[i].m;
        snprintf(r->math_mode, sizeof r->math_mode, "synthetic");
        if (i == 3) {
            r->skipped = true;
            snprintf(r->why, sizeof r->why, "synthetic: the mode is not run here");
            continue;
        }
        r->fp.calls = 40;
        for (int f = 0; f < GV_FP_NFEATURES; f++) {
            r->rule[f] = gv_fp_expect_find(&ex, op->name, r->dtype, r->mode, f);
            gv_fp_value *v = &r->fp.f[f];
            value_meeting(r->rule[f], v->text, sizeof v->text);
            if (i == 0 && f == GV_FP_IN_BITS_A) snprintf(v->text, sizeof v->text, "11");
            /* sm_90 leaves nothing of these rows NEW now: one feature judged as a new GPU's */
            if (i == 2 && f == GV_FP_ORDER) r->rule[f] = NULL;
            v->num = atof(v->text);
            snprintf(v->detail, sizeof v->detail, "synthetic %s", gv_fp_feature_name(f));
            r->v[f] = gv_fp_judge(r->rule[f], v);
            r->fails += r->v[f] == GV_FP_FAIL;
        }
    }
    json_t *shared =
        json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i}, "
                  "s:{s:i, s:s}}",
                  "command", "probe", "argv", "gpuval probe --json (synthetic)", "host", "hostname",
                  "node1", "device", "name", "Synthetic H100", "uuid", "GPU-synthetic", "cc_major",
                  9, "cc_minor", 0, "sm_count", 132, "driver_version", 13000, "runtime_version",
                  13000, "cublas_version", 130000, "fleet", "device_index", dev, "host", "node1");
    cr_assert_not_null(shared);
    gv_probe_doc_info di = {.shared = shared, .expect = &ex, .repeat = 1, .seconds = 0.5};
    json_t *doc = gv_probe_doc_json(&di, rows, 4);
    cr_assert_not_null(doc);
    cr_assert_eq(json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS), 0, "write %s", path);
    json_decref(doc);
    gv_fp_expect_free(&ex);
}

/* ---- documents and their edits ------------------------------------------------------------ */

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *d = json_load_file(path, 0, &e);
    cr_assert_not_null(d, "%s: %s", path, e.text);
    return d;
}

static void save(json_t *d, const char *path)
{
    cr_assert_eq(json_dump_file(d, path, JSON_INDENT(1) | JSON_SORT_KEYS), 0, "write %s", path);
}

/* The first measured row of d (its index in *at), with at least one feature. */
static json_t *first_measured(json_t *d, size_t *at)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(d, "rows"), i, r)
    {
        if (!json_object_get(r, "skipped") && json_object_size(json_object_get(r, "features"))) {
            if (at) *at = i;
            return r;
        }
    }
    cr_assert_fail("no measured row");
    return NULL;
}

/* A value unlike old. */
static const char *other_value(const char *old)
{
    return strcmp(old, "999") != 0 ? "999" : "998";
}

/* Edit the first feature of the first measured row of d to another value: its row key,
   feature name and both values into the buffers. */
static void edit_value(json_t *d, char *row, char *feature, char *was, char *now)
{
    json_t *r = first_measured(d, NULL);
    void *it = json_object_iter(json_object_get(r, "features"));
    json_t *x = json_object_iter_value(it);
    gv_probe_row_key(r, row, 256);
    snprintf(feature, 64, "%s", json_object_iter_key(it));
    snprintf(was, 64, "%s", json_string_value(json_object_get(x, "value")));
    snprintf(now, 64, "%s", other_value(was));
    json_object_set_new(x, "value", json_string(now));
}

/* Where the documents of a test live, and which base documents it runs on. */
typedef struct place {
    char dir[512];
    char base[2][700]; /* the generated document, and the GPU's fixture when there is one */
    int n;
} place;

static void setup(place *p, const char *tag)
{
    gv_test_scratch_dir(p->dir, sizeof p->dir, tag);
    snprintf(p->base[0], sizeof p->base[0], "%s/gen.json", p->dir);
    write_generated(p->base[0], 0);
    p->n = 1;
    snprintf(p->base[1], sizeof p->base[1], "%s/tests/fixtures/probe-h100.json", srcdir());
    if (access(p->base[1], R_OK) == 0) p->n = 2;
}

static int run(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char *out, size_t len, const char *fmt, ...)
{
    char args[3000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return gv_test_run_cli(args, out, len);
}

/* ---- the writer and the reader meet ------------------------------------------------------- */

Test(probe_doc, the_writer_writes_what_the_strict_reader_takes)
{
    place p;
    setup(&p, "pdoc");
    for (int b = 0; b < p.n; b++) {
        json_t *d;
        char err[1024];
        cr_assert_eq(gv_run_read(p.base[b], NULL, &d, err, sizeof err), GV_OK, "%s", err);
        json_t *r = first_measured(d, NULL);
        /* every feature the probe measures is in a measured row of the writer's document */
        if (b == 0)
            for (int f = 0; f < GV_FP_NFEATURES; f++)
                cr_expect_not_null(
                    json_object_get(json_object_get(r, "features"), gv_fp_feature_name(f)), "%s",
                    gv_fp_feature_name(f));
        json_decref(d);
    }
    /* the generated document has each verdict: the tests below see FAIL, PASS and NEW */
    json_t *g = load(p.base[0]);
    cr_expect_gt(json_integer_value(json_object_get(json_object_get(g, "summary"), "fail")), 0);
    cr_expect_gt(json_integer_value(json_object_get(json_object_get(g, "summary"), "pass")), 0);
    cr_expect_gt(json_integer_value(json_object_get(json_object_get(g, "summary"), "new")), 0);
    json_decref(g);
    gv_test_remove_dir(p.dir);
}

/* ---- compare ------------------------------------------------------------------------------ */

Test(probe_doc, compare_of_a_document_with_itself_is_same, .timeout = 60)
{
    place p;
    setup(&p, "pcmp");
    static char out[1 << 16];
    for (int b = 0; b < p.n; b++) {
        int rc = run(out, sizeof out, "compare '%s' '%s'", p.base[b], p.base[b]);
        cr_expect_eq(rc, 0, "%s: exit %d\n%s", p.base[b], rc, out);
        cr_expect(strstr(out, "outcome: SAME"), "%s", out);
        cr_expect(strstr(out, "0 regressed"), "%s", out);
    }
    gv_test_remove_dir(p.dir);
}

Test(probe_doc, a_changed_feature_is_changed_and_exit_4, .timeout = 60)
{
    place p;
    setup(&p, "pchg");
    static char out[1 << 16], js[1 << 16];
    for (int b = 0; b < p.n; b++) {
        json_t *d = load(p.base[b]);
        char row[256], feature[64], was[64], now[64], edited[800], line[512];
        edit_value(d, row, feature, was, now);
        snprintf(edited, sizeof edited, "%s/edited.json", p.dir);
        save(d, edited);
        json_decref(d);
        int rc =
            run(out, sizeof out, "compare '%s' '%s' --json '%s/c.json'", p.base[b], edited, p.dir);
        cr_expect_eq(rc, 4, "exit %d\n%s", rc, out);
        /* "gemm.cublas f32/native in_bits_A  value  24 -> 999  REGRESSED  CHANGED; ..." */
        snprintf(line, sizeof line, "%s -> %s", was, now);
        cr_expect(strstr(out, feature), "names %s:\n%s", feature, out);
        cr_expect(strstr(out, line), "shows %s:\n%s", line, out);
        cr_expect(strstr(out, "CHANGED"), "%s", out);
        cr_expect(strstr(out, "expected"), "with the expectation:\n%s", out);
        cr_expect(strstr(out, "outcome: REGRESSED"), "%s", out);
        cr_expect(strstr(out, "base: ") && strstr(out, "new:  "), "the devices:\n%s", out);
        /* the JSON of the comparison says the same and the exit code */
        snprintf(line, sizeof line, "%s/c.json", p.dir);
        gv_test_slurp(line, js, sizeof js);
        json_t *c = json_loads(js, 0, NULL);
        cr_assert_not_null(c, "%s", js);
        cr_expect_str_eq(json_string_value(json_object_get(c, "kind")), "probe");
        cr_expect_eq(json_integer_value(json_object_get(c, "exit_code")), 4);
        cr_expect_eq(json_integer_value(json_object_get(json_object_get(c, "counts"), "REGRESSED")),
                     1);
        json_decref(c);
        /* -q: the changed feature on a line of its own, then one summary line; no table, no
           device lines, and no geometric mean, which a value that changed does not have */
        rc = run(out, sizeof out, "compare -q '%s' '%s'", p.base[b], edited);
        cr_expect_eq(rc, 4);
        cr_expect(strncmp(out, "REGRESSED ", 10) == 0, "the change first:\n%s", out);
        char change[160];
        snprintf(change, sizeof change, "%s -> %s", was, now);
        cr_expect(strstr(out, change) && strstr(out, "CHANGED"), "the change:\n%s", out);
        cr_expect(!strstr(out, "what changed") && !strstr(out, "base: "), "-q:\n%s", out);
        const char *nl = strchr(out, '\n');
        cr_expect(nl && strstr(nl + 1, "no geomean (probe features are values, not ratios); "
                                       "outcome: REGRESSED\n"),
                  "%s", out);
        cr_expect(nl && strchr(nl + 1, '\n') && !strchr(nl + 1, '\n')[1], "two lines:\n%s", out);
    }
    gv_test_remove_dir(p.dir);
}

Test(probe_doc, a_row_on_one_side_only_is_inconclusive_exit_5, .timeout = 60)
{
    place p;
    setup(&p, "prow");
    static char out[1 << 16];
    for (int b = 0; b < p.n; b++) {
        json_t *d = load(p.base[b]);
        size_t at;
        char key[256], less[800];
        gv_probe_row_key(first_measured(d, &at), key, sizeof key);
        json_array_remove(json_object_get(d, "rows"), at);
        snprintf(less, sizeof less, "%s/less.json", p.dir);
        save(d, less);
        json_decref(d);
        int rc = run(out, sizeof out, "compare '%s' '%s'", p.base[b], less);
        cr_expect_eq(rc, 5, "a mode gone: exit %d\n%s", rc, out);
        cr_expect(strstr(out, "only in base: ") && strstr(out, key), "names %s:\n%s", key, out);
        cr_expect(strstr(out, "outcome: INCONCLUSIVE"), "%s", out);
        rc = run(out, sizeof out, "compare '%s' '%s'", less, p.base[b]);
        cr_expect_eq(rc, 5, "a mode new: exit %d\n%s", rc, out);
        cr_expect(strstr(out, "only in new:") && strstr(out, key), "%s", out);
    }
    gv_test_remove_dir(p.dir);
}

Test(probe_doc, a_probe_document_and_a_check_run_are_not_compared, .timeout = 60)
{
    place p;
    setup(&p, "pmix");
    static char out[1 << 14];
    int rc = run(out, sizeof out, "compare '%s' '%s/tests/fixtures/check-h100.json'", p.base[0],
                 srcdir());
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "cannot compare a probe document"), "%s", out);
    rc = run(out, sizeof out, "compare '%s/tests/fixtures/check-h100.json' '%s'", srcdir(),
             p.base[0]);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, out);
    cr_expect(strstr(out, "cannot compare a probe document"), "%s", out);
    gv_test_remove_dir(p.dir);
}

/* ---- report ------------------------------------------------------------------------------- */

Test(probe_doc, report_puts_the_failed_rows_and_features_first, .timeout = 60)
{
    place p;
    setup(&p, "prep");
    static char out[1 << 14], html[1 << 20], md[1 << 20];
    for (int b = 0; b < p.n; b++) {
        /* the one FAIL planted in the last measured row's last feature (any other FAIL made a
           PASS): it must come first */
        json_t *d = load(p.base[b]);
        json_t *rows = json_object_get(d, "rows"), *last = NULL;
        size_t i;
        json_t *r;
        json_array_foreach(rows, i, r)
        {
            if (json_object_get(r, "skipped")) continue;
            last = r;
            const char *k;
            json_t *v;
            json_object_foreach(json_object_get(r, "features"), k, v)
            {
                if (strcmp(json_string_value(json_object_get(v, "verdict")), "FAIL") == 0)
                    json_object_set_new(v, "verdict", json_string("PASS"));
            }
        }
        cr_assert_not_null(last);
        const char *fname = NULL, *k;
        json_t *x = NULL, *v;
        json_object_foreach(json_object_get(last, "features"), k, v)
        {
            fname = k;
            x = v;
        }
        json_object_set_new(x, "verdict", json_string("FAIL"));
        char row_title[300], feature[64], fail_doc[800];
        snprintf(row_title, sizeof row_title, "%s %s %s",
                 json_string_value(json_object_get(last, "op")),
                 json_string_value(json_object_get(last, "dtype")),
                 json_string_value(json_object_get(last, "mode")));
        snprintf(feature, sizeof feature, "%s", fname);
        snprintf(fail_doc, sizeof fail_doc, "%s/fail.json", p.dir);
        save(d, fail_doc);
        json_decref(d);
        int rc = run(out, sizeof out, "report '%s' --html '%s/r.html' --md '%s/r.md'", fail_doc,
                     p.dir, p.dir);
        cr_assert_eq(rc, 0, "exit %d\n%s", rc, out);
        char path[800];
        snprintf(path, sizeof path, "%s/r.html", p.dir);
        gv_test_slurp(path, html, sizeof html);
        snprintf(path, sizeof path, "%s/r.md", p.dir);
        gv_test_slurp(path, md, sizeof md);
        /* HTML: the first row section is the planted row, its first feature the planted one */
        const char *h2 = strstr(html, "<h2>");
        cr_assert_not_null(h2, "%.2000s", html);
        cr_expect(strncmp(h2 + 4, row_title, strlen(row_title)) == 0, "first row %.80s, want %s",
                  h2 + 4, row_title);
        const char *tr = strstr(h2, "<tbody>");
        cr_assert_not_null(tr);
        char cell[128];
        snprintf(cell, sizeof cell, "<tr><td>%s</td>", feature);
        cr_expect(strncmp(tr + strlen("<tbody>\n"), cell, strlen(cell)) == 0,
                  "first feature %.120s, want %s", tr, feature);
        cr_expect(strstr(html, "<td class=\"FAIL\">FAIL</td>"), "the verdict cell");
        /* Markdown: the same order, the FAIL in bold */
        const char *h3 = strstr(md, "\n### ");
        cr_assert_not_null(h3, "%.2000s", md);
        cr_expect(strncmp(h3 + 5, row_title, strlen(row_title)) == 0, "first row %.80s", h3 + 5);
        const char *sep = strstr(h3, "| --- |");
        cr_assert_not_null(sep);
        const char *first = strchr(sep, '\n');
        cr_assert_not_null(first);
        snprintf(cell, sizeof cell, "\n| %s |", feature);
        cr_expect(strncmp(first, cell, strlen(cell)) == 0, "first feature %.120s", first);
        cr_expect(strstr(first, "**FAIL**"), "%.200s", first);
    }
    gv_test_remove_dir(p.dir);
}

/* ---- merge -------------------------------------------------------------------------------- */

/* Copies of base as devices 0, 1, 2 in dir (p0.json ...); device 2's first feature edited
   when edit (its row, feature and values into the buffers). */
static void three_devices(const char *base, const char *dir, bool edit, char *row, char *feature,
                          char *was, char *now)
{
    for (int k = 0; k < 3; k++) {
        json_t *d = load(base);
        json_t *fleet = json_object_get(d, "fleet");
        if (!json_is_object(fleet)) {
            fleet = json_object();
            json_object_set_new(d, "fleet", fleet);
        }
        json_object_set_new(fleet, "device_index", json_integer(k));
        json_object_del(fleet, "rank");
        if (edit && k == 2) edit_value(d, row, feature, was, now);
        char path[800];
        snprintf(path, sizeof path, "%s/p%d.json", dir, k);
        save(d, path);
        json_decref(d);
    }
}

Test(probe_doc, merge_names_the_device_that_differs_exit_6, .timeout = 60)
{
    place p;
    setup(&p, "pmrg");
    static char out[1 << 16];
    for (int b = 0; b < p.n; b++) {
        char row[256], feature[64], was[64], now[64], want[512];
        three_devices(p.base[b], p.dir, true, row, feature, was, now);
        int rc = run(out, sizeof out,
                     "merge -q '%s/p0.json' '%s/p1.json' '%s/p2.json' --json "
                     "'%s/f.json'",
                     p.dir, p.dir, p.dir, p.dir);
        cr_expect_eq(rc, 6, "exit %d\n%s", rc, out);
        /* "OUTLIER dev2 (DIR/p2.json): gemm.cublas f32/native in_bits_A = 999; the others..." */
        snprintf(want, sizeof want, "OUTLIER dev2 (%s/p2.json): %s %s = %s", p.dir, row, feature,
                 now);
        cr_expect(strstr(out, want), "wants '%s' in:\n%s", want, out);
        snprintf(want, sizeof want, "the others of its group: %s", was);
        cr_expect(strstr(out, want), "wants '%s' in:\n%s", want, out);
        cr_expect(!strstr(out, "OUTLIER dev0") && !strstr(out, "OUTLIER dev1"), "%s", out);
        char path[800];
        snprintf(path, sizeof path, "%s/f.json", p.dir);
        json_t *f = load(path);
        json_t *o = json_array_get(json_object_get(f, "outliers"), 0);
        cr_expect_eq(json_array_size(json_object_get(f, "outliers")), 1);
        cr_expect_str_eq(json_string_value(json_object_get(o, "device")), "dev2");
        cr_expect_str_eq(json_string_value(json_object_get(o, "feature")), feature);
        json_decref(f);
    }
    gv_test_remove_dir(p.dir);
}

Test(probe_doc, merge_of_agreeing_devices_is_not_an_outlier, .timeout = 60)
{
    place p;
    setup(&p, "pagr");
    static char out[1 << 16];
    for (int b = 0; b < p.n; b++) {
        three_devices(p.base[b], p.dir, false, NULL, NULL, NULL, NULL);
        json_t *d = load(p.base[b]);
        bool fails = json_integer_value(json_object_get(json_object_get(d, "summary"), "fail")) > 0;
        json_decref(d);
        int rc = run(out, sizeof out, "merge '%s/p0.json' '%s/p1.json' '%s/p2.json'", p.dir, p.dir,
                     p.dir);
        /* no disagreement: a FAIL of the expectations (the generated document has one) is 1 */
        cr_expect_eq(rc, fails ? 1 : 0, "exit %d\n%s", rc, out);
        cr_expect(!strstr(out, "OUTLIER "), "%s", out);
        cr_expect(strstr(out, " 0 disagree"), "%s", out);
    }
    gv_test_remove_dir(p.dir);
}

/* ---- malformed documents ------------------------------------------------------------------ */

Test(probe_doc, a_malformed_document_is_exit_2_naming_file_and_member, .timeout = 120)
{
    place p;
    setup(&p, "pbad");
    static char out[1 << 14];
    /* each break: the member the message must name */
    static const struct {
        const char *what, *member;
    } breaks[] = {
        {"verdict", "verdict: 'MAYBE' is not PASS, FAIL or NEW"},
        {"value", ".value: not a non-empty string"},
        {"rows", "rows: missing or not an array"},
        {"twin", "the same row as row"},
    };
    for (size_t k = 0; k < sizeof breaks / sizeof breaks[0]; k++) {
        json_t *d = load(p.base[0]);
        json_t *r = first_measured(d, NULL);
        json_t *x = json_object_iter_value(json_object_iter(json_object_get(r, "features")));
        if (strcmp(breaks[k].what, "verdict") == 0)
            json_object_set_new(x, "verdict", json_string("MAYBE"));
        else if (strcmp(breaks[k].what, "value") == 0)
            json_object_set_new(x, "value", json_integer(24));
        else if (strcmp(breaks[k].what, "rows") == 0)
            json_object_del(d, "rows");
        else
            json_array_append(json_object_get(d, "rows"), r);
        char bad[800];
        snprintf(bad, sizeof bad, "%s/bad.json", p.dir);
        save(d, bad);
        json_decref(d);
        static const char *const cmds[] = {"compare '%s' '%s'", "report '%s' --md '%s.md'",
                                           "merge '%s' '%s'"};
        for (int c = 0; c < 3; c++) {
            const char *other = c == 1 ? p.dir : p.base[0];
            int rc = run(out, sizeof out, cmds[c], c == 1 ? bad : other, c == 1 ? other : bad);
            cr_expect_eq(rc, 2, "%s, %s: exit %d\n%s", breaks[k].what, cmds[c], rc, out);
            cr_expect(strstr(out, bad), "names the file:\n%s", out);
            cr_expect(strstr(out, breaks[k].member), "%s: wants '%s' in:\n%s", cmds[c],
                      breaks[k].member, out);
        }
    }
    gv_test_remove_dir(p.dir);
}
