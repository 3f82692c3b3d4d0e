/* probe_check.c: the mode fingerprint inside `gpuval check` (src/probe/probe_check.h), on rows
 * judged by hand: a row whose features FAIL turns its kernel's PASSes in its dtype and mode
 * into FAILs that name each FAILed feature, its value and the expectation, and nothing else
 * moves (other modes, other kernels, SKIPs, the user's own inputs, a row that passed, a row
 * the device could not run). The measurement itself is `gpuval probe`'s (probe_fprint.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "probe/probe_check.h"

static gv_probe_row failed_row(const gv_op *op, gv_mode m, const gv_fp_rule *rule)
{
    gv_probe_row r = {.op = op, .dtype = GV_F32, .mode = m, .fails = 1};
    for (int f = 0; f < GV_FP_NFEATURES; f++)
        r.v[f] = GV_FP_PASS;
    r.v[GV_FP_IN_ROUND_A] = GV_FP_FAIL;
    r.rule[GV_FP_IN_ROUND_A] = rule;
    snprintf(r.fp.f[GV_FP_IN_ROUND_A].text, sizeof r.fp.f[0].text, "RZ");
    return r;
}

Test(probe_check, a_failed_row_fails_its_cases_and_nothing_else)
{
    const gv_op *rz = gv_op_find("gemm.cublas.rzconv"), *cublas = gv_op_find("gemm.cublas");
    cr_assert(rz && cublas);
    gv_fp_rule rule = {.value = "RNE", .line = 1};
    gv_probe_row rows[2] = {failed_row(rz, GV_MODE_F16, &rule),
                            {.op = rz, .dtype = GV_F32, .mode = GV_MODE_BF16}};
    gv_shape s = {3, {128, 128, 128}};
    gv_case cases[6] = {
        {rz, GV_F32, GV_MODE_F16, GV_DIST_UNIFORM01, s, 0},     /* the row's: FAILs */
        {rz, GV_F32, GV_MODE_F16, GV_DIST_TIE, s, 0},           /* already FAIL: kept */
        {rz, GV_F32, GV_MODE_BF16, GV_DIST_UNIFORM01, s, 0},    /* its row passed */
        {rz, GV_F32, GV_MODE_F16, GV_DIST_NARROW, s, 0},        /* SKIP stays SKIP */
        {cublas, GV_F32, GV_MODE_F16, GV_DIST_UNIFORM01, s, 0}, /* another kernel */
        {rz, GV_F32, GV_MODE_F16, GV_DIST_UNIFORM01, s, 0},     /* the user's inputs */
    };
    gv_result res[6] = {0};
    for (int i = 0; i < 6; i++)
        res[i].verdict = GV_PASS;
    res[1].verdict = GV_FAIL;
    snprintf(res[1].reason, sizeof res[1].reason, "its own");
    res[3].verdict = GV_SKIP;
    res[5].inputs = GV_INPUTS_GIVEN;
    cr_expect_eq(gv_probe_check_apply(rows, 2, cases, res, 6), 1);
    cr_expect_eq(res[0].verdict, GV_FAIL);
    cr_expect_eq(res[0].cause, GV_CAUSE_RESIDUAL);
    cr_expect(strstr(res[0].reason, "in_round_A RZ where RNE is expected") != NULL, "%s",
              res[0].reason);
    cr_expect_str_eq(res[1].reason, "its own");
    cr_expect_eq(res[2].verdict, GV_PASS);
    cr_expect_eq(res[3].verdict, GV_SKIP);
    cr_expect_eq(res[4].verdict, GV_PASS);
    cr_expect_eq(res[5].verdict, GV_PASS);
    /* a row the device could not run judges nothing */
    rows[0].skipped = true;
    res[0].verdict = GV_PASS;
    cr_expect_eq(gv_probe_check_apply(rows, 1, cases, res, 1), 0);
    cr_expect_eq(res[0].verdict, GV_PASS);
}

Test(probe_check, the_reason_names_every_failed_feature)
{
    const gv_op *op = gv_op_find("gemm.cublas.emuauto");
    cr_assert_not_null(op);
    gv_fp_rule rule = {.value = "RNE"}, cr = {.value = "70.6"};
    gv_probe_row r = failed_row(op, GV_MODE_FP64EMU, &rule);
    r.v[GV_FP_CR_SHARE] = GV_FP_FAIL;
    r.rule[GV_FP_CR_SHARE] = &cr;
    snprintf(r.fp.f[GV_FP_CR_SHARE].text, sizeof r.fp.f[0].text, "51.7");
    r.fails = 2;
    char why[256];
    gv_probe_check_reason(&r, why, sizeof why);
    cr_expect(strstr(why, "in_round_A RZ where RNE is expected") != NULL, "%s", why);
    cr_expect(strstr(why, "cr_share 51.7 where 70.6 is expected") != NULL, "%s", why);
    /* a value that moved between repeats says so */
    r.changed[GV_FP_CR_SHARE] = 1;
    gv_probe_check_reason(&r, why, sizeof why);
    cr_expect(strstr(why, "cr_share changed between runs") != NULL, "%s", why);
    /* no FAIL, no reason */
    r.fails = 0;
    gv_probe_check_reason(&r, why, sizeof why);
    cr_expect_str_eq(why, "");
}

/* Without a device kernel (a CPU-only build) no op is probeable: the fingerprint selects no
   row, and check runs as before. With one, a layout variant of gemm.cublas shares its row. */
Test(probe_check, rows_follow_the_kernels_that_ran)
{
    const gv_op *cublas = gv_op_find("gemm.cublas"), *strided = gv_op_find("gemm.cublas.strided");
    cr_assert(cublas && strided);
    gv_shape s = {3, {128, 128, 128}};
    gv_case cases[3] = {{cublas, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 0},
                        {strided, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 0},
                        {cublas, GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 0}};
    gv_result res[3] = {0};
    gv_probe_row *rows;
    int n;
    cr_assert_eq(gv_probe_check_rows(cases, res, 3, &rows, &n), GV_OK);
    if (!cublas->device) {
        cr_expect_eq(n, 0);
    } else {
        cr_expect_eq(n, 2, "gemm.cublas f32 (strided with it) and f64");
        cr_expect_eq(rows[0].op, cublas);
    }
    free(rows);
}

/* The rows measured beside the cases (results NULL) are those of every case as if it ran: a
   superset of the rows of the cases that did. Where the first case of a kernel was skipped,
   the row that ran is probed through another op, so it is not among them and check measures
   it after the cases (src/cmd/check.c, fp_measure), as it did before. */
Test(probe_check, rows_before_the_verdicts_hold_every_row_that_can_run)
{
    const gv_op *cublas = gv_op_find("gemm.cublas"), *strided = gv_op_find("gemm.cublas.strided");
    cr_assert(cublas && strided);
    gv_shape s = {3, {128, 128, 128}};
    gv_case cases[3] = {{cublas, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 0},
                        {strided, GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 0},
                        {cublas, GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM01, s, 0}};
    gv_result res[3] = {{.verdict = GV_SKIP}, {.verdict = GV_PASS}, {.verdict = GV_SKIP}};
    gv_probe_row *all, *ran;
    int n_all, n_ran;
    cr_assert_eq(gv_probe_check_rows(cases, NULL, 3, &all, &n_all), GV_OK);
    cr_assert_eq(gv_probe_check_rows(cases, res, 3, &ran, &n_ran), GV_OK);
    if (!cublas->device) {
        cr_expect_eq(n_all, 0);
        cr_expect_eq(n_ran, 0);
    } else {
        cr_expect_eq(n_all, 2, "gemm.cublas f32 (strided with it) and f64");
        cr_expect_eq(all[0].op, cublas);
        cr_expect_eq(all[1].dtype, GV_F64);
        cr_expect_eq(n_ran, 1, "only the strided f32 case ran");
        cr_expect_eq(ran[0].op, strided, "probed through the op that ran");
    }
    free(all);
    free(ran);
}
