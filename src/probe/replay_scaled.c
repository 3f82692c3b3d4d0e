/* replay_scaled.c: the scaled fp8 modes' replay (replay.h): random dot products through the
 * op's own call, against the block-FMA port (core/bfma.c) and against a second model written
 * from the published rules in plain double arithmetic, which shares no code with the port. */
#include "probe/replay_scaled.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../abi/gemm.h" /* the scaled modes' groups (the recipe) */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

gv_bfma_model gv_replay_fp8_any(const gv_bfma_model *e4m3)
{
    /* e4m3's 4 significand bits and e5m2's exponents (2^-14 .. 57344): both formats' values,
       so that one block takes A in e4m3 and B in e5m2; nothing else differs between the two
       published fp8 models (block, fraction bits, rounding) */
    gv_bfma_model m = *e4m3;
    m.in = (gv_bfma_format){"e4m3|e5m2", 4, -14, 15, true, true};
    return m;
}

/* ---- the second model: [KM25]'s rules for one block, in exact double arithmetic -----------

   Khattak and Mikaitis (bfma.h's sources) describe Hopper's fp8 block: the exact products of
   one block and the running sum c aligned to the largest exponent E of them (a product's
   exponent the sum of its operands'), each truncated toward zero to F fraction bits below
   2^E, added exactly, and the sum truncated to S significant bits. Here every step is a
   double operation that is exact on these operands (normal fp8 values: products of at most 8
   significant bits; the aligned terms sit on the grid 2^(E - F) and stay below 2^(E + 8), so
   their sum of about 21 bits is exact), not the port's integer significands. */
static double km25_block(const float *a, const float *b, int n, double c, int frac_bits,
                         int sig_bits, int min_exp)
{
    int E = INT_MIN;
    for (int i = 0; i < n; i++)
        if (a[i] != 0 && b[i] != 0) {
            int e = ilogb(a[i]) + ilogb(b[i]);
            E = e > E ? e : E;
        }
    if (c != 0) E = ilogb(c) > E ? ilogb(c) : E;
    if (E == INT_MIN) return 0.0; /* no term: the sum is +0 */
    E = E < min_exp ? min_exp : E;
    double grid = ldexp(1.0, E - frac_bits), s = trunc(c / grid) * grid;
    for (int i = 0; i < n; i++) {
        double p = (double)a[i] * (double)b[i]; /* exact: 4 x 4 bits */
        s += trunc(p / grid) * grid;
    }
    if (s == 0) return 0.0;
    double ulp = ldexp(1.0, ilogb(s) - (sig_bits - 1));
    return trunc(s / ulp) * ulp;
}

/* One output of the second model: blocks of m->block products chained from 0 within each
   chunk of `chunk`, each chunk's sum times its block descales (blockwise) added in f32
   (rounded to nearest), the row's and column's descales after the whole sum otherwise. The
   descales are powers of two here, so where they are applied changes no bit but the sum's
   order. */
static float km25_dot(const gv_bfma_model *m, const float *a, const float *b, int k, int chunk,
                      const float *sa, const float *sb, bool per_chunk)
{
    float d = 0.0f;
    for (int c0 = 0, q = 0; c0 < k; c0 += chunk, q++) {
        int len = k - c0 < chunk ? k - c0 : chunk;
        double c = 0.0;
        for (int b0 = 0; b0 < len; b0 += m->block) {
            int n = len - b0 < m->block ? len - b0 : m->block;
            c = km25_block(a + c0 + b0, b + c0 + b0, n, c, m->align_frac_bits, m->acc_sig_bits,
                           m->min_align_exp);
        }
        float part = (float)c; /* S <= 24 bits: exact */
        if (per_chunk) part = part * sa[q] * sb[q];
        d = d + part;
    }
    if (!per_chunk) d = d * sa[0] * sb[0];
    return d;
}

/* The port's output: the same chunks through gv_bfma_dot. */
static float port_dot(const gv_bfma_model *m, const float *a, const float *b, int k, int chunk,
                      const float *sa, const float *sb, bool per_chunk)
{
    float d = 0.0f;
    for (int c0 = 0, q = 0; c0 < k; c0 += chunk, q++) {
        int len = k - c0 < chunk ? k - c0 : chunk;
        float part = gv_bfma_dot(m, a + c0, b + c0, len, 0.0f);
        if (per_chunk) part = part * sa[q] * sb[q];
        d = d + part;
    }
    if (!per_chunk) d = d * sa[0] * sb[0];
    return d;
}

/* A random normal value of f (sign, exponent in [e0, e1], every significand bit random), or
   zero one time in 16. */
static float rnd(uint64_t s, const gv_bfma_format *f, int e0, int e1)
{
    uint64_t r = mix(s);
    if ((r & 15) == 0) return 0.0f;
    int e = e0 + (int)((r >> 4) % (uint64_t)(e1 - e0 + 1));
    double v = 1 + ldexp((double)((r >> 12) % (1ull << (f->sig_bits - 1))), -(f->sig_bits - 1));
    return (float)ldexp((r >> 60) & 1 ? -v : v, e);
}

/* The power of two 2^g by which group `group` of operand `operand` is stored below its
   quantised values: g in [-3, 3], so that the groups' scales differ. */
static int group_shift(uint64_t seed, int operand, int64_t group)
{
    return (int)(mix(seed ^ ((uint64_t)(operand + 1) << 40) ^ (uint64_t)group) % 7) - 3;
}

/* The descales 2^-g of output (i, j): per chunk of K (blockwise) or the row's and column's. */
static void descales(const gk_fp8_recipe *rc8, uint64_t seed, int64_t i, int64_t j, int64_t M,
                     int k, int chunk, int64_t nq, float *sa, float *sb)
{
    for (int64_t c = 0; c < nq; c++) {
        sa[c] = ldexpf(1.0f, -group_shift(seed, 0, gk_fp8_amax_index(rc8, 0, i, c * chunk, M, k)));
        sb[c] = ldexpf(1.0f, -group_shift(seed, 1, gk_fp8_amax_index(rc8, 1, c * chunk, j, M, k)));
    }
}

/* One scaled replay's setting and buffers: the recipe, the model, the operands' formats, the
   chunks, and the quantised operands (qa, qb, by row and by column) with their scaled copies
   (A, B) and the op's product C (M x M, of which the leading side x side are judged). */
typedef struct scaled_replay {
    gk_fp8_recipe rc8;
    gv_bfma_model m;
    const gv_bfma_format *fa_fmt, *fb_fmt;
    uint64_t seed;
    int k, chunk;
    bool per_chunk;
    int64_t side, M, nq;
    float *qa, *qb;
    double *A, *B, *C;
} scaled_replay;

/* Row i of A and column j of B (qa, qb: the quantised values, by row and by column). In every
   128-block of K, position 0 holds A's anchors (B zero there) and position 1 B's (A zero
   there): each of them is the format's largest finite value target times 2^-g of its group, so
   every group's amax is its anchor and its scale target / amax exactly 2^g (abi/gemm.h's
   groups, any of the three), and every other value, a random normal fp8 value below target/2
   stored times 2^-g, quantises back to itself. The anchors meet only zeros: they add zero
   products, which the blocks leave out. */
static void scaled_operands(scaled_replay *s)
{
    int k = s->k;
    int64_t M = s->M;
    uint64_t seed = s->seed;
    double ta = 448.0, tb = s->rc8.e5m2_b ? 57344.0 : 448.0;
    for (int64_t i = 0; i < M; i++)
        for (int l = 0; l < k; l++) {
            int pos = l % GK_FP8_BLOCK_K;
            int ga = group_shift(seed, 0, gk_fp8_amax_index(&s->rc8, 0, i, l, M, k));
            int gb = group_shift(seed, 1, gk_fp8_amax_index(&s->rc8, 1, l, i, M, k));
            uint64_t q = (uint64_t)(i * k + l);
            float va = pos == 0   ? (float)ta
                       : pos == 1 ? 0.0f
                                  : rnd(seed * 0x100000001b3ull + q * 2, s->fa_fmt, -2, 7);
            float vb = pos == 1   ? (float)tb
                       : pos == 0 ? 0.0f
                                  : rnd(seed * 0x100000001b3ull + q * 2 + 1, s->fb_fmt, -2, 7);
            s->qa[i * k + l] = va;
            s->qb[i * k + l] = vb;
            s->A[i * k + l] = ldexp(va, -ga);
            s->B[(int64_t)l * M + i] = ldexp(vb, -gb);
        }
}

/* Output (i, j) as the two models compute it: want[0] the block-FMA port's, want[1] the
   second model's. */
static void model_dots(const scaled_replay *s, int64_t i, int64_t j, float want[2])
{
    float sa[GV_REPLAY_MAX_CHUNKS], sb[GV_REPLAY_MAX_CHUNKS];
    descales(&s->rc8, s->seed, i, j, s->M, s->k, s->chunk, s->nq, sa, sb);
    const float *a = s->qa + i * s->k, *b = s->qb + j * s->k;
    want[0] = port_dot(&s->m, a, b, s->k, s->chunk, sa, sb, s->per_chunk);
    want[1] = km25_dot(&s->m, a, b, s->k, s->chunk, sa, sb, s->per_chunk);
}

/* The op's outputs against both models, bit for bit: r[0] the port's count of agreements and
   first disagreement, r[1] the second model's. */
static void scaled_judge(const scaled_replay *s, int promote, gv_replay_result r[2])
{
    int64_t side = s->side, M = s->M;
    int64_t agree[2] = {0, 0}, first[2] = {-1, -1};
#pragma omp parallel for reduction(+ : agree[:2]) schedule(dynamic, 64)
    for (int64_t q = 0; q < side * side; q++) {
        int64_t i = q / side, j = q % side;
        float want[2];
        model_dots(s, i, j, want);
        float got = (float)s->C[i * M + j];
        for (int w = 0; w < 2; w++) {
            if (memcmp(&want[w], &got, sizeof got) == 0) {
                agree[w]++;
                continue;
            }
#pragma omp critical
            if (first[w] < 0 || q < first[w]) first[w] = q;
        }
    }
    static const char *const names[2] = {"block-FMA port", "exact sums (second model)"};
    for (int w = 0; w < 2; w++) {
        r[w] = (gv_replay_result){.k = s->k,
                                  .promote = promote,
                                  .dots = side * side,
                                  .agree = agree[w],
                                  .first_index = first[w],
                                  .model = names[w]};
        if (first[w] >= 0) {
            int64_t i = first[w] / side, j = first[w] % side;
            float want[2];
            model_dots(s, i, j, want);
            r[w].first_got = s->C[i * M + j];
            r[w].first_model = want[w];
        }
    }
}

int gv_replay_scaled_run(gv_mode mode, const gv_bfma_model *e4m3, gv_fp_gemm_fn gemm, void *ctx,
                         int k, int promote, int64_t dots, uint64_t seed, gv_replay_result r[2],
                         char *why, size_t len)
{
    scaled_replay s = {.seed = seed, .k = k};
    memset(r, 0, 2 * sizeof *r);
    if (!gk_fp8_recipe_of(mode, GK_FP8_HONEST, &s.rc8) || k < GK_FP8_BLOCK_K ||
        k % GK_FP8_BLOCK_K != 0) {
        snprintf(why, len, "no scaled replay of mode %s at k = %d", gv_mode_name(mode), k);
        return GV_EINVAL;
    }
    s.m = gv_replay_fp8_any(e4m3);
    const gv_bfma_model *e5 = gv_bfma_find(e4m3->sm, "e5m2");
    if (s.rc8.e5m2_b && !e5) {
        snprintf(why, len, "no published e5m2 model for sm_%d", e4m3->sm);
        return GV_EINVAL;
    }
    s.fa_fmt = &e4m3->in;
    s.fb_fmt = s.rc8.e5m2_b ? &e5->in : s.fa_fmt;
    s.chunk = promote > 0 ? promote : k;
    s.per_chunk = s.rc8.group_a == GK_FP8_BLOCK;
    s.side = (int64_t)ceil(sqrt((double)dots));
    s.M = (s.side + 15) / 16 * 16;
    s.nq = (k + s.chunk - 1) / s.chunk;
    if (s.nq > GV_REPLAY_MAX_CHUNKS) {
        snprintf(why, len, "a scaled replay of k = %d in chunks of %d: more than %d chunks", k,
                 s.chunk, GV_REPLAY_MAX_CHUNKS);
        return GV_EINVAL;
    }
    int64_t M = s.M;
    s.qa = calloc((size_t)(M * k), sizeof *s.qa);
    s.qb = calloc((size_t)(M * k), sizeof *s.qb);
    s.A = calloc((size_t)(M * k), sizeof *s.A);
    s.B = calloc((size_t)(M * k), sizeof *s.B);
    s.C = calloc((size_t)(M * M), sizeof *s.C);
    int rc = GV_ENOMEM;
    if (!s.qa || !s.qb || !s.A || !s.B || !s.C) {
        snprintf(why, len, "no host memory for the replay of %lld dot products", (long long)dots);
    } else {
        scaled_operands(&s);
        rc = gemm(ctx, M, k, M, s.A, s.B, s.C, why, len);
        if (rc == GV_OK) scaled_judge(&s, promote, r);
    }
    free(s.qa);
    free(s.qb);
    free(s.A);
    free(s.B);
    free(s.C);
    return rc;
}
