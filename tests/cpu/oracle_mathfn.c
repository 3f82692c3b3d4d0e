/* oracle_mathfn.c: the mathfn family's reference (oracle/mathfn.c): known values, f64 results
 * correctly rounded with their remainder (against an independent evaluation in the other wide
 * type), f32 results correctly rounded through the round-to-odd step, large sin arguments
 * against their exact reduction, argument checks. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/gen.h"
#include "go.h"

static double one(int fn, double x, double *lo)
{
    double y;
    cr_assert_eq(go_mathfn(fn, 1, &x, &y, lo), 0);
    return y;
}

static double one_odd(int fn, double x)
{
    double y;
    cr_assert_eq(go_mathfn_odd(fn, 1, &x, &y), 0);
    return y;
}

/* Values known exactly or from published tables of the constants. */
Test(oracle_mathfn, known_values)
{
    double lo;
    cr_expect_eq(one(GO_MATH_SIN, 0.0, &lo), 0.0);
    cr_expect_eq(lo, 0.0);
    cr_expect_eq(one(GO_MATH_EXP, 0.0, &lo), 1.0);
    cr_expect_eq(lo, 0.0);
    cr_expect_eq(one(GO_MATH_SIGMOID, 0.0, &lo), 0.5);
    cr_expect_eq(lo, 0.0);
    /* e = 2.718281828459045235360287471352662497757 (OEIS A001113): the f64 nearest is
       0x1.5bf0a8b145769p+1 and the remainder 1.4456468917292502e-16 */
    cr_expect_eq(one(GO_MATH_EXP, 1.0, &lo), 0x1.5bf0a8b145769p+1);
    cr_expect_float_eq(lo, 1.4456468917292502e-16, 1e-30);
    /* sin(f64 nearest pi) = pi - RN(pi) = 1.2246467991473532e-16 (the remainder of pi,
       OEIS A000796) to first order: sin(pi - d) = d - d^3/6 */
    cr_expect_float_eq(one(GO_MATH_SIN, M_PI, &lo), 1.2246467991473532e-16, 1e-31);
    /* sin(1e22) = -0.8522008497671888017727... (a classic test of argument reduction, 1e22 is
       exact in f64; Ng, "Argument reduction for huge arguments: good to the last bit", 1992) */
    double s22 = one(GO_MATH_SIN, 1e22, &lo);
    cr_expect_leq(fabsl((long double)s22 + (long double)lo + 0.8522008497671888017727L), 0x1p-63L,
                  "sin(1e22) = %a + %a", s22, lo);
    /* exp at the subnormal end: exp(-745) is 0.57 of 2^-1074, which rounds up to it */
    cr_expect_eq(one(GO_MATH_EXP, -745.0, NULL), 0x1p-1074);
    cr_expect_eq(one_odd(GO_MATH_EXP, 0.0), 1.0);
}

/* f64: y = RN(f(x)) and y + lo within 2^-104 |y| of f(x), against long double where its 64
   bits decide the rounding (|f - midpoint| > 2^-60 relative), over every argument class the
   op generates. */
Test(oracle_mathfn, f64_rounding_agrees_with_long_double)
{
    if (go_mathfn_ref_bits() < 106) cr_skip_test("the reference is long double itself here");
    const double ranges[][2] = {{-4, 4}, {-1e5, 1e5}, {-745, 709.78}, {-20, 20}};
    int decided = 0;
    for (int fn = 0; fn < GO_MATH_NFN; fn++)
        for (int r = 0; r < 4; r++)
            for (int i = 0; i < 2000; i++) {
                double x = ranges[r][0] + (ranges[r][1] - ranges[r][0]) * gv_gen_unit(9, r, i);
                if (fn != GO_MATH_SIN && fabs(x) > 745) continue;
                double lo, y = one(fn, x, &lo);
                long double v = fn == GO_MATH_SIN   ? sinl(x)
                                : fn == GO_MATH_EXP ? expl(x)
                                                    : 1.0L / (1.0L + expl(-x));
                if (!isfinite(y) || fabs(y) < 0x1p-1000) continue; /* no remainder resolved there */
                long double diff = v - (long double)y;
                double ulp = ldexp(1.0, ilogb(y) - 52);
                /* y is the nearest: v lies within half an ulp of it (long double's own error
                   is ~2^-63 relative, far below what the test allows for) */
                cr_expect_leq(fabsl(diff), 0.5L * ulp * (1 + 0x1p-9L), "fn %d x %a", fn, x);
                /* lo is the remainder: agrees with the long double one to its precision */
                cr_expect_leq(fabsl(diff - (long double)lo), 0x1p-61L * fabsl(v) + 0x1p-1074L,
                              "fn %d x %a: lo %a, long double says %La", fn, x, lo, diff);
                decided++;
            }
    cr_expect_gt(decided, 15000);
}

/* f32: (float) of the rounded-to-odd value is the f32 nearest of the long double value,
   computed here directly in one rounding; and the f64 value is within 2^-52 of it. */
Test(oracle_mathfn, f32_round_to_odd_rounds_correctly)
{
    int64_t n = 60000;
    for (int fn = 0; fn < GO_MATH_NFN; fn++)
        for (int64_t i = 0; i < n; i++) {
            double x = (double)(float)(-100.0 + 188.0 * gv_gen_unit(11, fn, i));
            double y = one_odd(fn, x);
            long double v = fn == GO_MATH_SIN   ? sinl(x)
                            : fn == GO_MATH_EXP ? expl(x)
                                                : 1.0L / (1.0L + expl(-x));
            float direct = (float)v; /* x87 long double to float: one rounding */
            cr_assert_eq((float)y, direct, "fn %d x %a: odd %a -> %a, direct %a", fn, x, y,
                         (double)(float)y, (double)direct);
            cr_assert_leq(fabsl((long double)y - v), 0x1p-52L * fabsl(v));
        }
}

/* The round-to-odd step on a constructed case where rounding to nearest twice is wrong:
   v = 1 + 2^-24 + 2^-60 rounds to nearest in f64 as 1 + 2^-24, an f32 tie that then rounds to
   1, while the f32 nearest of v is 1 + 2^-23. Rounded to odd, v keeps a set last bit and
   rounds right. (The functions reach such values only about once in 2^29 arguments.) */
Test(oracle_mathfn, round_to_odd_breaks_double_rounding)
{
    long double v = 1.0L + 0x1p-24L + 0x1p-60L;
    cr_expect_eq((float)(double)v, 1.0f, "rounding to nearest twice gives 1");
    cr_expect_eq((float)v, 1.0f + 0x1p-23f);
    double odd = go_round_to_odd(v);
    cr_expect_eq(odd, 1.0 + 0x1p-24 + 0x1p-52, "%a", odd);
    cr_expect_eq((float)odd, 1.0f + 0x1p-23f, "rounded to odd %a -> %a", odd, (double)(float)odd);
    /* the same below zero, exact values unchanged, and a truncation that was even */
    cr_expect_eq(go_round_to_odd(-v), -(1.0 + 0x1p-24 + 0x1p-52));
    cr_expect_eq(go_round_to_odd(0.75L), 0.75);
    cr_expect_eq(go_round_to_odd(1.0L + 0x1p-60L), 1.0 + 0x1p-52);
    cr_expect_eq(go_round_to_odd(1.0L + 0x1p-52L - 0x1p-60L), 1.0 + 0x1p-52);
}

/* Large sin arguments: sin(2^k) for k up to 1023 in the wide type against long double, whose
   reduction (glibc's, with enough bits of 2/pi) is independent of libquadmath's. */
Test(oracle_mathfn, huge_sin_arguments)
{
    for (int k = 20; k <= 1023; k += 7) {
        double x = ldexp(1.0 + gv_gen_unit(13, 0, k), k);
        if (!isfinite(x)) continue;
        double y = one(GO_MATH_SIN, x, NULL);
        long double v = sinl(x);
        cr_expect_leq(fabsl((long double)y - v), ldexp(1.0, ilogb(y) - 52),
                      "sin(%a): %a, long double %La", x, y, v);
    }
    cr_expect_eq((float)one_odd(GO_MATH_SIN, FLT_MAX), (float)sinl(FLT_MAX));
}

Test(oracle_mathfn, rejects_bad_arguments)
{
    double x = 1, y;
    cr_expect_eq(go_mathfn(-1, 1, &x, &y, NULL), -1);
    cr_expect_eq(go_mathfn(GO_MATH_NFN, 1, &x, &y, NULL), -1);
    cr_expect_eq(go_mathfn(GO_MATH_SIN, -1, &x, &y, NULL), -2);
    cr_expect_eq(go_mathfn(GO_MATH_SIN, 1, NULL, &y, NULL), -3);
    cr_expect_eq(go_mathfn_odd(GO_MATH_SIN, 1, &x, NULL), -4);
    cr_expect_eq(go_mathfn(GO_MATH_SIN, 0, &x, &y, NULL), 0);
}
