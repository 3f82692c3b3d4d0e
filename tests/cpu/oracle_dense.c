/* oracle_dense.c: the dense family's oracle (seed 004, Y = sigmoid(W X + b)): the f64 oracle
 * against a long double computation; the stable sigmoid over the whole range; the bias going
 * by row; the gauge; argument codes. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/gen.h"
#include "go.h"

static long double sigmoid_ld(long double z)
{
    long double t = expl(-fabsl(z));
    return (z >= 0 ? 1.0L : t) / (1.0L + t);
}

/* normwise ||y - ref|| / ||ref|| of go_dense_sigmoid on uniform [-1,1) * scale inputs */
static double dense_vs_long_double(int64_t m, int64_t k, int64_t n, double scale, uint64_t seed)
{
    double *w = malloc(sizeof(double) * (size_t)(m * k));
    double *x = malloc(sizeof(double) * (size_t)(k * n));
    double *b = malloc(sizeof(double) * (size_t)m);
    double *y = malloc(sizeof(double) * (size_t)(m * n));
    cr_assert(w && x && b && y);
    gv_gen_fill(w, m * k, GV_DIST_UNIFORM11, GV_F64, seed, 0);
    gv_gen_fill(x, k * n, GV_DIST_UNIFORM11, GV_F64, seed, 1);
    gv_gen_fill(b, m, GV_DIST_UNIFORM11, GV_F64, seed, 2);
    for (int64_t i = 0; i < m * k; i++)
        w[i] *= scale;
    cr_assert_eq(go_dense_sigmoid(m, k, n, w, k, x, n, b, y, n), 0);
    long double err2 = 0, ref2 = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double z = b[i];
            for (int64_t l = 0; l < k; l++)
                z += (long double)w[i * k + l] * x[l * n + j];
            long double r = sigmoid_ld(z), e = (long double)y[i * n + j] - r;
            err2 += e * e;
            ref2 += r * r;
        }
    free(w);
    free(x);
    free(b);
    free(y);
    return (double)sqrtl(err2 / ref2);
}

Test(oracle_dense, matches_long_double_reference)
{
    const int64_t sizes[][3] = {{1, 1, 1}, {7, 1, 5}, {13, 37, 11}, {40, 100, 30}, {33, 70, 17}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int64_t *d = sizes[s];
        for (int sc = 0; sc < 2; sc++) {
            double scale = sc ? 20.0 : 1.0; /* 20: deep into both tails of the sigmoid */
            double err = dense_vs_long_double(d[0], d[1], d[2], scale, 3 + s);
            cr_expect_leq(err, 1e-14, "%lldx%lldx%lld scale %g: normwise %.3g", (long long)d[0],
                          (long long)d[1], (long long)d[2], scale, err);
        }
    }
}

Test(oracle_dense, sigmoid_is_accurate_and_finite_for_both_signs)
{
    /* relative error against long double wherever y is a normal double: the stable form
       never overflows exp and keeps relative accuracy in the tiny negative tail */
    double worst = 0;
    for (double z = -708.0; z <= 740.0; z += 0.37) {
        double y = go_sigmoid(z);
        long double r = sigmoid_ld(z);
        cr_assert(isfinite(y), "sigmoid(%g) = %g", z, y);
        double rel = (double)fabsl((y - r) / r);
        if (rel > worst) worst = rel;
    }
    cr_expect_leq(worst, 4 * DBL_EPSILON, "worst relative error %.3g", worst);
    cr_expect_eq(go_sigmoid(INFINITY), 1.0);
    cr_expect_eq(go_sigmoid(-INFINITY), 0.0);
    cr_expect_eq(go_sigmoid(1e300), 1.0);
    cr_expect_eq(go_sigmoid(-1e300), 0.0);
    cr_expect_eq(go_sigmoid(0.0), 0.5);
    cr_expect_eq(go_sigmoid(-0.0), 0.5);
    cr_expect(isnan(go_sigmoid(NAN)));
    cr_expect_gt(go_sigmoid(-740.0), 0.0, "a subnormal, not flushed by an overflowing exp");
}

Test(oracle_dense, bias_goes_by_row_and_gauge_has_its_parts)
{
    /* W = [[1], [-2]], X = [[1, 2, 3]], b = [0, ln 3]: z = [[1, 2, 3], [-2 + ln3, ...]] */
    const double w[2] = {1.0, -2.0}, x[3] = {1.0, 2.0, 3.0}, b[2] = {0.0, log(3.0)};
    double y[6], g[6];
    cr_assert_eq(go_dense_sigmoid(2, 1, 3, w, 1, x, 3, b, y, 3), 0);
    for (int j = 0; j < 3; j++) {
        double z0 = x[j], z1 = -2.0 * x[j] + log(3.0);
        cr_expect_float_eq(y[j], 1.0 / (1.0 + exp(-z0)), 1e-15, "row 0 col %d", j);
        cr_expect_float_eq(y[3 + j], 1.0 / (1.0 + exp(-z1)), 1e-15, "row 1 col %d", j);
    }
    cr_assert_eq(go_dense_sigmoid_gauge(2, 1, 3, w, 1, x, 3, b, y, 3, g, 3), 0);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            double want = 0.25 * (fabs(w[i]) * fabs(x[j]) + fabs(b[i])) + fabs(y[i * 3 + j]);
            cr_expect_float_eq(g[i * 3 + j], want, 1e-15, "gauge (%d,%d)", i, j);
            cr_expect_geq(g[i * 3 + j], fabs(y[i * 3 + j]));
        }
}

Test(oracle_dense, rejects_bad_arguments_with_their_index)
{
    double w[4] = {0}, x[4] = {0}, b[2] = {0}, y[4], g[4];
    cr_expect_eq(go_dense_sigmoid(-1, 2, 2, w, 2, x, 2, b, y, 2), -1);
    cr_expect_eq(go_dense_sigmoid(2, -1, 2, w, 2, x, 2, b, y, 2), -2);
    cr_expect_eq(go_dense_sigmoid(2, 2, -1, w, 2, x, 2, b, y, 2), -3);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, NULL, 2, x, 2, b, y, 2), -4);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, w, 1, x, 2, b, y, 2), -5);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, w, 2, NULL, 2, b, y, 2), -6);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, w, 2, x, 1, b, y, 2), -7);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, w, 2, x, 2, NULL, y, 2), -8);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, w, 2, x, 2, b, NULL, 2), -9);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, w, 2, x, 2, b, y, 1), -10);
    cr_expect_eq(go_dense_sigmoid(2, 2, 2, w, 2, x, 2, b, y, 2), 0);
    cr_expect_eq(go_dense_sigmoid_gauge(2, 2, 2, w, 2, x, 2, b, y, 2, NULL, 2), -11);
    cr_expect_eq(go_dense_sigmoid_gauge(2, 2, 2, w, 2, x, 2, b, y, 2, g, 1), -12);
    cr_expect_eq(go_dense_sigmoid_gauge(2, 2, 2, w, 2, x, 2, b, y, 2, g, 2), 0);
}
