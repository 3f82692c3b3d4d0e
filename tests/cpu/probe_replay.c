/* probe_replay.c: the scaled fp8 modes' replay (src/probe/replay_scaled.c) on a device
 * simulated on the CPU: the operands quantised as kernels/gemm.cu quantises them (the
 * reference's gv_fp8_quantise under abi/gemm.h's recipe of a label, or of a planted impostor),
 * each 128-chunk of K summed by a block-FMA model and added into an f32 sum, the descales
 * applied per chunk (blockwise) or to the whole sum. On Hopper's published model both of the
 * replay's models agree with every output of every scaled mode (the second model, which shares
 * no code with the port, included); on a device that rounds its blocks to nearest, does not
 * promote, or runs a planted impostor, they agree with few. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/gemm.h"
#include "core/bfma.h"
#include "ops/gemm_fp8.h"
#include "probe/replay_scaled.h"

typedef struct sim {
    gv_mode mode;
    int plant;                  /* GK_FP8_*: the recipe the device quantises by */
    const gv_bfma_model *model; /* the tensor core's block FMA */
    int chunk;                  /* products summed before each f32 promotion; 0: all of K */
} sim;

static int sim_gemm(void *ctx, int64_t m, int64_t k, int64_t n, const double *A, const double *B,
                    double *C, char *why, size_t len)
{
    (void)why;
    (void)len;
    const sim *s = ctx;
    gk_fp8_recipe r;
    cr_assert(gk_fp8_recipe_of(s->mode, s->plant, &r));
    double *qa = malloc(sizeof *qa * (size_t)(m * k)), *qb = malloc(sizeof *qb * (size_t)(k * n));
    float *da = malloc(sizeof *da * (size_t)gk_fp8_scale_count(r.group_a, 0, m, k, n)),
          *db = malloc(sizeof *db * (size_t)gk_fp8_scale_count(r.group_b, 1, m, k, n));
    float *bt = malloc(sizeof *bt * (size_t)(k * n)), *at = malloc(sizeof *at * (size_t)(m * k));
    cr_assert(qa && qb && da && db && bt && at);
    cr_assert_eq(gv_fp8_quantise(&r, 0, m, k, n, A, qa, da, NULL), GV_OK);
    cr_assert_eq(gv_fp8_quantise(&r, 1, m, k, n, B, qb, db, NULL), GV_OK);
    for (int64_t i = 0; i < m * k; i++)
        at[i] = (float)qa[i];
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++)
            bt[j * k + l] = (float)qb[l * n + j];
    bool blk = r.group_a == GK_FP8_BLOCK;
    int64_t chunk = s->chunk > 0 ? s->chunk : k;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < m * n; q++) {
        int64_t i = q / n, j = q % n;
        float d = 0;
        for (int64_t l0 = 0; l0 < k; l0 += chunk) {
            int len = (int)(k - l0 < chunk ? k - l0 : chunk);
            float part = gv_bfma_dot(s->model, at + i * k + l0, bt + j * k + l0, len, 0.0f);
            if (blk)
                part = part * da[gk_fp8_a_scale_index(r.group_a, i, l0, m)] *
                       db[gk_fp8_b_scale_index(r.group_b, l0, j, k)];
            d += part;
        }
        if (!blk)
            d = d * da[gk_fp8_a_scale_index(r.group_a, i, 0, m)] *
                db[gk_fp8_b_scale_index(r.group_b, 0, j, k)];
        C[q] = d;
    }
    free(qa);
    free(qb);
    free(da);
    free(db);
    free(at);
    free(bt);
    return GV_OK;
}

static const gv_mode scaled[] = {GV_MODE_FP8E5M2, GV_MODE_FP8ROW, GV_MODE_FP8BLK};

/* r[0] (port) and r[1] (second model) of one replay: 10^4 dot products of k */
static void replay(const sim *s, gv_mode label, int k, int promote, gv_replay_result r[2])
{
    char why[256] = "";
    cr_assert_eq(gv_replay_scaled_run(label, gv_bfma_find(90, "e4m3"), sim_gemm, (void *)s, k,
                                      promote, 10000, 0x5ca1e, r, why, sizeof why),
                 GV_OK, "%s", why);
    cr_assert_eq(r[0].dots, 10000);
    cr_assert_eq(r[1].dots, 10000);
}

Test(probe_replay, both_models_replay_hoppers_scaled_fp8_bit_for_bit, .timeout = 300)
{
    gv_bfma_model any = gv_replay_fp8_any(gv_bfma_find(90, "e4m3"));
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++)
        for (int k = GK_FP8_BLOCK_K; k <= 4 * GK_FP8_BLOCK_K; k += 3 * GK_FP8_BLOCK_K) {
            sim s = {scaled[i], GK_FP8_HONEST, &any, GK_FP8_BLOCK_K};
            gv_replay_result r[2];
            replay(&s, scaled[i], k, GK_FP8_BLOCK_K, r);
            for (int w = 0; w < 2; w++)
                cr_expect_eq(r[w].agree, r[w].dots,
                             "%s k=%d, %s: %lld of %lld; first %.9g, model %.9g",
                             gv_mode_name(scaled[i]), k, r[w].model, (long long)r[w].agree,
                             (long long)r[w].dots, r[w].first_got, r[w].first_model);
            cr_expect_str_eq(r[0].model, "block-FMA port");
        }
}

/* The replay can fail: a device other than the models (its blocks rounded to nearest, no
   promotion at 512 products, each planted impostor of abi/gemm.h) agrees on few outputs with
   either model, far below the 99.9 % the models are held to on the GPU. */
Test(probe_replay, a_different_device_disagrees_with_both_models, .timeout = 300)
{
    gv_bfma_model any = gv_replay_fp8_any(gv_bfma_find(90, "e4m3"));
    gv_bfma_model rn = any, wide = any;
    rn.block_round = GV_BFMA_RN;
    wide.acc_sig_bits = 24; /* f32's full significand kept by each block */
    wide.align_frac_bits = 25;
    const struct {
        sim s;
        gv_mode label;
        const char *what;
    } dev[] = {
        {{GV_MODE_FP8ROW, GK_FP8_HONEST, &rn, GK_FP8_BLOCK_K}, GV_MODE_FP8ROW, "blocks RN"},
        {{GV_MODE_FP8BLK, GK_FP8_HONEST, &wide, GK_FP8_BLOCK_K}, GV_MODE_FP8BLK, "wide blocks"},
        {{GV_MODE_FP8E5M2, GK_FP8_HONEST, &any, 0}, GV_MODE_FP8E5M2, "no promotion"},
        {{GV_MODE_FP8ROW, GK_FP8_ROWTENSOR, &any, GK_FP8_BLOCK_K}, GV_MODE_FP8ROW, "rowtensor"},
        {{GV_MODE_FP8ROW, GK_FP8_E5M2B, &any, GK_FP8_BLOCK_K}, GV_MODE_FP8ROW, "e5m2b"},
        {{GV_MODE_FP8BLK, GK_FP8_BLKROW, &any, GK_FP8_BLOCK_K}, GV_MODE_FP8BLK, "blkrow"},
        {{GV_MODE_FP8BLK, GK_FP8_NOSCALE, &any, GK_FP8_BLOCK_K}, GV_MODE_FP8BLK, "noscale"},
    };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
        gv_replay_result r[2];
        replay(&dev[i].s, dev[i].label, 4 * GK_FP8_BLOCK_K, GK_FP8_BLOCK_K, r);
        for (int w = 0; w < 2; w++) {
            cr_log_info("%s: %s %lld of %lld", dev[i].what, r[w].model, (long long)r[w].agree,
                        (long long)r[w].dots);
            cr_expect_lt(r[w].agree, r[w].dots * 9 / 10, "%s: %s agrees on %lld of %lld",
                         dev[i].what, r[w].model, (long long)r[w].agree, (long long)r[w].dots);
        }
    }
}

/* Outside its domain the replay refuses rather than guesses: a mode that is not scaled, a K
   that is not a whole number of 128-blocks. */
Test(probe_replay, refuses_what_it_cannot_replay)
{
    gv_bfma_model any = gv_replay_fp8_any(gv_bfma_find(90, "e4m3"));
    sim s = {GV_MODE_FP8ROW, GK_FP8_HONEST, &any, GK_FP8_BLOCK_K};
    gv_replay_result r[2];
    char why[256] = "";
    cr_expect_eq(gv_replay_scaled_run(GV_MODE_FP8, gv_bfma_find(90, "e4m3"), sim_gemm, &s, 128, 128,
                                      100, 1, r, why, sizeof why),
                 GV_EINVAL);
    cr_expect_eq(gv_replay_scaled_run(GV_MODE_FP8ROW, gv_bfma_find(90, "e4m3"), sim_gemm, &s, 200,
                                      128, 100, 1, r, why, sizeof why),
                 GV_EINVAL);
    cr_expect(strstr(why, "k = 200") != NULL, "%s", why);
}
