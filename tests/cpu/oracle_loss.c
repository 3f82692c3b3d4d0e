/* oracle_loss.c: loss.xent's oracle (oracle/loss.c) against another form in long double at
 * small sizes (log sum_k exp(x_k - x_t), shifted by the target's logit rather than the max),
 * logits so large that exp(x) overflows f64, its non-finite and invalid-target outcomes, and
 * the gauge's promise g >= |L|. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "go.h"
#include "testkit.h"

Test(loss_oracle, cross_entropy_against_another_form)
{
    const int64_t m = 6, n = 41;
    const double scales[] = {1.0, 30.0, 1000.0};
    for (int s = 0; s < 3; s++) {
        double *x = gv_test_matrix(m, n, n, 31 + s, 0);
        double t[6], l[6], g[6];
        for (int64_t i = 0; i < m; i++) {
            t[i] = (double)((i * 7 + s) % n);
            for (int64_t j = 0; j < n; j++)
                x[i * n + j] *= scales[s];
        }
        cr_assert_eq(go_loss_xent(m, n, x, n, t, l), 0);
        cr_assert_eq(go_loss_xent_gauge(m, n, x, n, t, l, 5.0, 9.0, 18.0, g), 0);
        for (int64_t i = 0; i < m; i++) {
            const double *xr = x + i * n, xt = xr[(int64_t)t[i]];
            long double sum = 0;
            for (int64_t j = 0; j < n; j++)
                sum += expl((long double)xr[j] - xt); /* >= 1: the target's own term */
            long double truth = logl(sum);
            cr_expect(fabsl(l[i] - truth) <= 0x1p-51L * truth + 0x1p-60L,
                      "scale %g row %lld: %.17g against %.20Lg", scales[s], (long long)i, l[i],
                      truth);
            cr_expect(isfinite(l[i]) && l[i] >= 0);
            cr_expect(g[i] >= l[i]);
        }
        free(x);
    }
}

Test(loss_oracle, non_finite_logits_and_bad_targets)
{
    double x[5][3] = {{1.0, NAN, 2.0},
                      {1.0, INFINITY, 2.0},
                      {1.0, -INFINITY, 2.0},
                      {-INFINITY, -INFINITY, -INFINITY},
                      {1.0, 2.0, 3.0}};
    double t[5] = {0, 0, 1, 0, 2}, l[5];
    cr_assert_eq(go_loss_xent(5, 3, &x[0][0], 3, t, l), 0);
    cr_expect(isnan(l[0]) && isnan(l[1]) && isnan(l[3]));
    cr_expect(isinf(l[2]) && l[2] > 0, "a target logit of -Inf: +Inf");
    cr_expect(fabs(l[4] - log(1.0 + exp(-1.0) + exp(-2.0))) < 1e-15);
    const double bad[] = {-1.0, 3.0, 0.5, NAN};
    for (int i = 0; i < 4; i++) {
        double tt = bad[i], ll;
        cr_assert_eq(go_loss_xent(1, 3, x[4], 3, &tt, &ll), 0);
        cr_expect(isnan(ll), "target %g: NaN", bad[i]);
    }
}

Test(loss_oracle, bad_arguments_name_themselves)
{
    double x[4] = {0}, t[1] = {0}, l[1], g[1];
    cr_expect_eq(go_loss_xent(-1, 4, x, 4, t, l), -1);
    cr_expect_eq(go_loss_xent(1, 0, x, 4, t, l), -2);
    cr_expect_eq(go_loss_xent(1, 4, x, 3, t, l), -4);
    cr_expect_eq(go_loss_xent(1, 4, x, 4, NULL, l), -5);
    cr_expect_eq(go_loss_xent_gauge(1, 4, x, 4, t, l, 5.0, 9.0, 0.0, g), -9);
}

/* go_loss_xent_with_gauge gives go_loss_xent's losses and go_loss_xent_gauge's gauges bit for
   bit, on all cores (m n above GO_PAR_MIN) and on rows with ties for the largest logit,
   non-finite logits and invalid targets. */
Test(loss_oracle, loss_with_gauge_is_loss_then_gauge)
{
    const int64_t m = 300, n = 1000;
    double *x = gv_test_matrix(m, n, n, 77, 0), *t = malloc((size_t)m * sizeof *t);
    double *l = malloc((size_t)m * sizeof *l), *g = malloc((size_t)m * sizeof *g);
    double *l2 = malloc((size_t)m * sizeof *l2), *g2 = malloc((size_t)m * sizeof *g2);
    cr_assert(x && t && l && g && l2 && g2);
    for (int64_t i = 0; i < m; i++) {
        t[i] = (double)((i * 13) % n);
        x[i * n + (i * 7) % n] = x[i * n + (i * 11 + 1) % n] = 40.0; /* a tie for the largest */
    }
    x[3 * n + 5] = NAN;
    x[4 * n + 6] = INFINITY;
    x[5 * n + (int64_t)t[5]] = -INFINITY;
    t[6] = 0.5;
    t[7] = (double)n;
    cr_assert_eq(go_loss_xent(m, n, x, n, t, l), 0);
    cr_assert_eq(go_loss_xent_gauge(m, n, x, n, t, l, 5.0, 9.0, 18.0, g), 0);
    cr_assert_eq(go_loss_xent_with_gauge(m, n, x, n, t, l2, 5.0, 9.0, 18.0, g2), 0);
    cr_expect(isnan(l2[3]) && isnan(l2[4]) && isinf(l2[5]) && isnan(l2[6]) && isnan(l2[7]));
    cr_expect(memcmp(l, l2, (size_t)m * sizeof *l) == 0, "losses differ");
    cr_expect(memcmp(g, g2, (size_t)m * sizeof *g) == 0, "gauges differ");
    cr_expect_eq(go_loss_xent_with_gauge(m, n, x, n, t, l2, 5.0, 0.5, 18.0, g2), -8);
    free(x), free(t), free(l), free(g), free(l2), free(g2);
}

/* go_widen against the cast, all 10 bytes: subnormals of every size, the binades beside
   2^-1022, zeros of both signs, and any double (every binade, inf, NaN). */
Test(loss_oracle, widen_is_the_cast_bit_for_bit)
{
    uint64_t st = 0x9e3779b97f4a7c15ULL;
    for (int t = 0; t < 400000; t++) {
        st ^= st << 13;
        st ^= st >> 7;
        st ^= st << 17;
        uint64_t b = (st >> (t % 64)) & 0x800fffffffffffffULL; /* a subnormal or a zero */
        if (t % 4 == 1) b |= (uint64_t)(t % 3) << 52;         /* the two binades above */
        if (t % 16 == 3) b = st;
        double v;
        memcpy(&v, &b, sizeof v);
        long double w = go_widen(v), plain = (long double)v;
        cr_assert(memcmp(&w, &plain, 10) == 0, "%a: %La vs %La", v, w, plain);
    }
    const double edge[] = {0.0, -0.0, 0x1p-1022, -0x1p-1074, 0x0.fffffffffffffp-1022, 0x1.fp1023};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
        long double w = go_widen(edge[i]), plain = (long double)edge[i];
        cr_assert(memcmp(&w, &plain, 10) == 0, "%a", edge[i]);
    }
}
