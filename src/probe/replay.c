/* replay.c: random dot products against the block-FMA model (replay.h). */
#include "probe/replay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gv_replay_format(gv_mode m)
{
    return (int)m >= 0 && m < GV_NMODES ? gv_mode_get(m)->bfma : NULL;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A random value of format f: sign random, exponent in [e0, e1], every significand bit
   random; zero one time in 16 (zeros are dropped from a block's alignment). */
static float rnd(uint64_t s, const gv_bfma_format *f, int e0, int e1)
{
    uint64_t r = mix(s);
    if ((r & 15) == 0) return 0.0f;
    int e = e0 + (int)((r >> 4) % (uint64_t)(e1 - e0 + 1));
    double m = 1 + ldexp((double)((r >> 12) % (1ull << (f->sig_bits - 1))), -(f->sig_bits - 1));
    float v = (float)ldexp((r >> 60) & 1 ? -m : m, e);
    return gv_bfma_round_to(f, v, GV_BFMA_RN); /* e4m3's top code is NaN: 448 at most */
}

/* The model's dot of a and b (kk products), promoted every `promote` products or not. */
static float model_dot(const gv_bfma_model *m, const float *a, const float *b, int kk, int promote)
{
    if (promote <= 0) return gv_bfma_dot(m, a, b, kk, 0.0f);
    float d = 0.0f;
    for (int l0 = 0; l0 < kk; l0 += promote) {
        int n = kk - l0 < promote ? kk - l0 : promote;
        d = d + gv_bfma_dot(m, a + l0, b + l0, n, 0.0f);
    }
    return d;
}

int gv_replay_run(const gv_fp_arith *a, const gv_bfma_model *m, gv_fp_gemm_fn gemm, void *ctx,
                  int k, int promote, int64_t dots, uint64_t seed, gv_replay_result *r, char *why,
                  size_t len)
{
    memset(r, 0, sizeof *r);
    r->k = k;
    r->promote = promote;
    /* the product is at least GV_FP_MIN_DIM deep (zeros past k), so that a one-block dot goes
       through the kernels real products take; the model adds the zero blocks as the GPU does */
    int kk = k < GV_FP_MIN_DIM ? GV_FP_MIN_DIM : k;
    r->first_index = -1;
    int64_t side = (int64_t)ceil(sqrt((double)dots));
    /* exponent window: fp8's operands stay within its anchor (scaled values up to 448);
       f16's with f16 accumulation keep every partial sum far below 65504 */
    int e0 = -3, e1 = 2;
    if (a->anchor > 0) { /* fp8: at most 1.875 2^7 = 240, below 448, never e4m3's NaN */
        e0 = -2;
        e1 = 7;
    }
    if (a->out.emax <= 15) e1 = 1; /* a binary16 output (f16acc) */
    double unscale = a->scale > 0 ? 1.0 / a->scale : 1.0;
    float *fa = calloc((size_t)(side * kk), sizeof *fa),
          *fb = calloc((size_t)(side * kk), sizeof *fb);
    /* fp8: an anchor row of A and column of B fix amax, so the op's scale is exactly a->scale */
    int64_t M = (side + (a->anchor > 0) + 15) / 16 * 16; /* fp8's kernels: multiples of 16 */
    double *A = calloc((size_t)(M * kk), sizeof *A), *B = calloc((size_t)(M * kk), sizeof *B),
           *C = calloc((size_t)(M * M), sizeof *C);
    int rc = GV_ENOMEM;
    if (!fa || !fb || !A || !B || !C) {
        snprintf(why, len, "no host memory for the replay of %lld dot products", (long long)dots);
        goto out;
    }
    /* fa: row i of A; fb: column j of B, stored by column */
    for (int64_t i = 0; i < side; i++)
        for (int l = 0; l < k; l++) {
            uint64_t q = (uint64_t)(i * k + l);
            fa[i * kk + l] = rnd(seed * 0x100000001b3ull + q * 2, &m->in, e0, e1);
            fb[i * kk + l] = rnd(seed * 0x100000001b3ull + q * 2 + 1, &m->in, e0, e1);
        }
    for (int64_t i = 0; i < side; i++)
        for (int l = 0; l < kk; l++) {
            A[i * kk + l] = fa[i * kk + l] * unscale;
            B[(int64_t)l * M + i] = fb[i * kk + l] * unscale;
        }
    if (a->anchor > 0) {
        A[side * kk] = a->anchor; /* A[side][0] */
        B[side] = a->anchor;      /* B[0][side] */
    }
    rc = gemm(ctx, M, kk, M, A, B, C, why, len);
    if (rc != GV_OK) goto out;
    int64_t agree = 0, first = -1;
    double descale = a->scale > 0 ? 1.0 / (a->scale * a->scale) : 1.0;
#pragma omp parallel for reduction(+ : agree) schedule(static)
    for (int64_t q = 0; q < side * side; q++) {
        int64_t i = q / side, j = q % side;
        float want = model_dot(m, fa + i * kk, fb + j * kk, kk, promote);
        float got = (float)(C[i * M + j] / descale);
        if (memcmp(&want, &got, sizeof want) == 0) {
            agree++;
        } else {
#pragma omp critical
            if (first < 0 || q < first) first = q;
        }
    }
    r->dots = side * side;
    r->agree = agree;
    if (first >= 0) {
        r->first_index = first;
        r->first_got = C[(first / side) * M + first % side];
        r->first_model =
            (double)gv_bfma_dot(m, fa + (first / side) * kk, fb + (first % side) * kk, kk, 0.0f) *
            descale;
    }
out:
    free(fa);
    free(fb);
    free(A);
    free(B);
    free(C);
    return rc;
}
