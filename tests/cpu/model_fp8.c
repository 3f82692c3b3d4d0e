/* model_fp8.c: gemm.cublas's scaled fp8 modes (fp8e5m2, fp8row, fp8blk) on the CPU. The kernel
 * is emulated: the operands quantised by abi/gemm.h's recipe (the honest one, or a planted
 * one), each output summed in chunks of 128 products through the published block-FMA model of
 * Hopper's fp8 tensor core (src/probe/bfma.c, H100TC.m: 32 products a block, 13 fraction bits,
 * truncated), each chunk added into an f32 accumulator (the blockwise mode after multiplying
 * it by its two descales, the others scaling the sum at the end), as cuBLASLt promotes every
 * 128 products (probe/sm_90.expect). Each result is planted as the device output and judged
 * for the claimed mode: the honest recipe PASSes on every dist, shape and seed, each planted
 * recipe FAILs on the wide layout. Also: the scale layouts are the documented ones, the
 * reference's rounding is the format's, and the mode's model numbers come from its row.
 * dense.sigmoid's fp8 modes run the same product, then the f32 bias and sigmoid: the same
 * emulation with that epilogue is judged for the dense layer's labels (the end of the file). */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/gemm.h"
#include "core/judge.h"
#include "core/problem.h"
#include "core/reference.h"
#include "core/registry.h"
#include "ops/gemm_fp8.h"
#include "core/bfma.h"

/* ---- the scale layouts (abi/gemm.h against the cuBLAS guide's strides) ------------------ */

/* cuBLAS Library guide, "Scaling factors layouts", as PyTorch states it (PR 166752): for A
   m x k in 1 x 128 blocks, [M, K/128] with strides [1, M]; for B k x n in 128 x 128 blocks,
   [L4, N/128] with strides [1, L4], L4 = K/128 rounded up to a multiple of 4. Written here
   from the strides, not from gemm.h's code. */
Test(model_fp8, scale_layouts_are_the_documented_ones)
{
    const int64_t m = 300, k = 520, n = 260; /* ragged: 5 K-blocks (L4 8), 3 N-blocks */
    const int64_t kb = 5, l4 = 8, nb = 3;
    cr_expect_eq(gk_fp8_l4(k), l4);
    cr_expect_eq(gk_fp8_scale_count(GK_FP8_BLOCK, 0, m, k, n), m * kb);
    cr_expect_eq(gk_fp8_scale_count(GK_FP8_BLOCK, 1, m, k, n), l4 * nb);
    cr_expect_eq(gk_fp8_scale_count(GK_FP8_OUTER, 0, m, k, n), m);
    cr_expect_eq(gk_fp8_scale_count(GK_FP8_OUTER, 1, m, k, n), n);
    cr_expect_eq(gk_fp8_scale_count(GK_FP8_TENSOR, 1, m, k, n), 1);
    for (int64_t i = 0; i < m; i += 7)
        for (int64_t l = 0; l < k; l += 13) {
            cr_expect_eq(gk_fp8_a_scale_index(GK_FP8_BLOCK, i, l, m), 1 * i + m * (l / 128));
            cr_expect_eq(gk_fp8_a_scale_index(GK_FP8_OUTER, i, l, m), i);
            cr_expect_eq(gk_fp8_a_scale_index(GK_FP8_TENSOR, i, l, m), 0);
        }
    for (int64_t l = 0; l < k; l += 11)
        for (int64_t j = 0; j < n; j += 5) {
            cr_expect_eq(gk_fp8_b_scale_index(GK_FP8_BLOCK, l, j, k),
                         1 * (l / 128) + l4 * (j / 128));
            cr_expect_eq(gk_fp8_b_scale_index(GK_FP8_OUTER, l, j, k), j);
        }
    /* every element's block lands on a slot of its own block and no two blocks share one */
    bool *seen = calloc((size_t)(l4 * nb), 1);
    cr_assert_not_null(seen);
    for (int64_t b = 0; b < kb; b++)
        for (int64_t c = 0; c < nb; c++) {
            int64_t at = gk_fp8_b_scale_index(GK_FP8_BLOCK, b * 128, c * 128, k);
            cr_expect(at >= 0 && at < l4 * nb && !seen[at], "block (%lld, %lld)", (long long)b,
                      (long long)c);
            seen[at] = true;
        }
    free(seen);
    /* the workspace's scales part holds the largest grouping of each operand, aligned */
    int64_t off[4];
    int64_t bytes = gk_fp8_scales_bytes(m, k, n, off);
    cr_expect_eq(off[0], 0);
    cr_expect_geq(off[1] - off[0], m * kb * 4);
    cr_expect_geq(off[2] - off[1], n * 4); /* outer: n > l4 nb = 24 */
    cr_expect_geq(bytes - off[3], n * 4);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(off[i] % 256, 0);
}

/* ---- the reference's rounding ------------------------------------------------------------ */

/* The format's nearest value by its definition: the spacing at y's binade (never below the
   subnormals' 2^(emin - p + 1)), ties to even, saturating at the largest finite. */
static double by_definition(double y, int p, int emin, double max)
{
    if (y == 0.0) return y;
    int e = (int)floor(log2(fabs(y)));
    double ulp = ldexp(1.0, (e < emin ? emin : e) - (p - 1));
    double r = nearbyint(y / ulp) * ulp; /* the default rounding mode: ties to even */
    return fabs(r) > max ? copysign(max, y) : r;
}

Test(model_fp8, quantisation_is_the_formats_rounding_with_the_f32_scale)
{
    const int64_t m = 8, k = 300, n = 6;
    double *a = malloc(sizeof *a * (size_t)(m * k)), *q = malloc(sizeof *q * (size_t)(m * k));
    double *deq = malloc(sizeof *deq * (size_t)(m * k));
    float *ds = malloc(sizeof *ds * (size_t)(m * 3));
    cr_assert(a && q && deq && ds);
    uint64_t z = 99;
    for (int64_t i = 0; i < m * k; i++) {
        z = z * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(z >> 11) * 0x1p-53;
        a[i] = (double)(float)(ldexp(u - 0.5, (int)(i / k) * 3 - 12)); /* rows 2^3 apart */
    }
    for (int e5 = 0; e5 <= 1; e5++)
        for (int g = GK_FP8_TENSOR; g <= GK_FP8_BLOCK; g++) {
            gk_fp8_recipe r = {g, g, g, g, e5, e5, 0, 0};
            cr_assert_eq(gv_fp8_quantise(&r, 0, m, k, n, a, q, ds, deq), GV_OK);
            int p = e5 ? 3 : 4, emin = e5 ? -14 : -6;
            double max = e5 ? 57344.0 : 448.0;
            for (int64_t i = 0; i < m; i++)
                for (int64_t l = 0; l < k; l++) {
                    /* the group's amax and scale, here by a scan of its own */
                    float amax = 0;
                    for (int64_t i2 = 0; i2 < m; i2++)
                        for (int64_t l2 = 0; l2 < k; l2++) {
                            bool same = g == GK_FP8_TENSOR ||
                                        (i2 == i && (g == GK_FP8_OUTER || l2 / 128 == l / 128));
                            if (same) amax = fmaxf(amax, fabsf((float)a[i2 * k + l2]));
                        }
                    float s = (float)max / amax;
                    double want = by_definition((double)((float)a[i * k + l] * s), p, emin, max);
                    cr_assert_eq(q[i * k + l], want, "e5m2 %d grouping %d (%lld, %lld): %a vs %a",
                                 e5, g, (long long)i, (long long)l, q[i * k + l], want);
                    cr_assert_eq(deq[i * k + l], want * (double)(1.0f / s));
                    cr_assert_eq(ds[gk_fp8_a_scale_index(g, i, l, m)], 1.0f / s);
                }
        }
    free(a);
    free(q);
    free(deq);
    free(ds);
}

/* ---- the emulated kernel against the model ----------------------------------------------- */

/* Hopper's fp8 block FMA ([KM25], bfma.c); for an e4m3 x e5m2 product one input format that
   holds both (4 significand bits, e5m2's exponent range): the products are exact either way
   and only e4m3's subnormals take a finer exponent than the e4m3 model gives them. */
static gv_bfma_model hopper_fp8(int mixed)
{
    gv_bfma_model m = *gv_bfma_find(90, "e4m3");
    if (mixed) m.in = (gv_bfma_format){"e4m3|e5m2", 4, -14, 15, true, true};
    return m;
}

/* The device output the recipe's kernel gives on p's inputs (see the file's comment). */
static void emulate(const gv_problem *p, const gk_fp8_recipe *r, float *out)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    double *qa = malloc(sizeof *qa * (size_t)(m * k)), *qb = malloc(sizeof *qb * (size_t)(k * n));
    float *da = malloc(sizeof *da * (size_t)gk_fp8_scale_count(GK_FP8_BLOCK, 0, m, k, n) + 64 * m);
    float *db = malloc(sizeof *db * (size_t)(gk_fp8_scale_count(GK_FP8_BLOCK, 1, m, k, n) + n));
    float *ra = malloc(sizeof *ra * (size_t)k), *cb = malloc(sizeof *cb * (size_t)k);
    cr_assert(qa && qb && da && db && ra && cb);
    cr_assert_eq(gv_fp8_quantise(r, 0, m, k, n, p->in[0].ref, qa, da, NULL), GV_OK);
    cr_assert_eq(gv_fp8_quantise(r, 1, m, k, n, p->in[1].ref, qb, db, NULL), GV_OK);
    gv_bfma_model model = hopper_fp8(r->e5m2_a != r->e5m2_b);
    if (r->e5m2_a && r->e5m2_b) model = *gv_bfma_find(90, "e5m2");
    bool blockwise = r->group_a == GK_FP8_BLOCK;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            for (int64_t l = 0; l < k; l++) {
                ra[l] = (float)qa[i * k + l];
                cb[l] = (float)qb[l * n + j];
            }
            float acc = 0.0f;
            for (int64_t l0 = 0; l0 < k; l0 += GK_FP8_BLOCK_K) {
                int len = (int)(k - l0 < GK_FP8_BLOCK_K ? k - l0 : GK_FP8_BLOCK_K);
                float part = gv_bfma_dot(&model, ra + l0, cb + l0, len, 0.0f);
                if (blockwise) {
                    float s = da[gk_fp8_a_scale_index(r->group_a, i, l0, m)] *
                              db[gk_fp8_b_scale_index(r->group_b, l0, j, k)];
                    acc = fmaf(s, part, acc);
                } else {
                    acc += part;
                }
            }
            out[i * n + j] = blockwise ? acc
                                       : da[gk_fp8_a_scale_index(r->group_a, i, 0, m)] *
                                             db[gk_fp8_b_scale_index(r->group_b, 0, j, k)] * acc;
        }
    free(qa);
    free(qb);
    free(da);
    free(db);
    free(ra);
    free(cb);
}

/* The recipe of a mode: the scaled modes' rows, and fp8's own (e4m3, one scale per tensor
   for each operand: the all-zero recipe; dense.sigmoid offers it on the same product). */
static gk_fp8_recipe recipe_of(gv_mode mode, int plant)
{
    gk_fp8_recipe r = {GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, 0, 0, 0, 0};
    if (mode != GV_MODE_FP8) cr_assert(gk_fp8_recipe_of(mode, plant, &r));
    return r;
}

/* Judge the recipe's emulated output for the mode's label, as op (gemm.cublas, or
   dense.sigmoid: then Y = sigmoid(Z + b) in f32 after it, as kernels/dense.cu's epilogue
   computes it, mathfn.cuh's stable form). */
static gv_result judge_on(const char *opname, gv_mode mode, int plant, gv_dist dist, int64_t m,
                          int64_t k, int64_t n, uint64_t seed)
{
    const gv_op *op = gv_op_find(opname);
    cr_assert_not_null(op);
    gv_case c = {op, GV_F32, mode, dist, {3, {m, k, n}}, seed};
    gv_problem p;
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gk_fp8_recipe r = recipe_of(mode, plant);
    float *y = (float *)p.out[0].data;
    emulate(&p, &r, y);
    for (int64_t i = 0; p.l.n_in == 3 && i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            float v = y[i * n + j] + (float)p.in[2].ref[i];
            float t = expf(-fabsf(v));
            y[i * n + j] = (v >= 0.0f ? 1.0f : t) / (1.0f + t);
        }
    gv_result res;
    gv_result_init(&res, &c);
    gv_judge_problem(&p, &res);
    gv_problem_free(&p);
    return res;
}

static gv_result judge(gv_mode mode, int plant, gv_dist dist, int64_t m, int64_t k, int64_t n,
                       uint64_t seed)
{
    return judge_on("gemm.cublas", mode, plant, dist, m, k, n, seed);
}

static const gv_mode scaled[] = {GV_MODE_FP8E5M2, GV_MODE_FP8ROW, GV_MODE_FP8BLK};

Test(model_fp8, honest_kernels_pass_on_every_dist_shape_and_seed, .timeout = 300)
{
    static const struct {
        gv_dist dist;
        int64_t m, k, n;
    } cases[] = {
        {GV_DIST_UNIFORM01, 16, 64, 16}, {GV_DIST_UNIFORM01, 16, 1000, 16},
        {GV_DIST_UNIFORM01, 8, 4096, 8}, {GV_DIST_UNIFORM11, 16, 1000, 16},
        {GV_DIST_UNIFORM11, 8, 4096, 8}, {GV_DIST_WIDE, 20, 768, 20},
        {GV_DIST_WIDE, 10, 1000, 10},    {GV_DIST_SMALLINT, 16, 300, 16},
    };
    double worst = 0;
    for (size_t mi = 0; mi < sizeof scaled / sizeof scaled[0]; mi++)
        for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                gv_result r = judge(scaled[mi], GK_FP8_HONEST, cases[q].dist, cases[q].m,
                                    cases[q].k, cases[q].n, seed);
                char line[400];
                snprintf(line, sizeof line, "%-8s %-10s %lldx%lldx%lld seed %llu: %s ratio %.3g %s",
                         gv_mode_name(scaled[mi]), gv_dist_name(cases[q].dist),
                         (long long)cases[q].m, (long long)cases[q].k, (long long)cases[q].n,
                         (unsigned long long)seed, gv_verdict_name(r.verdict), r.m.ratio, r.reason);
                cr_log_info("%s", line);
                cr_expect_eq(r.verdict, GV_PASS, "%s", line);
                cr_expect(isfinite(r.m.ratio), "%s", line);
                worst = fmax(worst, r.m.ratio);
            }
    printf("honest scaled fp8: worst ratio %.3g of the bound %g\n", worst, GV_DEFAULT_RATIO_BOUND);
    /* the headroom: the truncating sums stay well inside the model, so a FAIL is not noise */
    cr_expect_lt(worst, GV_DEFAULT_RATIO_BOUND / 2, "worst honest ratio %.3g", worst);
}

/* Every planted recipe under each label it is planted in, judged as op on wide's layout at
   each shape and seeds 1 to 3: each must FAIL. */
static void plants_fail_on_wide(const char *opname, const int64_t (*shapes)[3], size_t ns)
{
    static const struct {
        const char *name;
        gv_mode mode;
        int plant;
    } plants[] = {
        {"scales ignored", GV_MODE_FP8E5M2, GK_FP8_NOSCALE},
        {"scales ignored", GV_MODE_FP8ROW, GK_FP8_NOSCALE},
        {"scales ignored", GV_MODE_FP8BLK, GK_FP8_NOSCALE},
        {"row scale per tensor", GV_MODE_FP8ROW, GK_FP8_ROWTENSOR},
        {"e5m2 labelled e4m3", GV_MODE_FP8ROW, GK_FP8_E5M2B},
        {"e5m2 labelled e4m3", GV_MODE_FP8BLK, GK_FP8_E5M2B},
        {"block scale after the whole K", GV_MODE_FP8BLK, GK_FP8_BLKROW},
    };
    for (size_t q = 0; q < sizeof plants / sizeof plants[0]; q++)
        for (size_t s = 0; s < ns; s++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                gv_result r = judge_on(opname, plants[q].mode, plants[q].plant, GV_DIST_WIDE,
                                       shapes[s][0], shapes[s][1], shapes[s][2], seed);
                char line[400];
                snprintf(line, sizeof line,
                         "%s: %s as %s, %lldx%lldx%lld seed %llu: %s ratio %.3g %s", opname,
                         plants[q].name, gv_mode_name(plants[q].mode), (long long)shapes[s][0],
                         (long long)shapes[s][1], (long long)shapes[s][2], (unsigned long long)seed,
                         gv_verdict_name(r.verdict), r.m.ratio, r.reason);
                cr_log_info("%s", line);
                if (seed == 1 && s == 0) printf("%s\n", line);
                cr_expect_eq(r.verdict, GV_FAIL, "%s", line);
            }
}

Test(model_fp8, planted_recipes_fail_on_the_wide_layout, .timeout = 300)
{
    static const int64_t shapes[][3] = {{20, 768, 20}, {10, 1000, 10}, {15, 384, 12}};
    plants_fail_on_wide("gemm.cublas", shapes, sizeof shapes / sizeof shapes[0]);
}

/* The wide layout is what the scaled modes' mode probe runs, and only theirs. */
Test(model_fp8, wide_is_the_scaled_modes_probe)
{
    for (size_t mi = 0; mi < sizeof scaled / sizeof scaled[0]; mi++) {
        cr_expect(gv_probe_applies(GV_DIST_WIDE, GV_F32, scaled[mi]));
        cr_expect(!gv_probe_applies(GV_DIST_WIDE, GV_F64, scaled[mi]));
    }
    cr_expect(!gv_probe_applies(GV_DIST_WIDE, GV_F32, GV_MODE_FP8));
    cr_expect(!gv_probe_applies(GV_DIST_WIDE, GV_F32, GV_MODE_NATIVE));
}

/* The model's numbers come from the rows: u = 2^-13 (14-bit truncated sums), no probabilistic
   model, no input-rounding term, no tier; the cache keeps each scaled mode's reference apart
   from the others' (they differ on the same inputs). */
Test(model_fp8, model_numbers_and_cache_keys)
{
    const gv_op *op = gv_op_find("gemm.cublas");
    for (size_t mi = 0; mi < sizeof scaled / sizeof scaled[0]; mi++) {
        cr_expect(gv_mode_scaled(scaled[mi]));
        gv_case c = {op, GV_F32, scaled[mi], GV_DIST_WIDE, {3, {20, 768, 20}}, 7};
        gv_result r;
        gv_result_init(&r, &c);
        cr_expect_eq(r.u, 0x1p-13);
        cr_expect(!r.prob.on, "truncating sums: the probabilistic model is off");
        cr_expect_eq(r.expected_tier, 0.0);
        cr_expect_eq(r.depth, 4.0 + (2.0 * 6 + 2.0) * 0x1p-11, "depth %.17g", r.depth);
    }
    cr_expect(!gv_mode_scaled(GV_MODE_FP8));
    cr_expect(!gv_mode_scaled(GV_MODE_F16ACC));
    cr_expect(!gv_mode_scaled(GV_MODE_NATIVE));
    /* two modes, one set of inputs (wide's values depend on the seed alone): different keys
       and different references */
    gv_case c1 = {op, GV_F32, GV_MODE_FP8ROW, GV_DIST_WIDE, {3, {20, 768, 20}}, 7};
    gv_case c2 = c1;
    c2.mode = GV_MODE_FP8BLK;
    gv_problem p1, p2;
    cr_assert_eq(gv_problem_init(&p1, &c1), GV_OK);
    cr_assert_eq(gv_problem_init(&p2, &c2), GV_OK);
    char k1[1024], k2[1024];
    gv_cache_case_key(&p1, k1, sizeof k1);
    gv_cache_case_key(&p2, k2, sizeof k2);
    cr_expect(strcmp(k1, k2) != 0, "%s", k1);
    cr_expect(strstr(k1, "mode=fp8row") != NULL, "%s", k1);
    cr_assert_eq(gv_reference(&p1), GV_OK);
    cr_assert_eq(gv_reference(&p2), GV_OK);
    int64_t differ = 0;
    for (int64_t i = 0; i < p1.out[0].count; i++)
        differ += p1.out[0].ref[i] != p2.out[0].ref[i];
    cr_expect_gt(differ, p1.out[0].count / 4, "fp8row and fp8blk quantise wide differently");
    gv_problem_free(&p1);
    gv_problem_free(&p2);
}

/* ---- dense.sigmoid's fp8 modes: the same product, then the f32 epilogue ------------------ */

static const gv_mode dense_fp8[] = {GV_MODE_FP8, GV_MODE_FP8E5M2, GV_MODE_FP8ROW, GV_MODE_FP8BLK};

Test(model_fp8, dense_honest_kernels_pass_on_every_dist_shape_and_seed, .timeout = 300)
{
    static const struct {
        gv_dist dist;
        int64_t m, k, n;
    } cases[] = {
        {GV_DIST_UNIFORM11, 33, 64, 17}, {GV_DIST_UNIFORM11, 16, 784, 16},
        {GV_DIST_UNIFORM11, 8, 2048, 8}, {GV_DIST_UNIFORM01, 16, 256, 16},
        {GV_DIST_SMALLINT, 16, 512, 16}, {GV_DIST_WIDE, 20, 768, 20},
        {GV_DIST_WIDE, 16, 384, 12},     {GV_DIST_WIDE, 10, 1000, 10},
    };
    double worst = 0;
    for (size_t mi = 0; mi < sizeof dense_fp8 / sizeof dense_fp8[0]; mi++)
        for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                if (cases[q].dist == GV_DIST_WIDE && !gv_mode_scaled(dense_fp8[mi])) continue;
                gv_result r = judge_on("dense.sigmoid", dense_fp8[mi], GK_FP8_HONEST, cases[q].dist,
                                       cases[q].m, cases[q].k, cases[q].n, seed);
                char line[400];
                snprintf(line, sizeof line,
                         "dense %-8s %-10s %lldx%lldx%lld seed %llu: %s ratio %.3g %s",
                         gv_mode_name(dense_fp8[mi]), gv_dist_name(cases[q].dist),
                         (long long)cases[q].m, (long long)cases[q].k, (long long)cases[q].n,
                         (unsigned long long)seed, gv_verdict_name(r.verdict), r.m.ratio, r.reason);
                cr_log_info("%s", line);
                cr_expect_eq(r.verdict, GV_PASS, "%s", line);
                cr_expect(isfinite(r.m.ratio), "%s", line);
                if (gv_mode_scaled(dense_fp8[mi])) worst = fmax(worst, r.m.ratio);
            }
    printf("honest dense scaled fp8: worst ratio %.3g of the bound %g\n", worst,
           GV_DEFAULT_RATIO_BOUND);
    cr_expect_lt(worst, GV_DEFAULT_RATIO_BOUND / 2, "worst honest ratio %.3g", worst);
}

Test(model_fp8, dense_planted_recipes_fail_on_the_wide_layout, .timeout = 300)
{
    static const int64_t shapes[][3] = {
        {80, 768, 80}, {160, 384, 96}, {10, 1000, 10}, {24, 1536, 16}};
    plants_fail_on_wide("dense.sigmoid", shapes, sizeof shapes / sizeof shapes[0]);
}

/* The dense layer's reference in a scaled mode is the f64 layer of W and X as the label
   quantises them, written out here from gv_fp8_quantise's values and descales; it differs
   from the unquantised layer's; fp8's is the unquantised layer (its u holds the rounding). */
Test(model_fp8, dense_reference_is_the_layer_of_the_quantised_operands)
{
    const gv_op *op = gv_op_find("dense.sigmoid");
    const int64_t m = 12, k = 300, n = 7;
    for (size_t mi = 0; mi < sizeof dense_fp8 / sizeof dense_fp8[0]; mi++) {
        gv_case c = {op, GV_F32, dense_fp8[mi], GV_DIST_UNIFORM11, {3, {m, k, n}}, 5};
        gv_problem p;
        cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
        cr_assert_eq(gv_reference(&p), GV_OK);
        gk_fp8_recipe r = recipe_of(dense_fp8[mi], GK_FP8_HONEST);
        double *qw = malloc(sizeof *qw * (size_t)(m * k)),
               *qx = malloc(sizeof *qx * (size_t)(k * n));
        float *dw =
            malloc(sizeof *dw * (size_t)gk_fp8_scale_count(GK_FP8_BLOCK, 0, m, k, n) + 4 * m);
        float *dx = malloc(sizeof *dx * (size_t)(gk_fp8_scale_count(GK_FP8_BLOCK, 1, m, k, n) + n));
        cr_assert(qw && qx && dw && dx);
        cr_assert_eq(gv_fp8_quantise(&r, 0, m, k, n, p.in[0].ref, qw, dw, NULL), GV_OK);
        cr_assert_eq(gv_fp8_quantise(&r, 1, m, k, n, p.in[1].ref, qx, dx, NULL), GV_OK);
        int64_t differ = 0;
        double worst = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                long double zq = 0, z = 0;
                for (int64_t l = 0; l < k; l++) {
                    zq += (long double)qw[i * k + l] *
                          dw[gk_fp8_a_scale_index(r.group_a, i, l, m)] * qx[l * n + j] *
                          dx[gk_fp8_b_scale_index(r.group_b, l, j, k)];
                    z += (long double)p.in[0].ref[i * k + l] * p.in[1].ref[l * n + j];
                }
                long double zz = (gv_mode_scaled(dense_fp8[mi]) ? zq : z) + p.in[2].ref[i];
                double want = (double)(1.0L / (1.0L + expl(-zz)));
                double got = p.out[0].ref[i * n + j];
                worst = fmax(worst, fabs(got - want) / want);
                differ += fabs((double)(1.0L / (1.0L + expl(-(zq + p.in[2].ref[i])))) -
                               (double)(1.0L / (1.0L + expl(-(z + p.in[2].ref[i]))))) > 1e-6;
            }
        cr_expect_lt(worst, 1e-13, "%s: reference off the written-out layer by %.3g",
                     gv_mode_name(dense_fp8[mi]), worst);
        cr_expect_gt(differ, m * n / 2, "%s: quantisation moves the layer",
                     gv_mode_name(dense_fp8[mi]));
        free(qw);
        free(qx);
        free(dw);
        free(dx);
        gv_problem_free(&p);
    }
}

/* The worst-case model of dense's scaled modes: gemm's u and depth with the epilogue's f32
   roundings; no probabilistic model; the modes are offered in f32 alone, and wide is their
   probe. fp8 keeps its row's u (e4m3 inputs) and dense's depth. */
Test(model_fp8, dense_model_numbers)
{
    const gv_op *op = gv_op_find("dense.sigmoid");
    for (size_t mi = 0; mi < sizeof dense_fp8 / sizeof dense_fp8[0]; mi++) {
        gv_mode mode = dense_fp8[mi];
        cr_expect(gv_mode_ok(op, GV_F32, mode), "%s offered", gv_mode_name(mode));
        cr_expect(!gv_mode_ok(op, GV_F64, mode), "%s is f32 only", gv_mode_name(mode));
        gv_case c = {op, GV_F32, mode, GV_DIST_UNIFORM11, {3, {20, 768, 20}}, 7};
        gv_result r;
        gv_result_init(&r, &c);
        if (mode == GV_MODE_FP8) {
            cr_expect_eq(r.u, 0x1p-4);
            cr_expect_eq(r.depth, 768.0 + 7.0);
            continue;
        }
        cr_expect_eq(r.u, 0x1p-13);
        cr_expect(!r.prob.on, "truncating sums: the probabilistic model is off");
        cr_expect_eq(r.depth, 4.0 + (2.0 * 6 + 2.0) * 0x1p-11 + 8.0 * 0x1p-11, "depth %.17g",
                     r.depth);
    }
}
