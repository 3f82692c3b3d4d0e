/* oracle_act.c: the act family's reference (oracle/act.c) against published constants and
 * against the same functions evaluated in __float128 (libquadmath) over the op's argument
 * range, tails included, where the textbook forms cancel; its argument checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <quadmath.h>
#include <stdlib.h>

#include "../../abi/act.h"
#include "core/gen.h"
#include "go.h"

/* a constant of abi/act.h as a __float128 literal */
#define Q__(x) x##Q
#define Q_(x)  Q__(x)

static double one(int fn, double x)
{
    double y;
    cr_assert_eq(go_act(fn, 1, &x, &y), 0);
    return y;
}

/* Phi(1) = 0.841344746068542948585..., logistic(1) = 0.731058578630004879251... (tables of
   the normal distribution; 1 / (1 + 1/e)); Phi(-10) = 7.6198530241605260659733e-24. */
Test(oracle_act, known_values)
{
    cr_expect_float_eq(one(GO_ACT_GELU, 1.0), 0.841344746068542948585, 0x1p-52);
    cr_expect_float_eq(one(GO_ACT_GELU, -1.0), -(1.0 - 0.841344746068542948585), 0x1p-52);
    cr_expect_float_eq(one(GO_ACT_GELU, -10.0), -7.6198530241605260659733e-23, 1e-37);
    cr_expect_float_eq(one(GO_ACT_SILU, 1.0), 0.731058578630004879251, 0x1p-52);
    cr_expect_eq(one(GO_ACT_GELU, 0.0), 0.0);
    cr_expect_eq(one(GO_ACT_GELU_TANH, 0.0), 0.0);
    cr_expect_eq(one(GO_ACT_SILU, 0.0), 0.0);
    /* far tails: y = x above, a tiny value (not a cancelled zero) below */
    cr_expect_eq(one(GO_ACT_SILU, 100.0), 100.0);
    cr_expect_eq(one(GO_ACT_GELU, 60.0), 60.0);
    double t = one(GO_ACT_GELU_TANH, -8.0);
    cr_expect(t < 0 && t > -1e-20, "gelu_tanh(-8) = %g: a tiny negative value", t);
}

static __float128 q_eval(int fn, __float128 x)
{
    switch (fn) {
    case GO_ACT_GELU: {
        __float128 t = x * M_SQRT1_2q;
        return 0.5Q * x * (t < 0 ? erfcq(-t) : 1 + erfq(t));
    }
    case GO_ACT_GELU_TANH: {
        __float128 z = sqrtq(2 / M_PIq) * (x + 0.044715Q * x * x * x);
        return 0.5Q * x * (2 / (1 + expq(-2 * z)));
    }
    case GO_ACT_TANH: return tanhq(x);
    case GO_ACT_RELU: return x > 0 ? x : 0;
    case GO_ACT_LEAKY_RELU: return x > 0 ? x : Q_(GK_ACT_LEAKY_SLOPE) * x;
    case GO_ACT_HARDTANH: return x < -1 ? -1 : x > 1 ? 1 : x;
    case GO_ACT_SOFTSIGN: return x / (1 + fabsq(x));
    case GO_ACT_ELU: return x > 0 ? x : expm1q(x);
    case GO_ACT_SELU:
        return Q_(GK_ACT_SELU_SCALE) * (x > 0 ? x : Q_(GK_ACT_SELU_ALPHA) * expm1q(x));
    case GO_ACT_HARDSIGMOID: return x <= -3 ? 0 : x >= 3 ? 1 : (x + 3) / 6;
    case GO_ACT_SOFTPLUS: return x > GK_ACT_SOFTPLUS_THRESHOLD ? x : log1pq(expq(x));
    default: return x / (1 + expq(-x));
    }
}

/* The oracle's error, derived: one f64 rounding (2^-53 relative), long double's own functions
   (a few units of 2^-64), and the rounding of the inner argument in long double carried by the
   function's condition: t = x/sqrt 2 (two roundings) moves erfc(s) by 2 s^2 times its relative
   error at large s; z = beta (x + kappa x^3) (five roundings) moves 1 + tanh z = 2 / (1 +
   e^-2z) by 2|z| times its relative error; SiLU's x is exact. Past |x| ~ 38 the GELU's y is
   below f64's range: 2^-1074 absolute. */
static double oracle_tol(int fn, double x, double want)
{
    double cond = 8.0;
    if (fn == GO_ACT_GELU) cond += 2.0 * (x * x / 2.0) * 2.0;
    if (fn == GO_ACT_GELU_TANH) {
        double z = 0.7978845608028654 * (fabs(x) + 0.044715 * fabs(x) * fabs(x) * fabs(x));
        cond += 2.0 * z * 5.0;
    }
    return (0x1p-53 + cond * 0x1p-64) * fabs(want) + 0x1p-1074;
}

/* The torch.nn activations at points whose values are known: tanh(1) = 0.76159415595576488812,
   expm1(-1) = -0.63212055882855767840, log(2) = 0.69314718055994530942 (softplus(0)) */
Test(oracle_act, torch_nn_known_values)
{
    cr_expect_float_eq(one(GO_ACT_TANH, 1.0), 0.76159415595576488812, 0x1p-53);
    cr_expect_eq(one(GO_ACT_RELU, -2.5), 0.0);
    cr_expect_eq(one(GO_ACT_RELU, 2.5), 2.5);
    cr_expect_float_eq(one(GO_ACT_LEAKY_RELU, -2.0), -0.02, 0x1p-58);
    cr_expect_eq(one(GO_ACT_HARDTANH, -3.0), -1.0);
    cr_expect_eq(one(GO_ACT_HARDTANH, 0.25), 0.25);
    cr_expect_eq(one(GO_ACT_SOFTSIGN, 3.0), 0.75);
    cr_expect_float_eq(one(GO_ACT_ELU, -1.0), -0.63212055882855767840, 0x1p-53);
    cr_expect_float_eq(one(GO_ACT_SELU, -1.0),
                       -0.63212055882855767840 * 1.6732632423543772848 * 1.0507009873554804934,
                       0x1p-51);
    cr_expect_float_eq(one(GO_ACT_SELU, 2.0), 2.0 * 1.0507009873554804934, 0x1p-51);
    cr_expect_eq(one(GO_ACT_HARDSIGMOID, 0.0), 0.5);
    cr_expect_eq(one(GO_ACT_HARDSIGMOID, 4.0), 1.0);
    cr_expect_eq(one(GO_ACT_HARDSIGMOID, -4.0), 0.0);
    cr_expect_float_eq(one(GO_ACT_SOFTPLUS, 0.0), 0.69314718055994530942, 0x1p-53);
    /* above the threshold x itself; below the far tail exp(x), not a cancelled 0 */
    cr_expect_eq(one(GO_ACT_SOFTPLUS, 20.5), 20.5);
    cr_expect_float_eq(one(GO_ACT_SOFTPLUS, -40.0), exp(-40.0), 1e-30);
    cr_expect_float_eq(one(GO_ACT_ELU, -0x1p-30), -0x1p-30 + 0x1p-61, 0x1p-80);
}

Test(oracle_act, against_float128)
{
    enum { N = 20000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    cr_assert(x && y);
    for (int i = 0; i < N; i++) {
        double t = gv_gen_unit(5, 0, (uint64_t)i);
        x[i] = i % 3 == 0   ? -800.0 + 1600.0 * t
               : i % 3 == 1 ? -12.0 + 24.0 * t
                            : ldexp(t - 0.5, -40);
    }
    for (int fn = 0; fn < GO_ACT_NFN; fn++) {
        cr_assert_eq(go_act(fn, N, x, y), 0);
        for (int i = 0; i < N; i++) {
            __float128 q = q_eval(fn, x[i]);
            double want = (double)q;
            double err = fabs((double)((__float128)y[i] - q));
            cr_expect(err <= oracle_tol(fn, x[i], want), "fn %d x = %a: %.17g, __float128 %.17g",
                      fn, x[i], y[i], want);
        }
    }
    free(x);
    free(y);
}

Test(oracle_act, bad_arguments_name_themselves)
{
    double x[2] = {0}, y[2];
    cr_expect_eq(go_act(GO_ACT_NFN, 2, x, y), -1);
    cr_expect_eq(go_act(GO_ACT_GELU, -1, x, y), -2);
    cr_expect_eq(go_act(GO_ACT_GELU, 2, NULL, y), -3);
    cr_expect_eq(go_act(GO_ACT_GELU, 2, x, NULL), -4);
}
