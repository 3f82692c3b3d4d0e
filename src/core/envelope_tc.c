/* envelope_tc.c: the envelope of a tensor-core mode on the user's own data (envelope_tc.h):
 * the mode's block-FMA model chosen by architecture, the operands rounded into its input
 * format and split once, and the model's block orders of one dot product. envelope.c judges
 * with them as it judges with the native orders. */
#include "core/envelope_tc.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h" /* GV_PAR_MIN */

/* fp8row runs fp8's kernels (e4m3 A and B, the same blocks and promotion), its scales
   applied per row of A and column of B in the epilogue: fp8's model, scaled per line */
static gv_mode model_mode(gv_mode mode)
{
    return mode == GV_MODE_FP8ROW ? GV_MODE_FP8 : mode;
}

const gv_bfma_model *gv_env_tc_model(gv_mode mode, int sm, char *why, size_t len)
{
    if (mode == GV_MODE_FP8BLK || mode == GV_MODE_FP8E5M2) {
        snprintf(why, len,
                 mode == GV_MODE_FP8BLK
                     ? "mode fp8blk: its 1 x 128 and 128 x 128 block scales (applied per "
                       "promoted chunk) are not modelled by the envelope yet"
                     : "mode fp8e5m2: an e4m3 x e5m2 block model is not ported");
        return NULL;
    }
    mode = model_mode(mode);
    const char *fmt = (int)mode >= 0 && mode < GV_NMODES ? gv_mode_get(mode)->bfma : NULL;
    if (sm <= 0) sm = GV_ENV_TC_ARCH_DEFAULT;
    if (!fmt) {
        snprintf(why, len, "mode %s: the envelope models native arithmetic and tensor-core modes",
                 gv_mode_name(mode));
        return NULL;
    }
    const gv_bfma_model *m = gv_bfma_find(sm, fmt);
    if (!m) {
        snprintf(why, len, "mode %s: no published %s model for sm_%d", gv_mode_name(mode), fmt, sm);
        return NULL;
    }
    if (m->unconfirmed) {
        snprintf(why, len, "mode %s: sm_%d's %s model is unconfirmed (core/bfma.c)",
                 gv_mode_name(mode), sm, fmt);
        return NULL;
    }
    if (mode == GV_MODE_FP8 && gv_env_tc_promotion(mode, sm) == 0) {
        /* the block is ported, but how often cuBLASLt promotes its sums is a measurement of
           one architecture's kernels, not a parameter of the published model */
        snprintf(why, len,
                 "mode fp8: no measured promotion interval for sm_%d (probe/sm_%d.expect)", sm, sm);
        return NULL;
    }
    return m;
}

int gv_env_tc_promotion(gv_mode mode, int sm)
{
    mode = model_mode(mode);
    if (sm <= 0) sm = GV_ENV_TC_ARCH_DEFAULT;
    /* probe/sm_90.expect: "gemm.cublas* f32 fp8 promotion 128", measured on an H100 80GB
       HBM3, driver 580.159.04, CUDA 13.0, cuBLAS 13.1.0 */
    if (mode == GV_MODE_FP8 && sm == 90) return 128;
    return 0;
}

int gv_env_tc_arch_parse(const char *s, int *sm, char *why, size_t len)
{
    char *end = NULL;
    long v = -1;
    if (s && strncmp(s, "sm_", 3) == 0) v = strtol(s + 3, &end, 10);
    bool known = false;
    for (int i = 0; v > 0 && end && *end == '\0' && gv_bfma_at(i); i++)
        known = known || gv_bfma_at(i)->sm == v;
    if (!known) {
        char list[160] = "";
        size_t at = 0;
        for (int i = 0, last = 0; gv_bfma_at(i) && at < sizeof list; i++)
            if (gv_bfma_at(i)->sm != last) {
                last = gv_bfma_at(i)->sm;
                at +=
                    (size_t)snprintf(list + at, sizeof list - at, "%ssm_%d", at ? ", " : "", last);
            }
        snprintf(why, len, "architecture '%.20s': the tensor-core models are of %s", s ? s : "",
                 list);
        return GV_EINVAL;
    }
    *sm = (int)v;
    return GV_OK;
}

/* The per-tensor scale of fp8 (gv_env_tc_operand): 448 / amax in f32, 1 where amax is 0,
   Inf or NaN; amax taken as kernels/gemm.cu's amax_kernel takes it (a NaN wins). */
static float fp8_scale(const gv_bfma_model *m, const double *src, int64_t count, int64_t stride)
{
    float amax = 0.0f;
    for (int64_t i = 0; i < count; i++) {
        float a = fabsf((float)src[i * stride]);
        if (a > amax || isnan(a)) amax = a;
        if (isnan(amax)) break;
    }
    /* the format's largest finite value: 448 for e4m3 (its top code is NaN) */
    float top = gv_bfma_round_to(&m->in, FLT_MAX, GV_BFMA_RZ);
    return amax > 0.0f && amax <= FLT_MAX ? top / amax : 1.0f;
}

int gv_env_tc_operand_make(const gv_bfma_model *m, const double *src, int64_t rows, int64_t cols,
                           bool transpose, int scaling, gv_env_tc_operand *o)
{
    int64_t count = rows * cols, lines = transpose ? cols : rows;
    const bool per_line = scaling == GV_ENV_TC_PER_LINE, scaled = scaling != GV_ENV_TC_UNSCALED;
    *o = (gv_env_tc_operand){0};
    o->v = malloc(sizeof *o->v * (size_t)count);
    o->s = malloc(sizeof *o->s * (size_t)count);
    o->finite = malloc(sizeof *o->finite * (size_t)lines);
    float *scales = per_line ? malloc(sizeof *scales * (size_t)(lines > 0 ? lines : 1)) : NULL;
    o->descales = per_line ? malloc(sizeof *o->descales * (size_t)(lines > 0 ? lines : 1)) : NULL;
    if (!o->v || !o->s || !o->finite || (per_line && (!scales || !o->descales))) {
        free(scales);
        gv_env_tc_operand_free(o);
        return GV_ENOMEM;
    }
    const float scale = scaling == GV_ENV_TC_PER_TENSOR ? fp8_scale(m, src, count, 1) : 1.0f;
    const float top = gv_bfma_round_to(&m->in, FLT_MAX, GV_BFMA_RZ);
    o->descale = 1.0f / scale; /* 1 exactly where not scaled */
    /* a line: a row of src (A), or a column of it (B, stored transposed) */
    for (int64_t r = 0; per_line && r < lines; r++) {
        scales[r] =
            transpose ? fp8_scale(m, src + r, rows, cols) : fp8_scale(m, src + r * cols, cols, 1);
        o->descales[r] = 1.0f / scales[r];
    }
#pragma omp parallel for schedule(static) if (count >= GV_PAR_MIN)
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            int64_t at = transpose ? j * rows + i : i * cols + j;
            float in = (float)src[i * cols + j];
            if (scaled) {
                const float scale_ij = per_line ? scales[transpose ? j : i] : scale;
                /* x s in f32, then saturated: a value past the largest finite rounds to it
                   under __NV_SATFINITE (RN would take values up to 464 to 448 anyway) */
                in = in * scale_ij;
                if (in > top) in = top;
                if (in < -top) in = -top;
            }
            float x = gv_bfma_round_to(&m->in, in, GV_BFMA_RN);
            o->v[at] = x;
            if (isfinite(x))
                gv_bfma_split_in(m, x, &o->s[at]);
            else
                o->s[at] = (gv_bfma_operand){0, 0, false};
        }
    const int64_t per = count / (lines > 0 ? lines : 1); /* values a stored line */
#pragma omp parallel for schedule(static) if (count >= GV_PAR_MIN)
    for (int64_t r = 0; r < lines; r++) {
        bool all = true;
        for (int64_t l = 0; l < per; l++)
            all = all && isfinite(o->v[r * per + l]);
        o->finite[r] = all;
    }
    free(scales);
    return GV_OK;
}

void gv_env_tc_operand_free(gv_env_tc_operand *o)
{
    free(o->v);
    free(o->s);
    free(o->finite);
    free(o->descales);
    *o = (gv_env_tc_operand){0};
}

/* a + b, two values of the model's output format, rounded to nearest into it: the f32 adds
   of a split-K reduce (f16's sum is exact in f64, then rounded once) */
static float out_add(const gv_bfma_model *m, float a, float b)
{
    if (m->out.sig_bits == 24) return a + b;
    return gv_bfma_round_to(&m->out, (float)((double)a + (double)b), GV_BFMA_RN);
}

/* The bits of an f32 value: two orders whose c has the same bits get the same block result */
static inline uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* The orders share much of their work, which is taken once a block: the products (once a
   block for every order); a block's result wherever two orders enter it with the same c (every
   order before its first slice ends; the 2S-slice order in the first half of each of the
   S-slice order's slices); and the products' aligned sum for each distinct alignment exponent
   (orders whose partial sums lie in the same binade). Each is the same arithmetic on the same
   numbers, so every order's result is gv_bfma_block_sum's, bit for bit. */
void gv_env_tc_dot(const gv_bfma_model *m, const gv_bfma_operand *x, const gv_bfma_operand *y,
                   int64_t k, double *res)
{
    static const int slices[GV_ENV_TC_NORD] = {1, 2, 4, 8, 16, 32, 64};
    const int64_t B = m->block, blocks = (k + B - 1) / B;
    int64_t len[GV_ENV_TC_NORD], in_slice[GV_ENV_TC_NORD]; /* blocks per slice; so far */
    float c[GV_ENV_TC_NORD], tot[GV_ENV_TC_NORD];
    bool started[GV_ENV_TC_NORD];
    for (int v = 0; v < GV_ENV_TC_NORD; v++) {
        len[v] = (blocks + slices[v] - 1) / slices[v];
        if (len[v] < 1) len[v] = 1;
        in_slice[v] = 0;
        c[v] = tot[v] = 0.0f;
        started[v] = false;
    }
    gv_bfma_prods p;
    for (int64_t b = 0; b < blocks; b++) {
        int64_t k0 = b * B;
        int n = (int)(k - k0 < B ? k - k0 : B);
        gv_bfma_products(m, x + k0, y + k0, n, &p);
        uint32_t c_in[GV_ENV_TC_NORD];
        int from[GV_ENV_TC_NORD]; /* the order whose block result this one takes; -1: its own */
        int n_exp = 0, exps[GV_ENV_TC_NORD];
        int64_t aligned[GV_ENV_TC_NORD];
        for (int v = 0; v < GV_ENV_TC_NORD; v++) {
            if (in_slice[v] == len[v]) { /* a slice ends: its partial joins the total */
                tot[v] = started[v] ? out_add(m, tot[v], c[v]) : c[v];
                started[v] = true;
                c[v] = 0.0f;
                in_slice[v] = 0;
            }
            in_slice[v]++;
            from[v] = -1;
            /* an overflow to +-Inf carries on as c (gv_bfma_dot's rule) */
            if (!isfinite(c[v])) {
                c_in[v] = 0xffffffffu; /* a NaN's bits no finite c has */
                continue;
            }
            c_in[v] = f32_bits(c[v]);
            for (int u = 0; u < v && from[v] < 0; u++)
                if (c_in[u] == c_in[v]) from[v] = u;
            if (from[v] >= 0) continue;
            int E = gv_bfma_align_exp(m, &p, c[v]), e = 0;
            while (e < n_exp && exps[e] != E)
                e++;
            if (e == n_exp) exps[n_exp] = E, aligned[n_exp++] = gv_bfma_prods_aligned(m, &p, E);
            c[v] = gv_bfma_block_finish(m, &p, aligned[e], E, c[v]);
        }
        for (int v = 0; v < GV_ENV_TC_NORD; v++)
            if (from[v] >= 0) c[v] = c[from[v]];
    }
    for (int v = 0; v < GV_ENV_TC_NORD; v++)
        res[v] = started[v] ? out_add(m, tot[v], c[v]) : c[v];
}

void gv_env_tc_dot_promoted(const gv_bfma_model *m, const gv_bfma_operand *x,
                            const gv_bfma_operand *y, int64_t k, int64_t promote, double *res)
{
    static const int slices[GV_ENV_TC_NORD] = {1, 2, 4, 8, 16, 32, 64};
    assert(promote > 0 && promote % m->block == 0);
    const int64_t chunks = (k + promote - 1) / promote;
    int64_t len[GV_ENV_TC_NORD], in_slice[GV_ENV_TC_NORD]; /* chunks per slice; so far */
    float acc[GV_ENV_TC_NORD], tot[GV_ENV_TC_NORD];
    bool started[GV_ENV_TC_NORD];
    for (int v = 0; v < GV_ENV_TC_NORD; v++) {
        len[v] = (chunks + slices[v] - 1) / slices[v];
        if (len[v] < 1) len[v] = 1;
        in_slice[v] = 0;
        acc[v] = tot[v] = 0.0f;
        started[v] = false;
    }
    gv_bfma_prods p;
    for (int64_t q = 0; q < chunks; q++) {
        /* the chunk: a chain of blocks from 0, the same in every order (so taken once) */
        float c = 0.0f;
        for (int64_t k0 = q * promote; k0 < k && k0 < (q + 1) * promote; k0 += m->block) {
            int n = (int)(k - k0 < m->block ? k - k0 : m->block);
            gv_bfma_products(m, x + k0, y + k0, n, &p);
            if (isfinite(c)) c = gv_bfma_block_sum(m, &p, c);
        }
        for (int v = 0; v < GV_ENV_TC_NORD; v++) {
            if (in_slice[v] == len[v]) { /* a slice ends: its partial joins the total */
                tot[v] = started[v] ? tot[v] + acc[v] : acc[v];
                started[v] = true;
                acc[v] = 0.0f;
                in_slice[v] = 0;
            }
            in_slice[v]++;
            acc[v] += c; /* promoted: an f32 addition */
        }
    }
    for (int v = 0; v < GV_ENV_TC_NORD; v++)
        res[v] = started[v] ? tot[v] + acc[v] : acc[v];
}
