/* test_verdict.c: the one verdict rule (gv_decide) and the one exit-code rule
 * (gv_exit_code). Each rule of the precedence is shown to win over the one after it, from
 * results set by hand, so a reordering of gv_decide fails here. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "core/registry.h"
#include "io/run_doc.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"

/* A clean judged result of gemm.cublas f32 (native: expected tier 1e-4, prob model on). */
static gv_result clean(void)
{
    gv_case c = {gv_op_find("gemm.cublas"), GV_F32,         GV_MODE_NATIVE,
                 GV_DIST_UNIFORM11,         {3, {8, 8, 8}}, 0};
    cr_assert_not_null(c.op);
    gv_result r;
    gv_result_init(&r, &c);
    r.m.n = r.m.prob_n = 100;
    gv_decide(&r);
    cr_assert_eq(r.verdict, GV_PASS, "a clean result passes: %s", r.reason);
    cr_assert(r.prob.on, "gemm f32 native has the probabilistic model");
    return r;
}

static void expect(gv_result *r, gv_verdict v, const char *words)
{
    gv_decide(r);
    cr_expect_eq(r->verdict, v, "verdict %s, want %s (%s)", gv_verdict_name(r->verdict),
                 gv_verdict_name(v), r->reason);
    cr_expect_not_null(strstr(r->reason, words), "reason '%s' names '%s'", r->reason, words);
}

Test(verdict, each_rule_beats_the_next)
{
    gv_result r = clean();
    /* everything wrong at once: the guard speaks first */
    snprintf(r.guard, sizeof r.guard, "wrote 4 bytes past the end of output 0 (C)");
    r.m.poisoned = 3;
    r.m.nonfinite_mismatches = 2;
    r.m.ratio = 1e9;
    r.m.prob_max = 1e9;
    r.m.inexact = 5;
    r.exact = true;
    snprintf(r.internal, sizeof r.internal, "broken");
    snprintf(r.unjudgeable, sizeof r.unjudgeable, "nothing");
    gv_result_check(&r, "residual", 100.0, 16.0, "residual 100 over 16");
    r.m.mismatches[1] = 7;
    expect(&r, GV_FAIL, "past the end");
    r.guard[0] = '\0';
    expect(&r, GV_FAIL, "unwritten");
    r.m.poisoned = 0;
    expect(&r, GV_ERROR, "internal: broken");
    r.internal[0] = '\0';
    expect(&r, GV_SKIP, "nothing");
    r.unjudgeable[0] = '\0';
    expect(&r, GV_FAIL, "NaN/Inf");
    r.m.nonfinite_mismatches = 0;
    expect(&r, GV_FAIL, "residual 100 over 16");
    r.n_checks = 0;
    expect(&r, GV_FAIL, "error model: ratio");
    r.m.ratio = 0.5;
    expect(&r, GV_FAIL, "probabilistic model: max R");
    r.m.prob_max = 1.0;
    r.m.prob_rms = 1.5;
    expect(&r, GV_FAIL, "probabilistic model: RMS R");
    r.m.prob_rms = 0.1;
    expect(&r, GV_FAIL, "exact probe");
    r.m.inexact = 0;
    expect(&r, GV_FAIL, "expected tier 1e-04 missed");
    r.m.mismatches[1] = 0;
    expect(&r, GV_PASS, "");
}

Test(verdict, nan_never_passes_a_bound)
{
    gv_result r = clean();
    r.m.ratio = NAN;
    expect(&r, GV_FAIL, "error model");
    r = clean();
    r.m.prob_max = NAN;
    expect(&r, GV_FAIL, "probabilistic");
    r = clean();
    gv_result_check(&r, "residual", NAN, 16.0, "residual nan");
    expect(&r, GV_FAIL, "residual nan");
}

Test(verdict, rms_rule_needs_enough_elements)
{
    gv_result r = clean();
    r.m.prob_rms = 3.0;
    r.m.prob_n = GV_PROB_RMS_MIN_N - 1;
    expect(&r, GV_PASS, "");
    r.m.prob_n = GV_PROB_RMS_MIN_N;
    expect(&r, GV_FAIL, "RMS");
}

Test(verdict, model_off_in_fastmath_and_exact_only_where_declared)
{
    gv_case c = {gv_op_find("dense.sigmoid"), GV_F32,         GV_MODE_FASTMATH,
                 GV_DIST_UNIFORM11,           {3, {8, 8, 8}}, 0};
    gv_result r;
    gv_result_init(&r, &c);
    cr_expect_not(r.prob.on, "fast-math keeps the worst-case model alone");
    gv_case t = {gv_op_find("gemm.cublas"), GV_F32, GV_MODE_TF32, GV_DIST_TIE, {3, {8, 8, 8}}, 0};
    gv_result_init(&r, &t);
    cr_expect(r.prob.on);
    cr_expect_eq(r.prob.u_in, ldexp(1.0, -11), "tf32's inputs are rounded to 2^-11");
    cr_expect_not(r.exact, "tie inputs through TF32 are not exact");
    t.mode = GV_MODE_NATIVE;
    gv_result_init(&r, &t);
    cr_expect(r.exact, "tie inputs in native f32 at K <= 4096 are exact");
    t.shape.d[1] = 4097;
    gv_result_init(&r, &t);
    cr_expect_not(r.exact, "past K = 4096 f32 sums of tie products may round");
}

Test(verdict, an_expected_tier_outside_the_run_tiers_is_still_measured)
{
    gv_case c = {gv_op_find("vadd"), GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {1, {1001}}, 3};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    float *out = p.out[0].data;
    for (int64_t i = 0; i < 1001; i++)
        out[i] = (float)p.in[0].ref[i] + (float)p.in[1].ref[i];
    out[17] = (float)(p.out[0].ref[17] + 0.5); /* beyond 1e-4 and the model */
    const gv_tiers only_f64 = {1, {1e-8}};
    gv_result r;
    gv_result_init(&r, &c);
    r.tiers = only_f64; /* a result whose tiers lack the expected one */
    gv_judge_problem(&p, &r);
    cr_expect_eq(r.tiers.n, 2, "the expected tier 1e-4 was added to the measured tiers");
    cr_expect_eq(r.tiers.t[1], 1e-4);
    cr_expect_eq(r.m.mismatches[1], 1, "one element misses 1e-4");
    cr_expect_eq(r.verdict, GV_FAIL, "%s", r.reason);
    /* decided without the measurement: a harness bug, not a pass */
    gv_result bare;
    gv_result_init(&bare, &c);
    bare.tiers = only_f64;
    gv_decide(&bare);
    cr_expect_eq(bare.verdict, GV_ERROR, "%s", bare.reason);
    gv_problem_free(&p);
}

Test(verdict, one_exit_code_rule)
{
    /* failed, errors, judged, device, output lost */
    cr_expect_eq(gv_exit_code(0, 0, 5, true, false), GV_EXIT_OK);
    cr_expect_eq(gv_exit_code(0, 0, 0, true, false), GV_EXIT_OK, "skips on a device pass");
    cr_expect_eq(gv_exit_code(1, 0, 5, true, false), GV_EXIT_FAIL);
    cr_expect_eq(gv_exit_code(1, 3, 5, true, true), GV_EXIT_FAIL, "a failure outranks errors");
    cr_expect_eq(gv_exit_code(0, 1, 5, true, false), GV_EXIT_RUNTIME);
    cr_expect_eq(gv_exit_code(0, 0, 5, true, true), GV_EXIT_RUNTIME, "a lost file is an error");
    cr_expect_eq(gv_exit_code(0, 0, 0, false, false), GV_EXIT_NODEV);
    cr_expect_eq(gv_exit_code(0, 0, 0, false, true), GV_EXIT_RUNTIME);
    cr_expect_eq(gv_exit_code(0, 1, 0, false, false), GV_EXIT_RUNTIME);
}

/* The libraries' rule says a status; the command line's map gives the code. Each status has
   exactly one row of the exit table and each row its own status, so a status added without a
   row (or two rows for one) fails here; gv_cmd_exit's switch refuses a duplicate at compile
   time. */
Test(verdict, every_status_maps_to_one_exit_code)
{
    int rows_of[GV_NSTATUSES] = {0};
#define ROW_(name, code, status, what)                                                             \
    rows_of[status]++;                                                                             \
    cr_expect_eq(gv_cmd_exit(status), code, "%s -> %d", gv_status_name(status), code);
    GV_EXIT_CODES(ROW_)
#undef ROW_
    for (int s = 0; s < (int)GV_NSTATUSES; s++)
        cr_expect_eq(rows_of[s], 1, "status %s has %d rows", gv_status_name((gv_status)s),
                     rows_of[s]);
    cr_expect_eq(gv_run_status(1, 3, 5, true, true), GV_ST_FAIL);
    cr_expect_eq(gv_run_status(0, 0, 5, true, true), GV_ST_RUNTIME);
    cr_expect_eq(gv_run_status(0, 0, 0, false, false), GV_ST_NODEV);
    cr_expect_eq(gv_run_status(0, 0, 0, true, false), GV_ST_OK);
    /* a gv_error's lines are each a message of their own; the status decides the exit */
    gv_error e = {.status = GV_ST_OK, .msg = ""};
    gv_err_add(&e, GV_ST_BAD_INPUT, "first %d", 1);
    gv_err_add(&e, GV_ST_BAD_INPUT, "second");
    cr_expect_str_eq(e.msg, "first 1\nsecond");
    cr_expect_eq(gv_cmd_exit(e.status), GV_EXIT_USAGE);
}

/* Every FAIL names its cause from the one vocabulary (op.h, GV_CAUSES), each rule its own;
   PASS, SKIP and ERROR name none. Among them the two that were confused: zeros where results
   are subnormal beside subnormals kept are lost range (an intermediate overflowed, as
   1 / (1 + exp(-x)) does), and flushed subnormals only where none was kept. */
Test(verdict, every_fail_names_its_cause)
{
    gv_result r = clean();
    cr_expect_eq(r.cause, GV_CAUSE_NONE);
    cr_expect_str_eq(gv_cause_name(r.cause), "none");
    snprintf(r.guard, sizeof r.guard, "wrote past the end");
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_GUARD, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.poisoned = 1, r.m.first_poisoned_index = 0;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_UNWRITTEN, "%s", gv_cause_name(r.cause));
    r = clean();
    snprintf(r.internal, sizeof r.internal, "broken");
    gv_decide(&r);
    cr_expect(r.verdict == GV_ERROR && r.cause == GV_CAUSE_NONE, "an ERROR names no cause");
    r = clean();
    r.m.nonfinite_mismatches = r.m.nonfinite_spurious = 1;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_INTERMEDIATE_OVERFLOW, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.nonfinite_mismatches = r.m.nonfinite_lost = 1;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_LOST_NONFINITE, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.nonfinite_mismatches = 1;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_NONFINITE_PLACEMENT, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.zero_sign_wrong = 1;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_ZERO_SIGN, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.subnormal_ref = 10, r.m.flushed = 4, r.m.subnormal_kept = 6;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_LOST_RANGE, "kept subnormals beside zeros: %s (%s)",
                 gv_cause_name(r.cause), r.reason);
    r.m.subnormal_kept = 0;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_FLUSHED, "none kept: %s (%s)", gv_cause_name(r.cause), r.reason);
    /* zeros where the result is far above the subnormals too (log(1 + exp(x)) for x below
       about -17 in f32): no flush-to-zero does that */
    r.m.zero_normal = 3, r.m.first_zero_normal_index = 7;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_LOST_RANGE, "zeros of normal results: %s (%s)",
                 gv_cause_name(r.cause), r.reason);
    cr_expect(strstr(r.reason, "3 outputs returned as zero") && strstr(r.reason, "first at 7"),
              "%s", r.reason);
    r = clean();
    gv_result_check(&r, "residual", 100.0, 16.0, "residual 100 over 16");
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_RESIDUAL, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.ratio = 1e9;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_PRECISION, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.prob_max = 1e9;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_PRECISION, "%s", gv_cause_name(r.cause));
    r = clean();
    r.exact = true, r.m.inexact = 1;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_INEXACT, "%s", gv_cause_name(r.cause));
    r = clean();
    r.m.mismatches[1] = 1;
    gv_decide(&r);
    cr_expect_eq(r.cause, GV_CAUSE_TIER, "%s", gv_cause_name(r.cause));
    r.m.mismatches[1] = 0;
    gv_decide(&r);
    cr_expect(r.verdict == GV_PASS && r.cause == GV_CAUSE_NONE, "a PASS clears it");
}

/* The Python package reads the same names (python/src/gpuval/_core.py, CAUSES): each of C's
   is there, quoted, and the tuple holds no other. */
Test(verdict, python_knows_the_same_causes)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR names the source tree");
    char path[1024];
    snprintf(path, sizeof path, "%s/python/src/gpuval/_core.py", src);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    char *start = strstr(text, "CAUSES = (");
    cr_assert_not_null(start, "_core.py defines CAUSES = (...)");
    char *end = strstr(start, ")\n");
    cr_assert_not_null(end);
    *end = '\0';
    int quoted = 0;
    for (char *q = strchr(start, '"'); q; q = strchr(q + 1, '"'))
        quoted++;
    cr_expect_eq(quoted, 2 * GV_NCAUSES, "CAUSES holds %d names, C has %d", quoted / 2, GV_NCAUSES);
    for (int c = 0; c < GV_NCAUSES; c++) {
        char want[80];
        snprintf(want, sizeof want, "\"%s\"", gv_cause_name((gv_cause)c));
        cr_expect_not_null(strstr(start, want), "CAUSES lacks %s", want);
    }
}
