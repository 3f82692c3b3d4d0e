/* model_act.c: the act family's descriptors (src/ops/act.c) and error model, by judging device
 * results simulated on the CPU with the kernels' formulas (kernels/act.cu, PyTorch's) in the
 * case's precision: correct arithmetic must pass on every dist with the model's ratio at most
 * 1 (the bound is derived, not fitted); the planted bugs' arithmetic must fail (the tanh form
 * under the erf label; __expf under SiLU's native label), and so must f32 arithmetic under an
 * f64 label. __expf under its own fastmath label must pass: the model allows what the guide
 * documents for it. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "../../abi/act.h"
#include "core/registry.h"
#include "testkit.h"

enum fn {
    F_GELU,
    F_GELU_TANH,
    F_SILU,
    F_TANH,
    F_RELU,
    F_LEAKY_RELU,
    F_HARDTANH,
    F_SOFTSIGN,
    F_ELU,
    F_SELU,
    F_HARDSIGMOID,
    F_SOFTPLUS,
    F_NFN
};
enum variant { V_OK, V_FASTEXP, V_IN_F32, V_NAIVE };

/* The torch.nn activations beside the GELUs and SiLU, in the kernels' formulas
   (kernels/act.cu: PyTorch's) in type T, constants rounded to T; V_NAIVE: the planted forms
   exp(x) - 1 (ELU, SELU) and log(1 + exp(x)) (Softplus). */
#define SIM_MORE(T, SUF)                                                                           \
    static T more_##SUF(enum fn f, enum variant v, T x)                                            \
    {                                                                                              \
        switch (f) {                                                                               \
        case F_TANH: return tanh##SUF(x);                                                          \
        case F_RELU: return x > 0 ? x : (T)0;                                                      \
        case F_LEAKY_RELU: return x > 0 ? x : x * (T)GK_ACT_LEAKY_SLOPE;                           \
        case F_HARDTANH: return x < -1 ? (T)-1 : (x > 1 ? (T)1 : x);                               \
        case F_SOFTSIGN: return x / ((T)1 + fabs##SUF(x));                                         \
        case F_ELU:                                                                                \
        case F_SELU: {                                                                             \
            T neg = f == F_SELU ? (T)(GK_ACT_SELU_ALPHA * GK_ACT_SELU_SCALE) : (T)1;               \
            T pos = f == F_SELU ? (T)GK_ACT_SELU_SCALE : (T)1;                                     \
            T em1 = v == V_NAIVE ? exp##SUF(x) - (T)1 : expm1##SUF(x);                             \
            return x <= 0 ? em1 * neg : x * pos;                                                   \
        }                                                                                          \
        case F_HARDSIGMOID: {                                                                      \
            T t = x + (T)3;                                                                        \
            return (t < 0 ? (T)0 : (t > 6 ? (T)6 : t)) * (T)(1.0 / 6.0);                           \
        }                                                                                          \
        default:                                                                                   \
            if (x > (T)GK_ACT_SOFTPLUS_THRESHOLD) return x;                                        \
            return v == V_NAIVE ? log##SUF((T)1 + exp##SUF(x)) : log1p##SUF(exp##SUF(x));          \
        }                                                                                          \
    }
SIM_MORE(float, f)
#define fabs_  fabs
#define tanh_  tanh
#define exp_   exp
#define expm1_ expm1
#define log_   log
#define log1p_ log1p
SIM_MORE(double, _)

/* __expf: the argument times log2(e) rounded to float, then 2^p (ex2.approx, within 2 ulp; its
   own error is left out: the product's rounding is what grows with |x|), results below FLT_MIN
   flushed to zero */
static float fast_expf(float v)
{
    float p = v * 1.44269504088896341f;
    float e = (float)exp2((double)p);
    return fabsf(e) < FLT_MIN ? 0.0f : e;
}

static double sim32(enum fn f, enum variant v, double xd)
{
    float x = (float)xd;
    if (f >= F_TANH) return more_f(f, v, x);
    switch (f) {
    case F_GELU: return x * 0.5f * (1.0f + erff(x * (float)M_SQRT1_2));
    case F_GELU_TANH: {
        const float beta = (float)(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = 0.044715f;
        float x_cube = x * x * x;
        float inner = beta * (x + kappa * x_cube);
        return 0.5f * x * (1.0f + tanhf(inner));
    }
    default: return x / (1.0f + (v == V_FASTEXP ? fast_expf(-x) : expf(-x)));
    }
}

static double sim64(enum fn f, enum variant v, double x)
{
    if (f >= F_TANH) return more__(f, v, x);
    switch (f) {
    case F_GELU: return x * 0.5 * (1.0 + erf(x * M_SQRT1_2));
    case F_GELU_TANH: {
        const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
        double x_cube = x * x * x;
        double inner = beta * (x + kappa * x_cube);
        return 0.5 * x * (1.0 + tanh(inner));
    }
    default: return x / (1.0 + exp(-x));
    }
}

/* Judge op's case with the outputs of function f in the given arithmetic. */
static gv_result judge_sim(const char *op, enum fn f, gv_dtype t, gv_mode mode, gv_dist dist,
                           int64_t n, uint64_t seed, enum variant v)
{
    gv_case c = gv_test_case(op, t, mode, dist, (gv_shape){1, {n}}, seed);
    gv_problem p;
    gv_test_problem(&p, &c);
    double *y = gv_test_alloc(n);
    bool f32 = t == GV_F32 || v == V_IN_F32;
    for (int64_t i = 0; i < n; i++)
        y[i] = f32 ? sim32(f, v, p.in[0].ref[i]) : sim64(f, v, p.in[0].ref[i]);
    gv_test_store(&p, 0, y);
    free(y);
    gv_result r = gv_test_judge(&p);
    gv_problem_free(&p);
    cr_log_info("%s fn %d %s %s %s n=%lld seed %llu variant %d: %s ratio %.3g %s", op, (int)f,
                gv_dtype_name(t), gv_mode_name(mode), gv_dist_name(dist), (long long)n,
                (unsigned long long)seed, (int)v, gv_verdict_name(r.verdict), r.m.ratio, r.reason);
    return r;
}

static const char *const ops[] = {"act.gelu", "act.gelu_tanh",  "act.silu",        "act.tanh",
                                  "act.relu", "act.leaky_relu", "act.hardtanh",    "act.softsign",
                                  "act.elu",  "act.selu",       "act.hardsigmoid", "act.softplus"};

Test(act_model, registered_with_modes_dims_and_planted_bugs)
{
    for (int f = 0; f < 3; f++) {
        const gv_op *op = gv_op_find(ops[f]);
        cr_assert_not_null(op, "%s", ops[f]);
        cr_expect_str_eq(op->family, "act");
        cr_expect_str_eq(op->dims, "n");
        cr_expect_str_eq(op->in_dims, "n");
        cr_expect_str_eq(op->out_dims, "n");
        cr_expect_null(op->planted_bug);
        cr_expect(gv_mode_ok(op, GV_F32, GV_MODE_NATIVE) && gv_mode_ok(op, GV_F64, GV_MODE_NATIVE));
        cr_expect_eq(op->default_dist, GV_DIST_WIDE);
        cr_expect_float_eq(op->ratio_bound, 2.0, 0);
        gv_case c =
            gv_test_case(ops[f], GV_F32, GV_MODE_NATIVE, GV_DIST_WIDE, (gv_shape){1, {1000}}, 0);
        cr_expect_float_eq(op->depth(&c), 1.0, 0);
    }
    /* fastmath (__expf) exists for SiLU in f32 only */
    cr_expect(gv_mode_ok(gv_op_find("act.silu"), GV_F32, GV_MODE_FASTMATH));
    cr_expect_not(gv_mode_ok(gv_op_find("act.silu"), GV_F64, GV_MODE_FASTMATH));
    cr_expect_not(gv_mode_ok(gv_op_find("act.gelu"), GV_F32, GV_MODE_FASTMATH));
    const char *bugs[] = {"act.gelu.tanhlabel", "act.silu.fastexp"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
        cr_expect_str_eq(b->family, "act");
    }
}

/* The kernels' arithmetic inside the bound on every dist, both dtypes, several seeds: ratio
   <= 1, well inside the op's bound of 2. */
Test(act_model, correct_arithmetic_passes_inside_the_bound, .timeout = 240)
{
    const gv_dist dists[] = {GV_DIST_WIDE, GV_DIST_UNIFORM11, GV_DIST_UNIFORM01, GV_DIST_SMALLINT,
                             GV_DIST_OFFGRID};
    for (int f = 0; f < 3; f++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int t = 0; t < 2; t++)
                for (uint64_t seed = 0; seed < 3; seed++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r = judge_sim(ops[f], (enum fn)f, dt, GV_MODE_NATIVE, dists[d],
                                            100003, seed, V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %s seed %llu: %s", ops[f],
                                 gv_dtype_name(dt), gv_dist_name(dists[d]),
                                 (unsigned long long)seed, r.reason);
                    cr_expect_leq(r.m.ratio, 1.0, "%s %s %s: ratio %.3g", ops[f], gv_dtype_name(dt),
                                  gv_dist_name(dists[d]), r.m.ratio);
                }
}

/* The tanh approximation under the erf label: up to 4.7e-4 apart near |x| = 2.7, past the
   f32 tier and far past the model, in both dtypes. */
Test(act_model, tanh_form_under_the_erf_label_fails)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r =
            judge_sim("act.gelu", F_GELU_TANH, dt, GV_MODE_NATIVE, GV_DIST_WIDE, 1000, 0, V_OK);
        cr_expect_eq(r.verdict, GV_FAIL, "%s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_gt(r.m.ratio, 100.0, "ratio %.3g", r.m.ratio);
        cr_expect_gt(r.m.max_abs, 3e-4, "max |c - r| %.3g", r.m.max_abs);
        cr_expect_gt(r.m.mismatches[1], 0, "past the 1e-4 tier");
    }
}

/* __expf: FAIL under the native label (its error grows as 1.173 |x| ulp, the model allows
   expf's 2), PASS under the fastmath label whose model is __expf's documented bound. */
Test(act_model, fast_exp_fails_native_and_passes_its_own_label)
{
    for (uint64_t seed = 0; seed < 3; seed++) {
        gv_result nat = judge_sim("act.silu", F_SILU, GV_F32, GV_MODE_NATIVE, GV_DIST_WIDE, 1000,
                                  seed, V_FASTEXP);
        cr_expect_eq(nat.verdict, GV_FAIL, "native label: %s", nat.reason);
        gv_result fast = judge_sim("act.silu", F_SILU, GV_F32, GV_MODE_FASTMATH, GV_DIST_WIDE,
                                   100003, seed, V_FASTEXP);
        cr_expect_eq(fast.verdict, GV_PASS, "fastmath label: %s", fast.reason);
        cr_expect_leq(fast.m.ratio, 1.0, "fastmath ratio %.3g", fast.m.ratio);
    }
}

/* f32 arithmetic behind an f64 label: every function FAILs its f64 model. */
Test(act_model, f32_arithmetic_under_f64_fails)
{
    for (int f = 0; f < 3; f++) {
        gv_result r =
            judge_sim(ops[f], (enum fn)f, GV_F64, GV_MODE_NATIVE, GV_DIST_WIDE, 1000, 0, V_IN_F32);
        cr_expect_eq(r.verdict, GV_FAIL, "%s: %s", ops[f], r.reason);
    }
}

/* The torch.nn activations: registered in the oracle's order, correct arithmetic inside the
   bound on every dist, both dtypes, three seeds (ratio <= 1 of the bound 2; the exact ones
   exactly), and f32 arithmetic under an f64 label FAILs where there is arithmetic. */
Test(act_model, torch_nn_activations_pass_inside_the_bound, .timeout = 300)
{
    const gv_dist dists[] = {GV_DIST_WIDE, GV_DIST_UNIFORM11, GV_DIST_UNIFORM01, GV_DIST_SMALLINT,
                             GV_DIST_OFFGRID};
    for (int f = F_TANH; f < F_NFN; f++) {
        const gv_op *op = gv_op_find(ops[f]);
        cr_assert_not_null(op, "%s", ops[f]);
        cr_expect_str_eq(op->family, "act");
        cr_expect_str_eq(op->in_dims, "n");
        cr_expect_null(op->planted_bug);
        cr_expect_eq(op->exact != NULL, f == F_RELU || f == F_HARDTANH, "%s", ops[f]);
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int t = 0; t < 2; t++)
                for (uint64_t seed = 0; seed < 3; seed++) {
                    gv_dtype dt = t ? GV_F64 : GV_F32;
                    gv_result r = judge_sim(ops[f], (enum fn)f, dt, GV_MODE_NATIVE, dists[d],
                                            100003, seed, V_OK);
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s %s seed %llu: %s", ops[f],
                                 gv_dtype_name(dt), gv_dist_name(dists[d]),
                                 (unsigned long long)seed, r.reason);
                    cr_expect_leq(r.m.ratio, 1.0, "%s %s %s: ratio %.3g", ops[f], gv_dtype_name(dt),
                                  gv_dist_name(dists[d]), r.m.ratio);
                }
        if (f == F_RELU || f == F_HARDTANH) continue; /* no arithmetic to downgrade */
        gv_result w =
            judge_sim(ops[f], (enum fn)f, GV_F64, GV_MODE_NATIVE, GV_DIST_WIDE, 1000, 0, V_IN_F32);
        cr_expect_eq(w.verdict, GV_FAIL, "%s f32 under f64: %s", ops[f], w.reason);
    }
}

/* The planted forms: exp(x) - 1 loses the small arguments' digits (ELU), log(1 + exp(x)) the
   negative tail (Softplus): FAIL in both dtypes on the wide classes; and a ReLU that lets a
   negative through, a HardTanh clamped at 0.99, FAIL the exact rule. */
Test(act_model, planted_naive_forms_and_wrong_clamps_fail)
{
    for (int t = 0; t < 2; t++) {
        gv_dtype dt = t ? GV_F64 : GV_F32;
        gv_result r =
            judge_sim("act.elu.naive", F_ELU, dt, GV_MODE_NATIVE, GV_DIST_WIDE, 1000, 0, V_NAIVE);
        cr_expect_eq(r.verdict, GV_FAIL, "elu naive %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_gt(r.m.ratio, 100.0, "elu naive %s: ratio %.3g", gv_dtype_name(dt), r.m.ratio);
        r = judge_sim("act.softplus.naive", F_SOFTPLUS, dt, GV_MODE_NATIVE, GV_DIST_WIDE, 1000, 0,
                      V_NAIVE);
        cr_expect_eq(r.verdict, GV_FAIL, "softplus naive %s: %s", gv_dtype_name(dt), r.reason);
        cr_expect_gt(r.m.ratio, 100.0, "softplus naive %s: ratio %.3g", gv_dtype_name(dt),
                     r.m.ratio);
        /* SELU with ELU's exp(x) - 1 too: the bound is expm1's */
        r = judge_sim("act.selu", F_SELU, dt, GV_MODE_NATIVE, GV_DIST_WIDE, 1000, 0, V_NAIVE);
        cr_expect_eq(r.verdict, GV_FAIL, "selu naive %s: %s", gv_dtype_name(dt), r.reason);
    }
    const char *bugs[] = {"act.elu.naive", "act.softplus.naive"};
    for (int i = 0; i < 2; i++) {
        const gv_op *b = gv_op_find(bugs[i]);
        cr_assert_not_null(b, "%s", bugs[i]);
        cr_expect_not_null(b->planted_bug);
    }
    /* the exact ops: one element off FAILs */
    const char *exact[] = {"act.relu", "act.hardtanh"};
    const enum fn ef[] = {F_RELU, F_HARDTANH};
    for (int e = 0; e < 2; e++) {
        gv_case c = gv_test_case(exact[e], GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM11,
                                 (gv_shape){1, {1000}}, 0);
        gv_problem p;
        gv_test_problem(&p, &c);
        double *y = gv_test_alloc(1000);
        int64_t at = -1;
        for (int64_t i = 0; i < 1000; i++) {
            y[i] = sim32(ef[e], V_OK, p.in[0].ref[i]);
            if (at < 0 && (e == 0 ? p.in[0].ref[i] < -0.5 : p.in[0].ref[i] > 0.995)) at = i;
        }
        cr_assert_geq(at, 0);
        y[at] = e == 0 ? p.in[0].ref[at] : 0.99; /* a negative through; a clamp at 0.99 */
        gv_test_store(&p, 0, y);
        free(y);
        gv_result r = gv_test_judge(&p);
        gv_problem_free(&p);
        cr_expect_eq(r.verdict, GV_FAIL, "%s one element off: %s", exact[e], r.reason);
    }
}
