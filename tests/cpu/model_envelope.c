/* model_envelope.c: the envelope of the claimed arithmetic on the user's own data
 * (src/core/envelope.h; docs/error-models.md, "The envelope of the claimed arithmetic").
 *
 * Structured families, built here as test-data generators (eight kinds: an orthonormal DCT-II
 * basis times its transpose, the same basis summed over frequencies (its transpose times
 * itself), basis functions K/32 apart in frequency (their products alias to near-constant
 * under a round-robin split-K), banded Gaussian filters over smooth signals, prefix sums of ordered data, heavy
 * cancellation x and -x + small, uniform [-1, 1), and small integers, exact in TF32), at f32
 * and f64 and K from 256 to 8192, are handed to gemm.cublas as given inputs (the step check
 * --inputs, gpuval judge and gv_judge take) with an output computed on the CPU by an emulated
 * kernel:
 *   - correct kernels, every one of which must PASS: the FMA chain in k order, the unfused
 *     chain (a volatile product: no flag can fuse it), blocks of 32, a recursive pairwise tree,
 *     the FMA chain in reverse order, cuBLAS's two split-K orders as measured on an H100 (16
 *     slices over tiles of 8 terms dealt round-robin; 4 contiguous slices; each slice an FMA
 *     chain, the partials added in slice order), split-k in three uneven chunks, sliced-K
 *     (tiles of 16 dealt to two chains), a random binary tree, and 12 slices over tiles of 16
 *     dealt round-robin. The last four are orders the envelope does not compute: they measure
 *     its slack.
 *   - impostors, each of which must FAIL wherever its output differs from the in-order FMA
 *     kernel's, at every K (at 8192 TF32's and 40-bit operands' per-element errors lie inside
 *     the order-free width, and their operand-rounding signature FAILs them), naming the
 *     arithmetic it matches: TF32-rounded and bf16-rounded operands with
 *     f32 accumulation, an accumulation that rounds toward zero (fesetround in this thread),
 *     f64 from operands rounded to 40 bits; where it does not differ (small integers), it PASSes
 *     and the row says that the two arithmetics agree exactly on these inputs.
 * And sums: a sequential f32 sum of 10^6 uniform [0, 1) values judged as reduce.sum PASSes
 * (so do blocked, pairwise and tree sums), the same sum rounding toward zero FAILs; column
 * sums likewise. The envelope's verdicts do not depend on the thread count; GPUVAL_ENVELOPE=0
 * turns it off (the TF32 impostor then PASSes, as before); generated inputs are untouched.
 * The numbers (distances, shares, times) go to the log for the docs.
 *
 * Float loops: C11 makes GCC keep -ffp-contract=off; the unfused products go through a
 * volatile float anyway, and the fused steps call fmaf/fma explicitly. */
#include <criterion/criterion.h>
#include <fenv.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpuval.h"
#include "core/envelope.h"
#include "core/inputs.h"
#include "core/knobs.h"
#include "io/run_doc.h"
#include "testkit.h"
#include "envelope_kit.h"

TestSuite(model_envelope, .init = envelope_on);

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- the families, in f64 (rounded to the case's dtype when handed in) ------------------- */

typedef struct dataset {
    const char *name;
    int64_t m, k, n;
    double *a, *b; /* A m x k, B k x n, row-major */
} dataset;

enum { F_DCT, F_DCT_T, F_DCT_SPREAD, F_BAND, F_PREFIX, F_CANCEL, F_UNIFORM, F_SMALLINT, NFAM };
static const char *const fam_names[NFAM] = {
    "DCT Q Q^T",        "DCT Q^T Q (over frequencies)", "DCT, frequencies K/32 apart",
    "banded Gaussian filter x smooth",
    "prefix sums of ordered data", "cancellation x, -x+small", "uniform [-1,1)",
    "small integers (exact in TF32)"};

/* Frequencies K/32 apart plus a small offset: sampled at a stride of 128 or 256 terms (the
   slices of a split-K that deals tiles round-robin), products of two such rows alias to nearly
   constant, so each slice's partial is large and the slices cancel only in the final sum, the
   case where a correct cuBLAS product once fell outside the modelled orders. */
static int64_t spread_freq(int64_t i, int64_t mod, int64_t k)
{
    return (i * (k / 32) + i % mod) % k;
}

static void make_family(int fam, int64_t m, int64_t k, int64_t n, uint64_t seed, dataset *d)
{
    *d = (dataset){fam_names[fam], m, k, n, gv_test_alloc(m * k), gv_test_alloc(k * n)};
    uint64_t s = seed * 1000003u + (uint64_t)fam;
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            double v = 0.0;
            switch (fam) {
            case F_DCT: v = dct(i, l, k); break;            /* rows: basis functions */
            case F_DCT_T: v = dct(l, i, k); break;          /* rows: samples over frequencies */
            case F_DCT_SPREAD: v = dct(spread_freq(i, 3, k), l, k); break;
            case F_BAND: {                                  /* Gaussian, sigma K/64, 3 sigma */
                double c = ((double)i + 0.5) * (double)k / (double)m, sg = (double)k / 64.0;
                double t = ((double)l - c) / sg;
                v = fabs(t) <= 3.0 ? exp(-0.5 * t * t) / (sg * sqrt(2.0 * M_PI)) : 0.0;
                break;
            }
            case F_PREFIX: v = l < (i + 1) * k / m ? 1.0 : 0.0; break;
            case F_CANCEL: {
                int64_t h = k / 2, ll = l < h ? l : l - h;
                uint64_t t = seed + (uint64_t)(i * k + ll) * 7919u;
                double u = 0.5 + 0.5 * unif(&t);
                v = l < h ? u : -u;
                break;
            }
            case F_UNIFORM: v = 2.0 * unif(&s) - 1.0; break;
            default: v = (double)((int64_t)(mix(&s) % 17) - 8); break;
            }
            d->a[i * k + l] = v;
        }
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            double v = 0.0, x = (double)l / (double)k;
            switch (fam) {
            case F_DCT: v = dct(j, l, k); break;
            case F_DCT_T: v = dct(l, j, k); break;
            case F_DCT_SPREAD: v = dct(spread_freq(j, 5, k), l, k); break;
            case F_BAND:
                v = 1.0 + 0.5 * sin(2.0 * M_PI * (1.0 + 0.3 * (double)j) * x + 0.1 * (double)j) +
                    0.25 * x;
                break;
            case F_PREFIX: v = ((double)l + unif(&s)) / (double)k * (double)(j + 1); break;
            case F_CANCEL: {
                int64_t h = k / 2, ll = l < h ? l : l - h;
                uint64_t t = seed * 31u + (uint64_t)(ll * n + j) * 104729u;
                double vv = 0.5 + 0.5 * unif(&t);
                v = l < h ? vv : vv + 1e-3 * (2.0 * unif(&s) - 1.0);
                break;
            }
            case F_UNIFORM: v = 2.0 * unif(&s) - 1.0; break;
            default: v = (double)((int64_t)(mix(&s) % 17) - 8); break;
            }
            d->b[l * n + j] = v;
        }
}

static void dataset_free(dataset *d)
{
    free(d->a);
    free(d->b);
}

/* ---- the "device": correct kernels and impostors, emulated ------------------------------ */

typedef enum kern {
    K_FMA, K_UNFUSED, K_BLOCK32, K_PAIRWISE, K_REVERSE, K_CUBLAS_RR, K_CUBLAS_C4, /* correct */
    K_SPLITK, K_SLICED, K_RTREE, K_RR12,
    I_TF32, I_BF16, I_RZ, I_OP40, /* impostors */
    NKERN
} kern;
#define NCORRECT 11
static const char *const kern_names[NKERN] = {
    "fma k-order", "unfused k-order", "blocked 32", "pairwise (recursive)", "fma reversed",
    "cuBLAS split-K 16 x tiles of 8", "cuBLAS split-K 4 slices", "split-k 3 uneven",
    "sliced-K 2x16", "random tree", "split-K 12 x tiles of 16", "tf32 operands",
    "bf16 operands", "RZ accumulation", "f64 from 40-bit operands"};
/* the words the FAIL must name for each impostor */
static const char *const kern_match[NKERN] = {
    [I_TF32] = "tf32 operands", [I_BF16] = "bf16 operands",
    [I_RZ] = "round-toward-zero", [I_OP40] = "40-bit operands"};

/* One kernel on one dot product (x, y contiguous, k terms), in float and in double. */
#define KERNELS(T, S, FMA)                                                                         \
    static T S##_tree(const T *p, int64_t n, uint64_t *rs)                                         \
    {                                                                                              \
        if (n == 1) return p[0];                                                                   \
        int64_t h = rs ? 1 + (int64_t)(mix(rs) % (uint64_t)(n - 1)) : n / 2;                      \
        T l = S##_tree(p, h, rs), r = S##_tree(p + h, n - h, rs);                                  \
        return l + r;                                                                              \
    }                                                                                              \
    static T S##_chain(const T *x, const T *y, int64_t from, int64_t to)                           \
    {                                                                                              \
        T acc = 0;                                                                                 \
        for (int64_t l = from; l < to; l++)                                                        \
            acc = FMA(x[l], y[l], acc);                                                            \
        return acc;                                                                                \
    }                                                                                              \
    static __attribute__((noinline)) T S##_kernel(kern q, const T *x, const T *y, int64_t k,      \
                                                  T *tmp, uint64_t seed)                          \
    {                                                                                              \
        T acc = 0;                                                                                 \
        switch (q) {                                                                               \
        case K_UNFUSED:                                                                            \
            for (int64_t l = 0; l < k; l++) {                                                      \
                volatile T prod = x[l] * y[l];                                                     \
                acc = acc + prod;                                                                  \
            }                                                                                      \
            return acc;                                                                            \
        case K_BLOCK32:                                                                            \
            for (int64_t b = 0; b < k; b += 32)                                                    \
                acc = acc + S##_chain(x, y, b, b + 32 < k ? b + 32 : k);                          \
            return acc;                                                                            \
        case K_PAIRWISE:                                                                           \
        case K_RTREE: {                                                                            \
            for (int64_t l = 0; l < k; l++) {                                                      \
                volatile T prod = x[l] * y[l];                                                     \
                tmp[l] = prod;                                                                     \
            }                                                                                      \
            uint64_t rs = seed;                                                                    \
            return S##_tree(tmp, k, q == K_RTREE ? &rs : NULL);                                    \
        }                                                                                          \
        case K_REVERSE:                                                                            \
            for (int64_t l = k - 1; l >= 0; l--)                                                   \
                acc = FMA(x[l], y[l], acc);                                                        \
            return acc;                                                                            \
        case K_SPLITK: {                                                                           \
            int64_t c1 = k / 3 + 5 < k ? k / 3 + 5 : k, c2 = (2 * k) / 3 > c1 ? (2 * k) / 3 : c1;  \
            T p0 = S##_chain(x, y, 0, c1), p1 = S##_chain(x, y, c1, c2),                          \
              p2 = S##_chain(x, y, c2, k);                                                         \
            return (p0 + p1) + p2;                                                                 \
        }                                                                                          \
        case K_CUBLAS_RR:                                                                          \
        case K_RR12: {                                                                             \
            int slices = q == K_CUBLAS_RR ? 16 : 12, tile = q == K_CUBLAS_RR ? 8 : 16;             \
            T s[16] = {0};                                                                         \
            for (int64_t l = 0; l < k; l++)                                                        \
                s[(l / tile) % slices] = FMA(x[l], y[l], s[(l / tile) % slices]);                  \
            int64_t used = (k + tile - 1) / tile < slices ? (k + tile - 1) / tile : slices;        \
            acc = s[0];                                                                            \
            for (int64_t i = 1; i < used; i++)                                                     \
                acc = acc + s[i];                                                                  \
            return acc;                                                                            \
        }                                                                                          \
        case K_CUBLAS_C4: {                                                                        \
            int64_t len = (k + 3) / 4;                                                             \
            acc = S##_chain(x, y, 0, len < k ? len : k);                                           \
            for (int64_t b = len; b < k; b += len)                                                 \
                acc = acc + S##_chain(x, y, b, b + len < k ? b + len : k);                         \
            return acc;                                                                            \
        }                                                                                          \
        case K_SLICED: {                                                                           \
            T s[4] = {0, 0, 0, 0};                                                                 \
            for (int64_t t = 0; t * 16 < k; t++)                                                   \
                for (int64_t l = t * 16; l < t * 16 + 16 && l < k; l++)                           \
                    s[t % 2] = FMA(x[l], y[l], s[t % 2]);                                          \
            return s[0] + s[1];                                                                    \
        }                                                                                          \
        default: /* K_FMA and every impostor: the chain on (rounded) operands */                  \
            return S##_chain(x, y, 0, k);                                                          \
        }                                                                                          \
    }
KERNELS(float, f32, fmaf)
KERNELS(double, f64, fma)

/* C = A B by kernel q from p's inputs (their f64 values, exact copies of the dtype's) into out
   (the case's dtype). */
static void emulate(const gv_problem *p, kern q, void *out)
{
    int64_t m = p->c.shape.d[0], k = p->c.shape.d[1], n = p->c.shape.d[2];
    bool f32 = p->c.dtype == GV_F32;
    int bits = q == I_TF32 ? 11 : q == I_BF16 ? 8 : q == I_OP40 ? 40 : 0;
    size_t es = f32 ? sizeof(float) : sizeof(double);
    void *a = malloc(es * (size_t)(m * k)), *bt = malloc(es * (size_t)(k * n)),
         *tmp = malloc(es * (size_t)k);
    cr_assert(a && bt && tmp);
    for (int64_t i = 0; i < m * k; i++) {
        double v = bits ? round_bits(p->in[0].ref[i], bits) : p->in[0].ref[i];
        if (f32) ((float *)a)[i] = (float)v;
        else ((double *)a)[i] = v;
    }
    for (int64_t l = 0; l < k; l++)
        for (int64_t j = 0; j < n; j++) {
            double v = p->in[1].ref[l * n + j];
            if (bits) v = round_bits(v, bits);
            if (f32) ((float *)bt)[j * k + l] = (float)v;
            else ((double *)bt)[j * k + l] = v;
        }
    int saved = fegetround();
    if (q == I_RZ) fesetround(FE_TOWARDZERO);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            uint64_t seed = (uint64_t)(i * n + j) + 12345u;
            double c = f32 ? (double)f32_kernel(q, (float *)a + i * k, (float *)bt + j * k, k,
                                                tmp, seed)
                           : f64_kernel(q, (double *)a + i * k, (double *)bt + j * k, k, tmp,
                                        seed);
            gv_dtype_store(p->c.dtype, out, i * n + j, c);
        }
    fesetround(saved);
    free(a);
    free(bt);
    free(tmp);
}

/* p: gemm.cublas native at d's shape, d's arrays as given inputs, with its oracle; r started
   with GIVEN inputs. */
static void given_problem(const dataset *d, gv_dtype t, gv_problem *p, gv_result *r)
{
    gv_case c = gv_test_case("gemm.cublas", t, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                             (gv_shape){3, {d->m, d->k, d->n}}, 0);
    size_t es = gv_dtype_size(t);
    void *a = malloc(es * (size_t)(d->m * d->k)), *b = malloc(es * (size_t)(d->k * d->n));
    cr_assert(a && b);
    gv_dtype_store_n(t, a, d->a, d->m * d->k);
    gv_dtype_store_n(t, b, d->b, d->k * d->n);
    gv_given_inputs g = {2, {a, b}, {d->m * d->k, d->k * d->n}, GV_INPUTS_GIVEN};
    gv_result_init(r, &c);
    cr_assert_eq(gv_problem_init(p, &c), GV_OK);
    cr_assert_eq(gv_problem_given(p, &g, r), GV_OK);
    cr_assert_eq(gv_reference(p), GV_OK);
    free(a);
    free(b);
}

static double share_of(const gv_result *r, const char *key)
{
    for (int a = 0; a < r->env.n_arith; a++)
        if (strcmp(r->env.arith[a].key, key) == 0) return r->env.arith[a].share;
    return NAN;
}

/* the correct kernels' largest signature |z| and |beta| over a run_dtype (beta where at least
   GV_ENV_SIG_MIN_N elements have D != 0) */
static double g_sig_z, g_sig_beta;

/* Every kernel on one family at one dtype and K: correct ones PASS, impostors FAIL where they
   differ from the in-order FMA kernel and name their arithmetic; the numbers to the log.
   Returns the largest distance of a correct kernel. */
static double run_family(int fam, gv_dtype t, int64_t k, double *env_ms)
{
    const int64_t m = 32, n = 32;
    dataset d;
    make_family(fam, m, k, n, 7, &d);
    gv_problem p;
    gv_result r0;
    given_problem(&d, t, &p, &r0);
    size_t bytes = gv_dtype_size(t) * (size_t)(m * n);
    void *ref_out = malloc(bytes);
    cr_assert_not_null(ref_out);
    emulate(&p, K_FMA, ref_out);
    double worst_correct = 0.0, worst_z = 0.0, sig_z = 0.0, sig_beta = 0.0;
    char line[1400];
    int len = 0;
    for (int q = 0; q < NKERN; q++) {
        bool correct = q < NCORRECT;
        if (t == GV_F32 && q == I_OP40) continue;
        if (t == GV_F64 && (q == I_TF32 || q == I_BF16)) continue;
        emulate(&p, (kern)q, p.out[0].data);
        gv_result r = r0;
        gv_judge_problem(&p, &r);
        *env_ms += r.env.ms;
        cr_assert(r.env.judged, "%s: envelope not judged: %s", kern_names[q], r.env.why_not);
        bool differs = memcmp(p.out[0].data, ref_out, bytes) != 0;
        if (correct) {
            cr_expect_eq(r.verdict, GV_PASS, "%s %s K=%lld %s: a correct kernel got %s (%s)",
                         fam_names[fam], gv_dtype_name(t), (long long)k, kern_names[q],
                         gv_verdict_name(r.verdict), r.reason);
            if (r.env.d_max > worst_correct) worst_correct = r.env.d_max;
            double z = fmax(fabs(r.env.z), fabs(r.env.z_sr));
            if (z > worst_z) worst_z = z;
            for (int s = 0; s < r.env.n_sig; s++) {
                cr_expect(!r.env.sig[s].significant, "%s %s K=%lld %s: a correct kernel carries "
                          "%s's signature (beta %g, z %g)", fam_names[fam], gv_dtype_name(t),
                          (long long)k, kern_names[q], r.env.sig[s].name, r.env.sig[s].beta,
                          r.env.sig[s].z);
                sig_z = fmax(sig_z, fabs(r.env.sig[s].z));
                if (r.env.sig[s].n >= GV_ENV_SIG_MIN_N)
                    sig_beta = fmax(sig_beta, fabs(r.env.sig[s].beta));
            }
            if (sig_z > g_sig_z) g_sig_z = sig_z;
            if (sig_beta > g_sig_beta) g_sig_beta = sig_beta;
        } else if (differs) {
            cr_expect_eq(r.verdict, GV_FAIL, "%s %s K=%lld %s: an impostor got %s (%s) [%s]",
                         fam_names[fam], gv_dtype_name(t), (long long)k, kern_names[q],
                         gv_verdict_name(r.verdict), r.reason, r.env.note);
            cr_expect(strstr(r.reason, kern_match[q]) != NULL,
                      "%s %s K=%lld %s: the FAIL does not name '%s': %s", fam_names[fam],
                      gv_dtype_name(t), (long long)k, kern_names[q], kern_match[q], r.reason);
        } else {
            /* the same bits as a correct kernel: it PASSes, and the row says the two agree
               and that the operand format leaves no signature (D = 0 on every element) */
            cr_expect_eq(r.verdict, GV_PASS, "%s: %s", kern_names[q], r.reason);
            cr_expect(strstr(r.env.note, "agree exactly on these inputs") != NULL, "%s: %s",
                      kern_names[q], r.env.note);
            if (q != I_RZ)
                cr_expect(strstr(r.env.note, "leave no rounding signature") != NULL, "%s: %s",
                          kern_names[q], r.env.note);
        }
        if (!correct && len >= 0 && (size_t)len < sizeof line)
            len += snprintf(line + len, sizeof line - (size_t)len,
                            "\n    %-24s %s%s d_max %.3g, share f%s %.3g %%, best %s, "
                            "signature %s beta %.3g z %.3g (%s D %.3g sigma)",
                            kern_names[q], gv_verdict_name(r.verdict),
                            differs ? "" : " (same bits)", r.env.d_max,
                            t == GV_F32 ? "32" : "64", 100.0 * r.env.arith[0].share,
                            r.env.arith[r.env.best].name,
                            r.env.sig_best >= 0 ? r.env.sig[r.env.sig_best].key : "-",
                            r.env.sig_best >= 0 ? r.env.sig[r.env.sig_best].beta : 0.0,
                            r.env.sig_best >= 0 ? r.env.sig[r.env.sig_best].z : 0.0,
                            r.env.n_sig ? r.env.sig[0].key : "-",
                            r.env.n_sig ? r.env.sig[0].d_sigma : 0.0);
    }
    char head[256];
    snprintf(head, sizeof head,
             "%-32s %s K=%-5lld correct kernels: max distance %.3g widths, max |z| %.2g, "
             "signature max |z| %.2g, max |beta| %.2g",
             d.name, gv_dtype_name(t), (long long)k, worst_correct, worst_z, sig_z, sig_beta);
    char all[1800];
    snprintf(all, sizeof all, "%s%s", head, line);
    emit(all);
    (void)share_of;
    free(ref_out);
    gv_problem_free(&p);
    dataset_free(&d);
    return worst_correct;
}

static void run_dtype(gv_dtype t, const int64_t *ks, int nk)
{
    g_sig_z = g_sig_beta = 0.0;
    double worst = 0.0, ms = 0.0, t0 = now_ms();
    for (int fam = 0; fam < NFAM; fam++)
        for (int q = 0; q < nk; q++) {
            double w = run_family(fam, t, ks[q], &ms);
            if (w > worst) worst = w;
        }
    char line[256];
    snprintf(line, sizeof line,
             "%s: every correct kernel's largest distance %.3g widths (bound %.0f); signature "
             "max |z| %.3g (bound %.0f), max |beta| %.3g (bound %.1f); envelope time %.0f ms of "
             "%.0f ms",
             gv_dtype_name(t), worst, GV_ENV_BOUND, g_sig_z, GV_ENV_SIG_Z, g_sig_beta,
             GV_ENV_SIG_BETA, ms, now_ms() - t0);
    emit(line);
}

static const int64_t ks_small[] = {256, 1024, 4096};
static const int64_t ks_large[] = {8192};

Test(model_envelope, families_f32, .timeout = 600)
{
    run_dtype(GV_F32, ks_small, 3);
}

Test(model_envelope, families_f64, .timeout = 600)
{
    run_dtype(GV_F64, ks_small, 3);
}

Test(model_envelope, families_k8192, .timeout = 600)
{
    run_dtype(GV_F32, ks_large, 1);
    run_dtype(GV_F64, ks_large, 1);
}

/* Small integers in [-8, 8], one entry in 16 moved by +-off: a narrower format rounds only
   those moves away, so its D is sparse; with off 2^-14 (f32) or 2^-42 (f64) D is larger than
   the correct kernels' own rounding, with 2^-20 or 2^-49 far smaller (D tiny). The correct
   kernels must PASS with no significant signature either way; the impostors are logged (with
   D tiny their outputs lie within the correct ones' noise). */
static void near_exact(int64_t m, int64_t k, int64_t n, bool f32, bool tiny, dataset *d)
{
    *d = (dataset){tiny ? "small integers, sparse offsets (D tiny)"
                        : "small integers, sparse offsets",
                   m, k, n, gv_test_alloc(m * k), gv_test_alloc(k * n)};
    uint64_t s = 4242;
    const double off = f32 ? (tiny ? 0x1p-20 : 0x1p-14) : (tiny ? 0x1p-49 : 0x1p-42);
    for (int64_t i = 0; i < m * k + k * n; i++) {
        double v = (double)((int64_t)(mix(&s) % 17) - 8);
        if (mix(&s) % 16 == 0) v += mix(&s) % 2 ? off : -off;
        if (i < m * k)
            d->a[i] = v;
        else
            d->b[i - m * k] = v;
    }
}

Test(model_envelope, signature_tiny_d, .timeout = 600)
{
    static const int64_t ks[] = {1024, 8192};
    for (int f = 0; f < 4; f++)
        for (int q0 = 0; q0 < 2; q0++) {
            const gv_dtype t = f % 2 == 0 ? GV_F32 : GV_F64;
            dataset d;
            near_exact(32, ks[q0], 32, t == GV_F32, f >= 2, &d);
            gv_problem p;
            gv_result r0;
            given_problem(&d, t, &p, &r0);
            double sz = 0.0, sb = 0.0;
            int64_t dn = 0;
            double dsig = 0.0;
            char line[1400];
            int len = 0;
            for (int q = 0; q < NKERN; q++) {
                if (t == GV_F32 && q == I_OP40) continue;
                if (t == GV_F64 && (q == I_TF32 || q == I_BF16)) continue;
                emulate(&p, (kern)q, p.out[0].data);
                gv_result r = r0;
                gv_judge_problem(&p, &r);
                cr_assert(r.env.judged, "%s", r.env.why_not);
                if (q < NCORRECT) {
                    cr_expect_eq(r.verdict, GV_PASS, "%s %s K=%lld: %s", kern_names[q],
                                 gv_dtype_name(t), (long long)ks[q0], r.reason);
                    for (int s = 0; s < r.env.n_sig; s++) {
                        sz = fmax(sz, fabs(r.env.sig[s].z));
                        sb = fmax(sb, fabs(r.env.sig[s].beta));
                        if (r.env.sig[s].n > dn) dn = r.env.sig[s].n;
                        if (s == 0) dsig = r.env.sig[s].d_sigma;
                        cr_expect(!r.env.sig[s].significant, "%s: %s", kern_names[q], r.reason);
                    }
                } else if (len >= 0 && (size_t)len < sizeof line) {
                    len += snprintf(line + len, sizeof line - (size_t)len,
                                    "\n    %-24s %s: %s", kern_names[q],
                                    gv_verdict_name(r.verdict), r.reason);
                }
            }
            char head[1800];
            snprintf(head, sizeof head,
                     "%s %s K=%lld: correct kernels' signature max |z| %.3g, max |beta| %.3g "
                     "(elements with D != 0: up to %lld; %s D %.3g sigma)%s",
                     d.name, gv_dtype_name(t), (long long)ks[q0], sz, sb, (long long)dn,
                     t == GV_F32 ? "tf32" : "op40", dsig,
                     len > 0 ? line : "");
            emit(head);
            gv_problem_free(&p);
            dataset_free(&d);
        }
}

/* ---- sums: reduce.sum and reduce.colsum on given data ------------------------------------ */

typedef enum sumk { S_SEQ, S_BLOCK64, S_PAIRWISE, S_STRIDE_TREE, S_RZ, NSUMK } sumk;
static const char *const sumk_names[NSUMK] = {"sequential", "blocks of 64", "pairwise",
                                              "GPU-like tree (stride halving, 256 threads)",
                                              "sequential rounding toward zero"};

static __attribute__((noinline)) float sum_by(sumk q, const float *x, int64_t n, float *tmp)
{
    float acc = 0.0f;
    switch (q) {
    case S_BLOCK64:
        for (int64_t b = 0; b < n; b += 64) {
            float part = 0.0f;
            for (int64_t l = b; l < b + 64 && l < n; l++)
                part = part + x[l];
            acc = acc + part;
        }
        return acc;
    case S_PAIRWISE: return f32_tree(x, n, NULL);
    case S_STRIDE_TREE: { /* 256 threads stride through x, then a shared-memory tree */
        for (int t = 0; t < 256; t++) {
            tmp[t] = 0.0f;
            for (int64_t l = t; l < n; l += 256)
                tmp[t] = tmp[t] + x[l];
        }
        for (int s = 128; s > 0; s >>= 1)
            for (int t = 0; t < s; t++)
                tmp[t] = tmp[t] + tmp[t + s];
        return tmp[0];
    }
    default: /* S_SEQ, S_RZ (the caller sets the rounding) */
        for (int64_t l = 0; l < n; l++)
            acc = acc + x[l];
        return acc;
    }
}

/* Judge column sums of the given rows x cols f32 array x (cols 1: reduce.sum of rows values)
   computed by q. */
static gv_result judge_sum(const float *x, int64_t rows, int64_t cols, sumk q)
{
    gv_case c = cols == 1 ? gv_test_case("reduce.sum", GV_F32, GV_MODE_NATIVE, GV_DIST_UNIFORM01,
                                         (gv_shape){1, {rows}}, 0)
                          : gv_test_case("reduce.colsum", GV_F32, GV_MODE_NATIVE,
                                         GV_DIST_UNIFORM01, (gv_shape){2, {rows, cols}}, 0);
    gv_given_inputs g = {1, {x}, {rows * cols}, GV_INPUTS_GIVEN};
    gv_result r;
    gv_problem p;
    gv_result_init(&r, &c);
    gv_result_order_free(&r); /* outputs computed elsewhere, as gpuval judge takes them */
    cr_assert_eq(gv_problem_init(&p, &c), GV_OK);
    cr_assert_eq(gv_problem_given(&p, &g, &r), GV_OK);
    cr_assert_eq(gv_reference(&p), GV_OK);
    float *col = malloc(sizeof(float) * (size_t)rows), tmp[256];
    cr_assert_not_null(col);
    int saved = fegetround();
    for (int64_t j = 0; j < cols; j++) {
        for (int64_t i = 0; i < rows; i++)
            col[i] = x[i * cols + j];
        if (q == S_RZ) fesetround(FE_TOWARDZERO);
        float s = sum_by(q, col, rows, tmp);
        fesetround(saved);
        ((float *)p.out[0].data)[j] = s;
    }
    free(col);
    gv_judge_problem(&p, &r);
    gv_problem_free(&p);
    return r;
}

static void sums_of(int64_t rows, int64_t cols)
{
    float *x = malloc(sizeof(float) * (size_t)(rows * cols));
    cr_assert_not_null(x);
    uint64_t s = 99;
    for (int64_t i = 0; i < rows * cols; i++)
        x[i] = (float)unif(&s);
    for (int q = 0; q < NSUMK; q++) {
        gv_result r = judge_sum(x, rows, cols, (sumk)q);
        cr_assert(r.env.judged, "%s", r.env.why_not);
        char line[1000];
        snprintf(line, sizeof line, "%s %lld x %lld uniform [0,1) f32, %s: %s (%s) [%s] %.0f ms",
                 cols == 1 ? "reduce.sum" : "reduce.colsum", (long long)rows, (long long)cols,
                 sumk_names[q], gv_verdict_name(r.verdict), r.reason, r.env.note, r.env.ms);
        emit(line);
        if (q == S_RZ) {
            cr_expect_eq(r.verdict, GV_FAIL, "%s", line);
            cr_expect(strstr(r.reason, "round-toward-zero") != NULL, "%s", line);
        } else {
            cr_expect_eq(r.verdict, GV_PASS, "%s", line);
        }
    }
    free(x);
}

Test(model_envelope, sums_pass_rz_fails, .timeout = 300)
{
    sums_of(1000000, 1);
    sums_of(100000, 16);
}

/* ---- the knob, generated inputs, thread counts, time --------------------------------------- */

/* The TF32 impostor on uniform data (a family where the worst case cannot see it): its result
   as given (envelope on unless the knob says otherwise) and as generated. */
static gv_result judge_tf32(bool generated, int64_t m, int64_t k, int64_t n, kern q)
{
    dataset d;
    make_family(F_UNIFORM, m, k, n, 3, &d);
    gv_problem p;
    gv_result r;
    given_problem(&d, GV_F32, &p, &r);
    if (generated) gv_result_init(&r, &p.c);
    emulate(&p, q, p.out[0].data);
    gv_judge_problem(&p, &r);
    gv_problem_free(&p);
    dataset_free(&d);
    return r;
}

Test(model_envelope, knob_off_and_generated_untouched, .timeout = 120)
{
    gv_result on = judge_tf32(false, 32, 2048, 32, I_TF32);
    cr_assert_eq(on.verdict, GV_FAIL, "%s", on.reason);
    gv_result gen = judge_tf32(true, 32, 2048, 32, I_TF32);
    cr_assert_not(gen.env.judged, "generated inputs never meet the envelope");
    setenv("GPUVAL_ENVELOPE", "0", 1);
    gv_knobs_reload();
    gv_result off = judge_tf32(false, 32, 2048, 32, I_TF32);
    unsetenv("GPUVAL_ENVELOPE"); /* unset: on */
    gv_knobs_reload();
    gv_result unset = judge_tf32(false, 32, 2048, 32, I_TF32);
    cr_assert(unset.env.judged, "the envelope judges by default: %s", unset.env.why_not);
    cr_assert_eq(unset.verdict, GV_FAIL, "%s", unset.reason);
    setenv("GPUVAL_ENVELOPE", "maybe", 1); /* neither: not judged, and the row says why */
    gv_knobs_reload();
    gv_result odd = judge_tf32(false, 32, 2048, 32, I_TF32);
    cr_assert_not(odd.env.judged);
    cr_assert(strstr(odd.env.why_not, "neither on nor off") != NULL, "%s", odd.env.why_not);
    setenv("GPUVAL_ENVELOPE", "1", 1);
    gv_knobs_reload();
    cr_assert_not(off.env.judged);
    cr_assert(strstr(off.env.why_not, "GPUVAL_ENVELOPE=0") != NULL, "%s", off.env.why_not);
    /* the worst case alone, as before the envelope: blind to TF32 operands here */
    cr_assert_eq(off.verdict, GV_PASS, "%s", off.reason);
    char line[600];
    snprintf(line, sizeof line, "tf32 impostor 32x2048x32 given: %s (%s); envelope off: %s; "
             "generated: %s", gv_verdict_name(on.verdict), on.reason,
             gv_verdict_name(off.verdict), gv_verdict_name(gen.verdict));
    emit(line);
}

Test(model_envelope, thread_count_free, .timeout = 120)
{
    omp_set_num_threads(1);
    gv_result one = judge_tf32(false, 48, 1024, 40, I_RZ);
    omp_set_num_threads(2);
    gv_result two = judge_tf32(false, 48, 1024, 40, I_RZ);
    cr_assert_eq(one.env.d_max, two.env.d_max);
    cr_assert_eq(one.env.z, two.env.z);
    cr_assert_eq(one.env.z_sr, two.env.z_sr);
    cr_assert_eq(one.env.worst, two.env.worst);
    for (int a = 0; a < one.env.n_arith; a++)
        cr_assert_eq(one.env.arith[a].share, two.env.arith[a].share);
    cr_assert_str_eq(one.reason, two.reason);
}

/* The budget's case: 256 x 4096 x 256 f32, the envelope's own time on this machine's cores. */
Test(model_envelope, time_256x4096x256, .timeout = 300)
{
    gv_result r = judge_tf32(false, 256, 4096, 256, K_FMA);
    cr_assert_eq(r.verdict, GV_PASS, "%s", r.reason);
    char line[700];
    snprintf(line, sizeof line,
             "256x4096x256 f32 (22 orders x 4 arithmetics): envelope %.0f ms on %d threads; %s",
             r.env.ms, omp_get_max_threads(), r.env.note);
    emit(line);
}
