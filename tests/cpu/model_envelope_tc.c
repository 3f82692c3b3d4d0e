/* model_envelope_tc.c: the envelope of a tensor-core mode on the user's own data
 * (src/core/envelope_tc.h; docs/error-models.md, "Tensor-core modes on given inputs").
 *
 * First the engine's fast replay of the block-FMA model (operands split once, products once a
 * block, each split-K order from them) against the port itself, gv_bfma_dot, bit for bit.
 * Then structured families (written here as generators: an orthonormal DCT-II basis times its
 * transpose, banded Gaussian filters over smooth signals, prefix sums of ordered data, heavy
 * cancellation, uniform [-1, 1), small integers) handed to gemm.cublas under the modes tf32,
 * bf16, f16 and f16acc as given inputs, with an output computed here:
 *   - correct, each of which must PASS: the mode's block-FMA model (gv_bfma_dot, in k order)
 *     and, independently of the port, the operands rounded to the mode's bits by this file's
 *     own rounding then an f32 FMA chain in blocks of 32 (a TF32 product on CUDA cores);
 *   - impostors, each of which must FAIL where it differs from the model and name what it
 *     matches: bf16 operands under the tf32 label (the model of bf16), tf32 under bf16, plain
 *     f32 (the mode not in effect) under every label;
 *   - f16acc: an f32 accumulation lies within f16 accumulation's wide envelope, but its outputs
 *     are no binary16 values, which f16acc cannot return: that FAILs;
 *   - where an impostor's bits are the model's (small integers: tf32, bf16 and f32 products
 *     exact), it PASSes and the row says the two agree exactly on these inputs.
 * fp8 (e4m3, one scale per tensor) likewise against Hopper's fp8 path: the e4m3 block model
 * summed in chunks of 128 products promoted into f32, the product descaled; its correct
 * kernels (k order, split-K) PASS, bf16 behind the fp8 label, fp8 behind the bf16 label, plain
 * f32 and fp8 without promotion (cuBLASLt's fast accumulation) FAIL naming what they match.
 * The architectures without a model, and fp8 where its promotion interval was not measured,
 * keep today's rules and say why. */
#include <criterion/criterion.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuval.h"
#include "core/bfma.h"
#include "core/envelope.h"
#include "core/envelope_tc.h"
#include "core/inputs.h"
#include "ops/gemm_fp8.h"
#include "core/knobs.h"
#include "testkit.h"
#include "envelope_kit.h"

TestSuite(model_envelope_tc, .init = envelope_on);

/* ---- the fast replay against the port ----------------------------------------------------- */

/* a random value of the model's input format, exponents in [-4, 3], zero one time in 16 */
static float rnd_in(const gv_bfma_model *m, uint64_t *s)
{
    uint64_t r = mix(s);
    if ((r & 15) == 0) return 0.0f;
    double v = ldexp(1.0 + unif(s), (int)((r >> 4) % 8) - 4);
    return gv_bfma_round_to(&m->in, (float)((r >> 40) & 1 ? -v : v), GV_BFMA_RN);
}

static float out_add(const gv_bfma_model *m, float a, float b)
{
    if (m->out.sig_bits == 24) return a + b;
    return gv_bfma_round_to(&m->out, (float)((double)a + (double)b), GV_BFMA_RN);
}

Test(model_envelope_tc, fast_replay_is_the_port)
{
    static const char *const fmts[] = {"tf32", "f16", "bf16", "f16acc"};
    static const int sms[] = {70, 80, 89, 90, 100};
    static const int ks[] = {1, 7, 8, 33, 100, 256, 1000};
    static const int slices[GV_ENV_TC_NORD] = {1, 2, 4, 8, 16, 32, 64};
    uint64_t s = 42;
    int checked = 0;
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        for (size_t q = 0; q < sizeof sms / sizeof sms[0]; q++) {
            const gv_bfma_model *m = gv_bfma_find(sms[q], fmts[f]);
            if (!m) continue;
            for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++) {
                int k = ks[kk];
                float a[1000], b[1000];
                gv_bfma_operand sa[1000], sb[1000];
                for (int rep = 0; rep < 20; rep++) {
                    for (int l = 0; l < k; l++) {
                        a[l] = rnd_in(m, &s), b[l] = rnd_in(m, &s);
                        gv_bfma_split_in(m, a[l], &sa[l]);
                        gv_bfma_split_in(m, b[l], &sb[l]);
                    }
                    double res[GV_ENV_TC_NORD];
                    gv_env_tc_dot(m, sa, sb, k, res);
                    for (int v = 0; v < GV_ENV_TC_NORD; v++) {
                        /* slices of whole blocks, each a chain of its own from 0 */
                        int blocks = (k + m->block - 1) / m->block;
                        int per = (blocks + slices[v] - 1) / slices[v];
                        int len = (per < 1 ? 1 : per) * m->block;
                        float tot = 0.0f;
                        for (int l0 = 0; l0 < k; l0 += len) {
                            int n = k - l0 < len ? k - l0 : len;
                            float part = gv_bfma_dot(m, a + l0, b + l0, n, 0.0f);
                            tot = l0 == 0 ? part : out_add(m, tot, part);
                        }
                        cr_assert(res[v] == (double)tot || (isnan(res[v]) && isnan(tot)),
                                  "sm_%d %s k=%d slices %d: fast %.9g, the port %.9g", sms[q],
                                  fmts[f], k, slices[v], res[v], (double)tot);
                        checked++;
                    }
                }
            }
        }
    cr_assert_gt(checked, 1000);
}

/* ---- the families --------------------------------------------------------------------------- */

enum { F_DCT, F_BAND, F_PREFIX, F_CANCEL, F_UNIFORM, F_SMALLINT, NFAM };
static const char *const fam_names[NFAM] = {"DCT Q Q^T",
                                            "banded Gaussian x smooth",
                                            "prefix sums of ordered data",
                                            "cancellation x, -x+small",
                                            "uniform [-1,1)",
                                            "small integers"};

/* A (m x k) and B (k x n) of family fam, rounded to f32 */
static void make_family(int fam, int64_t m, int64_t k, int64_t n, double *a, double *b)
{
    uint64_t s = 1000003u + (uint64_t)fam;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            double v;
            switch (fam) {
            case F_DCT: v = dct(i, l, k); break;
            case F_BAND: {
                double c = ((double)i + 0.5) * (double)k / (double)m, sg = (double)k / 64.0;
                double t = ((double)l - c) / sg;
                v = fabs(t) <= 3.0 ? exp(-0.5 * t * t) / (sg * sqrt(2.0 * M_PI)) : 0.0;
                break;
            }
            case F_PREFIX: v = l < (i + 1) * k / m ? 1.0 : 0.0; break;
            case F_CANCEL: {
                int64_t h = k / 2, ll = l < h ? l : l - h;
                uint64_t t = (uint64_t)(i * k + ll) * 7919u;
                double u = 0.5 + 0.5 * unif(&t);
                v = l < h ? u : -u;
                break;
            }
            case F_UNIFORM: v = 2.0 * unif(&s) - 1.0; break;
            default: v = (double)((int64_t)(mix(&s) % 17) - 8); break;
            }
            a[i * k + l] = (float)v;
        }
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            double v, x = (double)l / (double)k;
            switch (fam) {
            case F_DCT: v = dct(j, l, k); break;
            case F_BAND:
                v = 1.0 + 0.5 * sin(2.0 * M_PI * (1.0 + 0.3 * (double)j) * x + 0.1 * (double)j) +
                    0.25 * x;
                break;
            case F_PREFIX: v = ((double)l + unif(&s)) / (double)k * (double)(j + 1); break;
            case F_CANCEL: {
                int64_t h = k / 2, ll = l < h ? l : l - h;
                uint64_t t = (uint64_t)(ll * n + j) * 104729u;
                double vv = 0.5 + 0.5 * unif(&t);
                v = l < h ? vv : vv + 1e-3 * (2.0 * unif(&s) - 1.0);
                break;
            }
            case F_UNIFORM: v = 2.0 * unif(&s) - 1.0; break;
            default: v = (double)((int64_t)(mix(&s) % 17) - 8); break;
            }
            b[l * n + j] = (float)v;
        }
}

/* ---- the "device" --------------------------------------------------------------------------- */

typedef enum kern {
    K_MODEL,   /* the claimed mode's block-FMA model, in k order (fp8: promoted every 128) */
    K_ROUND32, /* operands rounded to the mode's bits here, f32 FMA chains over blocks of 32 */
    K_SPLIT2,  /* fp8: the promoted chunks in two contiguous slices (split-K), each its own f32
                  accumulator, the partials added */
    I_MODEL,   /* another mode's model behind the label (bf16 under tf32, tf32 under bf16,
                  bf16 under f16, f16 with f32 accumulation under f16acc, bf16 under fp8) */
    I_F32,     /* plain f32: the mode not in effect (FMA chain in k order) */
    I_FP8,     /* under bf16: fp8 (e4m3, per-tensor scales, promoted every 128) */
    I_FAST,    /* under fp8: its sums never promoted (cuBLASLt's fast accumulation) */
    NKERN
} kern;
static const char *const kern_names[NKERN] = {
    "the mode's model", "rounded operands, f32 blocks", "fp8 split-K, 2 slices", "another model",
    "plain f32",        "fp8 under the label",          "fp8 without promotion"};

/* Whether kernel q is run under the claimed mode: f16acc's and fp8's accumulation is not f32,
   so no f32 block order of theirs is a correct kernel; the fp8 kernels where they belong. */
static bool kern_applies(gv_mode claimed, kern q)
{
    if (q == K_ROUND32) return claimed != GV_MODE_F16ACC && claimed != GV_MODE_FP8;
    if (q == K_SPLIT2 || q == I_FAST) return claimed == GV_MODE_FP8;
    if (q == I_FP8) return claimed == GV_MODE_BF16;
    return true;
}

static gv_mode impostor_mode(gv_mode claimed)
{
    switch (claimed) {
    case GV_MODE_TF32: return GV_MODE_BF16;
    case GV_MODE_BF16: return GV_MODE_TF32;
    case GV_MODE_F16: return GV_MODE_BF16;
    case GV_MODE_FP8: return GV_MODE_BF16;
    default: return GV_MODE_F16; /* under f16acc */
    }
}

/* the name the FAIL must carry for an impostor */
static const char *impostor_name(gv_mode claimed, kern q)
{
    /* f16 accumulation's envelope is as wide as its 11 bits: an f32 accumulation lies inside
       it, but its outputs are no f16 values, which f16acc cannot return */
    if (claimed == GV_MODE_F16ACC) return "are no binary16 values";
    if (q == I_F32) return "consistent with f32 in any order";
    if (q == I_FP8) return "consistent with fp8 tensor cores (e4m3";
    if (q == I_FAST) return "consistent with fp8 tensor cores without promotion";
    switch (impostor_mode(claimed)) {
    case GV_MODE_BF16: return "consistent with bf16 tensor cores";
    case GV_MODE_TF32: return "consistent with tf32 tensor cores";
    default: return "consistent with f16 tensor cores on";
    }
}

/* fp8's kernel, emulated apart from the envelope's replay: A and B quantised by
   src/ops/gemm_fp8.c's per-tensor recipe (the reference side of kernels/gemm.cu's), each
   output a chain of Hopper's e4m3 blocks (gv_bfma_dot) over chunks of `promote` products from
   0, each chunk added into an f32 accumulator (slices of them: split-K), then (da db) acc in
   f32; promote 0: one chain over all of k, never promoted. */
static void emulate_fp8(const double *A, const double *B, int64_t m, int64_t k, int64_t n,
                        int64_t promote, int slices, float *out)
{
    const gk_fp8_recipe r = {
        GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, 0, 0, 0, 0};
    const gv_bfma_model *mod = gv_bfma_find(90, "e4m3");
    cr_assert_not_null(mod);
    double *qa = gv_test_alloc(m * k), *qb = gv_test_alloc(k * n);
    float da, db;
    cr_assert_eq(gv_fp8_quantise(&r, 0, m, k, n, A, qa, &da, NULL), GV_OK);
    cr_assert_eq(gv_fp8_quantise(&r, 1, m, k, n, B, qb, &db, NULL), GV_OK);
    float *a = malloc(sizeof *a * (size_t)(m * k)), *bt = malloc(sizeof *bt * (size_t)(k * n));
    cr_assert(a && bt);
    for (int64_t i = 0; i < m * k; i++)
        a[i] = (float)qa[i];
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++)
            bt[j * k + l] = (float)qb[l * n + j];
    const int64_t chunk = promote ? promote : k, chunks = (k + chunk - 1) / chunk;
    const int64_t per = (chunks + slices - 1) / slices; /* chunks a slice */
#pragma omp parallel for schedule(static)
    for (int64_t at = 0; at < m * n; at++) {
        const float *x = a + (at / n) * k, *y = bt + (at % n) * k;
        float tot = 0.0f, acc = 0.0f;
        for (int64_t q = 0; q < chunks; q++) {
            if (q > 0 && q % per == 0) tot = q == per ? acc : tot + acc, acc = 0.0f;
            int64_t l0 = q * chunk, len = k - l0 < chunk ? k - l0 : chunk;
            acc += gv_bfma_dot(mod, x + l0, y + l0, (int)len, 0.0f);
        }
        tot = chunks > per ? tot + acc : acc;
        out[at] = da * db * tot;
    }
    free(qa);
    free(qb);
    free(a);
    free(bt);
}

static const char *fmt_of(gv_mode m)
{
    return gv_mode_get(m)->bfma;
}

/* C = A B by kernel q under the claimed mode, on sm's models */
static void emulate(const double *A, const double *B, int64_t m, int64_t k, int64_t n,
                    gv_mode claimed, int sm, kern q, float *out)
{
    gv_mode mode = q == I_MODEL ? impostor_mode(claimed) : claimed;
    if (q == I_FP8 || q == I_FAST || q == K_SPLIT2 || (mode == GV_MODE_FP8 && q == K_MODEL)) {
        emulate_fp8(A, B, m, k, n, q == I_FAST ? 0 : 128, q == K_SPLIT2 ? 2 : 1, out);
        return;
    }
    const gv_bfma_model *mod = gv_bfma_find(sm, fmt_of(mode));
    cr_assert_not_null(mod);
    int bits = gv_mode_get(mode)->input_bits;
    float *a = malloc(sizeof *a * (size_t)(m * k)), *bt = malloc(sizeof *bt * (size_t)(k * n));
    cr_assert(a && bt);
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            double v = A[i * k + l];
            a[i * k + l] = q == I_F32       ? (float)v
                           : q == K_ROUND32 ? (float)round_bits(v, bits)
                                            : gv_bfma_round_to(&mod->in, (float)v, GV_BFMA_RN);
        }
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            double v = B[l * n + j];
            bt[j * k + l] = q == I_F32       ? (float)v
                            : q == K_ROUND32 ? (float)round_bits(v, bits)
                                             : gv_bfma_round_to(&mod->in, (float)v, GV_BFMA_RN);
        }
#pragma omp parallel for schedule(static)
    for (int64_t at = 0; at < m * n; at++) {
        const float *x = a + (at / n) * k, *y = bt + (at % n) * k;
        float acc = 0.0f;
        if (q == I_F32) {
            for (int64_t l = 0; l < k; l++)
                acc = fmaf(x[l], y[l], acc);
        } else if (q == K_ROUND32) {
            for (int64_t b0 = 0; b0 < k; b0 += 32) {
                float part = 0.0f;
                for (int64_t l = b0; l < k && l < b0 + 32; l++)
                    part = fmaf(x[l], y[l], part);
                acc = acc + part;
            }
        } else {
            acc = gv_bfma_dot(mod, x, y, (int)k, 0.0f);
        }
        out[at] = acc;
    }
    free(a);
    free(bt);
}

/* gemm.cublas under mode at m x k x n with A, B as given inputs and out as the outputs,
   judged on sm's models (0: the default) */
static gv_result judge(const double *A, const double *B, int64_t m, int64_t k, int64_t n,
                       gv_mode mode, int sm, const float *out)
{
    gv_case c =
        gv_test_case("gemm.cublas", GV_F32, mode, GV_DIST_UNIFORM01, (gv_shape){3, {m, k, n}}, 0);
    float *a = malloc(sizeof *a * (size_t)(m * k)), *b = malloc(sizeof *b * (size_t)(k * n));
    cr_assert(a && b);
    for (int64_t i = 0; i < m * k; i++)
        a[i] = (float)A[i];
    for (int64_t i = 0; i < k * n; i++)
        b[i] = (float)B[i];
    gv_given_inputs g = {2, {a, b}, {m * k, k * n}, GV_INPUTS_GIVEN};
    gv_result r;
    gv_problem p;
    gv_result_init(&r, &c);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_problem_given(&p, &g, &r), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gv_result_order_free(&r);
    r.env.arch = sm;
    memcpy(p.out[0].data, out, sizeof *out * (size_t)(m * n));
    gv_judge_problem(&p, &r);
    gv_problem_free(&p);
    free(a);
    free(b);
    return r;
}

/* impostors the envelope could not tell from the claimed arithmetic (said in the row) */
static int unseen;

static void run_family(int fam, gv_mode mode, int64_t k)
{
    const int64_t m = 24, n = 24;
    double *A = gv_test_alloc(m * k), *B = gv_test_alloc(k * n);
    make_family(fam, m, k, n, A, B);
    float *model = malloc(sizeof(float) * (size_t)(m * n)),
          *out = malloc(sizeof(float) * (size_t)(m * n));
    cr_assert(model && out);
    emulate(A, B, m, k, n, mode, 90, K_MODEL, model);
    char line[1200];
    int len = snprintf(line, sizeof line, "%-28s %-6s K=%-5lld", fam_names[fam], gv_mode_name(mode),
                       (long long)k);
    for (int q = 0; q < NKERN; q++) {
        if (!kern_applies(mode, (kern)q)) continue;
        emulate(A, B, m, k, n, mode, 90, (kern)q, out);
        gv_result r = judge(A, B, m, k, n, mode, 0, out);
        cr_assert(r.env.judged, "%s %s: envelope not judged: %s", fam_names[fam],
                  gv_mode_name(mode), r.env.why_not);
        bool differs = memcmp(out, model, sizeof(float) * (size_t)(m * n)) != 0;
        if (q <= K_SPLIT2) {
            cr_expect_eq(r.verdict, GV_PASS, "%s %s K=%lld %s: a correct output got %s (%s)",
                         fam_names[fam], gv_mode_name(mode), (long long)k, kern_names[q],
                         gv_verdict_name(r.verdict), r.reason);
        } else if (differs && r.verdict == GV_PASS) {
            /* every output within both envelopes: the verdict cannot see which ran, and the
               row must say so rather than pass silently */
            cr_expect(strstr(r.env.note, "these outputs do not tell it from") != NULL,
                      "%s %s K=%lld %s: an impostor PASSed silently: %s", fam_names[fam],
                      gv_mode_name(mode), (long long)k, kern_names[q], r.env.note);
            cr_expect_eq(r.env.arith[0].share, 1.0);
            unseen++;
        } else if (differs) {
            cr_expect_eq(r.verdict, GV_FAIL, "%s %s K=%lld %s: an impostor got %s (%s) [%s]",
                         fam_names[fam], gv_mode_name(mode), (long long)k, kern_names[q],
                         gv_verdict_name(r.verdict), r.reason, r.env.note);
            /* plain f32 gives bf16's bits where every product is exact in both (small
               integers under fp8's label): either name is the arithmetic it computed */
            bool as_other = false;
            if (q == I_F32 && mode == GV_MODE_FP8) {
                float *other = malloc(sizeof(float) * (size_t)(m * n));
                cr_assert_not_null(other);
                emulate(A, B, m, k, n, mode, 90, I_MODEL, other);
                as_other = memcmp(other, out, sizeof(float) * (size_t)(m * n)) == 0 &&
                           strstr(r.reason, impostor_name(mode, I_MODEL)) != NULL;
                free(other);
            }
            cr_expect(as_other || strstr(r.reason, impostor_name(mode, (kern)q)) != NULL,
                      "%s %s K=%lld %s: the FAIL does not name '%s': %s", fam_names[fam],
                      gv_mode_name(mode), (long long)k, kern_names[q], impostor_name(mode, (kern)q),
                      r.reason);
        } else {
            cr_expect_eq(r.verdict, GV_PASS, "%s: %s", kern_names[q], r.reason);
            cr_expect(strstr(r.env.note, "agree exactly on these inputs") != NULL, "%s %s: %s",
                      gv_mode_name(mode), kern_names[q], r.env.note);
        }
        if (len > 0 && (size_t)len < sizeof line)
            len +=
                snprintf(line + len, sizeof line - (size_t)len, "\n    %-30s %s%s d_max %.3g; %s",
                         kern_names[q], gv_verdict_name(r.verdict),
                         q > K_SPLIT2 && !differs ? " (same bits)" : "", r.env.d_max, r.env.note);
    }
    emit(line);
    free(A);
    free(B);
    free(model);
    free(out);
}

static void run_mode(gv_mode mode)
{
    static const int64_t ks[] = {256, 4096};
    unseen = 0;
    for (int fam = 0; fam < NFAM; fam++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            run_family(fam, mode, ks[i]);
    char line[160];
    snprintf(line, sizeof line, "%s: %d differing impostor outputs within the envelope (said so)",
             gv_mode_name(mode), unseen);
    emit(line);
    /* at most the f32 impostor at K = 4096 on a family or two: a blind envelope fails here */
    cr_expect_leq(unseen, 2, "%s: %d impostors not seen", gv_mode_name(mode), unseen);
}

Test(model_envelope_tc, families_tf32, .timeout = 600)
{
    run_mode(GV_MODE_TF32);
}
Test(model_envelope_tc, families_bf16, .timeout = 600)
{
    run_mode(GV_MODE_BF16);
}
Test(model_envelope_tc, families_f16, .timeout = 600)
{
    run_mode(GV_MODE_F16);
}
Test(model_envelope_tc, families_f16acc, .timeout = 600)
{
    run_mode(GV_MODE_F16ACC);
}
Test(model_envelope_tc, families_fp8, .timeout = 600)
{
    run_mode(GV_MODE_FP8);
}

/* The envelope's fp8 operands are src/ops/gemm_fp8.c's per-tensor quantisation (the
   reference side of kernels/gemm.cu's): the same e4m3 values and descale, on data with a
   value past the saturation (amax's own) and subnormal ones. */
Test(model_envelope_tc, fp8_operands_are_the_recipe)
{
    const int64_t m = 37, k = 300, n = 29;
    double *A = gv_test_alloc(m * k), *B = gv_test_alloc(k * n);
    uint64_t s = 77;
    for (int64_t i = 0; i < m * k; i++)
        A[i] = (float)ldexp(2.0 * unif(&s) - 1.0, (int)(mix(&s) % 24) - 12);
    for (int64_t i = 0; i < k * n; i++)
        B[i] = (float)(3.0 * unif(&s) - 1.0);
    const gv_bfma_model *mod = gv_env_tc_model(GV_MODE_FP8, 90, (char[96]){0}, 96);
    cr_assert_not_null(mod);
    const gk_fp8_recipe r = {
        GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, GK_FP8_TENSOR, 0, 0, 0, 0};
    for (int operand = 0; operand < 2; operand++) {
        const double *x = operand ? B : A;
        int64_t rows = operand ? k : m, cols = operand ? n : k;
        double *q = gv_test_alloc(rows * cols);
        float ds;
        cr_assert_eq(gv_fp8_quantise(&r, operand, m, k, n, x, q, &ds, NULL), GV_OK);
        gv_env_tc_operand o;
        cr_assert_eq(gv_env_tc_operand_make(mod, x, rows, cols, operand == 1, true, &o), GV_OK);
        cr_expect_eq(o.descale, ds, "operand %d: descale %a, the recipe's %a", operand,
                     (double)o.descale, (double)ds);
        int64_t same = 0;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                float v = o.v[operand ? j * rows + i : i * cols + j];
                same += (double)v == q[i * cols + j];
            }
        cr_expect_eq(same, rows * cols, "operand %d: %lld of %lld values the recipe's", operand,
                     (long long)same, (long long)(rows * cols));
        gv_env_tc_operand_free(&o);
        free(q);
    }
    free(A);
    free(B);
}

/* Generated inputs keep today's models; fp8 and an architecture without the mode's model say
   why the envelope does not judge them. */
Test(model_envelope_tc, where_it_does_not_apply, .timeout = 120)
{
    const int64_t m = 16, k = 256, n = 16;
    double *A = gv_test_alloc(m * k), *B = gv_test_alloc(k * n);
    make_family(F_UNIFORM, m, k, n, A, B);
    float *out = malloc(sizeof(float) * (size_t)(m * n));
    cr_assert_not_null(out);
    emulate(A, B, m, k, n, GV_MODE_TF32, 90, K_MODEL, out);
    /* fp8 where its promotion interval was not measured (Ada: its block is published, how
       often cuBLASLt promotes there is not) */
    gv_result fp8 = judge(A, B, m, k, n, GV_MODE_FP8, 89, out);
    cr_assert_not(fp8.env.judged);
    cr_assert(strstr(fp8.env.why_not, "no measured promotion interval for sm_89") != NULL, "%s",
              fp8.env.why_not);
    gv_result fp8_90 = judge(A, B, m, k, n, GV_MODE_FP8, 0, out);
    cr_assert(fp8_90.env.judged, "%s", fp8_90.env.why_not);
    gv_result v100 = judge(A, B, m, k, n, GV_MODE_TF32, 70, out); /* V100: no TF32 */
    cr_assert_not(v100.env.judged);
    cr_assert(strstr(v100.env.why_not, "no published tf32 model for sm_70") != NULL, "%s",
              v100.env.why_not);
    gv_result a100 = judge(A, B, m, k, n, GV_MODE_TF32, 80, out);
    cr_assert(a100.env.judged, "%s", a100.env.why_not);
    cr_assert(strstr(a100.env.claimed, "sm_80") != NULL, "%s", a100.env.claimed);

    /* generated inputs: the models of gpuval's own inputs judge, as before */
    gv_case c = gv_test_case("gemm.cublas", GV_F32, GV_MODE_TF32, GV_DIST_UNIFORM11,
                             (gv_shape){3, {m, k, n}}, 1);
    gv_problem p;
    gv_result r;
    gv_result_init(&r, &c);
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    gv_judge_problem(&p, &r);
    cr_assert_not(r.env.judged);
    cr_assert(strstr(r.env.why_not, "generated inputs") != NULL, "%s", r.env.why_not);
    gv_problem_free(&p);
    free(A);
    free(B);
    free(out);
}

/* The budget's case: 256 x 4096 x 256 under tf32, the envelope's own time on this machine's
   threads (tf32 and bf16 models with 7 orders each and 22 f32 orders over their operands, and
   plain f32's 22). */
Test(model_envelope_tc, time_256x4096x256, .timeout = 600)
{
    const int64_t m = 256, k = 4096, n = 256;
    double *A = gv_test_alloc(m * k), *B = gv_test_alloc(k * n);
    make_family(F_UNIFORM, m, k, n, A, B);
    float *out = malloc(sizeof(float) * (size_t)(m * n));
    cr_assert_not_null(out);
    emulate(A, B, m, k, n, GV_MODE_TF32, 90, K_ROUND32, out);
    gv_result r = judge(A, B, m, k, n, GV_MODE_TF32, 0, out);
    cr_assert_eq(r.verdict, GV_PASS, "%s", r.reason);
    char line[600];
    snprintf(line, sizeof line, "256x4096x256 tf32: envelope %.0f ms on %d threads; %s", r.env.ms,
             omp_get_max_threads(), r.env.note);
    emit(line);
    free(A);
    free(B);
    free(out);
}

/* ---- fp8row: one scale per row of A and column of B -------------------------------------- */

/* fp8row's kernel emulated apart from the envelope: A and B quantised by src/ops/gemm_fp8.c
   under recipe (fp8row's own, or a plant's: per-tensor amax in every row's slot, unit
   scales), each output a chain of e4m3 blocks over chunks of 128 products promoted into f32
   (slices: split-K), then (da_i db_j) acc in f32. */
static void emulate_fp8row(const double *A, const double *B, int64_t m, int64_t k, int64_t n,
                           int plant, int slices, float *out)
{
    gk_fp8_recipe r;
    cr_assert(gk_fp8_recipe_of(GV_MODE_FP8ROW, plant, &r));
    const gv_bfma_model *mod = gv_bfma_find(90, "e4m3");
    cr_assert_not_null(mod);
    double *qa = gv_test_alloc(m * k), *qb = gv_test_alloc(k * n);
    float *da = malloc(sizeof *da * (size_t)m), *db = malloc(sizeof *db * (size_t)n);
    cr_assert(da && db);
    cr_assert_eq(gk_fp8_scale_count(r.group_a, 0, m, k, n), m);
    cr_assert_eq(gk_fp8_scale_count(r.group_b, 1, m, k, n), n);
    cr_assert_eq(gv_fp8_quantise(&r, 0, m, k, n, A, qa, da, NULL), GV_OK);
    cr_assert_eq(gv_fp8_quantise(&r, 1, m, k, n, B, qb, db, NULL), GV_OK);
    float *a = malloc(sizeof *a * (size_t)(m * k)), *bt = malloc(sizeof *bt * (size_t)(k * n));
    cr_assert(a && bt);
    for (int64_t i = 0; i < m * k; i++)
        a[i] = (float)qa[i];
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++)
            bt[j * k + l] = (float)qb[l * n + j];
    const int64_t chunk = 128, chunks = (k + chunk - 1) / chunk;
    const int64_t per = (chunks + slices - 1) / slices;
    for (int64_t at = 0; at < m * n; at++) {
        const float *x = a + (at / n) * k, *y = bt + (at % n) * k;
        float tot = 0.0f, acc = 0.0f;
        for (int64_t q = 0; q < chunks; q++) {
            if (q > 0 && q % per == 0) tot = q == per ? acc : tot + acc, acc = 0.0f;
            int64_t l0 = q * chunk, len = k - l0 < chunk ? k - l0 : chunk;
            acc += gv_bfma_dot(mod, x + l0, y + l0, (int)len, 0.0f);
        }
        tot = chunks > per ? tot + acc : acc;
        out[at] = da[at / n] * db[at % n] * tot;
    }
    free(qa);
    free(qb);
    free(da);
    free(db);
    free(a);
    free(bt);
}

/* fp8row judged on the envelope (it was judged by the worst case only): on rows and columns
   whose magnitudes differ by 2^-4 a row (A) and 2^-3 a column (B), fp8row's own kernel PASSes
   in k order and split-K; the same operands scaled per tensor (gemm.cublas.fp8rowtensor's
   recipe: small rows flushed toward e4m3's subnormals) and not scaled at all
   (gemm.cublas.fp8noscale) FAIL, each named; fp8blk and fp8e5m2 say why they are not judged. */
Test(model_envelope_tc, fp8row_scales_per_row, .timeout = 300)
{
    const int64_t m = 16, k = 512, n = 12;
    double *A = gv_test_alloc(m * k), *B = gv_test_alloc(k * n);
    float *out = malloc(sizeof *out * (size_t)(m * n));
    cr_assert_not_null(out);
    uint64_t s = 4242;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
            A[i * k + l] = (float)ldexp(2.0 * unif(&s) - 1.0, -4 * (int)i);
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++)
            B[l * n + j] = (float)ldexp(unif(&s), -3 * (int)j);
    static const struct {
        int plant, slices;
        const char *name, *match; /* match: NULL, a PASS */
    } runs[] = {
        {GK_FP8_HONEST, 1, "fp8row, k order", NULL},
        {GK_FP8_HONEST, 2, "fp8row, split-K 2", NULL},
        {GK_FP8_ROWTENSOR, 1, "scaled per tensor", "per-tensor scales"},
        {GK_FP8_NOSCALE, 1, "not scaled", "without scales"},
    };
    for (size_t q = 0; q < sizeof runs / sizeof runs[0]; q++) {
        emulate_fp8row(A, B, m, k, n, runs[q].plant, runs[q].slices, out);
        gv_result r = judge(A, B, m, k, n, GV_MODE_FP8ROW, 0, out);
        char line[900];
        snprintf(line, sizeof line, "fp8row %-18s %s d_max %.3g: %s | %s", runs[q].name,
                 gv_verdict_name(r.verdict), r.env.d_max, r.reason, r.env.note);
        emit(line);
        cr_assert(r.env.judged, "%s", r.env.why_not);
        if (!runs[q].match) {
            cr_expect_eq(r.verdict, GV_PASS, "%s", line);
        } else {
            cr_expect_eq(r.verdict, GV_FAIL, "%s", line);
            cr_expect(strstr(r.reason, "consistent with fp8 tensor cores") != NULL, "%s", line);
            cr_expect(strstr(r.env.note, runs[q].match) != NULL, "%s", line);
        }
    }
    static const gv_mode unmodelled[] = {GV_MODE_FP8BLK, GV_MODE_FP8E5M2};
    for (size_t q = 0; q < 2; q++) {
        gv_result r = judge(A, B, m, k, n, unmodelled[q], 0, out);
        cr_expect_not(r.env.judged);
        cr_expect(strstr(r.env.why_not, gv_mode_name(unmodelled[q])) != NULL, "%s", r.env.why_not);
    }
    free(out);
    free(A);
    free(B);
}
