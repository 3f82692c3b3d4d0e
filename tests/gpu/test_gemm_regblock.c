/* test_gemm_regblock.c: gemm.regblock on what the registry sweep cannot give it: operands that
 * are not 16-byte aligned (the sweep's buffers always are). The kernel is launched directly on
 * A, B and C placed one element past an allocation's start, and on the same data aligned:
 *  - every element is within the gamma_k bound of an f64 reference on the host:
 *    |c - ref| <= gamma_k(u) sum_q |a_iq||b_qj| + gamma_k(2^-53) sum_q |a_iq||b_qj| (the
 *    reference's own error), u = 2^-24 (f32) or 2^-53 (f64); NaN (C starts as NaN) fails;
 *  - the unaligned result equals the aligned one bit for bit: both paths run one FMA chain over
 *    k in order for each element, only the loads differ;
 *  - the math-mode note names the path taken (4-vector loads only when aligned and k, n % 4 == 0);
 *  - the planted gemm.regblock.droptail fails the same bound on a shape with a K tail: the check
 *    can fail. */
#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gk.h"
#include "core/registry.h"

extern const gk_op gk_gemm_regblock, gk_gemm_regblock_droptail;

typedef struct rb_shape {
    int64_t m, k, n;
} rb_shape;

/* Ragged in every direction against the block tiles (f32 128 x 256 x 16, f64 128 x 64 x 8),
   k % 4 != 0 and == 0, more than one tile each way, one row, one column. */
static const rb_shape shapes[] = {{129, 131, 133}, {257, 36, 260}, {300, 1024, 516},
                                  {1, 515, 300},   {513, 33, 1},   {260, 132, 132}};

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 11;
}

/* Runs op on A (m x k), B (k x n) given in f64 (exact in f32), as dtype t, with the operands
   placed off elements past 16-byte aligned allocations; the result widened to f64 into c. */
static void run_op(const gk_op *op, int t, rb_shape s, const double *a, const double *b, int off,
                   double *c, char *math_mode, size_t mm_len)
{
    const size_t es = t == GV_F32 ? 4 : 8, na = (size_t)(s.m * s.k), nb = (size_t)(s.k * s.n),
                 nc = (size_t)(s.m * s.n);
    unsigned char *ha = malloc((na + 1) * es), *hb = malloc((nb + 1) * es),
                  *hc = malloc((nc + 1) * es);
    cr_assert(ha && hb && hc);
    for (size_t i = 0; i < na; i++) {
        if (t == GV_F32)
            ((float *)ha)[i] = (float)a[i];
        else
            ((double *)ha)[i] = a[i];
    }
    for (size_t i = 0; i < nb; i++) {
        if (t == GV_F32)
            ((float *)hb)[i] = (float)b[i];
        else
            ((double *)hb)[i] = b[i];
    }
    unsigned char *da, *db, *dc;
    cr_assert_eq(cudaMalloc((void **)&da, (na + 1) * es), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&db, (nb + 1) * es), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dc, (nc + 1) * es), cudaSuccess);
    cr_assert_eq(cudaMemcpy(da + off * es, ha, na * es, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy(db + off * es, hb, nb * es, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemset(dc, 0xff, (nc + 1) * es), cudaSuccess); /* NaN where not stored */
    gk_launch L;
    memset(&L, 0, sizeof L);
    L.dtype = t;
    L.mode = GV_MODE_NATIVE;
    L.nd = 3;
    L.dims[0] = s.m;
    L.dims[1] = s.k;
    L.dims[2] = s.n;
    L.n_in = 2;
    L.n_out = 1;
    L.in[0] = da + off * es;
    L.in[1] = db + off * es;
    L.out[0] = dc + off * es;
    L.in_count[0] = (int64_t)na;
    L.in_count[1] = (int64_t)nb;
    L.out_count[0] = (int64_t)nc;
    cr_assert_eq(op->launch(&L), GV_OK, "launch: %s", gk_last_error());
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    cr_assert_eq(cudaMemcpy(hc, dc + off * es, nc * es, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < nc; i++)
        c[i] = t == GV_F32 ? (double)((float *)hc)[i] : ((double *)hc)[i];
    snprintf(math_mode, mm_len, "%s", L.math_mode);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(ha);
    free(hb);
    free(hc);
}

static double gamma_k(int64_t k, double u)
{
    return (double)k * u / (1.0 - (double)k * u);
}

/* The number of elements of c outside the bound; *worst: the largest error / bound. */
static int64_t outside(const rb_shape s, const double *a, const double *b, const double *c,
                       double u, double *worst)
{
    const double g = gamma_k(s.k, u) + gamma_k(s.k, 0x1p-53);
    int64_t bad = 0;
    *worst = 0;
    for (int64_t i = 0; i < s.m; i++)
        for (int64_t j = 0; j < s.n; j++) {
            double ref = 0, mag = 0;
            for (int64_t q = 0; q < s.k; q++) {
                ref += a[i * s.k + q] * b[q * s.n + j];
                mag += fabs(a[i * s.k + q] * b[q * s.n + j]);
            }
            const double e = fabs(c[i * s.n + j] - ref), bound = g * mag;
            if (!(e <= bound)) bad++;
            if (bound > 0 && e / bound > *worst) *worst = e / bound;
            if (isnan(e)) *worst = INFINITY;
        }
    return bad;
}

/* Inputs uniform in [-1, 1) on a 2^-23 grid: exact in f32 and f64. */
static double *inputs(int64_t len, uint64_t seed)
{
    double *x = malloc((size_t)len * sizeof *x);
    cr_assert(x);
    for (int64_t i = 0; i < len; i++)
        x[i] = (double)(lcg(&seed) >> 29) * 0x1p-23 - 1.0;
    return x;
}

static void unaligned_matches_aligned(int t)
{
    const double u = t == GV_F32 ? 0x1p-24 : 0x1p-53;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const rb_shape s = shapes[i];
        double *a = inputs(s.m * s.k, 2 * i + 1), *b = inputs(s.k * s.n, 2 * i + 2);
        double *c0 = malloc((size_t)(s.m * s.n) * sizeof *c0),
               *c1 = malloc((size_t)(s.m * s.n) * sizeof *c1);
        cr_assert(c0 && c1);
        char mm0[48], mm1[48];
        run_op(&gk_gemm_regblock, t, s, a, b, 0, c0, mm0, sizeof mm0);
        run_op(&gk_gemm_regblock, t, s, a, b, 1, c1, mm1, sizeof mm1);
        const bool vec = s.k % 4 == 0 && s.n % 4 == 0;
        cr_expect(strstr(mm0, vec ? "4-vector" : "scalar"), "%lldx%lldx%lld aligned: '%s'",
                  (long long)s.m, (long long)s.k, (long long)s.n, mm0);
        cr_expect(strstr(mm1, "scalar"), "%lldx%lldx%lld unaligned: '%s'", (long long)s.m,
                  (long long)s.k, (long long)s.n, mm1);
        double w0, w1;
        int64_t bad0 = outside(s, a, b, c0, u, &w0), bad1 = outside(s, a, b, c1, u, &w1);
        cr_log_info("%s %lldx%lldx%lld: error/bound %.3g aligned (%s), %.3g unaligned",
                    t == GV_F32 ? "f32" : "f64", (long long)s.m, (long long)s.k, (long long)s.n, w0,
                    mm0, w1);
        cr_expect_eq(bad0, 0, "%lldx%lldx%lld aligned: %lld elements outside gamma_k (worst %.3g)",
                     (long long)s.m, (long long)s.k, (long long)s.n, (long long)bad0, w0);
        cr_expect_eq(bad1, 0,
                     "%lldx%lldx%lld unaligned: %lld elements outside gamma_k (worst %.3g)",
                     (long long)s.m, (long long)s.k, (long long)s.n, (long long)bad1, w1);
        cr_expect_eq(memcmp(c0, c1, (size_t)(s.m * s.n) * sizeof *c0), 0,
                     "%lldx%lldx%lld: the unaligned result differs from the aligned one",
                     (long long)s.m, (long long)s.k, (long long)s.n);
        free(a);
        free(b);
        free(c0);
        free(c1);
    }
}

Test(gpu_gemm_regblock, unaligned_f32_within_gamma_k_and_equal_to_aligned, .timeout = 120)
{
    unaligned_matches_aligned(GV_F32);
}

Test(gpu_gemm_regblock, unaligned_f64_within_gamma_k_and_equal_to_aligned, .timeout = 120)
{
    unaligned_matches_aligned(GV_F64);
}

Test(gpu_gemm_regblock, droptail_fails_the_same_bound, .timeout = 120)
{
    const rb_shape s = {129, 131, 133}; /* 131 = 16 * 8 + 3: a K tail for slices of 8 or 16 */
    const int types[] = {GV_F32, GV_F64};
    for (int ti = 0; ti < 2; ti++)
        for (int off = 0; off < 2; off++) {
            const int t = types[ti];
            double *a = inputs(s.m * s.k, 5), *b = inputs(s.k * s.n, 6);
            double *c = malloc((size_t)(s.m * s.n) * sizeof *c);
            cr_assert(c);
            char mm[48];
            run_op(&gk_gemm_regblock_droptail, t, s, a, b, off, c, mm, sizeof mm);
            double w;
            int64_t bad = outside(s, a, b, c, t == GV_F32 ? 0x1p-24 : 0x1p-53, &w);
            cr_expect_gt(bad, 0, "droptail %s offset %d stayed inside gamma_k (worst %.3g)",
                         t == GV_F32 ? "f32" : "f64", off, w);
            free(a);
            free(b);
            free(c);
        }
}
