/* test_repeat.c: check --repeat's judgement (src/core/repeat.c) on hand-planted launches: byte
 * differences are found and measured (values, ulps, NaN, signed zero), a deterministic op
 * FAILs naming the element, an op that declares itself nondeterministic keeps its verdict
 * and reports the spread. The launches themselves need a device (tests/gpu/test_faults.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "io/run_doc.h"
#include "core/repeat.h"
#include "testkit.h"

static int one_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 0, .n_out = 1};
    l->out[0] = (gv_tensor_spec){"s", c->shape.d[0]};
    return GV_OK;
}

static double zero(const gv_case *c)
{
    (void)c;
    return 0.0;
}

static double one(const gv_case *c)
{
    (void)c;
    return 1.0;
}

static int no_inputs(gv_problem *p)
{
    (void)p;
    return GV_OK;
}

#define COMMON                                                                                     \
    .family = "fake", .dims = "n", .dtypes = 3u, .modes = 1u << GV_MODE_NATIVE,                    \
    .layout = one_layout, .flops = zero, .bytes = zero, .make_inputs = no_inputs, .depth = one

static const gv_op steady = {.name = "steady", COMMON};
static const gv_op racy = {.name = "racy", .nondeterministic = "atomics", COMMON};

/* A judged first launch of op: outputs equal to the references 1, 2, ..., n (a PASS). */
static void first_launch(gv_problem *p, gv_result *r, const gv_op *op, gv_dtype t, int64_t n)
{
    gv_case c = {op, t, GV_MODE_NATIVE, GV_DIST_UNIFORM01, {1, {n}}, 0};
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
    for (int64_t i = 0; i < n; i++) {
        p->out[0].ref[i] = (double)(i + 1);
        p->out[0].gauge[i] = (double)(i + 1);
        gv_dtype_store(t, p->out[0].data, i, (double)(i + 1));
    }
    *r = gv_test_judge(p);
    cr_assert_eq(r->verdict, GV_PASS, "%s", r->reason);
}

Test(repeat, identical_repeats_pass)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &steady, GV_F32, 5);
    float again[5] = {1, 2, 3, 4, 5};
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    cr_expect_eq(d.differing, 0);
    gv_repeat_record(&p, &r, 3, 0, &d, &d);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_eq(gv_test_extra(&r, "repeats"), 3);
    cr_expect_eq(gv_test_extra(&r, "repeat_differing"), 0);
    gv_problem_free(&p);
}

Test(repeat, one_ulp_fails_a_deterministic_op_naming_the_element)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &steady, GV_F32, 5);
    float again[5] = {1, 2, 3, nextafterf(4.0f, 5.0f), 5};
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    cr_expect_eq(d.differing, 1);
    cr_expect_eq(d.first_index, 3);
    cr_expect_eq(d.max_abs, 0x1p-21); /* one ulp of 4 in f32 */
    cr_expect_eq(d.max_ulp, 1.0);
    gv_repeat_record(&p, &r, 3, 2, &d, &d);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect(strstr(r.reason, "not deterministic: repeat 2 of 3 differs in 1 of 5 elements, "
                               "first s element 3: 4, then 4.00000048") != NULL,
              "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(repeat, nondeterministic_op_reports_its_spread_only)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &racy, GV_F64, 4);
    double again[4] = {1, 2 + 0x1p-51 * 2, 3, 4}; /* 2 ulps at 2 in f64 */
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    gv_repeat_record(&p, &r, 2, 2, &d, &d);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_eq(gv_test_extra(&r, "repeat_differing"), 1);
    cr_expect_eq(gv_test_extra(&r, "repeat_max_ulp_diff"), 2.0);
    cr_expect_eq(gv_test_extra(&r, "repeat_max_abs_diff"), 0x1p-50);
    /* the table row says so, with the op's own reason */
    char *row = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&row, &len);
    cr_assert_not_null(f);
    gv_table_row(f, &r);
    fclose(f);
    cr_expect(strstr(row, " PASS [nondeterministic (atomics): 2 launches, up to 1 elements differ, "
                          "by up to 2 ulps]") != NULL,
              "row: %s", row);
    free(row);
    gv_problem_free(&p);
}

Test(repeat, signed_zero_and_nan_differ)
{
    gv_problem p;
    gv_result r;
    first_launch(&p, &r, &steady, GV_F64, 3);
    p.out[0].ref[0] = 0.0;
    ((double *)p.out[0].data)[0] = 0.0;
    double again[3] = {-0.0, NAN, 3};
    gv_repeat_diff d = {0};
    gv_repeat_diff_output(&p, 0, again, &d);
    cr_expect_eq(d.differing, 2);
    cr_expect_eq(d.first_index, 0);
    cr_expect(isinf(d.max_abs) && isinf(d.max_ulp), "a NaN is infinitely far: %g %g", d.max_abs,
              d.max_ulp);
    gv_problem_free(&p);
}
