/* test_mathfn.c: the mathfn family on the device, beyond the registry sweep's verdicts: each
 * planted variant (an intrinsic under the native label) FAILs for the ulp check's reason, at
 * its test sizes and its default sizes, and each function of the catalogue PASSes in every
 * mode with its measured ulps within the documented bound (docs/error-models.md, mathfn). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "core/judge.h"
#include "core/run.h"

static const gv_result *check_of(const gv_result *r, const char *name, int *k)
{
    for (*k = 0; *k < r->n_checks; (*k)++)
        if (strcmp(r->checks[*k].name, name) == 0) return r;
    return NULL;
}

/* Every case of ops matching glob, at the test sizes or the default ones. */
static int select_cases(const char *glob, bool test_shapes, bool planted, gv_case **cases)
{
    gv_selection sel = {
        .op_glob = glob, .dist = -1, .test_shapes = test_shapes, .planted = planted, .seed = 7};
    char err[256] = "";
    int n = gv_select(&sel, cases, err, sizeof err);
    cr_assert_gt(n, 0, "%s: %s", glob, err);
    return n;
}

static void planted_fail_for_ulp(bool test_shapes)
{
    gv_case *cases = NULL;
    int n = select_cases("math.*.fast", test_shapes, true, &cases);
    for (int i = 0; i < n; i++) {
        char label[160];
        gv_case_label(&cases[i], label, sizeof label);
        gv_result r;
        cr_assert_eq(gv_run_case(&cases[i], &r), GV_OK, "%s", label);
        cr_log_info("%s: %s %s", label, gv_verdict_name(r.verdict), r.reason);
        int k;
        cr_expect_not_null(cases[i].op->planted_bug, "%s", label);
        cr_expect_eq(r.verdict, GV_FAIL, "%s: %s (%s)", label, gv_verdict_name(r.verdict),
                     r.reason);
        cr_expect_not_null(strstr(r.reason, " ulp at x = "), "%s: not the ulp reason: %s", label,
                           r.reason);
        if (check_of(&r, "ulp", &k))
            cr_expect_gt(r.checks[k].value, r.checks[k].bound, "%s", label);
        else
            cr_expect_fail("%s: no ulp check", label);
    }
    free(cases);
}

Test(gpu_mathfn, planted_fail_for_the_ulp_reason_at_test_sizes, .timeout = 600)
{
    planted_fail_for_ulp(true);
}

Test(gpu_mathfn, planted_fail_for_the_ulp_reason_at_default_sizes, .timeout = 600)
{
    planted_fail_for_ulp(false);
}

/* The catalogue's functions within their documented bounds, every mode; fastmath reports what
   the intrinsics' documentation leaves open. */
Test(gpu_mathfn, catalogue_within_documented_bounds, .timeout = 900)
{
    gv_case *cases = NULL;
    int n = select_cases("math.sin,math.exp,math.sigmoid", false, false, &cases);
    for (int i = 0; i < n; i++) {
        char label[160];
        gv_case_label(&cases[i], label, sizeof label);
        gv_result r;
        cr_assert_eq(gv_run_case(&cases[i], &r), GV_OK, "%s", label);
        cr_expect_eq(r.verdict, GV_PASS, "%s: %s (%s)", label, gv_verdict_name(r.verdict),
                     r.reason);
        int k;
        const char *name =
            cases[i].mode == GV_MODE_FASTMATH && strcmp(cases[i].op->name, "math.sin") == 0
                ? "abs_err"
                : "ulp";
        if (check_of(&r, name, &k)) {
            cr_log_info("%s: %s %.3g (bound %.3g at the worst)", label, name, r.checks[k].value,
                        r.checks[k].bound);
            cr_expect_leq(r.checks[k].value, r.checks[k].bound, "%s: %s", label, r.checks[k].why);
        } else {
            cr_expect_fail("%s: no %s check", label, name);
        }
        for (int e = 0; e < r.n_extra; e++)
            cr_log_info("%s: %s = %.6g", label, r.extra[e].name, r.extra[e].value);
    }
    free(cases);
}
