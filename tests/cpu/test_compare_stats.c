/* test_compare_stats.c: compare's statistics and thresholds (src/runs/compare_runs.c) held to
 * values computed elsewhere and to their boundaries — the Mann-Whitney U and p against SciPy's
 * mannwhitneyu on stored samples (tests/fixtures/mann_whitney.json, made by
 * make_mann_whitney.py), unequal counts and ties included; 300000 samples a side (counts past
 * int's products); the timing threshold (3 %), the accurate bits lost or gained (--bits 1) and
 * the error ratio (--ratio 2) each just over and just under; and matching 6000 cases a side in
 * well under a second (by hash, not pair by pair). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runs/compare_runs.h"
#include "testkit.h"

/* ---- Mann-Whitney U against SciPy ---------------------------------------------------------- */

static double *doubles_of(const json_t *arr, size_t *n)
{
    *n = json_array_size(arr);
    double *x = malloc((*n + 1) * sizeof *x);
    cr_assert_not_null(x);
    for (size_t i = 0; i < *n; i++) {
        cr_assert(json_is_number(json_array_get(arr, i)));
        x[i] = json_number_value(json_array_get(arr, i));
    }
    return x;
}

Test(compare_stats, mann_whitney_matches_scipy_on_stored_samples)
{
    char path[1024];
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src);
    snprintf(path, sizeof path, "%s/tests/fixtures/mann_whitney.json", src);
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    cr_assert_not_null(doc, "%s: %s", path, err.text);
    const json_t *sets = json_object_get(doc, "sets");
    cr_assert_geq(json_array_size(sets), 5);
    size_t i;
    const json_t *s;
    int unequal = 0;
    json_array_foreach(sets, i, s)
    {
        size_t na, nb;
        double *a = doubles_of(json_object_get(s, "a"), &na);
        double *b = doubles_of(json_object_get(s, "b"), &nb);
        unequal += na != nb;
        double u = json_number_value(json_object_get(s, "u"));
        double p = json_number_value(json_object_get(s, "p"));
        const char *name = json_string_value(json_object_get(s, "name"));
        gv_mw mw;
        cr_assert_eq(gv_mann_whitney(a, na, b, nb, &mw), GV_OK, "%s", name);
        /* U is a count of pairs (halves with ties): exact */
        cr_expect_eq(mw.u, u, "%s: U %.17g, SciPy %.17g", name, mw.u, u);
        /* p through erfc (here) and the normal survival function (SciPy): a few ulps apart */
        cr_expect(fabs(mw.p - p) <= 1e-12 * p + 1e-300, "%s: p %.17g, SciPy %.17g", name, mw.p, p);
        free(a);
        free(b);
    }
    cr_expect_geq(unequal, 4, "the fixture holds sets of unequal counts");
    json_decref(doc);
}

/* 300000 samples a side: na * nb = 9e10 and the tie term n^3 are past int. Identical samples:
   U = na nb / 2 exactly and p = 1; every new sample above every base one: U = na nb, p tiny. */
Test(compare_stats, three_hundred_thousand_samples_a_side_do_not_overflow)
{
    size_t n = 300000;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    cr_assert(a && b && c);
    for (size_t i = 0; i < n; i++) {
        a[i] = b[i] = 1.0 + (double)i * 1e-6;
        c[i] = 2.0 + (double)i * 1e-6;
    }
    gv_mw mw;
    cr_assert_eq(gv_mann_whitney(a, n, b, n, &mw), GV_OK);
    cr_expect_eq(mw.u, (double)n * (double)n / 2, "U %.17g", mw.u);
    cr_expect_eq(mw.p, 1.0, "p %.17g", mw.p);
    cr_assert_eq(gv_mann_whitney(c, n, a, n, &mw), GV_OK);
    cr_expect_eq(mw.u, (double)n * (double)n, "U %.17g", mw.u);
    cr_expect(mw.z > 600 && mw.p < 1e-300, "z %g p %g", mw.z, mw.p);
    free(a);
    free(b);
    free(c);
}

/* ---- the timing threshold: 3 % where the noise is below it --------------------------------- */

/* 40 samples of median m with a spread of 1e-7 (far below 3 %, so 3 % is the threshold). */
static void quiet(double *x, int n, double m)
{
    for (int i = 0; i < n; i++)
        x[i] = m * (1 + 1e-7 * (i % 7 - 3) + 1e-9 * i);
}

static gv_cmp_outcome timed(double ratio)
{
    double base[40], new_s[40];
    quiet(base, 40, 1.0);
    quiet(new_s, 40, ratio);
    gv_cmp_item it;
    memset(&it, 0, sizeof it);
    gv_cmp_outcome o = gv_cmp_timing(base, 40, new_s, 40, &it);
    cr_log_info("x%.4f: %s (%s)", ratio, gv_cmp_outcome_name(o), it.why);
    return o;
}

Test(compare_stats, a_slowdown_just_over_three_percent_regresses_just_under_does_not)
{
    cr_expect_eq(timed(1.031), GV_CMP_REGRESSED, "3.1 %% slower");
    cr_expect_eq(timed(1.029), GV_CMP_SAME, "2.9 %% slower");
    cr_expect_eq(timed(1 / 1.031), GV_CMP_IMPROVED, "3.1 %% faster");
    cr_expect_eq(timed(1 / 1.029), GV_CMP_SAME, "2.9 %% faster");
}

/* ---- accuracy thresholds through the comparison -------------------------------------------- */

static json_t *run_with(double bits, double ratio)
{
    json_t *c =
        json_pack("{s:s, s:s, s:s, s:s, s:[i], s:i, s:s, s:{s:f}, s:{s:f}}", "op", "vadd", "dtype",
                  "f32", "mode", "native", "dist", "uniform11", "shape", 1000, "seed", 0, "verdict",
                  "PASS", "metrics", "accurate_bits", bits, "error_model", "ratio", ratio);
    return json_pack("{s:s, s:[o]}", "schema", "gpuval-run/1", "cases", c);
}

/* The outcome of the one case, base (bits b, ratio rb) against new (bits n, ratio rn). */
static gv_cmp_outcome judged(double b, double n, double rb, double rn)
{
    json_t *x = run_with(b, rb), *y = run_with(n, rn);
    gv_cmp_result r;
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    char err[512] = "";
    cr_assert_eq(gv_compare_runs(x, y, &o, &r, err, sizeof err), GV_OK, "%s", err);
    cr_assert_eq(r.n_cases, 1);
    gv_cmp_outcome out = r.cases[0].outcome;
    gv_cmp_result_free(&r);
    json_decref(x);
    json_decref(y);
    return out;
}

Test(compare_stats, bits_lost_or_gained_just_over_one_count_just_under_do_not)
{
    cr_expect_eq(GV_CMP_OPTS_DEFAULT.bits, 1.0);
    cr_expect_eq(judged(20.0, 18.99, 1, 1), GV_CMP_REGRESSED, "lost 1.01 bits");
    cr_expect_eq(judged(20.0, 19.01, 1, 1), GV_CMP_SAME, "lost 0.99 bits");
    cr_expect_eq(judged(20.0, 21.01, 1, 1), GV_CMP_IMPROVED, "gained 1.01 bits");
    cr_expect_eq(judged(20.0, 20.99, 1, 1), GV_CMP_SAME, "gained 0.99 bits");
}

Test(compare_stats, an_error_ratio_grown_just_over_twice_counts_just_under_does_not)
{
    cr_expect_eq(GV_CMP_OPTS_DEFAULT.ratio, 2.0);
    cr_expect_eq(judged(20, 20, 0.1, 0.2001), GV_CMP_REGRESSED, "x2.001");
    cr_expect_eq(judged(20, 20, 0.1, 0.1999), GV_CMP_SAME, "x1.999");
    cr_expect_eq(judged(20, 20, 0.2001, 0.1), GV_CMP_IMPROVED, "shrank x2.001");
    cr_expect_eq(judged(20, 20, 0.1999, 0.1), GV_CMP_SAME, "shrank x1.999");
}

/* ---- matching ------------------------------------------------------------------------------ */

static json_t *many_cases(int n, int offset)
{
    json_t *cases = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(cases,
                              json_pack("{s:s, s:s, s:s, s:s, s:[i], s:i, s:s, s:{s:f}}", "op",
                                        "vadd", "dtype", "f32", "mode", "native", "dist",
                                        "uniform11", "shape", 1000 + i + offset, "seed", 0,
                                        "verdict", "PASS", "metrics", "accurate_bits", 23.0));
    return json_pack("{s:s, s:o}", "schema", "gpuval-run/1", "cases", cases);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 6000 cases a side, 5990 shared: matched in well under a second (pair by pair it is 36
   million key comparisons and took minutes). */
Test(compare_stats, six_thousand_cases_a_side_match_in_well_under_a_second)
{
    json_t *a = many_cases(6000, 0), *b = many_cases(6000, 10);
    gv_cmp_result r;
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    char err[512] = "";
    double t0 = now_s();
    cr_assert_eq(gv_compare_runs(a, b, &o, &r, err, sizeof err), GV_OK, "%s", err);
    double took = now_s() - t0;
    cr_expect_lt(took, 0.5, "%.3f s", took);
    cr_expect_eq(r.n_cases, 5990);
    cr_expect_eq(r.n_only_base, 10);
    cr_expect_eq(r.n_only_new, 10);
    cr_expect_str_eq(r.only_base[0], "vadd f32/native/uniform11/1000 0");
    gv_cmp_result_free(&r);
    json_decref(a);
    json_decref(b);
}

/* One side holding a case twice: refused, both places named. */
Test(compare_stats, a_case_twice_on_a_side_is_refused)
{
    json_t *a = many_cases(3, 0), *b = many_cases(3, 0);
    json_t *cases = json_object_get(b, "cases"), *again = json_deep_copy(json_array_get(cases, 1));
    json_object_set_new(again, "verdict", json_string("FAIL"));
    json_array_append_new(cases, again);
    gv_cmp_result r;
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    char err[512] = "";
    cr_expect_eq(gv_compare_runs(a, b, &o, &r, err, sizeof err), GV_EINVAL);
    cr_expect(strstr(err, "new file: case 3") && strstr(err, "case 1"), "%s", err);
    json_decref(a);
    json_decref(b);
}
