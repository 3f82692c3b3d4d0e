/* test_run_read.c: the strict reader of run files (src/io/run_read.c) through the commands that
 * use it — each malformed copy of a good run (a case twice, a verdict missing or spelt "pass",
 * accurate bits of -inf or NaN with PASS, a shape or seed that is not one, a NaN sample, a
 * truncated file, a FIFO) is exit 2 from compare, report and merge, naming the file, the case
 * and the member; merge of collectives names a missing or truncated rank file as such, and
 * refuses numbers out of range before any conversion. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench_json.h"
#include "bench/trade_report.h"
#include "io/run_doc.h"
#include "io/run_read.h"
#include "testkit.h"

static char tmpdir[512];

static void make_tmp(void)
{
    gv_test_scratch_dir(tmpdir, sizeof tmpdir, "runread");
}

static void rm_tmp(void)
{
    gv_test_remove_dir(tmpdir);
}

static json_t *good_run(void)
{
    json_t *cases = json_array();
    for (int i = 0; i < 3; i++)
        json_array_append_new(
            cases, json_pack("{s:s, s:s, s:s, s:s, s:[i], s:i, s:s, s:{s:f, s:f, s:f}}", "op",
                             "vadd", "dtype", "f32", "mode", "native", "dist", "uniform11", "shape",
                             1000 * (i + 1), "seed", 0, "verdict", "PASS", "metrics",
                             "accurate_bits", 23.0, "max_rel", 1e-7, "normwise_rel", 5e-8));
    return json_pack("{s:s, s:o, s:{s:i, s:i, s:i, s:i}}", "schema", "gpuval-run/1", "cases", cases,
                     "summary", "passed", 3, "failed", 0, "skipped", 0, "errors", 0);
}

static const char *dump(const json_t *doc, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
    cr_assert_eq(json_dump_file(doc, buf, JSON_INDENT(1)), 0);
    return buf;
}

/* ---- each fault: a copy of the good run with case 1 changed -------------------------------- */

static void twice(json_t *doc)
{
    json_t *cases = json_object_get(doc, "cases");
    json_t *again = json_deep_copy(json_array_get(cases, 1));
    json_object_set_new(again, "verdict", json_string("FAIL"));
    json_array_append_new(cases, again);
}
static json_t *case1(json_t *doc)
{
    return json_array_get(json_object_get(doc, "cases"), 1);
}
static void no_verdict(json_t *doc)
{
    json_object_del(case1(doc), "verdict");
}
static void lower_pass(json_t *doc)
{
    json_object_set_new(case1(doc), "verdict", json_string("pass"));
}
static void minus_inf_bits(json_t *doc)
{
    json_object_set_new(json_object_get(case1(doc), "metrics"), "accurate_bits",
                        json_string("-inf"));
}
static void nan_bits(json_t *doc)
{
    json_object_set_new(json_object_get(case1(doc), "metrics"), "accurate_bits",
                        json_string("nan"));
}
static void nan_error(json_t *doc)
{
    json_object_set_new(json_object_get(case1(doc), "metrics"), "normwise_rel", json_string("nan"));
}
static void real_shape(json_t *doc)
{
    json_object_set_new(case1(doc), "shape", json_pack("[f]", 1e300));
}
static void bad_seed(json_t *doc)
{
    json_object_set_new(case1(doc), "seed", json_string("12x"));
}
static void no_op(json_t *doc)
{
    json_object_del(case1(doc), "op");
}
static void words_for_bits(json_t *doc)
{
    json_object_set_new(json_object_get(case1(doc), "metrics"), "accurate_bits",
                        json_string("many"));
}

static const struct {
    void (*plant)(json_t *);
    const char *says; /* after "FILE: case N (KEY): " */
    int index;        /* the case named */
} faults[] = {
    {twice, "key: the same case as case 1", 3},
    {no_verdict, "verdict: missing", 1},
    {lower_pass, "verdict: 'pass' is not PASS, FAIL, SKIP or ERROR", 1},
    {minus_inf_bits, "metrics.accurate_bits: < 0 with verdict PASS", 1},
    {nan_bits, "metrics.accurate_bits: NaN with verdict PASS", 1},
    {nan_error, "metrics.normwise_rel: NaN with verdict PASS", 1},
    {real_shape, "shape: a size that is not an integer", 1},
    {bad_seed, "seed: not an integer nor a string of decimal digits", 1},
    {no_op, "op: missing", 1},
    {words_for_bits, "metrics.accurate_bits: not a number", 1},
};

/* Each fault through compare (as new and as base), report and merge: exit 2, the file, the
   case and the member named, nothing written. The good run itself passes all three. */
Test(run_read, each_malformed_run_is_exit_2_naming_file_case_and_member, .init = make_tmp,
     .fini = rm_tmp)
{
    char good[700], bad[700], args[3000], out[16384], err[16384], html[700];
    json_t *g = good_run();
    dump(g, "good.json", good, sizeof good);
    snprintf(html, sizeof html, "%s/r.html", tmpdir);
    snprintf(args, sizeof args, "compare '%s' '%s'", good, good);
    int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_assert_eq(rc, 0, "the good run compares: exit %d\n%s", rc, err);
    snprintf(args, sizeof args, "report '%s' --html '%s'", good, html);
    rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_assert_eq(rc, 0, "the good run reports: exit %d\n%s", rc, err);
    unlink(html);
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
        json_t *b = json_deep_copy(g);
        faults[f].plant(b);
        char name[32];
        snprintf(name, sizeof name, "bad%zu.json", f);
        dump(b, name, bad, sizeof bad);
        json_decref(b);
        char where[800];
        snprintf(where, sizeof where, "%s: case %d (", bad, faults[f].index);
        const char *forms[4] = {"compare '%s' '%s'", "compare '%s' '%s'", "report '%s' --html '%s'",
                                "merge '%s' '%s'"};
        for (int k = 0; k < 4; k++) {
            if (k == 0)
                snprintf(args, sizeof args, forms[k], good, bad);
            else if (k == 1)
                snprintf(args, sizeof args, forms[k], bad, good);
            else if (k == 2)
                snprintf(args, sizeof args, forms[k], bad, html);
            else
                snprintf(args, sizeof args, forms[k], good, bad);
            rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
            cr_expect_eq(rc, 2, "%s: exit %d\n%s", args, rc, err);
            cr_expect(strstr(err, where) && strstr(err, faults[f].says),
                      "%s:\nwant '%s' ... '%s'\n%s", args, where, faults[f].says, err);
        }
        cr_expect_neq(access(html, F_OK), 0, "no report written from a malformed run");
    }
    json_decref(g);
}

/* A PASS with accurate bits of +inf (the outputs equal the reference) is legal, as written. */
Test(run_read, plus_inf_bits_pass_and_every_writer_schema_is_known)
{
    json_t *g = good_run();
    json_object_set_new(json_object_get(case1(g), "metrics"), "accurate_bits", json_string("inf"));
    char err[1024] = "";
    cr_expect_eq(gv_run_validate(g, "g", err, sizeof err), GV_OK, "%s", err);
    json_decref(g);
    const char *schemas[] = {gv_schema(GV_DOC_RUN), gv_schema(GV_DOC_BENCH)};
    for (int i = 0; i < 2; i++) {
        json_t *d = json_pack("{s:s, s:[]}", "schema", schemas[i], "cases");
        cr_expect_eq(gv_run_validate(d, "d", err, sizeof err), GV_OK, "%s: %s", schemas[i], err);
        json_decref(d);
    }
    json_t *t = json_pack("{s:s, s:[]}", "schema", gv_schema(GV_DOC_TRADEOFFS), "groups");
    cr_expect_eq(gv_run_validate(t, "t", err, sizeof err), GV_OK, "%s", err);
    json_decref(t);
}

/* A bench sample that is NaN, or negative: refused, the scope and sample named. */
Test(run_read, a_bench_sample_that_is_not_a_time_is_refused)
{
    json_t *c =
        json_pack("{s:s, s:s, s:s, s:s, s:[i], s:i, s:s, s:{s:{s:[f, f, s]}}}", "op", "vadd",
                  "dtype", "f32", "mode", "native", "dist", "uniform11", "shape", 1000, "seed", 0,
                  "verdict", "PASS", "timings", "kernel_hot", "samples_ms", 1.0, 1.1, "nan");
    json_t *d = json_pack("{s:s, s:[o]}", "schema", gv_schema(GV_DOC_BENCH), "cases", c);
    char err[1024] = "";
    cr_expect_eq(gv_run_validate(d, "b.json", err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "b.json: case 0 (") &&
                  strstr(err, "timings.kernel_hot.samples_ms: sample 2 is not a finite number"),
              "%s", err);
    json_decref(d);
}

/* A run file that is a FIFO nobody writes: refused at once, not waited on. */
Test(run_read, a_fifo_is_refused_not_waited_on, .init = make_tmp, .fini = rm_tmp, .timeout = 20)
{
    char fifo[700], good[700], args[2000], out[4096], err[4096];
    snprintf(fifo, sizeof fifo, "%s/run.json", tmpdir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    json_t *g = good_run();
    dump(g, "good.json", good, sizeof good);
    json_decref(g);
    snprintf(args, sizeof args, "compare '%s' '%s'", good, fifo);
    int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, err);
    cr_expect(strstr(err, "not a regular file"), "%s", err);
}

/* ---- merge of collectives ranks ------------------------------------------------------------ */

static json_t *rank_file(int rank, int ranks)
{
    json_t *row =
        json_pack("{s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:f}", "collective", "allreduce.sum",
                  "dtype", "f32", "bytes_per_rank", 4096, "count", 1024, "verdict", "PASS",
                  "rank_verdict", "PASS", "rank_wrong", 0, "rank_time_ms", 0.01);
    return json_pack("{s:s, s:i, s:i, s:i, s:[o], s:{s:s, s:i}}", "schema", "gpuval-collectives/1",
                     "rank", rank, "ranks", ranks, "seed", 1, "collectives", row, "fleet", "host",
                     "h", "device_index", rank);
}

Test(run_read, merge_names_a_missing_or_truncated_rank_file, .init = make_tmp, .fini = rm_tmp)
{
    char r0[700], r1[700], args[2000], out[8192], err[8192];
    json_t *a = rank_file(0, 2), *b = rank_file(1, 2);
    dump(a, "r0.json", r0, sizeof r0);
    dump(b, "r1.json", r1, sizeof r1);
    snprintf(args, sizeof args, "merge '%s' '%s'", r0, r1);
    int rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 0, "two good ranks merge: exit %d\n%s%s", rc, out, err);

    /* missing */
    snprintf(args, sizeof args, "merge '%s' '%s/r9.json'", r0, tmpdir);
    rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, err);
    cr_expect(strstr(err, "r9.json: cannot read: No such file"), "%s", err);
    cr_expect(!strstr(err, "not a gpuval-collectives/1 run"), "%s", err);

    /* truncated: the second rank's file cut in half */
    struct stat st;
    cr_assert_eq(stat(r1, &st), 0);
    cr_assert_eq(truncate(r1, st.st_size / 2), 0);
    snprintf(args, sizeof args, "merge '%s' '%s'", r0, r1);
    rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, err);
    cr_expect(strstr(err, "r1.json: truncated"), "%s", err);
    cr_expect(!strstr(err, "not a gpuval-collectives/1 run"), "%s", err);

    /* numbers no int holds: refused before any conversion (clang's UBSan saw these) */
    json_object_set_new(b, "ranks", json_real(1e300));
    dump(b, "r1.json", r1, sizeof r1);
    rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, err);
    cr_expect(strstr(err, "r1.json: ranks: not an integer"), "%s", err);
    json_object_set_new(b, "ranks", json_integer(2));
    json_object_set_new(json_object_get(b, "fleet"), "device_index", json_real(-1e300));
    dump(b, "r1.json", r1, sizeof r1);
    rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 2, "exit %d\n%s", rc, err);
    cr_expect(strstr(err, "fleet.device_index"), "%s", err);
    /* and a rank missing its device index merges (the index shown as -1), no conversion */
    json_object_del(json_object_get(b, "fleet"), "device_index");
    dump(b, "r1.json", r1, sizeof r1);
    rc = gv_test_run_cli_split(args, out, sizeof out, err, sizeof err);
    cr_expect_eq(rc, 0, "exit %d\n%s", rc, err);
    json_decref(a);
    json_decref(b);
}
