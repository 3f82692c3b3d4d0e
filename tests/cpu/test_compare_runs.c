/* test_compare_runs.c: `gpuval compare` (src/compare_runs.c, src/cmd/compare.c) — the
 * Mann-Whitney U test against a hand-computed value and on seeded synthetic timings, the
 * accuracy decisions on copies of the H100 check fixture with planted regressions, cases on
 * one side only, the JUnit file, device fingerprints, and the exit codes through the binary. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runs/compare_runs.h"
#include "core/gen.h"
#include "testkit.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static json_t *fixture(const char *name)
{
    char path[1024];
    const char *src = getenv("GPUVAL_SRCDIR");
    cr_assert_not_null(src, "GPUVAL_SRCDIR names the source tree (tests/meson.build)");
    snprintf(path, sizeof path, "%s/tests/fixtures/%s", src, name);
    json_error_t err;
    json_t *d = json_load_file(path, 0, &err);
    cr_assert_not_null(d, "%s: %s", path, err.text);
    return d;
}

static char tmpdir[512];

static void make_tmp(void)
{
    gv_test_scratch_dir(tmpdir, sizeof tmpdir, "cmp");
}

static void rm_tmp(void)
{
    gv_test_remove_dir(tmpdir);
}

/* Write doc to tmpdir/name; returns the path in buf. */
static const char *dump(const json_t *doc, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
    cr_assert_eq(json_dump_file(doc, buf, JSON_INDENT(1)), 0);
    return buf;
}

static gv_cmp_result compare(const json_t *a, const json_t *b)
{
    gv_cmp_result r;
    gv_cmp_opts o = GV_CMP_OPTS_DEFAULT;
    char err[256] = "";
    cr_assert_eq(gv_compare_runs(a, b, &o, &r, err, sizeof err), GV_OK, "%s", err);
    return r;
}

/* The first case of res whose outcome is o; fails when none. */
static const gv_cmp_case *first_with(const gv_cmp_result *r, gv_cmp_outcome o)
{
    for (int i = 0; i < r->n_cases; i++)
        if (r->cases[i].outcome == o) return &r->cases[i];
    cr_assert_fail("no case %s", gv_cmp_outcome_name(o));
    return NULL;
}

static bool has_why(const gv_cmp_case *c, const char *what)
{
    for (int i = 0; i < c->n_items; i++)
        if (strstr(c->items[i].why, what)) return true;
    return false;
}

/* n timings around median m with relative noise s (normal, Box-Muller from gv_gen_unit). */
static void timings(double *x, int n, double m, double s, uint64_t seed, uint64_t tensor)
{
    for (int i = 0; i < n; i++) {
        double u1 = gv_gen_unit(seed, tensor, 2 * (uint64_t)i);
        double u2 = gv_gen_unit(seed, tensor, 2 * (uint64_t)i + 1);
        double z = sqrt(-2 * log(1 - u1)) * cos(2 * M_PI * u2);
        x[i] = m * (1 + s * z);
    }
}

/* ---- Mann-Whitney U ----------------------------------------------------------------------- */

Test(compare_runs, mann_whitney_matches_a_hand_computed_value)
{
    /* a entirely below b: U = 0, mu = 4.5, var = 9/12 * 7 = 5.25, z = -(4.5 - 0.5)/sqrt(5.25) */
    double a[] = {1, 2, 3}, b[] = {4, 5, 6};
    gv_mw mw;
    cr_assert_eq(gv_mann_whitney(a, 3, b, 3, &mw), GV_OK);
    cr_expect_eq(mw.u, 0.0);
    cr_expect_float_eq(mw.z, -4.0 / sqrt(5.25), 1e-12);
    cr_expect_float_eq(mw.p, erfc(4.0 / sqrt(5.25) / sqrt(2.0)), 1e-12);
    /* ties: {1,1,2} vs {1,2,2}: tie groups of 3 and 3, var = 9/12 * (7 - 48/30) */
    double c[] = {1, 1, 2}, d[] = {1, 2, 2};
    cr_assert_eq(gv_mann_whitney(c, 3, d, 3, &mw), GV_OK);
    cr_expect_float_eq(mw.u, 3.0, 1e-12); /* rank sum of c = 2 + 2 + 5 = 9, minus 6 */
    cr_expect_float_eq(mw.z, -1.0 / sqrt(0.75 * (7 - 48.0 / 30)), 1e-12);
    /* every value tied: no evidence at all */
    double e[] = {3, 3, 3, 3, 3};
    cr_assert_eq(gv_mann_whitney(e, 5, e, 5, &mw), GV_OK);
    cr_expect_eq(mw.p, 1.0);
    cr_expect_eq(gv_mann_whitney(e, 0, e, 5, &mw), GV_EINVAL);
}

Test(compare_runs, ten_percent_shift_in_30_samples_with_1_percent_noise_is_detected)
{
    double base[30], slow[30], fast[30];
    timings(base, 30, 1.0, 0.01, 7, 1);
    timings(slow, 30, 1.1, 0.01, 7, 2);
    timings(fast, 30, 0.9, 0.01, 7, 3);
    gv_cmp_item it = {0};
    cr_expect_eq(gv_cmp_timing(base, 30, slow, 30, &it), GV_CMP_REGRESSED, "%s", it.why);
    cr_expect_eq(gv_cmp_timing(base, 30, fast, 30, &it), GV_CMP_IMPROVED, "%s", it.why);
}

Test(compare_runs, no_shift_gives_same_in_at_least_95_percent_of_200_trials)
{
    int same = 0;
    for (uint64_t t = 0; t < 200; t++) {
        double a[30], b[30];
        timings(a, 30, 1.0, 0.01, 1000 + t, 1);
        timings(b, 30, 1.0, 0.01, 1000 + t, 2);
        gv_cmp_item it = {0};
        same += gv_cmp_timing(a, 30, b, 30, &it) == GV_CMP_SAME;
    }
    cr_expect_geq(same, 190, "%d of 200 SAME", same);
}

Test(compare_runs, a_small_shift_inside_the_noise_floor_is_same)
{
    /* 2 % slower, clearly significant with 0.1 % noise, but under the 3 % floor */
    double a[50], b[50];
    timings(a, 50, 1.0, 0.001, 3, 1);
    timings(b, 50, 1.02, 0.001, 3, 2);
    gv_cmp_item it = {0};
    cr_expect_eq(gv_cmp_timing(a, 50, b, 50, &it), GV_CMP_SAME, "%s", it.why);
}

Test(compare_runs, fewer_than_5_samples_is_inconclusive)
{
    double a[30], b[4] = {2, 2, 2, 2};
    timings(a, 30, 1.0, 0.01, 9, 1);
    gv_cmp_item it = {0};
    cr_expect_eq(gv_cmp_timing(a, 30, b, 4, &it), GV_CMP_INCONCLUSIVE);
    cr_expect_eq(gv_cmp_timing(b, 4, a, 30, &it), GV_CMP_INCONCLUSIVE);
}

/* ---- accuracy ----------------------------------------------------------------------------- */

Test(compare_runs, identical_check_files_are_same)
{
    json_t *a = fixture("check-h100.json");
    gv_cmp_result r = compare(a, a);
    cr_expect_eq(r.overall, GV_CMP_SAME);
    cr_expect_eq(r.n_cases, (int)json_array_size(json_object_get(a, "cases")));
    cr_expect_eq(r.count[GV_CMP_SAME], r.n_cases);
    cr_expect_eq(r.n_only_base + r.n_only_new, 0);
    cr_expect(!r.device_differs);
    gv_cmp_result_free(&r);
    json_decref(a);
}

/* A copy of the check fixture with case 0 changed by plant; the comparison's outcome for it. */
static void planted(void (*plant)(json_t *c), gv_cmp_outcome want, const char *why)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    plant(json_array_get(json_object_get(b, "cases"), 0));
    gv_cmp_result r = compare(a, b);
    cr_expect_eq(r.overall, want, "overall %s", gv_cmp_outcome_name(r.overall));
    cr_expect_eq(r.count[want], 1);
    cr_expect_eq(r.count[GV_CMP_SAME], r.n_cases - 1);
    const gv_cmp_case *c = first_with(&r, want);
    cr_expect_str_eq(c->op, "vadd");
    cr_expect_str_eq(c->name, "f32/native/uniform11/1000");
    cr_expect(has_why(c, why), "reason '%s' in %s: %s", why, c->items[0].why, c->items[1].why);
    gv_cmp_result_free(&r);
    json_decref(a);
    json_decref(b);
}

static void flip(json_t *c)
{
    json_object_set_new(c, "verdict", json_string("FAIL"));
}
static void lose_3_bits(json_t *c)
{
    json_t *m = json_object_get(c, "metrics");
    json_object_set_new(m, "accurate_bits",
                        json_real(json_number_value(json_object_get(m, "accurate_bits")) - 3));
}
static void ratio_x4(json_t *c)
{
    json_t *e = json_object_get(c, "error_model");
    json_object_set_new(e, "ratio", json_real(json_number_value(json_object_get(e, "ratio")) * 4));
}
static void gain_2_bits(json_t *c)
{
    json_t *m = json_object_get(c, "metrics");
    json_object_set_new(m, "accurate_bits",
                        json_real(json_number_value(json_object_get(m, "accurate_bits")) + 2));
}

Test(compare_runs, planted_verdict_flip_regresses)
{
    planted(flip, GV_CMP_REGRESSED, "verdict PASS -> FAIL");
}
Test(compare_runs, planted_3_bit_loss_regresses)
{
    planted(lose_3_bits, GV_CMP_REGRESSED, "lost 3.0 accurate bits");
}
Test(compare_runs, planted_4x_ratio_growth_regresses)
{
    planted(ratio_x4, GV_CMP_REGRESSED, "error ratio grew x4");
}
Test(compare_runs, gained_bits_improve)
{
    planted(gain_2_bits, GV_CMP_IMPROVED, "gained 2.0 accurate bits");
}

static void exact_then_20_bits(json_t *c)
{
    json_object_set_new(json_object_get(c, "metrics"), "accurate_bits", json_real(20.0));
}
static void exact_base(json_t *c)
{
    json_object_set_new(json_object_get(c, "metrics"), "accurate_bits", json_string("inf"));
}

/* An exact base (bits +inf) and 20 bits now lost every bit past 20: REGRESSED, not skipped as a
   non-finite number. */
Test(compare_runs, exact_to_inexact_regresses)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    exact_base(json_array_get(json_object_get(a, "cases"), 0));
    exact_then_20_bits(json_array_get(json_object_get(b, "cases"), 0));
    gv_cmp_result r = compare(a, b);
    cr_expect_eq(r.overall, GV_CMP_REGRESSED, "overall %s", gv_cmp_outcome_name(r.overall));
    const gv_cmp_case *c = first_with(&r, GV_CMP_REGRESSED);
    cr_expect(has_why(c, "exact before, 20.0 accurate bits now"));
    gv_cmp_result_free(&r);
    r = compare(b, a); /* and the other way: IMPROVED */
    cr_expect_eq(r.overall, GV_CMP_IMPROVED, "overall %s", gv_cmp_outcome_name(r.overall));
    gv_cmp_result_free(&r);
    json_decref(a);
    json_decref(b);
}

/* A copy of doc whose cases all carry seed s. */
static json_t *reseeded(const json_t *doc, long long s)
{
    json_t *d = json_deep_copy(doc);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(d, "cases"), i, c)
        json_object_set_new(c, "seed", json_integer(s));
    return d;
}

/* Runs of two seeds (the catalogue with --seed 1 against the one with seed 0): matched without
   the seed; a verdict flip still REGRESSES, metrics of other inputs are shown and not judged. */
Test(compare_runs, runs_of_different_seeds_match_on_the_rest)
{
    json_t *a = fixture("check-h100.json"), *b = reseeded(a, 1);
    size_t n = json_array_size(json_object_get(a, "cases"));
    lose_3_bits(json_array_get(json_object_get(b, "cases"), 0));
    gv_cmp_result r = compare(a, b);
    cr_expect(r.across_seeds);
    cr_expect_str_eq(r.seed_base, "0");
    cr_expect_str_eq(r.seed_new, "1");
    cr_expect_eq(r.n_cases, (int)n);
    cr_expect_eq(r.overall, GV_CMP_SAME, "3 bits fewer on other inputs is not judged: %s",
                 gv_cmp_outcome_name(r.overall));
    gv_cmp_result_free(&r);
    flip(json_array_get(json_object_get(b, "cases"), 0));
    r = compare(a, b);
    cr_expect(r.across_seeds);
    cr_expect_eq(r.overall, GV_CMP_REGRESSED, "a PASS turned FAIL on a new seed regresses");
    cr_expect_eq(r.count[GV_CMP_REGRESSED], 1);
    gv_cmp_result_free(&r);
    /* a run with two seeds is no seed sweep: its cases match only with their own seed */
    json_t *mixed = json_deep_copy(b);
    json_object_set_new(json_array_get(json_object_get(mixed, "cases"), 1), "seed",
                        json_integer(2));
    r = compare(a, mixed);
    cr_expect(!r.across_seeds);
    cr_expect_eq(r.n_cases, 0);
    cr_expect_eq(r.overall, GV_CMP_INCONCLUSIVE);
    gv_cmp_result_free(&r);
    json_decref(mixed);
    json_decref(a);
    json_decref(b);
}

Test(compare_runs, one_sided_cases_are_listed, .init = make_tmp, .fini = rm_tmp)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    json_t *cases = json_object_get(b, "cases");
    json_t *extra = json_deep_copy(json_array_get(cases, 0));
    json_object_set_new(extra, "seed", json_integer(99));
    json_array_remove(cases, 1);
    json_array_append_new(cases, extra);
    gv_cmp_result r = compare(a, b);
    cr_expect_eq(r.n_only_base, 1);
    cr_expect_eq(r.n_only_new, 1);
    cr_expect_str_eq(r.only_base[0], "vadd f32/native/uniform11/100000 0");
    cr_expect_str_eq(r.only_new[0], "vadd f32/native/uniform11/1000 99");
    /* the base ran the case the new run lacks (a PASS): never SAME (docs/regression.md) */
    cr_expect(r.only_base_ran[0]);
    cr_expect_eq(r.n_not_run, 1);
    cr_expect_eq(r.overall, GV_CMP_INCONCLUSIVE);
    gv_cmp_result_free(&r);
    char pa[600], pb[600], args[1400], out[1 << 14];
    snprintf(args, sizeof args, "compare '%s' '%s'", dump(a, "a.json", pa, sizeof pa),
             dump(b, "b.json", pb, sizeof pb));
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), GV_EXIT_INCONCLUSIVE, "%s", out);
    cr_expect(strstr(out, "only in base: vadd f32/native/uniform11/100000 0  (ran in the base: "
                          "INCONCLUSIVE)"),
              "%s", out);
    cr_expect(strstr(out, "only in new:  vadd f32/native/uniform11/1000 99"), "%s", out);
    json_decref(a);
    json_decref(b);
}

/* ---- through the binary ------------------------------------------------------------------- */

Test(compare_runs, identical_files_exit_0_through_the_binary)
{
    char args[2048], out[1 << 14];
    snprintf(args, sizeof args,
             "compare '%s/tests/fixtures/check-h100.json' "
             "'%s/tests/fixtures/check-h100.json'",
             getenv("GPUVAL_SRCDIR"), getenv("GPUVAL_SRCDIR"));
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "outcome: SAME"), "%s", out);
}

/* Tags of an XML text balanced (attributes quoted, no '<' or '>' inside them)? */
static bool balanced(const char *s)
{
    char stack[64][64];
    int depth = 0;
    for (const char *p = strchr(s, '<'); p; p = strchr(p + 1, '<')) {
        if (p[1] == '?') continue;
        const char *end = strchr(p, '>');
        if (!end || memchr(p + 1, '<', (size_t)(end - p - 1))) return false;
        bool closing = p[1] == '/', empty = end[-1] == '/';
        const char *n = p + 1 + closing;
        size_t len = strcspn(n, " />");
        if (len >= 64) return false;
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], n, len) != 0 || stack[depth - 1][len])
                return false;
            depth--;
        } else if (!empty) {
            if (depth == 64) return false;
            memcpy(stack[depth], n, len);
            stack[depth++][len] = '\0';
        }
    }
    return depth == 0;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

Test(compare_runs, junit_and_markdown_of_a_regression, .init = make_tmp, .fini = rm_tmp)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    json_t *ca = json_object_get(a, "cases"), *cb = json_object_get(b, "cases");
    int n = (int)json_array_size(ca);
    flip(json_array_get(cb, 0));
    lose_3_bits(json_array_get(cb, 2));
    /* a name that needs escaping, on both sides */
    json_object_set_new(json_array_get(ca, 2), "op", json_string("va<d&\"d'>"));
    json_object_set_new(json_array_get(cb, 2), "op", json_string("va<d&\"d'>"));
    char pa[600], pb[600], args[3000], out[1 << 14], xml[1 << 17], md[1 << 14];
    char junit[600], mdf[600];
    snprintf(junit, sizeof junit, "%s/out.xml", tmpdir);
    snprintf(mdf, sizeof mdf, "%s/out.md", tmpdir);
    snprintf(args, sizeof args, "compare '%s' '%s' --junit '%s' --md '%s'",
             dump(a, "a.json", pa, sizeof pa), dump(b, "b.json", pb, sizeof pb), junit, mdf);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 4, "%s", out);
    cr_expect(strstr(out, "REGRESSED"), "%s", out);
    gv_test_slurp(junit, xml, sizeof xml);
    cr_expect(balanced(xml), "%s", xml);
    cr_expect_eq(count(xml, "<testcase "), n);
    cr_expect_eq(count(xml, "<failure "), 2);
    cr_expect_eq(count(xml, "<skipped "), 0);
    cr_expect(strstr(xml, "tests=\"235\" failures=\"2\""), "%.300s", xml);
    cr_expect(strstr(xml, "classname=\"va&lt;d&amp;&quot;d&#39;&gt;\""), "escaped op");
    cr_expect(strstr(xml, "name=\"f32/native/uniform11/1000 seed 0\" time=\"0.000000\">"), "%.600s",
              xml);
    gv_test_slurp(mdf, md, sizeof md);
    cr_expect(strstr(md, "### gpuval compare: REGRESSED"), "%s", md);
    cr_expect(strstr(md, "verdict PASS -&gt; FAIL") || strstr(md, "verdict PASS -> FAIL"), "%s",
              md);
    json_decref(a);
    json_decref(b);
}

Test(compare_runs, bench_timing_on_another_device_is_inconclusive_unless_forced, .init = make_tmp,
     .fini = rm_tmp)
{
    json_t *a = fixture("bench-synthetic.json"), *b = json_deep_copy(a);
    json_object_set_new(json_object_get(b, "device"), "uuid", json_string("another"));
    gv_cmp_result r = compare(a, b);
    cr_expect(r.bench && r.device_differs);
    cr_expect_str_eq(r.device_why, "uuid");
    cr_expect_gt(r.n_timing, 0);
    cr_expect_eq(r.n_timing_inconclusive, r.n_timing);
    cr_expect_eq(r.overall, GV_CMP_INCONCLUSIVE);
    gv_cmp_result_free(&r);
    char pa[600], pb[600], args[1400], out[1 << 14];
    dump(a, "a.json", pa, sizeof pa);
    dump(b, "b.json", pb, sizeof pb);
    snprintf(args, sizeof args, "compare '%s' '%s'", pa, pb);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 5, "%s", out);
    cr_expect(strstr(out, "device fingerprints differ (uuid)"), "%s", out);
    snprintf(args, sizeof args, "compare '%s' '%s' --force", pa, pb);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    json_decref(a);
    json_decref(b);
}

Test(compare_runs, bad_inputs_exit_2, .init = make_tmp, .fini = rm_tmp)
{
    const char *src = getenv("GPUVAL_SRCDIR");
    char check[600], bench[600], bad[600], odd[600], args[2048], out[1 << 14];
    snprintf(check, sizeof check, "%s/tests/fixtures/check-h100.json", src);
    snprintf(bench, sizeof bench, "%s/tests/fixtures/bench-synthetic.json", src);
    snprintf(bad, sizeof bad, "%s/bad.json", tmpdir);
    FILE *f = fopen(bad, "w");
    cr_assert_not_null(f);
    fputs("{\"schema\": \"gpuval-run/1\",\n \"cases\": [}\n", f);
    fclose(f);
    json_t *o = json_pack("{s:s, s:[]}", "schema", "gpuval-other/1", "cases");
    dump(o, "odd.json", odd, sizeof odd);
    json_decref(o);
    struct {
        const char *fmt, *x, *y, *says;
    } cases[] = {
        {"compare '%s' '%s'", check, bad, "line 2, column"},
        {"compare '%s' '%s'", check, "/nonexistent/x.json", "No such file"},
        {"compare '%s' '%s'", check, bench, "schemas differ"},
        {"compare '%s' '%s'", odd, odd, "unknown schema 'gpuval-other/1'"},
        {"compare '%s' %s", check, "", "two run files"},
        {"compare '%s' '%s' --bits x", check, check, "--bits"},
        {"compare '%s' '%s' --junit /nonexistent/j.xml", check, check, "cannot write --junit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(args, sizeof args, cases[i].fmt, cases[i].x, cases[i].y);
        cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s: %s", args, out);
        cr_expect(strstr(out, cases[i].says), "%s: '%s' in %s", args, cases[i].says, out);
    }
}

/* A seed >= 2^63 is a decimal string in a new file and came back negative (the same bits as
   a signed integer) from an old one: both name the same case, by its uint64 digits. */
Test(compare_runs, big_seed_as_string_matches_old_negative_integer)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(a, "cases"), i, c)
        json_object_set_new(c, "seed", json_integer(-1)); /* 2^64-1 written by an old gpuval */
    json_array_foreach(json_object_get(b, "cases"), i, c)
        json_object_set_new(c, "seed", json_string("18446744073709551615"));
    gv_cmp_result r = compare(a, b);
    cr_expect_eq(r.n_only_base, 0);
    cr_expect_eq(r.n_only_new, 0);
    cr_assert_gt(r.n_cases, 0);
    cr_expect_str_eq(r.cases[0].seed, "18446744073709551615");
    gv_cmp_result_free(&r);
    json_decref(a);
    json_decref(b);
}

/* Every kernel_hot sample of every case of doc times f: a kernel made slower (or faster). */
static void scale_hot(json_t *doc, double f)
{
    size_t i, k;
    json_t *c, *s;
    json_array_foreach(json_object_get(doc, "cases"), i, c)
    {
        json_t *ms = json_object_get(json_object_get(json_object_get(c, "timings"), "kernel_hot"),
                                     "samples_ms");
        json_array_foreach(ms, k, s) json_real_set(s, json_number_value(s) * f);
    }
}

Test(compare_runs, bench_files_with_a_slowed_kernel_regress_through_the_binary, .init = make_tmp,
     .fini = rm_tmp)
{
    json_t *a = fixture("bench-synthetic.json"), *b = json_deep_copy(a);
    scale_hot(b, 1.25);
    char pa[600], pb[600], args[1400], out[1 << 14];
    dump(a, "a.json", pa, sizeof pa);
    dump(b, "b.json", pb, sizeof pb);
    snprintf(args, sizeof args, "compare '%s' '%s'", pa, pb);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 4, "%s", out);
    cr_expect(strstr(out, "outcome: REGRESSED"), "%s", out);
    snprintf(args, sizeof args, "compare '%s' '%s'", pa, pa);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "outcome: SAME"), "%s", out);
    json_decref(a);
    json_decref(b);
}

/* bench --save never replaces a file without --force (as check --save); with it the file
   is a gpuval-bench/1 document that compare reads (exit 77 without a device, 0 with one). */
Test(compare_runs, bench_save_keeps_an_existing_baseline_without_force, .init = make_tmp,
     .fini = rm_tmp)
{
    char path[600], args[1400], out[1 << 14], buf[1 << 16];
    snprintf(path, sizeof path, "%s/base.json", tmpdir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("keep me\n", f);
    fclose(f);
    snprintf(args, sizeof args, "bench --op vadd --dtype f32 --size 1000 --cap 0.05 --save '%s'",
             path);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, "replaced only with --force"), "%s", out);
    gv_test_slurp(path, buf, sizeof buf);
    cr_expect_str_eq(buf, "keep me\n");
    snprintf(args, sizeof args,
             "bench --op vadd --dtype f32 --size 1000 --cap 0.05 --save '%s' --force", path);
    int rc = gv_test_run_cli(args, out, sizeof out);
    cr_expect(rc == 0 || rc == 77, "exit %d: %s", rc, out);
    gv_test_slurp(path, buf, sizeof buf);
    cr_expect(strstr(buf, "\"schema\": \"gpuval-bench/1\""), "%.300s", buf);
}

/* --as renames the cases of one variant to the op it stands for, and nothing else. */
Test(compare_runs, as_renames_one_variant_sharing_the_oracle)
{
    char out[1 << 14];
    cr_expect_eq(
        gv_test_run_cli("check --op vadd.slow --as vadd --size 1000 --dtype f32", out, sizeof out) %
            77,
        0, "%s", out); /* 0 with a device, 77 without */
    cr_expect(strstr(out, "\nvadd "), "%s", out);
    cr_expect_null(strstr(out, "vadd.slow"), "%s", out);
    cr_expect_eq(
        gv_test_run_cli("check --op 'vadd*' --planted --as vadd --size 1000", out, sizeof out), 2,
        "%s", out);
    cr_expect(strstr(out, "several ops"), "%s", out);
    cr_expect_eq(gv_test_run_cli("check --op gemm.tiled --as vadd --size 8x8x8", out, sizeof out),
                 2, "%s", out);
    cr_expect(strstr(out, "does not share"), "%s", out);
    cr_expect_eq(gv_test_run_cli("check --op vadd.slow --as nosuchop --size 1000", out, sizeof out),
                 2, "%s", out);
    cr_expect_eq(gv_test_run_cli("bench --preset short --as vadd", out, sizeof out), 2, "%s", out);
}

/* A case the base judged (PASS or FAIL) that the new run did not is never SAME: INCONCLUSIVE,
   and the whole comparison with it, over an improvement elsewhere; a PASS that became an ERROR
   stays REGRESSED. */
Test(compare_runs, a_case_the_base_ran_and_the_new_run_did_not_is_inconclusive)
{
    static const struct {
        const char *base, *new_;
        gv_cmp_outcome want;
    } rows[] = {
        {"PASS", "SKIP", GV_CMP_INCONCLUSIVE},  {"FAIL", "SKIP", GV_CMP_INCONCLUSIVE},
        {"FAIL", "ERROR", GV_CMP_INCONCLUSIVE}, {"PASS", "ERROR", GV_CMP_REGRESSED},
        {"SKIP", "SKIP", GV_CMP_SAME},          {"SKIP", "PASS", GV_CMP_SAME},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
        json_t *ca = json_array_get(json_object_get(a, "cases"), 0);
        json_t *cb = json_array_get(json_object_get(b, "cases"), 0);
        json_object_set_new(ca, "verdict", json_string(rows[k].base));
        json_object_set_new(cb, "verdict", json_string(rows[k].new_));
        /* an improvement elsewhere (FAIL -> PASS) must not outweigh a lost case */
        json_object_set_new(json_array_get(json_object_get(a, "cases"), 1), "verdict",
                            json_string("FAIL"));
        gv_cmp_result r = compare(a, b);
        cr_expect_eq(r.cases[0].outcome, rows[k].want, "%s -> %s: %s", rows[k].base, rows[k].new_,
                     gv_cmp_outcome_name(r.cases[0].outcome));
        gv_cmp_outcome overall = rows[k].want == GV_CMP_SAME ? GV_CMP_IMPROVED : rows[k].want;
        cr_expect_eq(r.overall, overall, "%s -> %s: overall %s", rows[k].base, rows[k].new_,
                     gv_cmp_outcome_name(r.overall));
        cr_expect_eq(r.n_not_run, rows[k].want == GV_CMP_INCONCLUSIVE, "%s -> %s", rows[k].base,
                     rows[k].new_);
        gv_cmp_result_free(&r);
        json_decref(a);
        json_decref(b);
    }
}

/* ---- the geometric means and -q ----------------------------------------------------------- */

/* One case's error-model ratio grown fourfold among n with a ratio on both sides: the geometric
   mean of new/base is 4^(1/n), not the arithmetic mean's 1 + 3/n. */
Test(compare_runs, the_geomean_of_error_ratios_is_taken_over_the_cases_with_both)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    ratio_x4(json_array_get(json_object_get(b, "cases"), 0));
    gv_cmp_result same = compare(a, a), r = compare(a, b);
    cr_assert_gt(same.n_geomean_error, 10);
    cr_expect_eq(same.geomean_error, 1.0);
    cr_expect_eq(same.n_geomean_time, 0, "a check run times nothing");
    cr_expect_eq(r.n_geomean_error, same.n_geomean_error);
    double want = pow(4.0, 1.0 / r.n_geomean_error);
    cr_expect(fabs(r.geomean_error - want) < 1e-12 * want, "%.17g, want %.17g", r.geomean_error,
              want);
    gv_cmp_result_free(&same);
    gv_cmp_result_free(&r);
    json_decref(a);
    json_decref(b);
}

Test(compare_runs, the_geomean_of_kernel_times_is_the_slowdown)
{
    json_t *a = fixture("bench-synthetic.json"), *b = json_deep_copy(a);
    scale_hot(b, 1.25);
    gv_cmp_result r = compare(a, b);
    cr_assert_gt(r.n_geomean_time, 0);
    cr_expect_eq(r.n_geomean_time, r.n_cases);
    cr_expect(fabs(r.geomean_time - 1.25) < 1e-9, "%.17g", r.geomean_time);
    gv_cmp_result_free(&r);
    json_decref(a);
    json_decref(b);
}

/* compare -q: a line for each item that regressed or improved and for each case on one side
   only, then one summary line with the counts, the geometric mean and the outcome; nothing
   for the cases that stayed the same, no table; the exit code as without -q. */
Test(compare_runs, quiet_prints_what_changed_and_one_summary_line, .init = make_tmp, .fini = rm_tmp)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    json_t *cases = json_object_get(b, "cases");
    lose_3_bits(json_array_get(cases, 0));
    gain_2_bits(json_array_get(cases, 1));
    json_t *extra = json_deep_copy(json_array_get(cases, 2));
    json_object_set_new(extra, "seed", json_integer(99));
    json_array_append_new(cases, extra);
    char pa[600], pb[600], args[1400];
    static char out[1 << 16], full[1 << 16];
    dump(a, "a.json", pa, sizeof pa);
    dump(b, "b.json", pb, sizeof pb);
    snprintf(args, sizeof args, "compare -q '%s' '%s'", pa, pb);
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), GV_EXIT_REGRESSED, "%s", out);
    snprintf(args, sizeof args, "compare '%s' '%s'", pa, pb);
    cr_expect_eq(gv_test_run_cli(args, full, sizeof full), GV_EXIT_REGRESSED, "%s", full);
    const char *lines[] = {
        "REGRESSED vadd f32/native/uniform11/1000 seed 0: accurate bits 24.0 -> 21.0 (lost 3.0 "
        "accurate bits (> 1))\n",
        "IMPROVED  vadd f32/native/uniform11/100000 seed 0: accurate bits ",
        "only in new:  vadd f32/native/uniform11/100003 99\n",
    };
    const char *p = out;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        cr_expect(strncmp(p, lines[i], strlen(lines[i])) == 0, "line %zu: want %s in\n%s", i + 1,
                  lines[i], out);
        p = strchr(p, '\n');
        cr_assert_not_null(p, "%s", out);
        p++;
    }
    int n = (int)json_array_size(json_object_get(a, "cases"));
    char want[256];
    snprintf(want, sizeof want,
             "%d matched: 1 regressed, 1 improved, %d same, 0 inconclusive; 0 only in base, 1 "
             "only in new; geomean new/base: error ratio x1.000 (",
             n, n - 2);
    cr_expect(strncmp(p, want, strlen(want)) == 0, "summary: want %s in\n%s", want, out);
    cr_expect(strstr(p, " cases); outcome: REGRESSED\n") && !strchr(p, '\n')[1],
              "one summary line, the last:\n%s", out);
    /* the full output has the table and the same mean on a line of its own */
    cr_expect(strstr(full, "what changed") && !strstr(out, "what changed"), "%s", full);
    cr_expect(strstr(full, "\ngeomean new/base: error ratio x1.000 ("), "%s", full);
    json_decref(a);
    json_decref(b);
}

/* Runs of different seeds measure other inputs: no mean of their ratios, and -q says so. */
Test(compare_runs, quiet_across_seeds_says_there_is_no_geomean, .init = make_tmp, .fini = rm_tmp)
{
    json_t *a = fixture("check-h100.json"), *b = json_deep_copy(a);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(b, "cases"), i, c)
        json_object_set_new(c, "seed", json_integer(1));
    gv_cmp_result r = compare(a, b);
    cr_expect(r.across_seeds);
    cr_expect_eq(r.n_geomean_error + r.n_geomean_time, 0);
    gv_cmp_result_free(&r);
    char pa[600], pb[600], args[1400];
    static char out[1 << 16];
    snprintf(args, sizeof args, "compare -q '%s' '%s'", dump(a, "a.json", pa, sizeof pa),
             dump(b, "b.json", pb, sizeof pb));
    cr_expect_eq(gv_test_run_cli(args, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "; runs of different seeds (base 0, new 1): no geomean (the metrics "
                          "measure other inputs); outcome: SAME\n"),
              "%s", out);
    json_decref(a);
    json_decref(b);
}
