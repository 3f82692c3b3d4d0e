/* test_judge.c: gv_judge_problem's verdict rules (src/core/judge.c) on hand-planted results: unwritten
 * and misplaced NaN outputs fail, the ratio bound, the bias rule and the expected tier,
 * several outputs and the unit roundoffs. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "core/metrics.h"
#include "core/judge.h"
#include "core/reference.h"
#include "core/run.h"
#include "io/run_doc.h"
#include "render/run_text.h"
#include "testkit.h"

/* ---- gv_judge_problem: verdict rules on hand-planted results --------------------------------------- */

/* A fake op: shape (n, d) gives one output of n elements (two for fake2) judged at depth d,
   so a test picks the error model's depth through the case. */
static int fake_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 0, .n_out = 1};
    l->out[0] = (gv_tensor_spec){"y", c->shape.d[0]};
    return GV_OK;
}

static int fake2_layout(const gv_case *c, gv_layout *l)
{
    *l = (gv_layout){.n_in = 0, .n_out = 2};
    l->out[0] = (gv_tensor_spec){"y", c->shape.d[0]};
    l->out[1] = (gv_tensor_spec){"z", c->shape.d[0]};
    return GV_OK;
}

static double fake_zero(const gv_case *c)
{
    (void)c;
    return 0.0;
}

static double fake_depth(const gv_case *c)
{
    return (double)c->shape.d[1];
}

static int fake_inputs(gv_problem *p)
{
    (void)p;
    return GV_OK;
}

static double fake_tier_1e4(const gv_case *c, char *why, size_t len)
{
    (void)c;
    snprintf(why, len, "test: claims only 1e-4");
    return 1e-4;
}

#define FAKE_COMMON                                                                                \
    .family = "fake", .dims = "n,d", .dtypes = 3u,                                                 \
    .modes = (1u << GV_MODE_NATIVE) | (1u << GV_MODE_TF32), .flops = fake_zero,                    \
    .bytes = fake_zero, .make_inputs = fake_inputs, .depth = fake_depth

static const gv_op fake = {.name = "fake", .layout = fake_layout, FAKE_COMMON};

static const gv_op fake2 = {.name = "fake2", .layout = fake2_layout, FAKE_COMMON};

static const gv_op fake_loose = {
    .name = "fake.loose", .layout = fake_layout, .expected_tier = fake_tier_1e4, FAKE_COMMON};

/* an op whose errors the bias rule judges on the inputs problem() gives (uniform [0,1)) */
static const gv_op fake_bias = {
    .name = "fake.bias", .layout = fake_layout, .bias_dists = 1u << GV_DIST_UNIFORM01, FAKE_COMMON};

/* Problem for op at (n, depth); outputs poisoned (unwritten) until plant() writes them. */
static void problem(gv_problem *p, const gv_op *op, gv_dtype t, gv_mode mode, int64_t n,
                    int64_t depth)
{
    gv_case c = {op, t, mode, GV_DIST_UNIFORM01, {2, {n, depth}}, 0};
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
}

/* Set output o's reference and gauge (NULL: g = |r|) and the device values in dtype. */
static void plant(gv_problem *p, int o, const double *ref, const double *gauge, const double *got)
{
    gv_tensor *t = &p->out[o];
    for (int64_t i = 0; i < t->count; i++) {
        t->ref[i] = ref[i];
        t->gauge[i] = gauge ? gauge[i] : fabs(ref[i]);
        gv_dtype_store(p->c.dtype, t->data, i, got[i]);
    }
}

Test(judge, exact_enough_is_pass)
{
    /* f64, err 2^-52 at r = 1, g = 1, d = 1: ratio 2 <= 16, 1e-8 met */
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 2, 1);
    plant(&p, 0, (double[]){1.0, -3.0}, NULL, (double[]){1.0 + 0x1p-52, -3.0});
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_str_empty(r.reason);
    cr_expect_eq(r.m.ratio, 2.0);
    /* normwise 2^-52 / sqrt(10): 52 + log2(10) / 2, about 53.7 bits, more than f64's 53 (one
       output is exact): measured, not capped */
    cr_expect_float_eq(r.m.bits, 52.0 + 0.5 * log2(10.0), 1e-9, "%.12g", r.m.bits);
    cr_expect_eq(r.u, 0x1p-53);
    cr_expect_eq(r.depth, 1.0);
    cr_expect_eq(r.ratio_bound, GV_DEFAULT_RATIO_BOUND);
    cr_expect_eq(r.expected_tier, 1e-8);
    gv_problem_free(&p);
}

Test(judge, unwritten_output_is_fail)
{
    /* gv_problem_init poisons outputs; write all but element 2 */
    gv_problem p;
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 4, 1);
    for (int i = 0; i < 4; i++) {
        p.out[0].ref[i] = 1.0;
        p.out[0].gauge[i] = 1.0;
        if (i != 2) ((float *)p.out[0].data)[i] = 1.0f;
    }
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.poisoned, 1);
    cr_expect_eq(r.m.first_poisoned_index, 2);
    cr_expect(strstr(r.reason, "unwritten") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(judge, fully_unwritten_output_is_fail_even_where_oracle_has_nan)
{
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 3, 1);
    for (int i = 0; i < 3; i++)
        p.out[0].ref[i] = p.out[0].gauge[i] = NAN;
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.poisoned, 3);
    gv_problem_free(&p);
}

Test(judge, misplaced_nan_is_fail)
{
    /* everything else perfect: a single NaN where the oracle is finite must still FAIL */
    gv_problem p;
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 3, 1);
    plant(&p, 0, (double[]){1.0, 2.0, 3.0}, NULL, (double[]){1.0, NAN, 3.0});
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.nonfinite_mismatches, 1);
    cr_expect(strstr(r.reason, "NaN") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(judge, all_nan_output_never_passes)
{
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 3, 1);
    plant(&p, 0, (double[]){1.0, 2.0, 3.0}, NULL, (double[]){NAN, NAN, NAN});
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL, "NaN everywhere: %s", gv_verdict_name(r.verdict));
    gv_problem_free(&p);
}

Test(judge, nan_where_oracle_has_nan_passes)
{
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 2, 1);
    plant(&p, 0, (double[]){NAN, INFINITY}, (double[]){0.0, 0.0}, (double[]){NAN, INFINITY});
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);
}

Test(judge, ratio_over_bound_fails_even_when_the_tier_is_met)
{
    /* f32: c = fl32(1 + 1e-5) is 84 * 2^-23 ~ 1.0e-5 off, inside 1e-4 (1 + 1) = 2e-4, but
       one rounding (g = 1, d = 1, u = 2^-24) explains 6e-8: ratio 84 * 2 = 168 > 16 */
    gv_problem p;
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 1, 1);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 1e-5});
    gv_result r = gv_test_judge(&p);
    cr_expect(gv_tier_met(&r.m, 1), "the 1e-4 tier is met");
    cr_expect_eq(r.m.ratio, 168.0);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect(strstr(r.reason, "ratio") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);
}

Test(judge, expected_tier_missed_is_fail)
{
    /* f64: 2^-20 ~ 9.5e-7 off at r = 1 misses 1e-8 (bound 2e-8); depth 2^40 keeps the ratio
       at 2^-20 / (2^-53 * 2^40) = 2^-7, so only the tier can fail it */
    gv_problem p;
    problem(&p, &fake, GV_F64, GV_MODE_NATIVE, 1, (int64_t)1 << 40);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-20});
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.m.ratio, 0x1p-7);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect(strstr(r.reason, "tier") != NULL, "reason: %s", r.reason);
    gv_problem_free(&p);

    /* f32: 2^-12 ~ 2.4e-4 off at r = 1 misses 1e-4 (bound 2e-4); ratio
       2^-12 / (2^-24 * 2^30) = 2^-18 */
    problem(&p, &fake, GV_F32, GV_MODE_NATIVE, 1, (int64_t)1 << 30);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-12});
    r = gv_test_judge(&p);
    cr_expect_eq(r.expected_tier, 1e-4);
    cr_expect_eq(r.verdict, GV_FAIL);
    gv_problem_free(&p);
}

Test(judge, expected_tier_hook_and_reduced_modes)
{
    /* the op's own expected tier (1e-4 for f64) lets 2^-20 pass */
    gv_problem p;
    problem(&p, &fake_loose, GV_F64, GV_MODE_NATIVE, 1, (int64_t)1 << 40);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-20});
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.expected_tier, 1e-4);
    cr_expect_str_eq(r.expected_tier_why, "test: claims only 1e-4");
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);

    /* tf32 expects no tier: 2^-10 off misses 1e-4 but the model (u = 2^-11, ratio 2) holds */
    problem(&p, &fake, GV_F32, GV_MODE_TF32, 1, 1);
    plant(&p, 0, (double[]){1.0}, NULL, (double[]){1.0 + 0x1p-10});
    r = gv_test_judge(&p);
    cr_expect_eq(r.u, 0x1p-11);
    cr_expect_eq(r.expected_tier, 0.0);
    cr_expect_not(gv_tier_met(&r.m, 1));
    cr_expect_eq(r.m.ratio, 2.0);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);
}

Test(judge, second_output_counts)
{
    /* out y exact; out z has a NaN at 1 (merged index 2 + 1 = 3) and 2^-20 at 0 */
    gv_problem p;
    problem(&p, &fake2, GV_F64, GV_MODE_NATIVE, 2, 1);
    plant(&p, 0, (double[]){1.0, 1.0}, NULL, (double[]){1.0, 1.0});
    plant(&p, 1, (double[]){1.0, 1.0}, NULL, (double[]){1.0, NAN});
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_eq(r.m.first_nonfinite_index, 3);
    gv_problem_free(&p);

    /* accurate bits come from both outputs' sums: 2^-20 / sqrt(4) = 2^-21 -> 21 bits */
    problem(&p, &fake2, GV_F64, GV_MODE_NATIVE, 2, (int64_t)1 << 40);
    plant(&p, 0, (double[]){1.0, 1.0}, NULL, (double[]){1.0, 1.0});
    plant(&p, 1, (double[]){1.0, 1.0}, NULL, (double[]){1.0 + 0x1p-20, 1.0});
    r = gv_test_judge(&p);
    cr_expect_eq(r.m.n, 4);
    cr_expect_eq(r.m.bits, 21.0);
    cr_expect_eq(r.m.worst_index, 2);
    cr_expect_eq(r.verdict, GV_FAIL, "1e-8 missed in the second output");
    gv_problem_free(&p);
}

Test(judge, unit_roundoffs)
{
    cr_expect_eq(gv_unit_roundoff(GV_F64, GV_MODE_NATIVE), 0x1p-53);
    cr_expect_eq(gv_unit_roundoff(GV_F32, GV_MODE_NATIVE), 0x1p-24);
    cr_expect_eq(gv_unit_roundoff(GV_F32, GV_MODE_TF32), 0x1p-11);
    cr_expect_eq(gv_mode_precision_bits(GV_F32, GV_MODE_TF32), 11);
    cr_expect_eq(gv_mode_precision_bits(GV_F64, GV_MODE_NATIVE), 53);
}

/* ---- the bias rule (GV_BIAS_Z_BOUND, GV_BIAS_MIN_N) ------------------------------------- */

/* n elements r = +-1.5 (alternating, f64), each moved by one ulp (2^-52 at 1.5): `up` pairs
   of them upward (c = r + 2^-52), `toward` pairs toward zero (c = r - sign(r) 2^-52), each
   pair one r = +1.5 and one r = -1.5; the rest exact. An upward pair adds 2 to sum e and 0 to
   sum sign(r) e; a pair toward zero adds 0 and -2; sum e^2 is the count moved. So
   z = up / sqrt(up + toward) and z_sr = -toward / sqrt(up + toward), with up and toward
   counted in pairs. Ratio 2^-52 / (2^-53 1.5) = 4/3 and 1e-8 met: only the bias rule can
   fail it. */
static void plant_leaning(gv_problem *p, const gv_op *op, gv_mode mode, int64_t n, int64_t up,
                          int64_t toward)
{
    problem(p, op, GV_F64, mode, n, 1);
    double *ref = gv_test_alloc(n), *got = gv_test_alloc(n);
    for (int64_t i = 0; i < n; i++) {
        double s = i % 2 ? -1.5 : 1.5;
        ref[i] = got[i] = s;
        if (i < 2 * up)
            got[i] = s + 0x1p-52;
        else if (i < 2 * up + 2 * toward)
            got[i] = s - (s > 0 ? 0x1p-52 : -0x1p-52);
    }
    plant(p, 0, ref, NULL, got);
    free(ref);
    free(got);
}

Test(judge, bias_just_inside_passes_and_just_over_fails)
{
    /* 18 pairs up: sum e = 36, sum e^2 = 36, z = 6 exactly: not over the bound */
    gv_problem p;
    plant_leaning(&p, &fake_bias, GV_MODE_NATIVE, 400, 18, 0);
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.m.bias_n, 400);
    cr_expect_eq(r.m.bias_z, 6.0);
    cr_expect_eq(r.m.bias_z_sr, 0.0);
    cr_expect(r.bias.judged, "%s", r.bias.why_not);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);
    /* 19 pairs: z = sqrt 38 = 6.16 > 6: FAIL, named upward (the signed z is the larger) */
    plant_leaning(&p, &fake_bias, GV_MODE_NATIVE, 400, 19, 0);
    r = gv_test_judge(&p);
    cr_expect_float_eq(r.m.bias_z, sqrt(38.0), 1e-12);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_str_eq(r.reason,
                     "bias: errors lean upward (z = +6.2 over 400 outputs, mean +0.095 ulp)");
    cr_expect_leq(r.m.ratio, r.ratio_bound, "the worst-case model passes it");
    cr_expect(gv_tier_met(&r.m, 0), "the 1e-8 tier is met");
    gv_problem_free(&p);
    /* toward zero, 19 pairs: z_sr = -6.16, z = 0; and 18 pairs up with 1 toward zero: z =
       36 / sqrt 38 = 5.84, z_sr = -2 / sqrt 38: both inside */
    plant_leaning(&p, &fake_bias, GV_MODE_NATIVE, 400, 0, 19);
    r = gv_test_judge(&p);
    cr_expect_eq(r.m.bias_z, 0.0);
    cr_expect_float_eq(r.m.bias_z_sr, -sqrt(38.0), 1e-12);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect_str_eq(r.reason,
                     "bias: errors lean toward zero (z = -6.2 over 400 outputs, mean -0.095 ulp)");
    gv_problem_free(&p);
    plant_leaning(&p, &fake_bias, GV_MODE_NATIVE, 400, 18, 1);
    r = gv_test_judge(&p);
    cr_expect_float_eq(r.m.bias_z, 36.0 / sqrt(38.0), 1e-12);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    gv_problem_free(&p);
}

Test(judge, bias_needs_256_elements)
{
    /* every element one ulp up (z = sqrt n, 16 at n = 256): with 255 elements (127 pairs and
       one exact) the rule has too few to judge and says so; at 256 it fails */
    gv_problem p;
    plant_leaning(&p, &fake_bias, GV_MODE_NATIVE, 255, 127, 0);
    gv_result r = gv_test_judge(&p);
    cr_expect_gt(r.m.bias_z, 11.0);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_not(r.bias.judged);
    cr_expect_str_eq(r.bias.why_not, "255 elements, under the 256 it needs");
    gv_problem_free(&p);
    plant_leaning(&p, &fake_bias, GV_MODE_NATIVE, 256, 128, 0);
    r = gv_test_judge(&p);
    cr_expect_eq(r.m.bias_z, 16.0);
    cr_expect_eq(r.verdict, GV_FAIL);
    cr_expect(strstr(r.reason, "bias: errors lean upward (z = +16.0 over 256 outputs") == r.reason,
              "%s", r.reason);
    gv_problem_free(&p);
}

Test(judge, bias_is_reported_only_outside_its_scope)
{
    /* the same lean (z = 16) passes where the rule does not judge, each saying why: an op
       that declares no bias_dists, a mode that does not promise round-to-nearest (tf32), and
       inputs outside the op's bias_dists */
    gv_problem p;
    plant_leaning(&p, &fake, GV_MODE_NATIVE, 256, 128, 0);
    gv_result r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_str_eq(r.bias.why_not, "fake's errors are not independent roundings");
    cr_expect_eq(r.m.bias_z, 16.0, "measured all the same");
    gv_problem_free(&p);
    plant_leaning(&p, &fake_bias, GV_MODE_TF32, 256, 128, 0);
    r = gv_test_judge(&p);
    cr_expect_eq(r.verdict, GV_PASS, "%s", r.reason);
    cr_expect_str_eq(r.bias.why_not, "mode tf32 does not promise round-to-nearest");
    gv_problem_free(&p);
    gv_case c = {&fake_bias, GV_F64, GV_MODE_NATIVE, GV_DIST_UNIFORM11, {2, {256, 1}}, 0};
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    gv_result_init(&r, &c);
    cr_expect_not(r.bias.judged);
    cr_expect_str_eq(r.bias.why_not, "fake.bias's errors are not symmetric on uniform11 inputs");
    gv_problem_free(&p);
}

Test(judge, bias_comes_after_the_models_and_before_the_tier)
{
    /* every element 2^-20 above r = 1.5 (f64): the 1e-8 tier is missed and the bias is z =
       sqrt 400 = 20; at depth 1 the worst-case ratio (2^-20 / (2^-53 1.5), about 5.7e9)
       decides first; at depth 2^40 it is 0.0052 and the bias decides before the tier */
    gv_problem p;
    double ref[400], got[400];
    for (int i = 0; i < 400; i++) {
        ref[i] = i % 2 ? -1.5 : 1.5;
        got[i] = ref[i] + 0x1p-20;
    }
    problem(&p, &fake_bias, GV_F64, GV_MODE_NATIVE, 400, 1);
    plant(&p, 0, ref, NULL, got);
    gv_result r = gv_test_judge(&p);
    cr_expect(strstr(r.reason, "error model: ratio") == r.reason, "%s", r.reason);
    gv_problem_free(&p);
    problem(&p, &fake_bias, GV_F64, GV_MODE_NATIVE, 400, (int64_t)1 << 40);
    plant(&p, 0, ref, NULL, got);
    r = gv_test_judge(&p);
    cr_expect_not(gv_tier_met(&r.m, 0));
    cr_expect(strstr(r.reason, "bias: errors lean upward (z = +20.0 over 400 outputs") == r.reason,
              "%s", r.reason);
    gv_problem_free(&p);
}

/* The row of r as the table prints it (gv_table_row), into buf. */
static void table_row(const gv_result *r, char *buf, size_t len)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    gv_table_row(f, r);
    rewind(f);
    buf[fread(buf, 1, len - 1, f)] = '\0';
    fclose(f);
}

Test(judge, bias_is_in_the_json_and_a_lean_not_judged_is_noted_in_the_row)
{
    /* z = 16 on an op the rule does not judge: PASS, the row notes the lean and why it was
       not judged; the JSON has the measurements and bias_rule says it was not judged */
    gv_problem p;
    plant_leaning(&p, &fake, GV_MODE_NATIVE, 256, 128, 0);
    gv_result r = gv_test_judge(&p);
    cr_assert_eq(r.verdict, GV_PASS, "%s", r.reason);
    char row[2048];
    table_row(&r, row, sizeof row);
    cr_expect(strstr(row, "[bias reported, not judged: fake's errors are not independent "
                          "roundings; errors lean upward (z = +16.0 over 256 outputs, mean +1 "
                          "ulp)]") != NULL,
              "%s", row);
    json_t *o = gv_result_json(&r), *m = json_object_get(o, "metrics");
    cr_expect_str_eq(json_string_value(json_object_get(m, "bias_unit")), "ulp");
    cr_expect_eq(json_integer_value(json_object_get(m, "bias_n")), 256);
    cr_expect_eq(json_real_value(json_object_get(m, "bias_z")), 16.0);
    cr_expect_eq(json_real_value(json_object_get(m, "bias_mean")), 1.0);
    cr_expect_eq(json_real_value(json_object_get(m, "bias_z_sign_r")), 0.0);
    cr_expect_eq(json_real_value(json_object_get(m, "bias_mean_sign_r")), 0.0);
    json_t *rule = json_object_get(o, "bias_rule");
    cr_expect(json_is_false(json_object_get(rule, "judged")));
    cr_expect_str_eq(json_string_value(json_object_get(rule, "why_not")),
                     "fake's errors are not independent roundings");
    cr_expect_eq(json_real_value(json_object_get(rule, "z_bound")), GV_BIAS_Z_BOUND);
    cr_expect_eq(json_integer_value(json_object_get(rule, "min_n")), GV_BIAS_MIN_N);
    json_decref(o);
    gv_problem_free(&p);
    /* judged and failed: the reason says it, the row adds no note */
    plant_leaning(&p, &fake_bias, GV_MODE_NATIVE, 256, 128, 0);
    r = gv_test_judge(&p);
    table_row(&r, row, sizeof row);
    cr_expect(strstr(row, "FAIL (bias: errors lean upward") != NULL, "%s", row);
    cr_expect_null(strstr(row, "not judged"), "%s", row);
    o = gv_result_json(&r);
    cr_expect(json_is_true(json_object_get(json_object_get(o, "bias_rule"), "judged")));
    cr_expect(json_is_null(json_object_get(json_object_get(o, "bias_rule"), "why_not")));
    json_decref(o);
    gv_problem_free(&p);
}
