/* model_mathfn.c: the mathfn family's descriptors and ulp judgement (src/ops/mathfn.c), on the
 * CPU: the bounds each op's label claims, the ulp distance they are counted in, and simulated
 * device results judged end to end (outputs k ulps from the correctly rounded result pass up
 * to the documented bound and FAIL one step past it with the ulp reason; the fast intrinsics'
 * own bounds in fastmath, and what they leave undocumented reported, not judged). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/mathfn.h"
#include "testkit.h"

static const char *const native_ops[] = {"math.sin", "math.exp", "math.sigmoid"};
static const char *const planted_ops[] = {"math.sin.fast", "math.exp.fast", "math.sigmoid.fast"};

Test(model_mathfn, descriptors)
{
    for (int k = 0; k < 3; k++) {
        const gv_op *op = gv_op_find(native_ops[k]);
        cr_assert_not_null(op, "%s registered", native_ops[k]);
        cr_expect_str_eq(op->family, "mathfn");
        cr_expect_eq(gv_mathfn_of(op), k);
        cr_expect_null(op->planted_bug);
        cr_expect_eq(op->dtypes, (1u << GV_F32) | (1u << GV_F64));
        cr_expect(op->modes & (1u << GV_MODE_FASTMATH));
        cr_expect(op->mode_valid(GV_F32, GV_MODE_FASTMATH));
        cr_expect(!op->mode_valid(GV_F64, GV_MODE_FASTMATH), "no f64 intrinsics");
        cr_expect_not_null(op->measure, "%s: the ulp judgement", op->name);
        cr_expect_not_null(op->exact_reference);
        cr_expect_eq(op->bias_dists, 0u, "not correctly rounded: bias reported only");
        cr_expect_not_null(strstr(op->error_model, "ulp"));
        cr_expect_not_null(strstr(op->error_model, "CUDA C++ Programming Guide 13.0"),
                           "%s: the model's source (list -v): %s", op->name, op->error_model);
        cr_expect_not_null(op->shapes);
        cr_expect_not_null(op->test_shapes);

        const gv_op *p = gv_op_find(planted_ops[k]);
        cr_assert_not_null(p, "%s registered", planted_ops[k]);
        cr_expect_not_null(p->planted_bug, "%s is planted", p->name);
        cr_expect_eq(gv_mathfn_of(p), k);
        cr_expect_eq(p->dtypes, 1u << GV_F32);
        cr_expect_eq(p->modes, 1u << GV_MODE_NATIVE, "the intrinsic under the native label");
        /* the planted variant shares its function's inputs and reference (so that they judge
           the same arguments), never another function's */
        cr_expect(p->make_inputs == op->make_inputs && p->oracle == op->oracle);
        for (int j = 0; j < 3; j++)
            if (j != k) cr_expect(gv_op_find(native_ops[j])->oracle != op->oracle);
    }
}

static gv_case mk(const char *op, gv_dtype t, gv_mode m)
{
    return gv_test_case(op, t, m, GV_DIST_WIDE, (gv_shape){1, {4000}}, 7);
}

/* The table of bounds, per op, dtype and mode, at arguments inside and outside the intrinsics'
   documented ranges. */
Test(model_mathfn, bounds_table)
{
    const double native[3][2] = {{2, 2}, {2, 1}, {7, 5}}; /* f32, f64 */
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++) {
            gv_case c = mk(native_ops[k], d ? GV_F64 : GV_F32, GV_MODE_NATIVE);
            gv_mathfn_bound b = gv_mathfn_bound_at(&c, 0.5, 0.5);
            cr_expect_eq(b.kind, GV_MATHFN_ULP);
            cr_expect_eq(b.value, native[k][d], "%s %s: %g", native_ops[k], d ? "f64" : "f32",
                         b.value);
            cr_expect_neq(b.function[0], '\0');
            cr_expect_neq(b.source[0], '\0');
            /* the planted variants claim the same */
            if (!d) {
                gv_case p = mk(planted_ops[k], GV_F32, GV_MODE_NATIVE);
                cr_expect_eq(gv_mathfn_bound_at(&p, 0.5, 0.5).value, native[k][0]);
            }
        }
    gv_case s = mk("math.sin", GV_F32, GV_MODE_FASTMATH);
    gv_mathfn_bound b = gv_mathfn_bound_at(&s, 3.14, sin(3.14));
    cr_expect_eq(b.kind, GV_MATHFN_ABS);
    cr_expect_float_eq(b.value, pow(2.0, -21.41), 1e-20);
    cr_expect_eq(gv_mathfn_bound_at(&s, 3.2, sin(3.2)).kind, GV_MATHFN_NONE, "only on [-pi, pi]");
    gv_case e = mk("math.exp", GV_F32, GV_MODE_FASTMATH);
    cr_expect_eq(gv_mathfn_bound_at(&e, -10.0, exp(-10.0)).value, 13.0, "2 + floor(11.73)");
    cr_expect_eq(gv_mathfn_bound_at(&e, 88.0, exp(88.0)).value, 105.0, "2 + floor(103.224)");
    cr_expect_eq(gv_mathfn_bound_at(&e, -90.0, exp(-90.0)).kind, GV_MATHFN_NONE,
                 "a subnormal result is flushed: no bound");
    gv_case g = mk("math.sigmoid", GV_F32, GV_MODE_FASTMATH);
    cr_expect_eq(gv_mathfn_bound_at(&g, -10.0, 1 / (1 + exp(10.0))).value, 2 * 13.0 + 7);
    cr_expect_eq(gv_mathfn_bound_at(&g, 10.0, 1 / (1 + exp(-10.0))).value, 13.0 + 7);
}

Test(model_mathfn, ulp_distance)
{
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F32, 1.0, nextafterf(1.0f, 2.0f)), 1.0);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F32, 1.0, nextafterf(1.0f, 0.0f)), 1.0,
                 "one step below a power of two is one, at its own spacing");
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F32, 1.0, 1.0 + 3 * 0x1p-23), 3.0);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F32, 0.0, -0.0), 0.0);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F32, 0x1p-149, -0x1p-149), 2.0);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F32, 0x1p-149, 0x1p-126), (double)(1 << 23) - 1);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F64, 1.0, 1.0 + 0x1p-52), 1.0);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F64, -1.0, -1.0 - 5 * 0x1p-52), 5.0);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F64, 0x1p-1074, 0.0), 1.0);
    cr_expect_eq(gv_mathfn_ulp_distance(GV_F64, 2.0, nextafter(2.0, 0.0)), 1.0);
    cr_expect(isinf(gv_mathfn_ulp_distance(GV_F32, NAN, 1.0)));
    cr_expect(isinf(gv_mathfn_ulp_distance(GV_F64, INFINITY, 1.0)));
}

/* The correctly rounded result of element i, moved `steps` values of the dtype up. */
static double stepped(const gv_problem *p, int64_t i, int steps)
{
    double r = p->out[0].ref[i];
    if (p->c.dtype == GV_F32) {
        float f = (float)r;
        for (int s = 0; s < steps; s++)
            f = nextafterf(f, INFINITY);
        return f;
    }
    for (int s = 0; s < steps; s++)
        r = nextafter(r, INFINITY);
    return r;
}

typedef double (*sim_fn)(const gv_problem *p, int64_t i, int arg);

static double sim_steps(const gv_problem *p, int64_t i, int steps)
{
    return stepped(p, i, steps);
}

static gv_result judge_sim(gv_case c, sim_fn sim, int arg)
{
    gv_problem p;
    gv_test_problem(&p, &c);
    int64_t n = p.out[0].count;
    double *y = gv_test_alloc(n);
    for (int64_t i = 0; i < n; i++)
        y[i] = sim(&p, i, arg);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s %s %s (%d): %s %s", c.op->name, gv_dtype_name(c.dtype), gv_mode_name(c.mode),
                arg, gv_verdict_name(r.verdict), r.reason);
    return r;
}

static double check_value(const gv_result *r, const char *name)
{
    for (int i = 0; i < r->n_checks; i++)
        if (strcmp(r->checks[i].name, name) == 0) return r->checks[i].value;
    cr_assert_fail("check '%s' missing", name);
    return NAN;
}

/* Outputs the bound's number of steps from the correctly rounded result pass; one step more
   FAILs with the ulp reason naming the function and the bound. */
Test(model_mathfn, ulp_check_passes_the_bound_and_fails_past_it)
{
    const int bound[3][2] = {{2, 2}, {2, 1}, {7, 5}};
    const char *fname[3][2] = {{"sinf", "sin"}, {"expf", "exp"}, {"sigmoid (expf", "sigmoid (exp"}};
    for (int k = 0; k < 3; k++)
        for (int d = 0; d < 2; d++) {
            gv_case c = mk(native_ops[k], d ? GV_F64 : GV_F32, GV_MODE_NATIVE);
            gv_result ok = judge_sim(c, sim_steps, bound[k][d]);
            cr_expect_eq(ok.verdict, GV_PASS, "%s %d ulp: %s", native_ops[k], bound[k][d],
                         ok.reason);
            cr_expect_eq(check_value(&ok, "ulp"), bound[k][d]);
            cr_expect_eq(gv_test_extra(&ok, "ulp_max"), bound[k][d]);
            gv_result one = judge_sim(c, sim_steps, 1);
            cr_expect_eq(one.verdict, GV_PASS, "%s 1 ulp: %s", native_ops[k], one.reason);
            gv_result bad = judge_sim(c, sim_steps, bound[k][d] + 1);
            cr_expect_eq(bad.verdict, GV_FAIL, "%s %d ulp", native_ops[k], bound[k][d] + 1);
            cr_expect(strncmp(bad.reason, fname[k][d], strlen(fname[k][d])) == 0 &&
                          strstr(bad.reason, " ulp at x = ") &&
                          strstr(bad.reason, k == 2 ? "over the derived" : "Guide 13.0"),
                      "reason: %s", bad.reason);
        }
    /* the brief's example: a 2-ulp function off by 3 FAILs, by 1 PASSes */
    gv_case s = mk("math.sin", GV_F32, GV_MODE_NATIVE);
    gv_result r3 = judge_sim(s, sim_steps, 3);
    cr_expect_eq(r3.verdict, GV_FAIL);
    cr_expect_not_null(strstr(r3.reason, "sinf: 3 ulp at x = "), "%s", r3.reason);
    cr_expect_not_null(strstr(r3.reason, "over the documented 2 ulp"), "%s", r3.reason);
}

/* A NaN output never passes (the NaN placement rule, and the ulp check counts it infinite). */
static double sim_one_nan(const gv_problem *p, int64_t i, int arg)
{
    return i == arg ? NAN : stepped(p, i, 0);
}

Test(model_mathfn, nan_never_passes)
{
    gv_result r = judge_sim(mk("math.exp", GV_F64, GV_MODE_NATIVE), sim_one_nan, 17);
    cr_expect_eq(r.verdict, GV_FAIL, "%s", r.reason);
    cr_expect(isinf(check_value(&r, "ulp")));
}

/* The planted ops' label is native: their outputs are judged against the library's bound. */
Test(model_mathfn, planted_label_claims_the_native_bound)
{
    for (int k = 0; k < 3; k++) {
        gv_result r =
            judge_sim(mk(planted_ops[k], GV_F32, GV_MODE_NATIVE), sim_steps, k == 2 ? 8 : 3);
        cr_expect_eq(r.verdict, GV_FAIL, "%s: %s", planted_ops[k], r.reason);
        cr_expect_not_null(strstr(r.reason, " ulp at x = "), "%s", r.reason);
    }
}

/* fastmath __expf: its own bound 2 + floor(|1.173 x|) where the result is normal; subnormal
   results flushed to zero are reported, not judged. */
static double sim_fast_exp(const gv_problem *p, int64_t i, int extra)
{
    double x = p->in[0].ref[i], r = p->out[0].ref[i];
    if (fabs(r) < FLT_MIN) return 0.0; /* flushed */
    return stepped(p, i, (int)(2 + floor(fabs(1.173 * x))) + extra);
}

Test(model_mathfn, fastmath_exp_own_bound)
{
    gv_case c = mk("math.exp", GV_F32, GV_MODE_FASTMATH);
    gv_result ok = judge_sim(c, sim_fast_exp, 0);
    cr_expect_eq(ok.verdict, GV_PASS, "%s", ok.reason);
    cr_expect_gt(gv_test_extra(&ok, "undocumented_n"), 0, "subnormal results reported");
    cr_expect_gt(gv_test_extra(&ok, "undocumented_ulp_max"), 1000, "flushed: far off");
    gv_result bad = judge_sim(c, sim_fast_exp, 1);
    cr_expect_eq(bad.verdict, GV_FAIL);
    cr_expect(strncmp(bad.reason, "__expf: ", 8) == 0, "%s", bad.reason);
}

/* fastmath __sinf: absolute 2^-21.41 on [-pi, pi] judged; beyond it reported. */
static double sim_fast_sin(const gv_problem *p, int64_t i, int scale_pct)
{
    double x = p->in[0].ref[i], r = p->out[0].ref[i];
    if (fabs(x) > M_PI) return (float)(0.5 * r); /* undocumented: anything finite in [-1, 1] */
    return (float)(r + (scale_pct / 100.0) * pow(2.0, -21.41) * (r >= 0 ? -1 : 1));
}

Test(model_mathfn, fastmath_sin_absolute_bound)
{
    gv_case c = mk("math.sin", GV_F32, GV_MODE_FASTMATH);
    gv_result ok = judge_sim(c, sim_fast_sin, 80);
    cr_expect_eq(ok.verdict, GV_PASS, "%s", ok.reason);
    cr_expect_gt(gv_test_extra(&ok, "undocumented_n"), 0);
    gv_result bad = judge_sim(c, sim_fast_sin, 150);
    cr_expect_eq(bad.verdict, GV_FAIL);
    cr_expect(strncmp(bad.reason, "__sinf: absolute error 2^", 25) == 0, "%s", bad.reason);
}

/* The inputs reach every class the docs name: large sin arguments (to 2^20 and near the
   largest float), exp near overflow and into subnormal results. */
Test(model_mathfn, inputs_cover_the_argument_classes)
{
    gv_problem p;
    gv_case s = mk("math.sin", GV_F32, GV_MODE_NATIVE);
    gv_test_problem(&p, &s);
    double big = 0, small = INFINITY;
    int near_zero = 0;
    for (int64_t i = 0; i < p.in[0].count; i++) {
        double x = fabs(p.in[0].ref[i]);
        if (x > big) big = x;
        if (x > 0 && x < small) small = x;
        /* within 4 steps of a zero k pi: |sin x| = |x - k pi| below 4 ulp(x) */
        near_zero += x > 3 && fabs(p.out[0].ref[i]) < 4 * ldexp(1.0, ilogb(x) - 23);
    }
    cr_expect_gt(big, 0x1p120);
    cr_expect_lt(small, 1e-6);
    cr_expect_gt(near_zero, 100, "arguments near multiples of pi");
    gv_problem_free(&p);
    gv_case e = mk("math.exp", GV_F64, GV_MODE_NATIVE);
    gv_test_problem(&p, &e);
    int sub = 0, top = 0;
    for (int64_t i = 0; i < p.in[0].count; i++) {
        sub += p.out[0].ref[i] < DBL_MIN && p.out[0].ref[i] > 0;
        top += p.in[0].ref[i] > 709;
        cr_expect(isfinite(p.out[0].ref[i]) && p.out[0].ref[i] > 0, "x = %a", p.in[0].ref[i]);
    }
    cr_expect_gt(sub, 300);
    cr_expect_gt(top, 100);
    cr_expect(p.ref_exact, "f64: the __float128 reference with its remainder");
    gv_problem_free(&p);
}
