/* test_stats.c: the statistics of timed runs (src/bench/stats.c) — medians, the order-statistic
 * interval of a median (ranks against published values, coverage by simulation), ratios of
 * medians, the sampling stop rule, geometric sweeps and the crossover. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/gv.h"
#include "bench/stats.h"

Test(stats, median_of_odd_even_and_unsorted_samples_leaves_input_alone)
{
    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2}, one[] = {7};
    cr_expect_eq(gv_median(odd, 3), 3.0);
    cr_expect_eq(gv_median(even, 4), 2.5);
    cr_expect_eq(gv_median(one, 1), 7.0);
    cr_expect(isnan(gv_median(one, 0)));
    cr_expect_eq(odd[0], 5.0, "input not sorted in place");
    cr_expect_eq(even[0], 4.0);
}

Test(stats, binomial_half_cdf_matches_exact_counts)
{
    /* P(X <= j) for Binomial(10, 1/2): sum of C(10, i) / 1024 */
    cr_expect_float_eq(gv_binom_half_cdf(10, 0), 1.0 / 1024, 1e-15);
    cr_expect_float_eq(gv_binom_half_cdf(10, 1), 11.0 / 1024, 1e-15);
    cr_expect_float_eq(gv_binom_half_cdf(10, 2), 56.0 / 1024, 1e-15);
    cr_expect_eq(gv_binom_half_cdf(10, -1), 0.0);
    cr_expect_eq(gv_binom_half_cdf(10, 10), 1.0);
    /* symmetry P(X <= j) + P(X <= n-j-1) = 1, also where 2^-n underflows */
    for (int n = 1; n <= 3000; n += 371)
        for (int j = 0; j < n; j += 1 + n / 7)
            cr_expect_float_eq(gv_binom_half_cdf(n, j) + gv_binom_half_cdf(n, n - j - 1), 1.0, 1e-9,
                               "n %d j %d", n, j);
}

Test(stats, median_interval_ranks_match_tables)
{
    int lo, hi;
    /* Conover, Table A3 / the usual tables: n = 10 -> x(2), x(9); n = 20 -> x(6), x(15) */
    double cov = gv_median_ci_ranks(10, 0.95, &lo, &hi);
    cr_expect_eq(lo, 2);
    cr_expect_eq(hi, 9);
    cr_expect_float_eq(cov, 1.0 - 2.0 * 11.0 / 1024, 1e-12);
    cov = gv_median_ci_ranks(20, 0.95, &lo, &hi);
    cr_expect_eq(lo, 6);
    cr_expect_eq(hi, 15);
    cr_expect_geq(cov, 0.95);
    /* too few samples for 95%: the whole range, with its true (lower) coverage */
    cov = gv_median_ci_ranks(5, 0.95, &lo, &hi);
    cr_expect_eq(lo, 1);
    cr_expect_eq(hi, 5);
    cr_expect_float_eq(cov, 1.0 - 2.0 / 32, 1e-12);
    cov = gv_median_ci_ranks(1, 0.95, &lo, &hi);
    cr_expect_eq(lo, 1);
    cr_expect_eq(hi, 1);
    cr_expect_eq(cov, 0.0);
    /* large n: near n/2 - 1.96 sqrt(n)/2 */
    cov = gv_median_ci_ranks(1000, 0.95, &lo, &hi);
    cr_expect(lo >= 467 && lo <= 471, "lo %d", lo);
    cr_expect_eq(hi, 1001 - lo);
    cr_expect_geq(cov, 0.95);
}

/* xorshift64*: deterministic samples for the simulations */
static double unit(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

/* A skewed, timing-like variable with a known median: 1 + Exp(1), median 1 + ln 2. */
static double timing_like(uint64_t *s, double scale)
{
    return scale * (1.0 - log(1.0 - unit(s)));
}

Test(stats, median_interval_covers_the_true_median_as_promised)
{
    uint64_t s = 88172645463325252ULL;
    const double truth = 1.0 + log(2.0);
    const int trials = 4000, n = 12; /* n = 12: ranks 3..10, exact coverage 0.9614 */
    int covered = 0;
    for (int t = 0; t < trials; t++) {
        double x[12];
        for (int i = 0; i < n; i++)
            x[i] = timing_like(&s, 1.0);
        gv_stat st;
        cr_assert_eq(gv_stat_describe(x, n, 0.95, &st), GV_OK);
        covered += st.lo <= truth && truth <= st.hi;
    }
    double frac = (double)covered / trials;
    /* binomial sd at 0.96: 0.003; the interval must neither under- nor over-cover */
    cr_expect(frac > 0.945 && frac < 0.978, "coverage %.4f, expected ~0.961", frac);
}

Test(stats, describe_gives_spread_and_extremes)
{
    double x[10] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 10};
    gv_stat st;
    cr_assert_eq(gv_stat_describe(x, 10, 0.95, &st), GV_OK);
    cr_expect_eq(st.median, 10.0);
    cr_expect_eq(st.rel_spread, 0.0);
    double y[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 100};
    cr_assert_eq(gv_stat_describe(y, 10, 0.95, &st), GV_OK);
    cr_expect_eq(st.median, 5.5);
    cr_expect_eq(st.lo, 2.0); /* x(2) */
    cr_expect_eq(st.hi, 9.0); /* x(9): the outlier does not widen the interval */
    cr_expect_float_eq(st.rel_spread, (9.0 - 2.0) / (2 * 5.5), 1e-15);
    cr_expect_eq(st.min, 1.0);
    cr_expect_eq(st.max, 100.0);
    cr_expect_eq(gv_stat_describe(y, 0, 0.95, &st), GV_EINVAL);
}

Test(stats, ratio_of_medians_and_its_interval)
{
    double cpu[10], gpu[10];
    for (int i = 0; i < 10; i++) {
        cpu[i] = 100.0;
        gpu[i] = 4.0;
    }
    gv_ratio r;
    cr_assert_eq(gv_ratio_of_medians(cpu, 10, gpu, 10, 0.95, &r), GV_OK);
    cr_expect_eq(r.ratio, 25.0);
    cr_expect_eq(r.lo, 25.0);
    cr_expect_eq(r.hi, 25.0);
    /* each median at 97.5%: for n = 20 that is ranks 5..16 (at 95% it would be 6..15), so
       the ratio runs from x(5)/y(16) to x(16)/y(5) */
    double c20[20], g20[20];
    for (int i = 0; i < 20; i++) {
        c20[i] = 100.0 + i;
        g20[i] = 4.0 + 0.1 * i;
    }
    cr_assert_eq(gv_ratio_of_medians(c20, 20, g20, 20, 0.95, &r), GV_OK);
    cr_expect_float_eq(r.ratio, 109.5 / 4.95, 1e-12);
    cr_expect_float_eq(r.lo, 104.0 / 5.5, 1e-12);
    cr_expect_float_eq(r.hi, 115.0 / 4.4, 1e-12);
    cr_expect(r.lo < r.ratio && r.ratio < r.hi);
    cr_expect_geq(r.coverage, 0.95);
    cr_expect_eq(gv_ratio_of_medians(cpu, 0, gpu, 10, 0.95, &r), GV_EINVAL);
}

Test(stats, ratio_interval_covers_the_true_ratio)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    const double truth = (3.0 * (1 + log(2.0))) / (1.0 * (1 + log(2.0)));
    int covered = 0, trials = 2000;
    for (int t = 0; t < trials; t++) {
        double a[15], b[11];
        for (int i = 0; i < 15; i++)
            a[i] = timing_like(&s, 3.0);
        for (int i = 0; i < 11; i++)
            b[i] = timing_like(&s, 1.0);
        gv_ratio r;
        gv_ratio_of_medians(a, 15, b, 11, 0.95, &r);
        covered += r.lo <= truth && truth <= r.hi;
    }
    cr_expect_geq((double)covered / trials, 0.95, "coverage %.4f", (double)covered / trials);
}

static const gv_sampling rule = {.target_spread = 0.01,
                                 .cap_s = 0.5,
                                 .min_samples = 10,
                                 .max_samples = 1000,
                                 .budget_s = 0,
                                 .conf = 0.95};

Test(stats, stop_rule_waits_for_the_minimum_then_the_spread)
{
    double x[2000];
    for (int i = 0; i < 2000; i++)
        x[i] = 1.0 + 1e-4 * (i % 3);
    cr_expect_eq(gv_sampling_stop(&rule, x, 9, 0.01), GV_STOP_NO, "never before min_samples");
    cr_expect_eq(gv_sampling_stop(&rule, x, 9, 100.0), GV_STOP_NO, "not even past the cap");
    cr_expect_eq(gv_sampling_stop(&rule, x, 10, 0.01), GV_STOP_SPREAD);
    for (int i = 0; i < 2000; i++)
        x[i] = i % 2 ? 1.0 : 2.0; /* spread ~50%: never */
    cr_expect_eq(gv_sampling_stop(&rule, x, 10, 0.01), GV_STOP_NO);
    cr_expect_eq(gv_sampling_stop(&rule, x, 500, 0.49), GV_STOP_NO);
    cr_expect_eq(gv_sampling_stop(&rule, x, 500, 0.5), GV_STOP_CAP);
    cr_expect_eq(gv_sampling_stop(&rule, x, 1000, 0.01), GV_STOP_MAX);
}

Test(stats, stop_rule_budget_cuts_only_below_the_minimum)
{
    gv_sampling cpu = rule;
    cpu.budget_s = 20.0;
    double x[10] = {5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000};
    cr_expect_eq(gv_sampling_stop(&cpu, x, 1, 5.0), GV_STOP_NO);
    cr_expect_eq(gv_sampling_stop(&cpu, x, 3, 15.0), GV_STOP_NO, "a 4th run ends at 20 s");
    cr_expect_eq(gv_sampling_stop(&cpu, x, 4, 20.0), GV_STOP_BUDGET);
    cr_expect_eq(gv_sampling_stop(&cpu, x, 1, 30.0), GV_STOP_BUDGET, "one run past the budget");
    cpu.budget_s = 0;
    cr_expect_eq(gv_sampling_stop(&cpu, x, 4, 1e6), GV_STOP_NO, "no budget: the minimum holds");
}

Test(stats, geometric_sizes)
{
    int64_t s[64];
    int n = gv_geom_sizes(1, 1000, 2.0, s, 64);
    cr_assert_eq(n, 11);
    const int64_t want[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000};
    for (int i = 0; i < n; i++)
        cr_expect_eq(s[i], want[i], "size %d: %lld", i, (long long)s[i]);
    n = gv_geom_sizes(1, 10, 1.5, s, 64);
    cr_assert_gt(n, 2);
    cr_expect_eq(s[0], 1);
    cr_expect_eq(s[n - 1], 10);
    for (int i = 1; i < n; i++)
        cr_expect_gt(s[i], s[i - 1], "strictly increasing");
    cr_expect_eq(gv_geom_sizes(7, 7, 2.0, s, 64), 1);
    cr_expect_eq(s[0], 7);
    cr_expect_eq(gv_geom_sizes(0, 10, 2.0, s, 64), GV_EINVAL);
    cr_expect_eq(gv_geom_sizes(10, 5, 2.0, s, 64), GV_EINVAL);
    cr_expect_eq(gv_geom_sizes(1, 10, 1.0, s, 64), GV_EINVAL);
    cr_expect_eq(gv_geom_sizes(1, (int64_t)1 << 40, 2.0, s, 8), GV_EINVAL, "too many sizes");
}

Test(stats, crossover_found_below_none_and_interpolated)
{
    double size[] = {1, 2, 4, 8, 16};
    double up[] = {0.5, 0.8, 1.5, 3, 6};
    gv_crossover x;
    cr_assert_eq(gv_crossover_find(size, up, 5, &x), GV_OK);
    cr_expect_eq(x.status, GV_XO_FOUND);
    cr_expect_eq(x.first_win, 2);
    double t = -log(0.8) / (log(1.5) - log(0.8));
    cr_expect_float_eq(x.interp, exp(log(2.0) + t * log(2.0)), 1e-12);
    cr_expect(x.interp > 2 && x.interp < 4);

    double wins[] = {1.1, 2, 3, 4, 5};
    cr_assert_eq(gv_crossover_find(size, wins, 5, &x), GV_OK);
    cr_expect_eq(x.status, GV_XO_BELOW);
    cr_expect_eq(x.first_win, 0);
    cr_expect(isnan(x.interp));

    double loses[] = {0.1, 0.2, 3, 4, 0.9};
    cr_assert_eq(gv_crossover_find(size, loses, 5, &x), GV_OK);
    cr_expect_eq(x.status, GV_XO_NONE);
    cr_expect_eq(x.first_win, -1);

    /* a loss after a win moves the crossover past it; NaN (not timed) is no win */
    double bumpy[] = {0.5, 2, 0.9, 3, 4};
    cr_assert_eq(gv_crossover_find(size, bumpy, 5, &x), GV_OK);
    cr_expect_eq(x.first_win, 3);
    double gap[] = {2, NAN, 3, 4, 5};
    cr_assert_eq(gv_crossover_find(size, gap, 5, &x), GV_OK);
    cr_expect_eq(x.status, GV_XO_FOUND);
    cr_expect_eq(x.first_win, 2);
    cr_expect_eq(x.interp, 4.0, "no ratio to interpolate from: the first win");

    double unsorted[] = {1, 4, 2};
    cr_expect_eq(gv_crossover_find(unsorted, up, 3, &x), GV_EINVAL);
    cr_expect_eq(gv_crossover_find(size, up, 0, &x), GV_EINVAL);
}
