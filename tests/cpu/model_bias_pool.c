/* model_bias_pool.c: the bias rule pooled across cases (core/bias_pool.h). reduce.sum has one
 * output a case, so its own bias rule cannot judge; over the cases of a run (here: seeds of
 * generated uniform [-1, 1) inputs, judged as gpuval judges outputs computed elsewhere) a
 * correct round-to-nearest sum in any order (sequential, pairwise, blocked, tree) leans no
 * way, and the same orders rounding every addition toward zero lean toward zero on every
 * case. No device is used. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/judge.h"
#include "core/bias_pool.h"
#include "testkit.h"

enum { ORD_SEQ, ORD_PAIRWISE, ORD_BLOCKED, ORD_TREE, NORD };
static const char *const ord_name[NORD] = {"sequential", "pairwise", "blocked:256", "tree"};

/* x[0..n) summed in f32 in order o, every addition rounded as the thread's mode says; the
   accumulators are volatile so that each addition runs here, under that mode */
static float sum_in(const float *x, int64_t n, int o)
{
    if (o == ORD_SEQ || (o == ORD_PAIRWISE && n <= 8)) {
        volatile float acc = 0.0f;
        for (int64_t i = 0; i < n; i++)
            acc = acc + x[i];
        return acc;
    }
    if (o == ORD_PAIRWISE) {
        volatile float lo = sum_in(x, n / 2, o), hi = sum_in(x + n / 2, n - n / 2, o);
        return lo + hi;
    }
    /* blocked: blocks of 256 in order, their partials in order; tree: a binary tree over
       pairs, level by level (a GPU block's shared-memory tree) */
    const int64_t nb = o == ORD_BLOCKED ? (n + 255) / 256 : n;
    float *part = malloc(sizeof *part * (size_t)nb);
    cr_assert_not_null(part);
    if (o == ORD_BLOCKED)
        for (int64_t b = 0; b < nb; b++)
            part[b] = sum_in(x + b * 256, n - b * 256 < 256 ? n - b * 256 : 256, ORD_SEQ);
    else
        memcpy(part, x, sizeof *part * (size_t)n);
    float s;
    if (o == ORD_BLOCKED) {
        s = sum_in(part, nb, ORD_SEQ);
    } else {
        for (int64_t len = nb; len > 1; len = (len + 1) / 2)
            for (int64_t i = 0; i < len / 2; i++) {
                volatile float t = part[2 * i] + part[2 * i + 1];
                part[i] = t;
                if (len % 2 && i == len / 2 - 1) part[i + 1] = part[len - 1];
            }
        s = part[0];
    }
    free(part);
    return s;
}

/* The run's results of one order and rounding: seeds s0 .. s0 + ns - 1 of reduce.sum f32 at
   size n, judged as the generated case */
static gv_result *run_order(int64_t n, uint64_t s0, int ns, int o, int rounding)
{
    gv_result *rs = calloc((size_t)ns, sizeof *rs);
    cr_assert_not_null(rs);
    char size[32];
    snprintf(size, sizeof size, "%lld", (long long)n);
    for (int s = 0; s < ns; s++) {
        gv_case_inputs ci;
        char err[256];
        cr_assert_eq(gv_make_inputs("reduce.sum", GV_DTYPE_F32, NULL, size, "uniform11", s0 + s,
                                    &ci, err, sizeof err),
                     GV_API_OK, "%s", err);
        const int before = fegetround();
        cr_assert_eq(fesetround(rounding), 0);
        float out = sum_in(ci.in[0], n, o);
        fesetround(before);
        gv_array in = {GV_DTYPE_F32, ci.in[0], n, "x"}, res = {GV_DTYPE_F32, &out, 1, "s"};
        gv_judge_spec spec = {.op = "reduce.sum",
                              .size = size,
                              .dist = "uniform11",
                              .seed = s0 + s,
                              .n_in = 1,
                              .n_out = 1,
                              .in = &in,
                              .out = &res};
        cr_assert_eq(gv_judge_run(&spec, &rs[s], NULL, err, sizeof err), GV_OK, "%s", err);
        cr_assert(gv_bias_pool_takes(&rs[s]), "seed %d: %s", s, rs[s].reason);
        gv_case_inputs_free(&ci);
    }
    return rs;
}

/* Every RN order PASSes case by case and pooled; every RZ order's group leans toward zero
   past the bound, and each of its cases FAILs, those that PASSed alone named for the pooled
   bias with the group's cases. n = 10^5, 64 seeds. */
Test(bias_pool, rz_sums_lean_rn_sums_do_not, .timeout = 600)
{
    const int64_t n = 100000;
    const int ns = 64;
    for (int o = 0; o < NORD; o++)
        for (int rz = 0; rz < 2; rz++) {
            gv_result *rs = run_order(n, 100, ns, o, rz ? FE_TOWARDZERO : FE_TONEAREST);
            int passed_alone = 0;
            for (int s = 0; s < ns; s++)
                passed_alone += rs[s].verdict == GV_PASS;
            gv_bias_pool_group g[4];
            int ng = gv_bias_pool_judge(rs, ns, g, 4);
            cr_assert_eq(ng, 1);
            printf("reduce.sum f32 n=%lld %s %s, %d seeds: z %+.2f z_sr %+.2f, %d PASS alone\n",
                   (long long)n, ord_name[o], rz ? "RZ" : "RN", ns, g[0].z, g[0].z_sr,
                   passed_alone);
            fflush(stdout);
            cr_expect(g[0].judged);
            cr_expect_eq(g[0].cases, ns);
            if (!rz) {
                cr_expect(!g[0].over, "%s RN: z %g z_sr %g", ord_name[o], g[0].z, g[0].z_sr);
                for (int s = 0; s < ns; s++)
                    cr_expect_eq(rs[s].verdict, GV_PASS, "%s RN seed %d: %s", ord_name[o], s,
                                 rs[s].reason);
            } else {
                cr_expect(g[0].over && g[0].z_sr < -GV_BIAS_POOL_Z, "%s RZ: z_sr %g", ord_name[o],
                          g[0].z_sr);
                for (int s = 0; s < ns; s++) {
                    cr_expect_eq(rs[s].verdict, GV_FAIL, "%s RZ seed %d", ord_name[o], s);
                    if (rs[s].cause == GV_CAUSE_BIAS)
                        cr_expect(strstr(rs[s].reason, "bias across cases: reduce.sum f32 "
                                                       "native: errors lean toward zero") &&
                                      strstr(rs[s].reason, "seed 100"),
                                  "%s", rs[s].reason);
                }
            }
            free(rs);
        }
}

/* The false alarms of correct sums: groups of GV_BIAS_POOL_MIN_N cases (the fewest judged),
   n = 1000, every RN order, 250 groups each on seeds of their own (1000 groups). The bound
   allows 1.6e-4 a group; none may trip here, and |z| stays in a standard normal's range. */
Test(bias_pool, correct_sums_do_not_trip, .timeout = 600)
{
    const int k = GV_BIAS_POOL_MIN_N, groups = 250;
    double zmax = 0.0, z2 = 0.0;
    int tripped = 0, cnt = 0;
    for (int o = 0; o < NORD; o++)
        for (int gi = 0; gi < groups; gi++) {
            gv_result *rs =
                run_order(1000, 10000 + (uint64_t)(o * groups + gi) * k, k, o, FE_TONEAREST);
            gv_bias_pool_group g;
            cr_assert_eq(gv_bias_pool_judge(rs, k, &g, 1), 1);
            cr_expect(g.judged);
            tripped += g.over;
            double z = fabs(g.z) > fabs(g.z_sr) ? fabs(g.z) : fabs(g.z_sr);
            if (z > zmax) zmax = z;
            z2 += g.z * g.z + g.z_sr * g.z_sr;
            cnt += 2;
            free(rs);
        }
    printf("RN sums, %d groups of %d cases (n = 1000): %d over the bound, max |z| %.2f, "
           "mean z^2 %.2f\n",
           NORD * groups, k, tripped, zmax, z2 / cnt);
    cr_expect_eq(tripped, 0);
    cr_expect_lt(zmax, GV_BIAS_POOL_Z);
}

/* Under GV_BIAS_POOL_MIN_N cases the rule has no power and judges nothing: an RZ group of 20
   keeps each case's own verdict, and says why. */
Test(bias_pool, too_few_cases_are_not_judged, .timeout = 120)
{
    const int k = GV_BIAS_POOL_MIN_N - 1;
    gv_result *rs = run_order(100000, 100, k, ORD_PAIRWISE, FE_TOWARDZERO);
    gv_verdict before[GV_BIAS_POOL_MIN_N];
    for (int s = 0; s < k; s++)
        before[s] = rs[s].verdict;
    gv_bias_pool_group g;
    cr_assert_eq(gv_bias_pool_judge(rs, k, &g, 1), 1);
    cr_expect(!g.judged && !g.over);
    for (int s = 0; s < k; s++)
        cr_expect_eq(rs[s].verdict, before[s]);
    char line[256];
    gv_bias_pool_line(rs, &g, line, sizeof line);
    cr_expect(strstr(line, "under the 21 the pooled bias rule needs"), "%s", line);
    free(rs);
}

/* Cases of one seed share their inputs (a longer vector starts with a shorter one's elements),
   so their errors are one sum's, repeated: pooling them multiplies one case's lean by the root
   of their count. A correct tree sum over 64 sizes of one seed leaned past the bound that way
   on an H100. The rule pools one case a seed: an RZ group whose 64 cases all carry one seed is
   one case, not judged, and no verdict changes. */
Test(bias_pool, cases_of_one_seed_pool_as_one, .timeout = 300)
{
    const int ns = 64;
    gv_result *rs = run_order(100000, 100, ns, ORD_PAIRWISE, FE_TOWARDZERO);
    gv_verdict before[64];
    for (int s = 0; s < ns; s++) {
        rs[s].c.seed = 7; /* as check's sizes of one seed */
        before[s] = rs[s].verdict;
    }
    gv_bias_pool_group g;
    cr_assert_eq(gv_bias_pool_judge(rs, ns, &g, 1), 1);
    cr_expect_eq(g.cases, 1, "%d cases pooled", g.cases);
    cr_expect(!g.judged && !g.over);
    for (int s = 0; s < ns; s++)
        cr_expect_eq(rs[s].verdict, before[s]);
    char line[256];
    gv_bias_pool_line(rs, &g, line, sizeof line);
    cr_expect(strstr(line, "share their inputs"), "%s", line);
    free(rs);
}
