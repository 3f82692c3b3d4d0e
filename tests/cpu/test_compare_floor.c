/* test_compare_floor.c: the floor of compare's error-ratio rule (gv_cmp_opts.ratio_floor,
 * src/runs/compare_runs.c). A twofold change of a ratio far below its bound is rounding noise
 * (solve.gesv f64 went 0.0048 -> 0.0105 of a bound of 16 between two equally correct runs, and
 * compare called it REGRESSED): SAME, with the reason. Growth that reaches the floor, or any
 * twofold growth near the bound, stays REGRESSED; the accurate-bits rule is not floored. Each
 * case is a copy of the H100 check fixture's case 0 (vadd f32, bound 16) with its ratios set. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/compare_runs.h"
#include "testkit.h"

static json_t *fixture(void)
{
    char path[1024];
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR names the source tree (tests/meson.build)");
    snprintf(path, sizeof path, "%s/tests/fixtures/check-h100.json", src);
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    cr_assert_not_null(d, "%s: %s", path, err.text);
    return d;
}

static json_t *case0(json_t *doc)
{
    return json_array_get(json_object_get(doc, "cases"), 0);
}

static void set_ratio(json_t *doc, double ratio)
{
    json_t *e = json_object_get(case0(doc), "error_model");
    cr_assert_eq(json_number_value(json_object_get(e, "bound")), 16.0, "the fixture's bound");
    json_object_set_new(e, "ratio", json_real(ratio));
}

/* Case 0's outcome with base and new ratios b and n, under floor (a fraction of the bound);
   its error-ratio item's reason into why. */
static gv_cmp_outcome outcome(double b, double n, double floor, char *why, size_t len)
{
    json_t *base = fixture(), *new_doc = json_deep_copy(base);
    set_ratio(base, b);
    set_ratio(new_doc, n);
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    o.ratio_floor = floor;
    gv_cmp_result r;
    char err[256] = "";
    cr_assert_eq(gv_compare_runs(base, new_doc, &o, &r, err, sizeof err), GV_OK, "%s", err);
    const gv_cmp_case *c = &r.cases[0];
    cr_assert_str_eq(c->op, "vadd");
    why[0] = '\0';
    for (int i = 0; i < c->n_items; i++)
        if (strcmp(c->items[i].what, "error ratio") == 0) snprintf(why, len, "%s", c->items[i].why);
    gv_cmp_outcome out = c->outcome;
    /* every other case is unchanged */
    cr_expect_eq(r.count[GV_CMP_SAME], r.n_cases - (out != GV_CMP_SAME));
    gv_cmp_result_free(&r);
    json_decref(base);
    json_decref(new_doc);
    return out;
}

Test(compare_floor, the_default_floor_is_one_model_unit_at_bound_16)
{
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    cr_expect_eq(o.ratio_floor * 16.0, 1.0);
    cr_expect_eq(o.ratio, 2.0);
    cr_expect_eq(o.bits, 1.0);
}

/* The false alarm of the measured runs: SAME with the floor, REGRESSED without it (the rule
   the floor changes, shown to bite). */
Test(compare_floor, twofold_growth_far_below_the_bound_is_noise)
{
    char why[160];
    cr_expect_eq(outcome(0.0048, 0.0105, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_SAME);
    cr_expect(strstr(why, "below the floor 1: rounding noise") != NULL, "%s", why);
    cr_expect_eq(outcome(0.0048, 0.0105, 0.0, why, sizeof why), GV_CMP_REGRESSED);
    cr_expect(strstr(why, "error ratio grew x2.19") != NULL, "%s", why);
}

Test(compare_floor, shrinking_far_below_the_bound_is_noise_too)
{
    char why[160];
    cr_expect_eq(outcome(0.5, 0.01, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_SAME);
    cr_expect_eq(outcome(0.5, 0.01, 0.0, why, sizeof why), GV_CMP_IMPROVED);
}

/* Real regressions are still caught: twofold near the bound, and growth that reaches the
   floor from far below it. */
Test(compare_floor, twofold_growth_near_the_bound_regresses)
{
    char why[160];
    cr_expect_eq(outcome(4.0, 9.0, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_REGRESSED);
    cr_expect(strstr(why, "grew x2.25") != NULL, "%s", why);
    cr_expect_eq(outcome(7.0, 15.0, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_REGRESSED);
}

Test(compare_floor, growth_that_reaches_the_floor_regresses)
{
    char why[160];
    cr_expect_eq(outcome(0.001, 1.0, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_REGRESSED);
    cr_expect_eq(outcome(0.3, 1.5, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_REGRESSED);
    /* just under the floor on both sides: noise */
    cr_expect_eq(outcome(0.3, 0.99, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_SAME);
    /* an improvement from above the floor to below it is an improvement */
    cr_expect_eq(outcome(3.0, 0.5, GV_CMP_RATIO_FLOOR, why, sizeof why), GV_CMP_IMPROVED);
}

/* Under the floor a loss of accuracy still shows: the accurate-bits rule is not floored. */
Test(compare_floor, lost_bits_below_the_floor_still_regress)
{
    json_t *base = fixture(), *new_doc = json_deep_copy(base);
    set_ratio(base, 0.01);
    set_ratio(new_doc, 0.05);
    json_t *m = json_object_get(case0(new_doc), "metrics");
    json_object_set_new(m, "accurate_bits",
                        json_real(json_number_value(json_object_get(m, "accurate_bits")) - 3));
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    gv_cmp_result r;
    char err[256] = "";
    cr_assert_eq(gv_compare_runs(base, new_doc, &o, &r, err, sizeof err), GV_OK, "%s", err);
    cr_expect_eq(r.cases[0].outcome, GV_CMP_REGRESSED);
    cr_expect_eq(r.overall, GV_CMP_REGRESSED);
    gv_cmp_result_free(&r);
    json_decref(base);
    json_decref(new_doc);
}
