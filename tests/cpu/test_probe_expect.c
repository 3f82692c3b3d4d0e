/* test_probe_expect.c: every rule of the probe's expectation files (src/probe/expect.h), one
 * test each, through the reader's public functions: what it refuses (each with the file and the
 * line), what it accepts, and how a rule judges a measured value. tests/cpu/probe_fprint.c
 * holds the shipped files and a few of these; here each rule of expect.h's list stands alone,
 * with a file on each side of it. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gv.h"
#include "probe/expect.h"

static char tmp_path[64];

static const char *write_tmp(const char *text)
{
    snprintf(tmp_path, sizeof tmp_path, "/tmp/gv_expect_rule_XXXXXX");
    int fd = mkstemp(tmp_path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
    return tmp_path;
}

/* text must be refused (GV_EINVAL) with "PATH:LINE:" (line 0: "PATH:") and fault in the
   message, and nothing kept. */
static void refused(const char *text, int line, const char *fault)
{
    const char *p = write_tmp(text);
    gv_fp_expect e;
    char err[512] = "", where[128];
    int rc = gv_fp_expect_read(p, &e, err, sizeof err);
    cr_expect_eq(rc, GV_EINVAL, "accepted: %s", text);
    snprintf(where, sizeof where, line ? "%s:%d:" : "%s:", p, line);
    cr_expect(strncmp(err, where, strlen(where)) == 0, "'%s' should start with '%s'", err, where);
    cr_expect(strstr(err, fault) != NULL, "'%s' should say '%s'", err, fault);
    cr_expect(e.rules == NULL && e.n == 0, "a refused file is not read in part");
    unlink(p);
}

/* text must be read; the caller frees e. */
static void accepted(const char *text, gv_fp_expect *e)
{
    const char *p = write_tmp(text);
    char err[512] = "";
    cr_assert_eq(gv_fp_expect_read(p, e, err, sizeof err), GV_OK, "%s: %s", text, err);
    unlink(p);
}

static gv_fp_value measured(const char *text, double num)
{
    gv_fp_value v = {.num = num};
    snprintf(v.text, sizeof v.text, "%s", text);
    return v;
}

/* The verdict of rule value `want` on a measured value. */
static gv_fp_verdict judge(const char *want, const char *text, double num)
{
    gv_fp_rule r;
    memset(&r, 0, sizeof r);
    snprintf(r.value, sizeof r.value, "%s", want);
    gv_fp_value v = measured(text, num);
    return gv_fp_judge(&r, &v);
}

#define HEAD "version 1\narch sm_90\n"

Test(probe_expect_rules, version_is_required_first_and_once_and_exactly_1)
{
    refused("arch sm_90\n", 1, "the first line must be 'version 1'");
    refused("# a comment first is fine, then a rule\n* * * * ?\n", 2, "'version 1'");
    refused("version 2\narch sm_90\n", 1, "version 2");
    refused("version 01\narch sm_90\n", 1, "version 01");
    refused("version 1\nversion 1\narch sm_90\n", 2, "a second 'version' line");
    /* a version line with a stray word is named as such, not as a missing version line */
    refused("version 1 2\narch sm_90\n", 1, "'version' takes one word, got 2");
    refused("version\narch sm_90\n", 1, "'version' takes one word, got 0");
    refused("version 1\narch sm_90\nversion 1 2\n", 3, "'version' takes one word, got 2");
    gv_fp_expect e;
    accepted("# comments and blank lines before it\n\nversion 1\narch sm_90\n", &e);
    cr_expect_eq(e.version, 1);
    gv_fp_expect_free(&e);
}

Test(probe_expect_rules, arch_is_required_once_as_sm_digits_a_letter_or_star)
{
    refused("version 1\n", 0, "no 'arch' line");
    refused("version 1\narch hopper\n", 2, "architecture 'hopper'");
    refused("version 1\narch sm_\n", 2, "architecture");
    refused("version 1\narch sm_90ab\n", 2, "architecture");
    refused("version 1\narch sm_90A\n", 2, "architecture");    /* a lower-case letter only */
    refused("version 1\narch sm_123456\n", 2, "architecture"); /* at most four digits */
    refused("version 1\narch sm_90\narch sm_90\n", 3, "a second arch line");
    refused("version 1\narch sm_90 sm_80\n", 2, "'arch' takes one word, got 2");
    const char *ok[] = {"sm_90", "sm_90a", "sm_100", "sm_1234", "*"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "version 1\narch %s\n", ok[i]);
        gv_fp_expect e;
        accepted(text, &e);
        cr_expect_str_eq(e.arch, ok[i]);
        cr_expect_eq(e.n, 0);
        gv_fp_expect_free(&e);
    }
}

Test(probe_expect_rules, a_rule_is_five_words)
{
    refused(HEAD "* f32 tf32 block\n", 3, "expected OPS DTYPE MODE FEATURE VALUE, got 4 words");
    refused(HEAD "* f32 tf32 block 8 16\n", 3, "got 6 words");
    refused(HEAD "*\n", 3, "got 1 words");
}

Test(probe_expect_rules, comments_and_sources)
{
    gv_fp_expect e;
    accepted(HEAD "# a whole-line comment\n   \n"
                  "* f32 tf32 block 8 #   KM25, table 2\n"
                  "* f32 tf32 order sequential\n",
             &e);
    cr_assert_eq(e.n, 2);
    cr_expect_str_eq(e.rules[0].source, "KM25, table 2", "'#' starts the rule's citation");
    cr_expect_eq(e.rules[0].line, 5);
    cr_expect_str_eq(e.rules[1].source, "");
    cr_expect_eq(e.rules[1].line, 6);
    gv_fp_expect_free(&e);
    /* a '#' inside a word ends the rule there: the words after it are the citation */
    refused(HEAD "* f32 tf32 block#8\n", 3, "got 4 words");
}

Test(probe_expect_rules, ops_is_any_glob_that_fits)
{
    char text[256];
    snprintf(text, sizeof text, HEAD "%s f32 tf32 block 8\n",
             "gemm.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    refused(text, 3, "OPS longer than 63 bytes");
    gv_fp_expect e;
    accepted(HEAD "gemm.cublas* f32 tf32 block 8\n[gv]emm.? f32 tf32 block 8\n", &e);
    cr_expect_eq(e.n, 2);
    gv_fp_expect_free(&e);
}

Test(probe_expect_rules, dtype_and_mode_globs_must_name_one_that_exists)
{
    refused(HEAD "* f16 tf32 block 8\n", 3, "unknown DTYPE");
    refused(HEAD "* f********** tf32 block 8\n", 3, "unknown DTYPE"); /* too long to keep */
    refused(HEAD "* f32 warp block 8\n", 3, "unknown MODE");
    refused(HEAD "* f32 t*************** block 8\n", 3, "unknown MODE");
    refused(HEAD "* f32,f64 * block 8\n", 3, "unknown DTYPE"); /* a glob, not a list */
    gv_fp_expect e;
    accepted(HEAD "* f* fp64emu4? row_bits >=40\n* f[36]? [nt]* block 8\n", &e);
    cr_expect_eq(e.n, 2);
    gv_fp_expect_free(&e);
}

Test(probe_expect_rules, feature_is_a_feature_name_or_star)
{
    refused(HEAD "* f32 tf32 blocks 8\n", 3, "unknown FEATURE");
    refused(HEAD "* f32 tf32 bl* 8\n", 3, "unknown FEATURE"); /* no globs here */
    for (int f = 0; f < GV_FP_NFEATURES; f++) {
        char text[128];
        snprintf(text, sizeof text, HEAD "* * * %s ?\n", gv_fp_feature_name(f));
        gv_fp_expect e;
        accepted(text, &e);
        gv_fp_expect_free(&e);
    }
}

Test(probe_expect_rules, values_that_are_refused)
{
    const char *bad[] = {">=8x", ">=",    ">=nan", ">=inf", ">= 8", "8..", "..8", "16..8", "1..nan",
                         "<=8",  "8||16", "8|",    "|8",    "?|8",  "8?",  "a b", "8*",    "\"8\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, HEAD "* f32 tf32 block %s\n", bad[i]);
        refused(text, 3, strchr(bad[i], ' ') ? "got 6 words" : "bad VALUE");
    }
    char text[128];
    snprintf(text, sizeof text, HEAD "* f32 tf32 block %s\n",
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"); /* 48 bytes: no room */
    refused(text, 3, "bad VALUE");
}

Test(probe_expect_rules, values_that_are_read)
{
    const char *good[] = {
        "?",         "8",         "RNE",        "n/a",
        "fp8_e4m3",  "a+b-c.d",   ">=8",        ">=-1.5",
        ">=1e3",     "8..8",      "13..14",     "-1..0",
        "0x10..1e2", "13..14|24", "RNE|RZ|n/a", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, HEAD "* f32 tf32 block %s\n", good[i]);
        gv_fp_expect e;
        accepted(text, &e);
        cr_expect_str_eq(e.rules[0].value, good[i]);
        gv_fp_expect_free(&e);
    }
}

Test(probe_expect_rules, a_line_too_long_is_refused)
{
    char text[1200];
    int n = snprintf(text, sizeof text, HEAD "* f32 tf32 block 8 # ");
    memset(text + n, 'x', 1100);
    text[n + 1100] = '\n';
    text[n + 1101] = '\0';
    refused(text, 3, "line longer than");
}

Test(probe_expect_rules, files_that_cannot_be_read_are_eio)
{
    gv_fp_expect e;
    char err[512] = "";
    cr_expect_eq(gv_fp_expect_read("/nonexistent/sm_90.expect", &e, err, sizeof err), GV_EIO);
    cr_expect(strstr(err, "/nonexistent/sm_90.expect") != NULL, "%s", err);
    cr_expect_eq(gv_fp_expect_read("/tmp", &e, err, sizeof err), GV_EIO);
    cr_expect(strstr(err, "not a regular file") != NULL, "%s", err);
}

/* ---- how a rule judges ---- */

Test(probe_expect_rules, a_literal_word_is_the_measured_text_exactly)
{
    cr_expect_eq(judge("RNE", "RNE", NAN), GV_FP_PASS);
    cr_expect_eq(judge("RNE", "rne", NAN), GV_FP_FAIL, "case counts");
    cr_expect_eq(judge("n/a", "n/a", NAN), GV_FP_PASS);
    cr_expect_eq(judge("n/a", "0", 0), GV_FP_FAIL);
}

/* A numeric literal is a number: "8" in a file and "8.0" measured (or "1e1" and "10") are the
   same value; text comparison FAILed them. Different numbers still FAIL. */
Test(probe_expect_rules, a_literal_number_is_compared_as_a_number)
{
    cr_expect_eq(judge("8", "8", 8), GV_FP_PASS);
    cr_expect_eq(judge("8", "8.0", 8), GV_FP_PASS, "8 and 8.0 are one value");
    cr_expect_eq(judge("8.0", "8", 8), GV_FP_PASS);
    cr_expect_eq(judge("1e1", "10", 10), GV_FP_PASS);
    cr_expect_eq(judge("8", "9", 9), GV_FP_FAIL);
    cr_expect_eq(judge("8", "8.5", 8.5), GV_FP_FAIL);
    cr_expect_eq(judge("11|8", "8.0", 8), GV_FP_PASS, "within alternatives too");
    cr_expect_eq(judge("8", "n/a", NAN), GV_FP_FAIL, "a word is no number");
}

Test(probe_expect_rules, at_least_n)
{
    cr_expect_eq(judge(">=8", "8", 8), GV_FP_PASS);
    cr_expect_eq(judge(">=8", "9", 9), GV_FP_PASS);
    cr_expect_eq(judge(">=8", "7", 7), GV_FP_FAIL);
    cr_expect_eq(judge(">=8", ">=24", NAN), GV_FP_PASS, "a measured bound at or above N");
    cr_expect_eq(judge(">=8", ">=4", NAN), GV_FP_FAIL, "a measured bound below N");
    cr_expect_eq(judge(">=8", "n/a", NAN), GV_FP_FAIL, "nothing measured");
    cr_expect_eq(judge(">=8", "none", NAN), GV_FP_FAIL, "a word");
}

Test(probe_expect_rules, a_range_includes_its_ends)
{
    cr_expect_eq(judge("13..14", "13", 13), GV_FP_PASS);
    cr_expect_eq(judge("13..14", "14", 14), GV_FP_PASS);
    cr_expect_eq(judge("13..14", "13.5", 13.5), GV_FP_PASS);
    cr_expect_eq(judge("13..14", "12", 12), GV_FP_FAIL);
    cr_expect_eq(judge("13..14", "15", 15), GV_FP_FAIL);
    cr_expect_eq(judge("13..14", ">=13", 13), GV_FP_FAIL, "an open bound is not in a range");
    cr_expect_eq(judge("13..14", "n/a", NAN), GV_FP_FAIL);
}

Test(probe_expect_rules, alternatives_pass_when_one_does)
{
    cr_expect_eq(judge("13..14|24", "24", 24), GV_FP_PASS);
    cr_expect_eq(judge("13..14|24", "14", 14), GV_FP_PASS);
    cr_expect_eq(judge("13..14|24", "20", 20), GV_FP_FAIL);
    cr_expect_eq(judge("RNE|RZ", "RZ", NAN), GV_FP_PASS);
    cr_expect_eq(judge("RNE|RZ", "RNA", NAN), GV_FP_FAIL);
}

Test(probe_expect_rules, question_mark_and_no_rule_are_new)
{
    cr_expect_eq(judge("?", "8", 8), GV_FP_NEW);
    gv_fp_value v = measured("8", 8);
    cr_expect_eq(gv_fp_judge(NULL, &v), GV_FP_NEW);
}

Test(probe_expect_rules, the_last_matching_line_wins)
{
    gv_fp_expect e;
    accepted(HEAD "* * * * ?\n"
                  "gemm.* f32 tf32 block 8\n"
                  "gemm.cublas f32 tf32 block 16\n"
                  "gemm.* f32 tf32 block 32\n",
             &e);
    const gv_fp_rule *r = gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_BLOCK);
    cr_assert_not_null(r);
    cr_expect_str_eq(r->value, "32", "a later general line overrides an earlier specific one");
    cr_expect_eq(r->line, 6);
    r = gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, GV_FP_ORDER);
    cr_expect_str_eq(r->value, "?", "only the catch-all speaks of order");
    r = gv_fp_expect_find(&e, "vadd", GV_F64, GV_MODE_NATIVE, GV_FP_BLOCK);
    cr_expect_str_eq(r->value, "?");
    gv_fp_expect_free(&e);
}

/* A feature no line matches is NEW, never PASS: the probe counts it apart and asks for the
   value to be confirmed. But the probe's exit status does not tell NEW from PASS
   (src/cmd/probe.c: 0 for "every feature PASS or NEW"), and nothing checks that OPS names an
   op: a typo in OPS leaves every feature it meant without a rule, and the file still reads. */
Test(probe_expect_rules, a_feature_without_a_rule_is_new_not_pass)
{
    gv_fp_expect e;
    accepted(HEAD "gemm.cublsa f32 tf32 block 8\n", &e); /* OPS misspelt: read all the same */
    cr_expect_eq(e.n, 1);
    gv_fp_value v = measured("8", 8);
    for (int f = 0; f < GV_FP_NFEATURES; f++) {
        const gv_fp_rule *r = gv_fp_expect_find(&e, "gemm.cublas", GV_F32, GV_MODE_TF32, f);
        cr_expect_null(r, "feature %s", gv_fp_feature_name(f));
        cr_expect_eq(gv_fp_judge(r, &v), GV_FP_NEW, "feature %s", gv_fp_feature_name(f));
    }
    gv_fp_expect_free(&e);
    /* a file with no rules at all: every feature of every op NEW */
    accepted(HEAD, &e);
    for (int f = 0; f < GV_FP_NFEATURES; f++)
        cr_expect_eq(
            gv_fp_judge(gv_fp_expect_find(&e, "gemm.cublas", GV_F64, GV_MODE_NATIVE, f), &v),
            GV_FP_NEW);
    gv_fp_expect_free(&e);
}

/* The shipped sm_90.expect on a real document (tests/fixtures/probe-h100.json: an H100, the
   driver, CUDA and cuBLAS its measured lines name): every feature PASSes, none is NEW (the
   order of cuBLAS's own kernels included: measured, the file's head says why). A line edited to
   a value the H100 did not measure FAILs here, and so does a '?' or a missing line. */
Test(probe_expect_rules, sm_90_judges_the_h100_document_with_no_fail_and_no_new)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR must name the source tree");
    char doc_path[512], err[512];
    snprintf(doc_path, sizeof doc_path, "%s/tests/fixtures/probe-h100.json", src);
    gv_fp_expect e; /* the file as the program holds it (built in: the same bytes, a test says) */
    cr_assert_eq(gv_fp_expect_builtin(90, &e, err, sizeof err), GV_OK, "%s", err);
    json_error_t je;
    json_t *doc = json_load_file(doc_path, 0, &je);
    cr_assert_not_null(doc, "%s: %s", doc_path, je.text);
    int n[3] = {0}, order_new = 0;
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(doc, "rows"), i, row)
    {
        json_t *features = json_object_get(row, "features");
        if (!features) continue; /* a SKIP row (bf16x9 on Hopper) */
        const char *op = json_string_value(json_object_get(row, "op"));
        gv_dtype t;
        gv_mode m;
        cr_assert_eq(gv_dtype_parse(json_string_value(json_object_get(row, "dtype")), &t), GV_OK);
        cr_assert_eq(gv_mode_parse(json_string_value(json_object_get(row, "mode")), &m), GV_OK);
        const char *name;
        json_t *f;
        json_object_foreach(features, name, f)
        {
            int feature = gv_fp_feature_parse(name);
            cr_assert_geq(feature, 0, "feature %s", name);
            const char *text = json_string_value(json_object_get(f, "value"));
            char *end;
            double x = strtod(text, &end);
            gv_fp_value v = measured(text, *end || end == text ? NAN : x);
            const gv_fp_rule *r = gv_fp_expect_find(&e, op, t, m, feature);
            gv_fp_verdict verdict = gv_fp_judge(r, &v);
            n[verdict]++;
            cr_expect_neq(verdict, GV_FP_FAIL, "%s %s %s %s: measured %s, line %d says %s", op,
                          gv_dtype_name(t), gv_mode_name(m), name, text, r ? r->line : 0,
                          r ? r->value : "?");
            if (verdict == GV_FP_NEW) {
                order_new += feature == GV_FP_ORDER;
                cr_expect_eq(feature, GV_FP_ORDER, "%s %s %s %s = %s is NEW", op, gv_dtype_name(t),
                             gv_mode_name(m), name, text);
            }
        }
    }
    cr_expect_eq(n[GV_FP_PASS] + n[GV_FP_NEW], 252, "14 rows of 18 features: %d PASS, %d NEW",
                 n[GV_FP_PASS], n[GV_FP_NEW]);
    cr_expect_eq(n[GV_FP_NEW], 0, "%d NEW (order in %d rows)", n[GV_FP_NEW], order_new);
    json_decref(doc);
    gv_fp_expect_free(&e);
}

/* An OPS glob that matches no registered op is read (a plugin's op or a synthetic name may be
   meant), not refused; gv_fp_expect_unmatched names it, for the probe's warning. The old
   reader gave no sign of a misspelt name: its features were NEW in silence. */
Test(probe_expect_rules, an_ops_glob_of_no_registered_op_is_read_and_named)
{
    gv_fp_expect e;
    accepted(HEAD "gemm.cublas f32 tf32 block 4\n"
                  "gemm.cubals* f32 tf32 block 4\n"
                  "myplugin.gemm * * * ?\n"
                  "gemm.* * * * ?\n",
             &e);
    const gv_fp_rule *none[4] = {NULL};
    int k = gv_fp_expect_unmatched(&e, none, 4);
    cr_expect_eq(k, 2, "two globs match no op: %d", k);
    cr_assert(k >= 2);
    cr_expect_str_eq(none[0]->ops, "gemm.cubals*");
    cr_expect_eq(none[0]->line, 4);
    cr_expect_str_eq(none[1]->ops, "myplugin.gemm");
    cr_expect_eq(gv_fp_expect_unmatched(&e, none, 1), 2, "the count past max");
    gv_fp_expect_free(&e);
}

/* gpuval probe --expect FILE warns on stderr of each such glob, naming the file's line, when
   it reads the file (before any device is looked for: the warning shows on a CPU machine). */
Test(probe_expect_rules, probe_warns_of_a_glob_of_no_registered_op, .timeout = 60)
{
    const char *bin = getenv("GPUVAL");
    cr_assert_not_null(bin, "GPUVAL must name the gpuval binary");
    const char *p = write_tmp(HEAD "gemm.cubals* f32 tf32 block 4\ngemm.cublas f32 tf32 block 4\n");
    char cmd[1024], out[4096];
    snprintf(cmd, sizeof cmd, "'%s' probe --expect '%s' --op gemm.cublas 2>&1 >/dev/null", bin, p);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t used = fread(out, 1, sizeof out - 1, f);
    out[used] = '\0';
    pclose(f);
    char want[600];
    snprintf(want, sizeof want, "%s:3: OPS 'gemm.cubals*' matches no registered op", p);
    cr_expect_not_null(strstr(out, want), "stderr: %s", out);
    cr_expect_null(strstr(out, "OPS 'gemm.cublas'"), "a glob that matches is not named: %s", out);
    unlink(p);
}

/* The verdict of the shipped file of sm on (op, t, m, feature) measured as text. */
static gv_fp_verdict shipped(const gv_fp_expect *e, const char *op, gv_dtype t, gv_mode m,
                             const char *feature, const char *text)
{
    int f = gv_fp_feature_parse(feature);
    cr_assert_geq(f, 0, "feature %s", feature);
    char *end;
    double x = strtod(text, &end);
    gv_fp_value v = measured(text, *end || end == text ? NAN : x);
    return gv_fp_judge(gv_fp_expect_find(e, op, t, m, f), &v);
}

#define RIGHT(e, op, t, m, f, v)                                                                   \
    cr_expect_eq(shipped(e, op, t, m, f, v), GV_FP_PASS, "%s %s %s %s = %s should PASS", op,       \
                 gv_dtype_name(t), gv_mode_name(m), f, v)
#define WRONG(e, op, t, m, f, v)                                                                   \
    cr_expect_eq(shipped(e, op, t, m, f, v), GV_FP_FAIL, "%s %s %s %s = %s should FAIL", op,       \
                 gv_dtype_name(t), gv_mode_name(m), f, v)

static void builtin(int sm, gv_fp_expect *e)
{
    char err[512];
    cr_assert_eq(gv_fp_expect_builtin(sm, e, err, sizeof err), GV_OK, "sm_%d: %s", sm, err);
}

/* Each rule the audit of issue 41 found unable to fail, now tight, with the value it asserts
   PASSing and a planted wrong one FAILing: a 48-bit emulation under fp64emu56 (row_bits 54,
   which ">=53" passed), fp8 promoting every 64 or 256 or never (">=1" passed any), the order
   of cuBLAS's kernels (NEW before), Ada's bf16 alignment bit (missing before), Blackwell's fp8
   (Hopper's 14-bit accumulator read on a B200 FAILs). */
Test(probe_expect_rules, tightened_rules_fail_a_planted_wrong_value)
{
    gv_fp_expect e;
    builtin(90, &e);
    const char *op = "gemm.cublas";
    RIGHT(&e, op, GV_F64, GV_MODE_FP64EMU_56, "row_bits", "62");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_56, "row_bits", "54"); /* fp64emu48 under the label */
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_56, "row_bits", "61");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_56, "row_bits", "all"); /* native under the label */
    RIGHT(&e, op, GV_F64, GV_MODE_FP64EMU_48, "row_bits", "54");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_48, "row_bits", "46");
    RIGHT(&e, op, GV_F32, GV_MODE_FP8, "promotion", "128");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "promotion", "64");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "promotion", "256");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "promotion", "none"); /* fast accumulation */
    const struct {
        gv_dtype t;
        gv_mode m;
    } seq[] = {{GV_F32, GV_MODE_NATIVE},  {GV_F64, GV_MODE_NATIVE}, {GV_F32, GV_MODE_DEFAULT},
               {GV_F64, GV_MODE_DEFAULT}, {GV_F32, GV_MODE_TF32},   {GV_F32, GV_MODE_F16},
               {GV_F32, GV_MODE_BF16},    {GV_F64, GV_MODE_FP64EMU}};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        RIGHT(&e, op, seq[i].t, seq[i].m, "order", "sequential");
        WRONG(&e, op, seq[i].t, seq[i].m, "order", "other");
        WRONG(&e, op, seq[i].t, seq[i].m, "order", "n/a");
    }
    /* cr_share: the automatic emulation run natively (gemm.cublas.emuauto) reads native's
       51.7, a 32-bit emulation under a wider label 0.0, the H100's emulations 70.6 */
    RIGHT(&e, op, GV_F64, GV_MODE_FP64EMU, "cr_share", "70.6");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU, "cr_share", "51.7");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU, "cr_share", "0.0");
    RIGHT(&e, op, GV_F64, GV_MODE_FP64EMU_56, "cr_share", "70.6");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_56, "cr_share", "0.0");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_56, "cr_share", "51.7");
    RIGHT(&e, op, GV_F64, GV_MODE_FP64EMU_32, "cr_share", "0.0");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_32, "cr_share", "70.6");
    RIGHT(&e, op, GV_F64, GV_MODE_NATIVE, "cr_share", "51.7");
    WRONG(&e, op, GV_F64, GV_MODE_NATIVE, "cr_share", "70.6"); /* an emulation under native */
    RIGHT(&e, op, GV_F64, GV_MODE_DEFAULT, "cr_share", "51.7");
    WRONG(&e, op, GV_F64, GV_MODE_DEFAULT, "cr_share", "70.6");
    WRONG(&e, op, GV_F64, GV_MODE_DEFAULT, "cr_share", "0.0"); /* a 32-bit emulation: 0..60 passed */
    WRONG(&e, op, GV_F64, GV_MODE_DEFAULT, "cr_share", "8.6"); /* an FMA chain in k order */
    RIGHT(&e, op, GV_F32, GV_MODE_TF32, "cr_share", "n/a");
    /* the scales the labels claim, and each planted impostor's reading */
    RIGHT(&e, op, GV_F32, GV_MODE_FP8ROW, "scale_A", "row");
    WRONG(&e, op, GV_F32, GV_MODE_FP8ROW, "scale_A", "tensor"); /* fp8rowtensor */
    WRONG(&e, op, GV_F32, GV_MODE_FP8ROW, "scale_B", "none");   /* fp8noscale */
    RIGHT(&e, op, GV_F32, GV_MODE_FP8BLK, "scale_A", "block");
    WRONG(&e, op, GV_F32, GV_MODE_FP8BLK, "scale_A", "row"); /* fp8blkrow */
    WRONG(&e, op, GV_F32, GV_MODE_FP8BLK, "in_bits_B", "3"); /* fp8e5m2b */
    RIGHT(&e, op, GV_F32, GV_MODE_FP8E5M2, "in_bits_B", "3");
    WRONG(&e, op, GV_F32, GV_MODE_FP8E5M2, "in_bits_B", "4"); /* e5m2 labelled, e4m3 run */
    RIGHT(&e, op, GV_F32, GV_MODE_FP8, "scale_A", "tensor");
    gv_fp_expect_free(&e);

    builtin(89, &e);
    RIGHT(&e, op, GV_F32, GV_MODE_BF16, "extra_bits", "1");
    WRONG(&e, op, GV_F32, GV_MODE_BF16, "extra_bits", "2"); /* Hopper's */
    WRONG(&e, op, GV_F32, GV_MODE_BF16, "extra_bits", "0");
    RIGHT(&e, op, GV_F32, GV_MODE_FP8, "promotion", "128");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "promotion", "32");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "promotion", "none");
    gv_fp_expect_free(&e);

    builtin(100, &e);
    RIGHT(&e, op, GV_F32, GV_MODE_FP8, "acc_bits", "24");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "acc_bits", "14"); /* Hopper's fp8 accumulator */
    RIGHT(&e, op, GV_F32, GV_MODE_FP8, "promotion", "n/a");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "promotion", "128");
    RIGHT(&e, op, GV_F32, GV_MODE_FP8, "extra_bits", "2");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "extra_bits", "0");
    RIGHT(&e, op, GV_F32, GV_MODE_FP8, "block", "32");
    WRONG(&e, op, GV_F32, GV_MODE_FP8, "block", "16");
    /* the audit's additions: what was NEW forever on 10.0 now asserts the models' values */
    RIGHT(&e, op, GV_F64, GV_MODE_FP64EMU_56, "row_bits", "62");
    WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_56, "row_bits", "54"); /* 48 bits under the label */
    RIGHT(&e, op, GV_F32, GV_MODE_F16ACC, "acc_bits", "11");
    WRONG(&e, op, GV_F32, GV_MODE_F16ACC, "acc_bits", "24"); /* f32 accumulation under f16acc */
    RIGHT(&e, op, GV_F32, GV_MODE_TF32, "carry_round", "RZ");
    WRONG(&e, op, GV_F32, GV_MODE_TF32, "carry_round", "RNE");
    RIGHT(&e, op, GV_F64, GV_MODE_DEFAULT, "fixed_point", "no");
    WRONG(&e, op, GV_F64, GV_MODE_DEFAULT, "fixed_point", "yes"); /* an emulation by default */
    gv_fp_expect_free(&e);
}

/* sm_103 and sm_120 are written from the published models before any such GPU ran: every rule
   says "unconfirmed", names a source, and the models' values read right and wrong values FAIL.
   The audited files (sm_80, sm_89, sm_100) mark every line they gained unconfirmed too. */
Test(probe_expect_rules, unrun_architectures_are_unconfirmed_and_sourced)
{
    const int sms[] = {103, 120};
    const char *op = "gemm.cublas";
    for (size_t i = 0; i < sizeof sms / sizeof sms[0]; i++) {
        gv_fp_expect e;
        builtin(sms[i], &e);
        for (int r = 0; r < e.n; r++) {
            const gv_fp_rule *x = &e.rules[r];
            if (strcmp(x->value, "?") == 0) continue;
            cr_expect(strstr(x->source, "unconfirmed") != NULL, "%s:%d: %s %s %s %s = %s: %s",
                      e.path, x->line, x->ops, x->dtype, x->mode, x->feature, x->value,
                      x->source);
            cr_expect(strstr(x->source, "unconfirmed") != x->source, "%s:%d: no source named: %s",
                      e.path, x->line, x->source);
        }
        RIGHT(&e, op, GV_F32, GV_MODE_TF32, "block", "8"); /* B200TC.m */
        WRONG(&e, op, GV_F32, GV_MODE_TF32, "block", "4"); /* Ampere's and Ada's */
        RIGHT(&e, op, GV_F32, GV_MODE_F16, "extra_bits", "2");
        WRONG(&e, op, GV_F32, GV_MODE_F16, "extra_bits", "1");
        RIGHT(&e, op, GV_F32, GV_MODE_FP8, "acc_bits", "24");
        WRONG(&e, op, GV_F32, GV_MODE_FP8, "acc_bits", "14"); /* Hopper's fp8 accumulator */
        RIGHT(&e, op, GV_F64, GV_MODE_FP64EMU_40, "row_bits", "46");
        WRONG(&e, op, GV_F64, GV_MODE_FP64EMU_40, "row_bits", "38");
        RIGHT(&e, op, GV_F32, GV_MODE_NATIVE, "block", "1");
        WRONG(&e, op, GV_F32, GV_MODE_NATIVE, "block", "8");
        gv_fp_expect_free(&e);
    }
    const int audited[] = {80, 89, 100};
    for (size_t i = 0; i < sizeof audited / sizeof audited[0]; i++) {
        gv_fp_expect e;
        builtin(audited[i], &e);
        RIGHT(&e, op, GV_F32, GV_MODE_NATIVE, "acc_bits", "24");
        WRONG(&e, op, GV_F32, GV_MODE_NATIVE, "acc_bits", "11");
        RIGHT(&e, op, GV_F32, GV_MODE_BF16, "products", "exact");
        WRONG(&e, op, GV_F32, GV_MODE_BF16, "products", "rounded");
        RIGHT(&e, op, GV_F32, GV_MODE_F16, "deterministic", "yes");
        WRONG(&e, op, GV_F32, GV_MODE_F16, "deterministic", "no");
        const gv_fp_rule *r = gv_fp_expect_find(&e, op, GV_F32, GV_MODE_TF32, GV_FP_MONOTONIC);
        cr_expect(r == NULL || strcmp(r->value, "?") == 0,
                  "sm_%d: tf32 monotonic has no source (measured on sm_90 only): NEW",
                  audited[i]);
        gv_fp_expect_free(&e);
    }
}
