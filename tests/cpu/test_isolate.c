/* test_isolate.c: fault isolation of `gpuval check` (src/core/runner.c). The host code of a case
 * is made to crash, abort or hang (GPUVAL_INJECT_FAULT=KIND:GLOB); that case must be an
 * ERROR naming the signal or the timeout, every other case must still run and report
 * (SKIP without a device, PASS with one), the JSON must hold every case, and the exit code
 * must be 3. Runs the same on CPU-only and CUDA builds: the faults are in host code. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testkit.h"

/* vadd (not its layout variant vadd.offset), reduce.sum, reduce.sum.onepass and reduce.colsum
   at test sizes, f32, none planted: 6 vadd cases, 8 sums and 5 column sums, plus each one's four
   canaries (one of its own and the three edges: tiny, huge, sparse-special), 7 one-pass sums and
   its repeat canary, and the column sums' repeat canary (src/ops/vadd.c, src/ops/reduce.c). */
#define OPS       "--op 'vadd,reduce.sum*,reduce.colsum*' --test-sizes --dtype f32"
#define N_VADD    10
#define N_SUM     12
#define N_ONEPASS 8
#define N_COLSUM  10
#define N_CASES   (N_VADD + N_SUM + N_ONEPASS + N_COLSUM)

typedef struct irun {
    int status;
    char out[1 << 16];
    char err[1 << 16];
} irun;

static irun *run_with(const char *fault, const char *args)
{
    irun *r = calloc(1, sizeof *r);
    cr_assert_not_null(r);
    if (fault)
        cr_assert_eq(setenv("GPUVAL_INJECT_FAULT", fault, 1), 0);
    else
        unsetenv("GPUVAL_INJECT_FAULT");
    r->status = gv_test_run_cli_split(args, r->out, sizeof r->out, r->err, sizeof r->err);
    unsetenv("GPUVAL_INJECT_FAULT");
    return r;
}

/* The table's rows for op (exact name), in order, each row's verdict word and reason. */
static int rows_of(const char *out, const char *op, char verdicts[][8], char reasons[][200],
                   int max)
{
    int n = 0;
    size_t len = strlen(op);
    for (const char *line = out; line && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, op, len) != 0 || line[len] != ' ') continue;
        const char *eol = strchr(line, '\n');
        size_t ll = eol ? (size_t)(eol - line) : strlen(line);
        char buf[1024];
        snprintf(buf, sizeof buf, "%.*s", (int)(ll < sizeof buf ? ll : sizeof buf - 1), line);
        const char *v = NULL;
        const char *words[] = {" PASS", " FAIL", " SKIP", " ERROR"};
        for (int k = 0; k < 4 && !v; k++)
            v = strstr(buf, words[k]);
        cr_assert_not_null(v, "no verdict in row '%s'", buf);
        if (n < max) {
            sscanf(v + 1, "%7s", verdicts[n]);
            const char *paren = strchr(v, '(');
            snprintf(reasons[n], 200, "%s", paren ? paren : "");
        }
        n++;
    }
    return n;
}

static void expect_unharmed(const char *out, const char *op, int want)
{
    char v[16][8], why[16][200];
    int n = rows_of(out, op, v, why, 16);
    cr_expect_eq(n, want, "%s: %d rows, expected %d:\n%s", op, n, want, out);
    for (int i = 0; i < n && i < 16; i++)
        cr_expect(strcmp(v[i], "PASS") == 0 || strcmp(v[i], "SKIP") == 0,
                  "%s row %d is %s %s, expected PASS or SKIP (not touched by the fault)", op, i,
                  v[i], why[i]);
}

static void expect_faulted(const char *out, const char *op, int want, const char *needle)
{
    char v[16][8], why[16][200];
    int n = rows_of(out, op, v, why, 16);
    cr_expect_eq(n, want, "%s: %d rows, expected %d:\n%s", op, n, want, out);
    for (int i = 0; i < n && i < 16; i++) {
        cr_expect_str_eq(v[i], "ERROR", "%s row %d: %s %s", op, i, v[i], why[i]);
        cr_expect(strstr(why[i], needle) != NULL, "%s row %d: reason '%s' lacks '%s'", op, i,
                  why[i], needle);
    }
}

Test(isolate, crash_fails_its_own_cases_only)
{
    irun *r = run_with("crash:reduce.sum", "check " OPS);
    cr_expect_eq(r->status, 3, "exit %d, expected 3 (ERROR):\n%s%s", r->status, r->out, r->err);
    expect_unharmed(r->out, "vadd", N_VADD);
    expect_faulted(r->out, "reduce.sum", N_SUM, "SIGSEGV");
    expect_unharmed(r->out, "reduce.colsum", N_COLSUM); /* after the crash: still run */
    char summary[64];
    snprintf(summary, sizeof summary, "%d cases:", N_CASES);
    cr_expect(strstr(r->out, summary) != NULL, "summary counts every case:\n%s", r->out);
    char errors[32];
    snprintf(errors, sizeof errors, "%d errors", N_SUM);
    cr_expect(strstr(r->out, errors) != NULL, "%s in the summary:\n%s", errors, r->out);
    /* the order of the rows is the order of the cases: reduce.colsum last */
    cr_expect(strstr(r->out, "reduce.colsum") > strstr(r->out, "SIGSEGV"));
    free(r);
}

/* A hang in the middle of the run: killed at its time limit, placed on its own case, and the
   cases after it run in a fresh worker. */
Test(isolate, hang_in_the_middle_is_placed_on_its_case, .timeout = 120)
{
    irun *r = run_with("hang:reduce.sum", "check " OPS " --case-timeout 2");
    cr_expect_eq(r->status, 3, "exit %d:\n%s%s", r->status, r->out, r->err);
    expect_unharmed(r->out, "vadd", N_VADD);
    expect_faulted(r->out, "reduce.sum", N_SUM, "timed out after 2 s (--case-timeout)");
    expect_unharmed(r->out, "reduce.colsum", N_COLSUM);
    free(r);
}

Test(isolate, abort_is_named)
{
    irun *r = run_with("abort:vadd", "check " OPS);
    cr_expect_eq(r->status, 3);
    expect_faulted(r->out, "vadd", N_VADD, "SIGABRT");
    expect_unharmed(r->out, "reduce.sum", N_SUM);
    expect_unharmed(r->out, "reduce.colsum", N_COLSUM);
    free(r);
}

Test(isolate, hang_is_killed_at_the_case_timeout)
{
    time_t t0 = time(NULL);
    irun *r = run_with("hang:reduce.colsum", "check " OPS " --case-timeout 1");
    double took = difftime(time(NULL), t0);
    cr_expect_eq(r->status, 3, "exit %d:\n%s%s", r->status, r->out, r->err);
    expect_unharmed(r->out, "vadd", N_VADD);
    expect_unharmed(r->out, "reduce.sum", N_SUM);
    expect_faulted(r->out, "reduce.colsum", N_COLSUM, "timed out after 1 s (--case-timeout)");
    /* 6 hung cases at 1 s each, not the hour each one would sleep */
    cr_expect(took < 60, "the run took %.0f s", took);
    free(r);
}

/* The JSON run file holds every case, the faulted ones as ERROR with their reason. */
/* A planted fault (vadd.hang spins for 30 minutes by design) is cut at 20 s when no
   --case-timeout was given, not at the default ten minutes; a given limit still rules. */
Test(isolate, planted_fault_gets_a_short_limit_unless_one_is_given, .timeout = 120)
{
    time_t t0 = time(NULL);
    irun *r = run_with("hang:vadd.hang", "check --planted --op vadd.hang --dtype f32 --size 1001");
    double took = difftime(time(NULL), t0);
    cr_expect_eq(r->status, 3, "exit %d:\n%s%s", r->status, r->out, r->err);
    expect_faulted(r->out, "vadd.hang", 1, "timed out after 20 s (a planted fault's limit");
    cr_expect(took >= 19 && took < 60, "the run took %.0f s", took);
    free(r);
    r = run_with("hang:vadd.hang",
                 "check --planted --op vadd.hang --dtype f32 --size 1001 --case-timeout 1");
    cr_expect_eq(r->status, 3, "exit %d:\n%s%s", r->status, r->out, r->err);
    expect_faulted(r->out, "vadd.hang", 1, "timed out after 1 s (--case-timeout)");
    free(r);
}

Test(isolate, json_has_every_case)
{
    char dir[] = "/tmp/gpuval-isolate-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[128], args[512];
    snprintf(path, sizeof path, "%s/run.json", dir);
    snprintf(args, sizeof args, "check " OPS " --json %s", path);
    irun *r = run_with("crash:vadd", args);
    cr_expect_eq(r->status, 3);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    cr_assert_not_null(doc, "%s: %s", path, jerr.text);
    json_t *cases = json_object_get(doc, "cases");
    cr_assert_eq(json_array_size(cases), N_CASES);
    int errors = 0;
    for (size_t i = 0; i < json_array_size(cases); i++) {
        json_t *c = json_array_get(cases, i);
        const char *op = json_string_value(json_object_get(c, "op"));
        const char *v = json_string_value(json_object_get(c, "verdict"));
        cr_assert(op && v);
        if (strcmp(op, "vadd") == 0) {
            errors++;
            cr_expect_str_eq(v, "ERROR");
            cr_expect(strstr(json_string_value(json_object_get(c, "reason")), "SIGSEGV"));
        } else {
            cr_expect(strcmp(v, "ERROR") != 0, "%s case %zu is an ERROR", op, i);
        }
    }
    cr_expect_eq(errors, N_VADD);
    json_decref(doc);
    unlink(path);
    rmdir(dir);
    free(r);
}

/* Without a fault, isolation changes nothing on stdout: same rows in the same order. */
Test(isolate, same_table_in_process)
{
    irun *a = run_with(NULL, "check " OPS);
    irun *b = run_with(NULL, "check " OPS " --no-isolate");
    cr_expect_eq(a->status, b->status);
    cr_expect_str_eq(a->out, b->out);
    free(a);
    free(b);
}

/* An injected fault whose glob names no op changes nothing. */
Test(isolate, fault_for_another_op_is_inert)
{
    irun *a = run_with("crash:nosuch", "check " OPS);
    irun *b = run_with(NULL, "check " OPS);
    cr_expect_eq(a->status, b->status);
    cr_expect_str_eq(a->out, b->out);
    free(a);
    free(b);
}

Test(isolate, bad_repeat_and_timeout_are_usage_errors)
{
    const char *bad[] = {"--repeat 0",       "--repeat -1",        "--repeat x",
                         "--repeat 1001",    "--repeat ' 2'",      "--case-timeout -1",
                         "--case-timeout x", "--case-timeout nan", "--case-timeout 1e9",
                         "--case-timeout ''"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "check --op vadd %s", bad[i]);
        irun *r = run_with(NULL, args);
        cr_expect_eq(r->status, 2, "'%s': exit %d, expected 2", bad[i], r->status);
        cr_expect(strstr(r->out, "device:") == NULL, "'%s' did work before refusing", bad[i]);
        free(r);
    }
}
